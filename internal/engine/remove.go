package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
)

// Sentinel errors of Hold, Remove and Start.
var (
	// ErrIndexing: an index run of the root is going on, in this Engine
	// or (for Remove) in another process; nothing was changed.
	ErrIndexing = errors.New("the project is being indexed")
	// ErrRemoving: the root is held by Hold (a Remove is going on); index
	// runs of it are refused until the hold ends.
	ErrRemoving = errors.New("the project is being removed")
)

// Hold takes root's job slot for the caller alone: until release is
// called, Start, Index, Refresh and Freshen of root refuse with
// ErrRemoving instead of starting a run, and another Hold fails with
// ErrRemoving. Hold does not wait: while a run of root is going on it
// fails with ErrIndexing. The check and the taking are one step, so no run
// can start in between. release is safe to call more than once. Hold
// covers this Engine only; Remove also takes the project's cross-process
// lock (index.Lock).
func (e *Engine) Hold(root string) (release func(), err error) {
	j := e.job(root)
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.held:
		return nil, fmt.Errorf("hold %s: %w", root, ErrRemoving)
	case j.run != nil:
		return nil, fmt.Errorf("hold %s: %w", root, ErrIndexing)
	}
	j.held = true
	var once sync.Once
	return func() {
		once.Do(func() {
			j.mu.Lock()
			j.held = false
			j.mu.Unlock()
		})
	}, nil
}

// Removal is what Remove did, in the fields of `coderag remove --json`.
type Removal struct {
	// Root is the project root removed; Files is how many files it held.
	Root  string
	Files int
	// BytesBefore is the index file's size before the removal, BytesAfter
	// after the compaction that follows it (0 on PostgreSQL): the delete
	// itself first grows the write-ahead log, which Store.Size counts.
	BytesBefore, BytesAfter int64
	// CompactErr is why the freed space was not all given back; the
	// project is removed all the same.
	CompactErr error
}

// Remove drops the project indexed at root (exactly its root: absolute,
// symlink-resolved) from the index: its rows go in one transaction, under
// Hold of root and the project's cross-process index lock, so no index run
// of this Engine or of another process writes to it meanwhile. Then the
// index file is compacted (store.Compact), outside the hold. The root's
// job forgets its last run and freshness, so the next Refresh indexes it
// from scratch.
//
// While another process indexes root, onWait (when set) is called once
// with a message and Remove waits for that run to end (ctx bounds the
// wait); with onWait nil it fails at once with ErrIndexing. Errors:
// ErrIndexing (a run of this Engine, or of another process with onWait
// nil), ErrRemoving (another Remove of root), store.ErrNotIndexed (root is
// not a project root), or the store's.
func (e *Engine) Remove(ctx context.Context, root string, onWait func(string)) (*Removal, error) {
	release, err := e.Hold(root)
	if err != nil {
		return nil, fmt.Errorf("remove %s: %w", root, unwrapHold(err))
	}
	defer release()
	if e.st.ReadOnly() {
		if _, err := e.Find(ctx, root, false); err != nil {
			return nil, err // not a project root: that says more
		}
		return nil, fmt.Errorf("remove %s: %s is read-only: nothing was removed (check the permissions of CODERAG_HOME)", root, store.Redact(e.StorePath()))
	}
	unlock, err := e.lockOther(ctx, root, onWait)
	if err != nil {
		return nil, err
	}
	defer unlock()
	before := e.st.Size()
	files, err := e.st.RemoveProject(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("remove %s: %w", root, err)
	}
	if e.warm != nil {
		// the data version moved, so no search would use them; but they
		// would stay in memory, counted in the budget, until evicted
		e.warm.Forget(root)
	}
	j := e.job(root)
	j.mu.Lock()
	j.last, j.progress, j.lastLogAt = nil, index.Progress{}, 0
	j.freshAt, j.freshEmb = time.Time{}, ""
	j.mu.Unlock()
	release()
	out := &Removal{Root: root, Files: files}
	_, out.BytesAfter, out.CompactErr = e.st.Compact(ctx)
	out.BytesBefore = before
	return out, nil
}

// unwrapHold strips Hold's own "hold ROOT: " context from err, keeping the
// sentinel, so that Remove's message reads "remove ROOT: the project is
// being indexed".
func unwrapHold(err error) error {
	for _, s := range []error{ErrIndexing, ErrRemoving} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}

// lockOther takes root's cross-process index lock: waiting with onWait
// set, else failing with ErrIndexing when another process holds it.
func (e *Engine) lockOther(ctx context.Context, root string, onWait func(string)) (func(), error) {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	busy := false
	wait := onWait
	if wait == nil {
		wait = func(string) { busy = true; cancel() }
	}
	unlock, err := index.Lock(lctx, e.st, root, wait)
	switch {
	case err != nil && busy && ctx.Err() == nil:
		return nil, fmt.Errorf("remove %s: %w by another process", root, ErrIndexing)
	case err != nil:
		return nil, fmt.Errorf("remove %s: %w", root, err)
	}
	return unlock, nil
}
