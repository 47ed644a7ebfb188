package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/coderag/coderag/internal/engine"
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

// searchMany answers `search --project A --project B` and `search --all`
// through engine.SearchMany: each project searched with its own embedder
// after the same freshness check as a one-project search, results from
// changed files marked stale as there, the answers merged by relevance (search.MergeRanked).
func searchMany(e *env, dirs []string, all bool, query string, opts search.Options, asJSON bool) error {
	if exists, err := store.Exists(e.cfg.DBPath()); err != nil {
		return err
	} else if !exists {
		return fmt.Errorf("nothing indexed yet: run `coderag index DIR`")
	} else if emptyIndexFile(e.cfg.DBPath()) {
		return emptyIndexError("DIR", e.cfg.DBPath())
	}
	eng, release, err := openEngine(e)
	if err != nil {
		return err
	}
	defer release()
	var ps []*engine.Project
	if all {
		ps, _, err = eng.OpenAll(e.ctx, projectOptions)
		if errors.Is(err, engine.ErrNotIndexed) {
			return fmt.Errorf("nothing indexed yet: run `coderag index DIR`")
		}
		if err != nil {
			return err
		}
	} else {
		seen := map[string]bool{}
		for _, d := range dirs {
			p, err := openIn(e, eng, d)
			if err != nil {
				return err
			}
			if !seen[p.Root] {
				seen[p.Root] = true
				ps = append(ps, p)
			}
		}
	}
	// each project gets the freshness check of a one-project search; one
	// whose tree cannot be walked (moved, unmounted) is still searched as
	// indexed: one such project must not fail --all
	resp, err := eng.SearchMany(e.ctx, ps, query, opts)
	for _, p := range ps {
		if f, ferr := p.Freshness(); ferr != nil {
			fmt.Fprintf(e.stderr, "note: %s: freshness check failed, searching the index as it is: %s\n", p.Root, e.errText(ferr))
		} else if n := freshNote(f, p.Root); n != "" {
			fmt.Fprintln(e.stderr, n)
		}
	}
	if errors.Is(err, search.ErrBadQuery) {
		return usagef("%v", err) // repo:zzz naming no project searched
	}
	if err != nil {
		return err
	}
	noteGlossaryOnly(e, query)
	if asJSON {
		roots := make([]string, len(ps))
		for i := range ps {
			roots[i] = ps[i].Root
		}
		return writeJSON(e.stdout, multiJSON{Roots: roots, MultiResponse: resp})
	}
	search.FormatMultiHuman(e.stdout, resp, search.HumanOptions{Explain: opts.Explain, Color: e.color(), REPL: e.repl})
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
