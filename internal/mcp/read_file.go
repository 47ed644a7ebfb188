package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/tools"
)

// ReadFileParams are the arguments of read_file.
type ReadFileParams struct {
	Path   string `json:"path" jsonschema:"file to read, relative to the project root (or absolute inside it)"`
	Offset int    `json:"offset,omitempty" jsonschema:"1-based line to start at (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"number of lines to return (default 200, at most 2000)"`
}

const readFileDescription = `Read a window of lines of one text file of the project, numbered, and say how many lines remain and the offset to continue from. Use it after grep_code, glob_files or search_code to read the code around a hit (e.g. offset = line-20, limit = 80). Paths outside the project root and binary files are refused.

` + searchOrder

func (s *Server) addReadFile() {
	addTool(s, &sdk.Tool{Name: "read_file", Description: readFileDescription, Annotations: readOnly("Read lines of a file")},
		func(ctx context.Context, req *sdk.CallToolRequest, in ReadFileParams) (string, error) {
			root := s.root(ctx, req.Session)
			res, err := tools.Read(ctx, root, tools.ReadParams{Path: in.Path, Offset: in.Offset, Limit: in.Limit})
			if err != nil {
				return "", explain("read_file", root, err)
			}
			return res.Text, nil
		})
}
