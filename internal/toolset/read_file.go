package toolset

import (
	"context"
	"fmt"
	"strings"

	"github.com/coderag/coderag/internal/tools"
)

// ReadFileParams are the arguments of read_file: the exact tool's own.
type ReadFileParams = tools.ReadParams

var readFile = define(ReadFile, "Read lines of a file", true,
	`Read a window of lines of one text file of the project, numbered (offset is the 1-based first line, default 1; limit the number of lines, default 200), and say how many lines remain and the offset to continue from. Use it after grep_code, glob_files or search_code to read the code around a hit (e.g. offset = line-20, limit = 80) rather than whole large files. Paths outside the project root and binary files are refused.`,
	func(ctx context.Context, env *Env, c Call, in ReadFileParams) (string, error) {
		root, err := c.Root(ctx)
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
		in.AllowSecrets = env.allowSecrets() // never the model's to set
		read := tools.Read
		if env != nil && env.IndexedReads {
			read = tools.ReadIndexed
		}
		res, err := read(ctx, root, in)
		if err != nil {
			return "", explain(ReadFile, root, err)
		}
		if len(notes) > 0 {
			return "Note: " + strings.Join(notes, "; ") + ".\n" + res.Text, nil
		}
		return res.Text, nil
	})
