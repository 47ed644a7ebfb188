package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/tools"
)

// GlobFilesParams are the arguments of glob_files: the exact tool's own.
type GlobFilesParams = tools.GlobParams

const globFilesDescription = `List the project's files whose path matches a glob (** for any depth, *, ?, [abc], {a,b}), sorted, with .gitignore rules applied; paths are relative to the project root. Use it to find files by name or extension when you know part of a file name.`

func (s *Server) addGlobFiles() {
	addTool(s, &sdk.Tool{Name: "glob_files", Description: globFilesDescription, Annotations: readOnly("Find files by glob")},
		func(ctx context.Context, req *sdk.CallToolRequest, in GlobFilesParams) (string, error) {
			root, err := s.root(ctx, req.Session)
			if err != nil {
				return "", fmt.Errorf("glob_files: %w", err)
			}
			res, err := tools.Glob(ctx, root, in)
			if err != nil {
				return "", explain("glob_files", root, err)
			}
			return res.Text(), nil
		})
}
