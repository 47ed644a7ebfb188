package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
)

// Before `search` answers, it looks for files changed since the last index
// with the stat fast path (index.Diff: size and mtime, no reads). Up to
// freshMaxFiles changed files are re-indexed in place, within freshBudget;
// more, or a refresh that fails, leave the index as it is and the answer
// says so: "N files changed since the last index", and results from those
// files are marked stale (their line numbers may be off).
const (
	freshMaxFiles = 32
	freshBudget   = 10 * time.Second
)

// freshness is what search knows about the index's age.
type freshness struct {
	Refreshed int             // files re-indexed before answering
	Pending   *index.Changes  // changes left in place (nil when none)
	why       string          // why Pending was not refreshed
	stale     map[string]bool // root-relative paths of Pending
}

// refresh brings a small change set into the index and reports what is
// left. Errors of the diff itself are returned; a failed refresh is not an
// error (the changes stay pending).
func refresh(e *env, st *store.Store, emb embed.Embedder, p *store.Project) (*freshness, error) {
	ch, err := index.Diff(e.ctx, st, p.Path, p.Embedder)
	if err != nil {
		return nil, err
	}
	if ch.Len() == 0 {
		return &freshness{}, nil
	}
	f := &freshness{why: fmt.Sprintf("more than %d to refresh before answering", freshMaxFiles)}
	switch {
	case st.ReadOnly():
		f.why = "the index is read-only"
	case emb.ID() != p.Embedder:
		f.why = "the project's embedder is not available"
	}
	if ch.Len() <= freshMaxFiles && !st.ReadOnly() && emb.ID() == p.Embedder {
		ctx, cancel := context.WithTimeout(e.ctx, freshBudget)
		busy := false
		rep, err := index.Run(ctx, st, emb, p.Path, index.Options{Threads: 2, BatchSize: e.cfg.Embedding.BatchSize, Paths: ch.Paths(),
			// another process is indexing the project: answer now, do not wait for it
			OnWait: func(string) { busy = true; cancel() }})
		cancel()
		if err == nil && rep.Failed == 0 {
			return &freshness{Refreshed: ch.Len()}, nil
		}
		switch {
		case busy:
			f.why = "another coderag process is indexing the project"
		case err != nil:
			f.why = "the refresh did not finish: " + oneLine(err.Error())
		default:
			f.why = "the refresh did not finish"
		}
		if ch2, err2 := index.Diff(e.ctx, st, p.Path, p.Embedder); err2 == nil {
			ch = ch2
		}
		if ch.Len() == 0 {
			return &freshness{}, nil
		}
	}
	f.Pending = ch
	f.stale = map[string]bool{}
	for _, q := range ch.Paths() {
		f.stale[q] = true
	}
	return f, nil
}

// note is the one-line message for pending changes, or "".
func (f *freshness) note(root string) string {
	if f == nil || f.Pending == nil {
		return ""
	}
	return fmt.Sprintf("note: %d files changed since the last index (%s); results from them are marked stale; run `coderag index %s`", f.Pending.Len(), f.why, root)
}
