package toolset

import (
	"context"
	"fmt"

	"github.com/coderag/coderag/internal/tools"
)

// GlobFilesParams are the arguments of glob_files: the exact tool's own.
type GlobFilesParams = tools.GlobParams

var globFiles = define(GlobFiles, "Find files by glob", true,
	`List the project's files whose path matches a glob (** for any depth, *, ?, [abc], {a,b}; a pattern without '/' matches file names at any depth, e.g. *.go), sorted, with .gitignore rules applied; paths are relative to the project root. Use it to find files by name or extension when you know part of a file name.`,
	func(ctx context.Context, env *Env, c Call, in GlobFilesParams) (string, error) {
		root, err := c.Root(ctx)
		if err != nil {
			return "", fmt.Errorf("glob_files: %w", err)
		}
		in.AllowSecrets = env.allowSecrets() // never the model's to set
		glob := tools.Glob
		if env != nil && env.IndexedReads {
			glob = tools.GlobIndexed // lists only what read_file then reads
		}
		res, err := glob(ctx, root, in)
		if err != nil {
			return "", explain(GlobFiles, root, err)
		}
		return res.Text(), nil
	})
