package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// searchMany answers `search --project A --project B` and `search --all`:
// each project searched with its own embedder after the same freshness
// check as a one-project search, the answers merged by
// search.SearchProjects.
func searchMany(e *env, dirs []string, all bool, query string, opts search.Options, asJSON bool) error {
	if exists, err := store.Exists(e.cfg.DBPath()); err != nil {
		return err
	} else if !exists {
		return fmt.Errorf("nothing indexed yet: run `coderag index DIR`")
	}
	eng, release, err := openEngine(e)
	if err != nil {
		return err
	}
	defer release()
	st := eng.Store()
	var ps []store.Project
	if all {
		if ps, err = st.Projects(e.ctx); err != nil {
			return fmt.Errorf("list projects: %w", err)
		}
		if len(ps) == 0 {
			return fmt.Errorf("nothing indexed yet: run `coderag index DIR`")
		}
	} else {
		seen := map[string]bool{}
		for _, d := range dirs {
			root, err := index.ResolveRoot(d)
			if err != nil {
				return fmt.Errorf("project %s: %w", d, err)
			}
			p, err := st.FindProject(e.ctx, root)
			if errors.Is(err, store.ErrNotIndexed) {
				return notIndexedError(d)
			}
			if err != nil {
				return err
			}
			if !seen[p.Path] {
				seen[p.Path] = true
				ps = append(ps, *p)
			}
		}
	}
	searchers := make([]*search.Searcher, 0, len(ps))
	for i := range ps {
		p := &ps[i]
		sr, err := eng.Searcher(p)
		if err != nil {
			return fmt.Errorf("project %s: %w", p.Path, err)
		}
		// a project whose tree cannot be walked (moved, unmounted) is
		// still searched as indexed: one such project must not fail --all
		if fresh, err := eng.Freshen(e.ctx, p, sr.Embedder); err != nil {
			fmt.Fprintf(e.stderr, "note: %s: freshness check failed, searching the index as it is: %s\n", p.Path, e.errText(err))
		} else if n := freshNote(fresh, p.Path); n != "" {
			fmt.Fprintln(e.stderr, n)
		}
		searchers = append(searchers, sr)
	}
	resp, err := search.SearchProjects(e.ctx, searchers, query, opts)
	if err != nil {
		return err
	}
	noteGlossaryOnly(e, query)
	if asJSON {
		roots := make([]string, len(ps))
		for i := range ps {
			roots[i] = ps[i].Path
		}
		return writeJSON(e.stdout, multiJSON{Roots: roots, MultiResponse: resp})
	}
	search.FormatMultiHuman(e.stdout, resp, opts.Explain)
	return nil
}

// multiJSON is `search --json` over several projects: the merged answer
// with the absolute roots of the projects searched, in the order given
// (--all: the index's order); each result's path is relative to its
// "project", one of them.
type multiJSON struct {
	Roots []string `json:"roots"`
	*search.MultiResponse
}
