package toolset

import (
	"context"
	"fmt"
	"strings"

	"github.com/coderag/coderag/internal/tools"
)

// GrepCodeParams are the arguments of grep_code: the exact tool's own
// parameters (its engine and timeout fields are not part of the schema).
type GrepCodeParams = tools.GrepParams

var grepCode = define(GrepCode, "Search code by regex", true,
	`Search the project's files for a regular expression (Go RE2 syntax; set fixed_strings for literal text), line by line (ripgrep when installed, else a built-in search; .gitignore rules apply, binaries and files over 2 MiB are skipped). Returns path, line number and text of each match, grouped by file, at most head_limit per file and max_results in all (partial: true when cut: narrow path, glob or pattern rather than raising limits), then up to 3 suggested read_file calls. Use it for exact identifiers, strings, error messages and log lines.`,
	func(ctx context.Context, env *Env, c Call, in GrepCodeParams) (string, error) {
		root, err := c.Root(ctx)
		if err != nil {
			return "", fmt.Errorf("grep_code: %w", err)
		}
		in.Engine, in.Timeout = "", 0 // defaults: not settable by a caller
		var adjusted []string         // values the tool replaces by its defaults, said rather than hidden
		for _, v := range []struct {
			name string
			n    int
		}{{"head_limit", in.HeadLimit}, {"max_results", in.MaxResults}, {"max_chars", in.MaxChars}} {
			if v.n < 0 {
				adjusted = append(adjusted, fmt.Sprintf("%s %d is below 1; the default used", v.name, v.n))
			}
		}
		in.AllowSecrets = env.allowSecrets() // never the model's to set
		grep := tools.Grep
		if env != nil && env.IndexedReads {
			grep = tools.GrepIndexed
		}
		res, err := grep(ctx, root, in)
		if err != nil {
			return "", explain(GrepCode, root, err)
		}
		text := res.Text()
		if len(adjusted) > 0 {
			text = "Note: " + strings.Join(adjusted, "; ") + ".\n" + text
		}
		if len(res.Matches) == 0 && !res.Partial {
			// the note starts with "No matches." (a note on skipped
			// directories may follow it): the hint goes right after it
			hint := "No matches. Try a shorter pattern, ignore_case, or another spelling; after a few misses describe the code in words to search_code."
			if strings.Contains(text, "No matches.") {
				text = strings.Replace(text, "No matches.", hint, 1)
			} else {
				text += hint + "\n"
			}
		}
		return text, nil
	})
