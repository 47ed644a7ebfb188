package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
)

// Status is one project's state for reports, assembled once here for
// `coderag stats`, index_status and the server's /api/status: what the
// index holds, the record of its last run (whichever process ran it),
// whether the index is incomplete or mixed, and the root's index job in
// this Engine.
type Status struct {
	// Root is the project's absolute root.
	Root string
	// Indexed is false when the index has no project at Root (a first
	// run may be going on: see Job); the fields up to LastRun are then
	// zero.
	Indexed bool
	// Embedder is the id the project was indexed with; Described says
	// what it is (embed.Describe), or repeats the id when the embedder
	// cannot be built here; Dim is its vector dimension.
	Embedder, Described string
	Dim                 int
	// UpdatedAt is when the project's row was last written.
	UpdatedAt time.Time
	// Counts are the project's rows: files, chunks (embedded), relations,
	// by type and kind.
	Counts store.Counts
	// LastRun is the record of the project's last index run; nil for a
	// project indexed before runs were recorded. Done=false means it was
	// interrupted or is going on.
	LastRun *store.RunReport
	// Incomplete is true when a run was interrupted or is going on:
	// IndexedFiles of TotalFiles are indexed.
	Incomplete               bool
	IndexedFiles, TotalFiles int
	// Mixed is set when some files carry vectors of another embedder than
	// the project's (a change of embedder interrupted, failed for some
	// files, or going on): searches rank them by keywords alone until an
	// index run embeds them again (store.Store.Mixed). nil otherwise.
	Mixed *store.MixedVectors
	// Job is the root's index job in this Engine (running, or the last
	// run that ended here).
	Job JobState
}

// Status assembles root's Status. A root with no index is not an error
// (Indexed false). Errors: the index cannot be read.
func (e *Engine) Status(ctx context.Context, root string) (*Status, error) {
	s := &Status{Root: root, Job: e.Job(root)}
	p, err := e.st.GetProject(ctx, root)
	if errors.Is(err, store.ErrNotIndexed) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	s.Indexed, s.Embedder, s.Described, s.Dim, s.UpdatedAt = true, p.Embedder, p.Embedder, p.Dim, p.UpdatedAt
	if emb, err := e.ProjectEmbedder(p.Embedder); err == nil {
		s.Described = embed.Describe(emb)
	}
	if s.Counts, err = e.st.Count(ctx, root); err != nil {
		return nil, fmt.Errorf("count %s: %w", root, err)
	}
	if r, ok, err := e.st.LastRun(ctx, root); err == nil && ok {
		rep := r.Report()
		s.LastRun = &rep
	}
	if rn, err := e.st.RunNotes(ctx, root); err == nil {
		if rn.Incomplete {
			s.Incomplete, s.IndexedFiles, s.TotalFiles = true, rn.Indexed, rn.Total
		}
		s.Mixed = rn.Mixed
	}
	return s, nil
}

// LangStats returns files per language of the project at root, with the
// files chunked as text and why, and the extensions no language claims
// (index.ReadLangStats).
func (e *Engine) LangStats(ctx context.Context, root string) (index.LangStats, error) {
	return index.ReadLangStats(ctx, e.st, root)
}

// Projects lists every indexed project, by root: the rows whose root is
// an absolute, clean path.
func (e *Engine) Projects(ctx context.Context) ([]store.Project, error) {
	ps, err := e.st.Projects(ctx)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	return validRoots(ps), nil
}

// validRoots drops the rows whose root is not an absolute, clean path:
// every root coderag writes is one, and a row written into a shared
// database by other means ("p/normal", "etc") would be read against the
// working directory of whoever lists it (serve's file view, search
// --all), so it is no project.
func validRoots(ps []store.Project) []store.Project {
	return slices.DeleteFunc(ps, func(p store.Project) bool {
		return !filepath.IsAbs(p.Path) || filepath.Clean(p.Path) != p.Path
	})
}

// StorePath names the index: the SQLite file, or the PostgreSQL URL
// without its password (store.Store.Path).
func (e *Engine) StorePath() string { return e.st.Path() }

// StoreBytes is the size of the index in bytes (store.Store.Size).
func (e *Engine) StoreBytes() int64 { return e.st.Size() }

// ReadOnly reports whether the index was opened read-only: index runs
// fail, queries work.
func (e *Engine) ReadOnly() bool { return e.st.ReadOnly() }
