package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/tools"
)

// GlobFilesParams are the arguments of glob_files.
type GlobFilesParams struct {
	Pattern string `json:"pattern" jsonschema:"glob such as **/*.go or src/**/test_*.py; a pattern without '/' matches file names at any depth"`
	Path    string `json:"path,omitempty" jsonschema:"directory to search, relative to the project root (default: the root)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"maximum number of paths to return (default 200)"`
}

const globFilesDescription = `List the project's files whose path matches a glob (** for any depth, *, ?, [abc], {a,b}), sorted, with .gitignore rules applied; paths are relative to the project root. Use it to find files by name or extension when you know part of a file name.

` + searchOrder

func (s *Server) addGlobFiles() {
	addTool(s, &sdk.Tool{Name: "glob_files", Description: globFilesDescription, Annotations: readOnly("Find files by glob")},
		func(ctx context.Context, req *sdk.CallToolRequest, in GlobFilesParams) (string, error) {
			root := s.root(ctx, req.Session)
			res, err := tools.Glob(ctx, root, tools.GlobParams{Pattern: in.Pattern, Path: in.Path, Limit: in.Limit})
			if err != nil {
				return "", explain("glob_files", root, err)
			}
			return res.Text(), nil
		})
}
