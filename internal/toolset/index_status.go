package toolset

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/coderag/coderag/internal/english"
	"github.com/coderag/coderag/internal/search"
)

// IndexStatusParams are the arguments of index_status (none).
type IndexStatusParams struct{}

var indexStatus = define(IndexStatus, "Index status", true,
	`Show the state of the project's search index: project root, index database, whether indexing is running (files done/total, elapsed) or idle, what is indexed (files, chunks, relations, embedder) and the report of the last run.`,
	func(ctx context.Context, env *Env, c Call, _ IndexStatusParams) (string, error) {
		root, err := c.Root(ctx)
		if err != nil {
			return "", fmt.Errorf("index_status: %w", err)
		}
		eng := env.Engine
		if eng == nil {
			return "", fmt.Errorf("index_status: %w", errNoEngine)
		}
		ps, err := eng.Status(ctx, root)
		if err != nil {
			return "", fmt.Errorf("index_status: %w", err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "project root: %s\nindex: %s\n", root, eng.StorePath())
		js := ps.Job
		if js.Running {
			what := "whole project"
			if js.Scope != "" {
				what = js.Scope
			}
			fmt.Fprintf(&b, "state: running (%s, %s): %s\n", what, js.Embedder, js.Line())
		} else {
			b.WriteString("state: idle\n")
		}
		if !ps.Indexed {
			b.WriteString("indexed: no (search_code or index_project will index it)\n")
		} else {
			c := ps.Counts
			fmt.Fprintf(&b, "indexed: %s, %s (%d embedded), %s; embedder %s; updated %s\n",
				english.Counted(c.Files, "file"), english.Counted(c.Chunks, "chunk"), c.Embedded, english.Counted(c.Relations, "relation"), ps.Embedder, ps.UpdatedAt.Format(time.RFC3339))
			if len(c.ChunksByType) > 0 {
				b.WriteString("chunks by type: " + Counts(c.ChunksByType) + "\n")
			}
			if ps.Incomplete {
				fmt.Fprintf(&b, "incomplete: %d of %d files indexed (a run was interrupted or is going on); index_project finishes it\n", ps.IndexedFiles, ps.TotalFiles)
			}
			if ps.Mixed != nil {
				fmt.Fprintf(&b, "mixed: %s; index_project embeds them again\n", search.MixedNote(*ps.Mixed))
			}
		}
		if l := js.Last; l != nil {
			fmt.Fprintf(&b, "last run: ended %s ago", time.Since(l.Ended).Round(time.Second))
			if l.Err != nil {
				fmt.Fprintf(&b, ", %s\n", oneLine(l.State()))
			} else {
				b.WriteString("\n" + reportText(l))
			}
		} else if ps.Indexed {
			fmt.Fprintf(&b, "last run: none since this server started (the index was updated %s ago by another process or an earlier session)\n", time.Since(ps.UpdatedAt).Round(time.Second))
		} else {
			b.WriteString("last run: none since this server started\n")
		}
		return b.String(), nil
	})

// Counts renders a map of counts as "k1 n1, k2 n2", sorted by key ("" for
// an empty map): {"class": 3, "method": 9} -> "class 3, method 9".
func Counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
