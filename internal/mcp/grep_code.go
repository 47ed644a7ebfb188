package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/tools"
)

// GrepCodeParams are the arguments of grep_code.
type GrepCodeParams struct {
	Pattern      string `json:"pattern" jsonschema:"regular expression (Go RE2 syntax), matched within one line; set fixed_strings for literal text"`
	Path         string `json:"path,omitempty" jsonschema:"directory or file to search, relative to the project root (default: the root)"`
	Glob         string `json:"glob,omitempty" jsonschema:"only search files matching this glob, relative to path; without '/' it matches file names at any depth (e.g. *.go)"`
	FixedStrings bool   `json:"fixed_strings,omitempty" jsonschema:"treat pattern as literal text, not a regular expression"`
	IgnoreCase   bool   `json:"ignore_case,omitempty" jsonschema:"match case-insensitively"`
	HeadLimit    int    `json:"head_limit,omitempty" jsonschema:"maximum matches per file (default 20)"`
	MaxResults   int    `json:"max_results,omitempty" jsonschema:"maximum matches in all (default 50)"`
	MaxChars     int    `json:"max_chars,omitempty" jsonschema:"maximum characters of output (default 24000)"`
}

const grepCodeDescription = `Search the project's files for a regular expression, line by line (ripgrep when installed, else a built-in search; .gitignore rules apply, binaries and files over 2 MiB are skipped). Returns path, line number and text of each match, grouped by file, then up to 3 suggested read_file calls. Use it first for exact identifiers, strings, error messages and log lines.

` + searchOrder

func (s *Server) addGrepCode() {
	addTool(s, &sdk.Tool{Name: "grep_code", Description: grepCodeDescription, Annotations: readOnly("Search code by regex")},
		func(ctx context.Context, req *sdk.CallToolRequest, in GrepCodeParams) (string, error) {
			root := s.root(ctx, req.Session)
			res, err := tools.Grep(ctx, root, tools.GrepParams{Pattern: in.Pattern, Path: in.Path, Glob: in.Glob,
				FixedStrings: in.FixedStrings, IgnoreCase: in.IgnoreCase, HeadLimit: in.HeadLimit,
				MaxResults: in.MaxResults, MaxChars: in.MaxChars})
			if err != nil {
				return "", explain("grep_code", root, err)
			}
			text := res.Text()
			if len(res.Matches) == 0 {
				text += "No matches. Try a shorter pattern, ignore_case, or another spelling; after a few misses describe the code in words to search_code.\n"
			}
			return text, nil
		})
}
