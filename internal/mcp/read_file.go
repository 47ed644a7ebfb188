package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/tools"
)

// ReadFileParams are the arguments of read_file: the exact tool's own.
type ReadFileParams = tools.ReadParams

const readFileDescription = `Read a window of lines of one text file of the project, numbered, and say how many lines remain and the offset to continue from. Use it after grep_code, glob_files or search_code to read the code around a hit (e.g. offset = line-20, limit = 80). Paths outside the project root and binary files are refused.`

func (s *Server) addReadFile() {
	addTool(s, &sdk.Tool{Name: "read_file", Description: readFileDescription, Annotations: readOnly("Read lines of a file")},
		func(ctx context.Context, req *sdk.CallToolRequest, in ReadFileParams) (string, error) {
			root, err := s.root(ctx, req.Session)
			if err != nil {
				return "", fmt.Errorf("read_file: %w", err)
			}
			var notes []string // values the tool replaced, said rather than hidden
			if in.Offset < 0 {
				notes = append(notes, fmt.Sprintf("offset %d is below 1; 1 used", in.Offset))
			}
			if in.Limit < 0 {
				notes = append(notes, fmt.Sprintf("limit %d is below 1; the default used", in.Limit))
			}
			res, err := tools.Read(ctx, root, in)
			if err != nil {
				return "", explain("read_file", root, err)
			}
			if len(notes) > 0 {
				return "Note: " + strings.Join(notes, "; ") + ".\n" + res.Text, nil
			}
			return res.Text, nil
		})
}
