package cli

import (
	"fmt"
	"strings"

	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/tools"
)

func init() {
	register(command{name: "grep", summary: "search file contents by regex (ripgrep when installed, else native); exact names and strings", run: runGrep})
	register(command{name: "glob", summary: "list files matching a ** glob, ignore rules applied", run: runGlob})
	register(command{name: "read", summary: "print numbered lines of a file: coderag read FILE [--offset N] [--limit N]", run: runRead})
}

// toolRoot resolves --project for the exact tools: the directory itself
// (they need no index).
func toolRoot(dir string) (string, error) {
	root, err := index.ResolveRoot(dir)
	if err != nil {
		return "", fmt.Errorf("project %s: %w", dir, err)
	}
	return root, nil
}

func runGrep(e *env, args []string) error {
	fs := newFlags(e, "grep", "[flags] PATTERN",
		`Search file contents with a regular expression (Go RE2 syntax) under the project, with the
same ignore rules as the index. Uses ripgrep (rg --json, 8 s limit) when it is on PATH, else a
native parallel search. Output is capped (per file, in all, in characters) and says when it is
partial; it ends with up to 3 suggested 'read' calls around the first matches.
Exit status, as rg and grep: 0 when a line matched, 1 when none did (or on an error), 2 for bad usage.`)
	var p tools.GrepParams
	project := fs.String("project", ".", "root directory to search")
	fs.StringVar(&p.Path, "path", "", "sub-directory or file to search, relative to the project")
	fs.StringVar(&p.Glob, "glob", "", "only files matching this glob (e.g. *.go)")
	fs.BoolVar(&p.FixedStrings, "F", false, "pattern is a literal string (also --fixed-strings)")
	fs.BoolVar(&p.FixedStrings, "fixed-strings", false, "pattern is a literal string")
	fs.BoolVar(&p.IgnoreCase, "i", false, "case-insensitive (also --ignore-case)")
	fs.BoolVar(&p.IgnoreCase, "ignore-case", false, "case-insensitive")
	fs.IntVar(&p.HeadLimit, "head-limit", 20, "maximum matches per file")
	fs.IntVar(&p.MaxResults, "max-results", 50, "maximum matches in all")
	fs.IntVar(&p.MaxChars, "max-chars", 24000, "maximum characters of output")
	fs.StringVar(&p.Engine, "engine", "auto", "auto, ripgrep or native")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one PATTERN (quote it), got %d arguments", len(pos))
	}
	p.Pattern = pos[0]
	root, err := toolRoot(*project)
	if err != nil {
		return err
	}
	res, err := tools.Grep(e.ctx, root, p)
	if err != nil {
		return err
	}
	if err := printResult(e, *asJSON, res, res.Text()); err != nil {
		return err
	}
	if len(res.Matches) == 0 {
		return errSilent // "No matches." is printed; exit 1 as rg does
	}
	return nil
}

func runGlob(e *env, args []string) error {
	fs := newFlags(e, "glob", "[flags] PATTERN",
		"List the project's files matching a glob (`**`, `*`, `?`, `[...]`, `{a,b}`), ignore rules applied, sorted.\nA pattern without '/' matches file names at any depth.")
	var p tools.GlobParams
	project := fs.String("project", ".", "root directory")
	fs.StringVar(&p.Path, "path", "", "sub-directory to list, relative to the project")
	fs.IntVar(&p.Limit, "limit", 200, "maximum paths")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one PATTERN (quote it so the shell does not expand it)")
	}
	p.Pattern = pos[0]
	root, err := toolRoot(*project)
	if err != nil {
		return err
	}
	res, err := tools.Glob(e.ctx, root, p)
	if err != nil {
		return err
	}
	return printResult(e, *asJSON, res, res.Text())
}

func runRead(e *env, args []string) error {
	fs := newFlags(e, "read", "[flags] FILE",
		"Print numbered lines of a text file inside the project, and how many lines remain.\nPaths outside the project and binary files are refused.")
	var p tools.ReadParams
	project := fs.String("project", ".", "root directory")
	fs.IntVar(&p.Offset, "offset", 1, "1-based first line")
	fs.IntVar(&p.Limit, "limit", 200, "number of lines")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one FILE")
	}
	p.Path = pos[0]
	root, err := toolRoot(*project)
	if err != nil {
		return err
	}
	res, err := tools.Read(e.ctx, root, p)
	if err != nil {
		return err
	}
	return printResult(e, *asJSON, res, res.Text)
}

// printResult writes a tool's result as JSON, or its text ending in a newline.
func printResult(e *env, asJSON bool, v any, text string) error {
	if asJSON {
		return writeJSON(e.stdout, v)
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	_, err := fmt.Fprint(e.stdout, text)
	return err
}
