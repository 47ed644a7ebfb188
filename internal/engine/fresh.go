package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/store"
)

// Before a one-shot query (the CLI's search) Freshen looks for files
// changed since the last index with the stat fast path (index.Diff: size
// and mtime, no reads). Up to FreshMaxFiles changed files are re-indexed in
// place, within FreshBudget; more, or a refresh that fails, leave the index
// as it is, and the Freshness says so.
const (
	FreshMaxFiles = 32
	FreshBudget   = 10 * time.Second
)

// Freshness is what Freshen found and did.
type Freshness struct {
	// Refreshed counts files re-indexed before answering.
	Refreshed int
	// Pending holds the changes left in place (nil when none).
	Pending *index.Changes
	// Why says why Pending was not refreshed, in a few words.
	Why string
	// Stale holds the root-relative paths of Pending.
	Stale map[string]bool
	// Older counts files indexed by another analysis version
	// (index.Changes.Older), which only a full index run re-analyses.
	Older int
}

// Emptied returns how many indexed files project root has when its
// directory holds none of them, nor any other file to index, now (an
// unmounted disk, a tree replaced by an empty one), else 0. A run that is not asked for by the user (a
// watcher's rescan, a search's refresh) leaves such a project as it is;
// an explicit index run drops the files. Errors are the tree's listing's.
func (e *Engine) Emptied(ctx context.Context, root string) (int, error) {
	ch, err := index.Diff(ctx, e.st, root, nil, e.cfg.Index.AllowSecrets)
	if err != nil {
		return 0, err
	}
	if ch.Indexed > 0 && len(ch.Removed) == ch.Indexed && len(ch.Changed) == 0 {
		return ch.Indexed, nil
	}
	return 0, nil
}

// Freshen brings a small change set of project p into the index with emb
// (which must be p's embedder for a refresh to happen) and reports what is
// left. Errors of the diff itself are returned; a failed refresh is not an
// error (the changes stay pending). The refresh runs as root's index job,
// so it never overlaps another run of this Engine.
func (e *Engine) Freshen(ctx context.Context, p *store.Project, emb embed.Embedder) (*Freshness, error) {
	// a root swapped for a symlink (or under a parent that was) would be
	// diffed, and refreshed, against the link's target: the error says
	// what happened instead (rootrule.ErrMoved)
	if err := rootrule.Unmoved(p.Path); err != nil {
		return nil, err
	}
	ch, err := index.Diff(ctx, e.st, p.Path, emb, e.cfg.Index.AllowSecrets)
	if err != nil {
		return nil, err
	}
	if ch.Len() == 0 {
		return &Freshness{Older: ch.Older}, nil
	}
	tooMany := fmt.Sprintf("more than %d to refresh before answering", FreshMaxFiles)
	f := &Freshness{Older: ch.Older, Why: tooMany}
	switch {
	case e.st.ReadOnly():
		f.Why = "the index is read-only"
	case emb.ID() != p.Embedder:
		f.Why = "the project's embedder is not available"
	case len(ch.Removed) > 0 && len(ch.Removed) == ch.Indexed:
		// an unmounted disk, a checkout under way: a search does not
		// drop a whole project's rows on its own; an index run does
		f.Why = fmt.Sprintf("the directory holds none of its %d indexed files now: kept until an index run", ch.Indexed)
	}
	if f.Why == tooMany && ch.Len() <= FreshMaxFiles {
		rctx, cancel := context.WithTimeout(ctx, FreshBudget)
		busy := false
		// NoRetry: a remote embedder's backoff (an OpenAI-compatible
		// server's 5xx is tried again for up to 15 s) would hold every
		// search for the whole budget while a file keeps failing
		out, err := e.Index(rctx, p.Path, IndexRequest{Embedder: emb, Paths: ch.Paths(), Threads: 2, NoRetry: true,
			// another process is indexing the project: answer now, do not wait for it
			OnWait: func(string) { busy = true; cancel() }})
		cancel()
		if err == nil && out != nil && out.Err != nil {
			err = out.Err
		}
		if err == nil && out != nil && out.Report.Failed == 0 {
			return &Freshness{Refreshed: ch.Len(), Older: ch.Older}, nil
		}
		switch {
		case busy:
			f.Why = "another coderag process is indexing the project"
		case err != nil:
			f.Why = "the refresh did not finish: " + strings.Join(strings.Fields(err.Error()), " ")
		case out != nil && out.Report != nil && len(out.Report.Failures) > 0:
			// a file the embedder refused: which, and the server's words
			fl := out.Report.Failures[0]
			f.Why = "the refresh did not finish: " + fl.Path + ": " + strings.Join(strings.Fields(fl.Err), " ")
		default:
			f.Why = "the refresh did not finish"
		}
		if ch2, err2 := index.Diff(ctx, e.st, p.Path, emb, e.cfg.Index.AllowSecrets); err2 == nil {
			ch = ch2
		}
		if ch.Len() == 0 {
			return &Freshness{Older: ch.Older}, nil
		}
	}
	if _, _, partial, err := e.st.Incomplete(ctx, p.Path); err == nil && partial {
		// an index run was interrupted or is going on: the files it has
		// not reached are not changes but missing, which the search's
		// incomplete note counts; only changes to indexed files are left
		if ch = ch.WithoutNew(); ch.Len() == 0 {
			return &Freshness{Older: ch.Older}, nil
		}
		if ch.Len() <= FreshMaxFiles && f.Why == tooMany {
			f.Why = "not refreshed while the index is incomplete"
		}
	}
	f.Pending = ch
	f.Stale = map[string]bool{}
	for _, q := range ch.Paths() {
		f.Stale[q] = true
	}
	return f, nil
}
