package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/testutil"
)

// indexed indexes root through e with the configured embedder and fails
// the test unless the run succeeds.
func indexed(t *testing.T, e *engine.Engine, root string) {
	t.Helper()
	emb, err := e.NewEmbedder()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := e.Index(context.Background(), root, engine.IndexRequest{Embedder: emb}); err != nil || out.Err != nil {
		t.Fatalf("index %s: %v %+v", root, err, out)
	}
}

// TestRemoveWhileIndexing: a Remove of a root whose index run is going on
// (held inside its first embed) is refused with ErrIndexing and changes
// nothing; so is a Hold. After the run ends, Remove drops the project and
// the root's job forgets its last run.
func TestRemoveWhileIndexing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := project(t)
	e := open(t, engine.Config{})
	g := newGate(t)
	run, err := e.Start(root, engine.IndexRequest{Embedder: g})
	if err != nil {
		t.Fatal(err)
	}
	<-g.entered // the run has written the project row and is embedding
	if _, err := e.Remove(ctx, root, nil); !errors.Is(err, engine.ErrIndexing) || !strings.Contains(err.Error(), "remove "+root) {
		t.Fatalf("remove during a run: %v, want ErrIndexing naming the root", err)
	}
	if _, err := e.Hold(root); !errors.Is(err, engine.ErrIndexing) {
		t.Fatalf("hold during a run: %v, want ErrIndexing", err)
	}
	close(g.release)
	<-run.Done()
	if out := run.Outcome(); out.Err != nil || out.Report.Changed != projectFiles {
		t.Fatalf("the run was disturbed: %+v", out)
	}
	rm, err := e.Remove(ctx, root, nil)
	if err != nil || rm.Root != root || rm.Files != projectFiles || rm.CompactErr != nil {
		t.Fatalf("remove after the run: %+v %v", rm, err)
	}
	if _, err := e.Find(ctx, root, false); !errors.Is(err, store.ErrNotIndexed) {
		t.Errorf("the project is still indexed: %v", err)
	}
	if st := e.Job(root); st.Last != nil || st.Held || st.Running {
		t.Errorf("job after remove: %+v", st)
	}
	if _, err := e.Remove(ctx, root, nil); !errors.Is(err, store.ErrNotIndexed) {
		t.Errorf("second remove: %v, want store.ErrNotIndexed", err)
	}
}

// TestHoldRefusesRuns: while a root is held, every way of starting an index
// run of it (Start, Index, Refresh, Freshen) and another Hold or Remove is
// refused with ErrRemoving, and other roots are not affected; after
// release a run starts.
func TestHoldRefusesRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, other := project(t), project(t)
	e := open(t, engine.Config{})
	indexed(t, e, root)
	emb, _ := e.NewEmbedder()
	p, err := e.Find(ctx, root, true)
	if err != nil {
		t.Fatal(err)
	}
	release, err := e.Hold(root)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Job(root).Held {
		t.Error("status does not say the root is held")
	}
	if _, err := e.Start(root, engine.IndexRequest{Embedder: emb}); !errors.Is(err, engine.ErrRemoving) {
		t.Errorf("start: %v, want ErrRemoving", err)
	}
	if _, err := e.Index(ctx, root, engine.IndexRequest{Embedder: emb}); !errors.Is(err, engine.ErrRemoving) {
		t.Errorf("index: %v, want ErrRemoving", err)
	}
	if _, err := e.Refresh(ctx, root, nil); !errors.Is(err, engine.ErrRemoving) {
		t.Errorf("refresh: %v, want ErrRemoving", err)
	}
	if _, err := e.Hold(root); !errors.Is(err, engine.ErrRemoving) {
		t.Errorf("second hold: %v, want ErrRemoving", err)
	}
	if _, err := e.Remove(ctx, root, nil); !errors.Is(err, engine.ErrRemoving) {
		t.Errorf("remove during a hold: %v, want ErrRemoving", err)
	}
	if _, err := e.Find(ctx, root, false); err != nil {
		t.Errorf("a refused remove dropped the project: %v", err)
	}
	// a change on disk stays pending: the refresh is refused, not run
	writeFile(t, root, "extra.go", "package strings\n\nfunc Shout(s string) string { return s }\n")
	if f, err := e.Freshen(ctx, p, emb); err != nil || f.Refreshed != 0 || !f.Stale["extra.go"] || !strings.Contains(f.Why, "being removed") {
		t.Errorf("freshen during a hold: %+v %v", f, err)
	}
	indexed(t, e, other) // another root is not held
	release()
	release() // harmless
	if e.Job(root).Held {
		t.Error("still held after release")
	}
	// extra.go is the one change; its package's other files are parsed
	// again for the function it declares (Report.Reread)
	if out, err := e.Index(ctx, root, engine.IndexRequest{Embedder: emb}); err != nil || out.Err != nil || out.Report.Changed-out.Report.Reread != 1 {
		t.Fatalf("index after release: %+v %v", out, err)
	}
}

// TestRemoveWaitsForOtherProcess: another process's index run (its
// cross-process lock, taken here through index.Lock on the same database)
// makes Remove with no onWait fail with ErrIndexing; with onWait, Remove
// holds the root while it waits, so a run of this Engine started then is
// refused, and it removes the project once the lock is free. The root's
// freshness is forgotten: the next Refresh indexes it from scratch.
func TestRemoveWaitsForOtherProcess(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		e := open(t, engine.Config{Freshness: hours(1)})
		other, err := store.Open(context.Background(), e.StorePath()) // the other process's
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { other.Close() })
		removeWaitsForOtherProcess(t, e, other)
	})
	// on PostgreSQL the other process's lock is an advisory lock
	t.Run("postgres", func(t *testing.T) {
		st, err := store.Open(context.Background(), testutil.Postgres(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		removeWaitsForOtherProcess(t, open(t, engine.Config{Freshness: hours(1), Store: st}), st)
	})
}

func removeWaitsForOtherProcess(t *testing.T, e *engine.Engine, st *store.Store) {
	ctx := context.Background()
	root := project(t)
	if r, err := e.Refresh(ctx, root, nil); err != nil || !r.Finished || r.Err != nil {
		t.Fatalf("first refresh: %+v %v", r, err)
	}
	unlock, err := index.Lock(ctx, st, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Remove(ctx, root, nil); !errors.Is(err, engine.ErrIndexing) || !strings.Contains(err.Error(), "another process") {
		t.Fatalf("remove while another process indexes: %v", err)
	}
	if e.Job(root).Held {
		t.Fatal("a failed remove left the root held")
	}

	waiting := make(chan string, 1)
	type result struct {
		rm  *engine.Removal
		err error
	}
	done := make(chan result, 1)
	go func() {
		rm, err := e.Remove(ctx, root, func(msg string) { waiting <- msg })
		done <- result{rm, err}
	}()
	if msg := <-waiting; !strings.Contains(msg, root) {
		t.Errorf("wait message %q does not name the root", msg)
	}
	emb, _ := e.NewEmbedder()
	if _, err := e.Start(root, engine.IndexRequest{Embedder: emb}); !errors.Is(err, engine.ErrRemoving) {
		t.Fatalf("start while remove waits: %v, want ErrRemoving", err)
	}
	if _, err := e.Refresh(ctx, root, nil); !errors.Is(err, engine.ErrRemoving) {
		t.Fatalf("refresh while remove waits: %v, want ErrRemoving", err)
	}
	unlock()
	r := <-done
	if r.err != nil || r.rm.Files != projectFiles {
		t.Fatalf("remove after the other run: %+v %v", r.rm, r.err)
	}
	if _, err := e.Find(ctx, root, false); !errors.Is(err, store.ErrNotIndexed) {
		t.Fatalf("the project is still indexed: %v", err)
	}
	// within the freshness window, but the project is gone: index it again
	ref, err := e.Refresh(ctx, root, nil)
	if err != nil || ref.Indexed || !ref.Finished || ref.Err != nil {
		t.Fatalf("refresh after remove: %+v %v", ref, err)
	}
	if last := e.Job(root).Last; last == nil || last.Report.Changed != projectFiles {
		t.Fatalf("refresh after remove did not index from scratch: %+v", last)
	}
}

// writeFile writes content to root/name.
func writeFile(t *testing.T, root, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRemoveForgetsWarm: in a long-lived engine, a search of a project
// fills its warm caches, and Remove drops them (the budget counts nothing
// of it any more), not only moves its data version.
func TestRemoveForgetsWarm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := project(t)
	e := open(t, engine.Config{LongLived: true})
	indexed(t, e, root)
	p, err := e.Open(ctx, root, engine.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Search(ctx, "build a string", search.Options{TopK: 5}); err != nil {
		t.Fatal(err)
	}
	w := e.Warm()
	if w == nil || w.Stats(root).Bytes == 0 || w.Bytes() == 0 {
		t.Fatalf("a search kept nothing warm: %+v", w.Stats(root))
	}
	if _, err := e.Remove(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	if st, n := w.Stats(root), w.Bytes(); st != (search.WarmStats{}) || n != 0 {
		t.Fatalf("after Remove the warm caches hold %d bytes: %+v", n, st)
	}
}

// TestRemoveRecordedRootTurnedSymlink: a project's root replaced by a
// symlink to another indexed project is still removed by the path the
// index records (RemoveTarget does not follow the link), and the link's
// target stays; before, the target was removed and the named project
// kept. The removal's BytesBefore is the file's size before the delete,
// not after the delete grew its write-ahead log.
func TestRemoveRecordedRootTurnedSymlink(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := project(t), project(t)
	e := open(t, engine.Config{})
	indexed(t, e, a)
	indexed(t, e, b)
	sizeBefore := func() int64 {
		var n int64
		for _, suf := range []string{"", "-wal", "-shm"} {
			if fi, err := os.Stat(e.StorePath() + suf); err == nil {
				n += fi.Size()
			}
		}
		return n
	}()
	if err := os.Rename(a, a+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(b, a); err != nil {
		t.Fatal(err)
	}
	if got, ok := e.RemoveTarget(ctx, a); !ok || got != a {
		t.Fatalf("RemoveTarget(%s) = %q, %v; want the recorded root itself", a, got, ok)
	}
	rm, err := e.Remove(ctx, a, nil)
	if err != nil || rm.Root != a || rm.Files != projectFiles {
		t.Fatalf("remove %s: %+v %v", a, rm, err)
	}
	if rm.BytesBefore > sizeBefore {
		t.Errorf("BytesBefore %d, more than the files' %d before the delete", rm.BytesBefore, sizeBefore)
	}
	if _, err := e.Find(ctx, b, false); err != nil {
		t.Errorf("the link's target %s was removed too: %v", b, err)
	}
	if _, err := e.Find(ctx, a, false); !errors.Is(err, store.ErrNotIndexed) {
		t.Errorf("the named root %s is still indexed: %v", a, err)
	}
	// a path that is no recorded root resolves as an index run does: the
	// link now names its target
	if got, ok := e.RemoveTarget(ctx, a); !ok || got != b {
		t.Errorf("RemoveTarget(%s) after its removal = %q, %v; want the link's target %s", a, got, ok, b)
	}
}
