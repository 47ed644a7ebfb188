package toolset

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/walk"
)

// IndexProjectParams are the arguments of index_project.
type IndexProjectParams struct {
	Path string `json:"path,omitempty" jsonschema:"directory or file to re-index, relative to the project root (default: the whole project)"`
}

// errNoEngine is the error of the index tools in a front end without an
// index database.
var errNoEngine = errors.New("no index database in this session")

var indexProject = func() *Tool {
	t := define(IndexProject, "Index the project", false,
		`Build or incrementally update the search index of the project (or of one directory of it) used by search_code: only files changed since the last run are parsed and embedded. Rarely needed, since search_code refreshes the index by itself; use it after large changes or to index ahead of time. Waits up to 20 s, then continues in the background (follow it with index_status). Only one run per project at a time: a call during a run joins it.`,
		func(ctx context.Context, env *Env, c Call, in IndexProjectParams) (string, error) {
			root, err := c.Root(ctx)
			if err != nil {
				return "", fmt.Errorf("index_project: %w", err)
			}
			eng := env.Engine
			if eng == nil {
				return "", fmt.Errorf("index_project: %w", errNoEngine)
			}
			rel, err := InsideRoot(root, in.Path)
			if err != nil {
				return "", explain(IndexProject, root, err)
			}
			scope := rel
			if rel == "." {
				scope = ""
			}
			// a path the ignore rules leave out is indexed as nothing:
			// the answer says so, and why, rather than "0 scanned"
			note := ""
			if why := excludedNote(root, scope, env.allowSecrets()); why != "" {
				note = "Nothing there is indexed: " + why + ".\n"
			}
			r, err := eng.Start(root, engine.IndexRequest{Scope: scope})
			if err != nil {
				return "", fmt.Errorf("index_project: %w", err)
			}
			finished, err := eng.Wait(ctx, root, r, c.Tick)
			if err != nil {
				return "", fmt.Errorf("index_project: %w (the run continues in the background)", err)
			}
			prefix := ""
			if r.Joined {
				prefix = "An index run was already in progress; joined it.\n"
			}
			if !finished {
				return fmt.Sprintf("%sIndexing %s continues in the background: %s. search_code works meanwhile on what is indexed so far; call index_status to follow progress.\n%s",
					prefix, root, eng.Job(root).Line(), note), nil
			}
			out := r.Outcome()
			if out == nil {
				return "", fmt.Errorf("index_project: run of %s ended without an outcome", root)
			}
			if out.CancelledComplete() {
				return fmt.Sprintf("%sIndexing %s was %s.\n", prefix, root, out.State()), nil
			}
			if out.Cancelled {
				return fmt.Sprintf("%sIndexing %s was %s changed files; what was indexed stays. index_project finishes it.\n", prefix, root, out.State()), nil
			}
			if out.Err != nil {
				return "", fmt.Errorf("index_project: indexing %s failed: %w", root, out.Err)
			}
			return prefix + reportText(out) + note, nil
		})
	t.Indexes = true
	return t
}()

// excludedNote says why an index run leaves out scope, a root-relative
// path ("" the whole project), in walk.Excluded's words: a hidden or
// built-in directory, or the ignore file that excludes it; "" when the
// index takes it (or it cannot be looked at).
func excludedNote(root, scope string, allowSecrets bool) string {
	if scope == "" {
		return ""
	}
	fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(scope)))
	if err != nil {
		return ""
	}
	return walk.Excluded(root, scope, fi.IsDir(), walk.Options{AllowSecrets: allowSecrets})
}

// reportText renders a finished run for the model.
func reportText(o *engine.Outcome) string {
	var b strings.Builder
	r := o.Report
	what := "the whole project"
	if o.Scope != "" {
		what = o.Scope
	}
	fmt.Fprintf(&b, "Indexed %s of %s with %s in %s.\n", what, r.Project, r.Embedder, r.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(&b, "files: %d scanned, %d changed, %d unchanged, %d removed, %d failed, %d skipped\n",
		r.Scanned, r.Changed, r.Unchanged, r.Removed, r.Failed, r.Skipped)
	fmt.Fprintf(&b, "written: %d chunks, %d relations\n", r.Chunks, r.Relations)
	if r.ModelChanged {
		fmt.Fprintf(&b, "%s.\n", index.ModelChangedNote(r.Embedder))
	}
	if r.Reread > 0 {
		fmt.Fprintf(&b, "%d of the changed files were parsed again only because their directory's declarations or C++ sources changed.\n", r.Reread)
	}
	for i, f := range r.Failures {
		if i == 5 {
			fmt.Fprintf(&b, "... and %d more failures\n", len(r.Failures)-i)
			break
		}
		fmt.Fprintf(&b, "failed: %s: %s\n", f.Path, oneLine(f.Err))
	}
	return b.String()
}
