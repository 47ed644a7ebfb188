package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/tools"
)

// GrepCodeParams are the arguments of grep_code: the exact tool's own
// parameters (its engine and timeout fields are not part of the schema).
type GrepCodeParams = tools.GrepParams

const grepCodeDescription = `Search the project's files for a regular expression, line by line (ripgrep when installed, else a built-in search; .gitignore rules apply, binaries and files over 2 MiB are skipped). Returns path, line number and text of each match, grouped by file, then up to 3 suggested read_file calls. Use it first for exact identifiers, strings, error messages and log lines.`

func (s *Server) addGrepCode() {
	addTool(s, &sdk.Tool{Name: "grep_code", Description: grepCodeDescription, Annotations: readOnly("Search code by regex")},
		func(ctx context.Context, req *sdk.CallToolRequest, in GrepCodeParams) (string, error) {
			root, err := s.root(ctx, req.Session)
			if err != nil {
				return "", fmt.Errorf("grep_code: %w", err)
			}
			in.Engine, in.Timeout = "", 0 // defaults: not settable by a client
			var adjusted []string         // values the tool replaces by its defaults, said rather than hidden
			for _, v := range []struct {
				name string
				n    int
			}{{"head_limit", in.HeadLimit}, {"max_results", in.MaxResults}, {"max_chars", in.MaxChars}} {
				if v.n < 0 {
					adjusted = append(adjusted, fmt.Sprintf("%s %d is below 1; the default used", v.name, v.n))
				}
			}
			res, err := tools.Grep(ctx, root, in)
			if err != nil {
				return "", explain("grep_code", root, err)
			}
			text := res.Text()
			if len(adjusted) > 0 {
				text = "Note: " + strings.Join(adjusted, "; ") + ".\n" + text
			}
			if len(res.Matches) == 0 {
				text = strings.TrimSuffix(strings.TrimRight(text, "\n"), "No matches.")
				text += "No matches. Try a shorter pattern, ignore_case, or another spelling; after a few misses describe the code in words to search_code.\n"
			}
			return text, nil
		})
}
