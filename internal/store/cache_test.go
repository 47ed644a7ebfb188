package store_test

import (
	"context"
	"github.com/coderag/coderag/internal/store"
	_ "github.com/coderag/coderag/internal/store/sqlite"
	"github.com/coderag/coderag/internal/store/storetest"
	"path/filepath"
	"testing"
	"time"
)

// openTemp opens a new SQLite index in a temporary directory.
func openTemp(t *testing.T) *store.Store {
	t.Helper()
	return storetest.Open(t, filepath.Join(t.TempDir(), "sub", "index.db"))
}

// TestVectorCacheStaleWhileSlow: a set that was slow to load (at least
// staleAfter) is used as it is for staleFor of its load times after a
// write, so an index run's commits do not make every search reload a
// large project; once that time is past it is reloaded in the background
// and the write is seen. A set that
// loads fast is reloaded at once (TestTopKCosineCacheReloads).
func TestVectorCacheStaleWhileSlow(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	s.CacheVectors(true)
	s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3})
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("a.go", "alpha", "beta")}, nil); err != nil {
		t.Fatal(err)
	}
	q := []float32{0, 1, 0}
	first, err := s.Vectors(ctx, "/p", "local:test")
	if err != nil {
		t.Fatal(err)
	}
	// as if the set had taken a second to load, a moment ago
	first.SetLoad(time.Second, time.Now())
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("a.go", "gamma")}, nil); err != nil {
		t.Fatal(err)
	}
	if vs, err := s.Vectors(ctx, "/p", "local:test"); err != nil || vs != first {
		t.Fatalf("a slow set reloaded right after a write: %v", err)
	}
	if top, err := s.TopKCosine(ctx, "/p", "local:test", q, 5); err != nil || len(top) != 2 {
		t.Fatalf("top from the stale set: %v %v", top, err)
	}
	// past the stale time, the set is reloaded behind the searches
	first.SetLoad(first.Took(), time.Now().Add(-store.StaleFor*time.Second))
	for i := 0; ; i++ {
		top, err := s.TopKCosine(ctx, "/p", "local:test", q, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(top) == 1 && top[0].Score == 0 {
			break
		}
		if i == 1000 {
			t.Fatalf("the write not seen once the stale time is past: %v", top)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTopKCosineCacheReloads(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	s.CacheVectors(true)
	s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3})
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("a.go", "alpha", "beta")}, nil); err != nil {
		t.Fatal(err)
	}
	q := []float32{0, 1, 0}
	top, err := s.TopKCosine(ctx, "/p", "local:test", q, 1)
	if err != nil || len(top) != 1 || top[0].Score != 1 {
		t.Fatalf("top %v %v", top, err)
	}
	// after a write the cache must see the new vectors, not the old ids
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("a.go", "gamma")}, nil); err != nil {
		t.Fatal(err)
	}
	top, _ = s.TopKCosine(ctx, "/p", "local:test", q, 5)
	if len(top) != 1 || top[0].Score != 0 {
		t.Fatalf("cache not reloaded: %v", top)
	}
	if _, err := s.TopKCosine(ctx, "/p", "local:test", []float32{1, 0}, 1); err == nil {
		t.Fatal("dimension mismatch not reported")
	}
	s.CacheVectors(false)
	if _, err := s.TopKCosine(ctx, "/p", "local:test", []float32{1, 0}, 1); err == nil {
		t.Fatal("dimension mismatch not reported (streaming)")
	}
}

// TestTopKCosineWithDataVersion: a search that carries the version it read
// (store.WithDataVersion) is answered from the cached set of that version;
// when it carries another one (it read the version after a write, or
// before one that a reload has seen since), the version is read from the
// store, as without it, and the write is seen.
func TestTopKCosineWithDataVersion(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	s.CacheVectors(true)
	s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3})
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("a.go", "alpha", "beta")}, nil); err != nil {
		t.Fatal(err)
	}
	q := []float32{0, 1, 0}
	v0, err := s.DataVersion(ctx, "/p")
	if err != nil {
		t.Fatal(err)
	}
	at0 := store.WithDataVersion(ctx, "/p", v0)
	if top, err := s.TopKCosine(at0, "/p", "local:test", q, 5); err != nil || len(top) != 2 {
		t.Fatalf("top at %s: %v %v", v0, top, err)
	}
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("a.go", "gamma")}, nil); err != nil {
		t.Fatal(err)
	}
	v1, _ := s.DataVersion(ctx, "/p")
	if v1 == v0 {
		t.Fatalf("a write left the version at %s", v0)
	}
	// the version the search read first: the set of that version (the
	// search runs again, since the version moved)
	if top, err := s.TopKCosine(at0, "/p", "local:test", q, 5); err != nil || len(top) != 2 {
		t.Fatalf("top at %s after a write: %v %v, want the set of %s", v0, top, err, v0)
	}
	// the version after the write: not the cached set's, so the store's
	// version is read and the set reloaded
	if top, err := s.TopKCosine(store.WithDataVersion(ctx, "/p", v1), "/p", "local:test", q, 5); err != nil || len(top) != 1 || top[0].Score != 0 {
		t.Fatalf("top at %s: %v %v, want the written vector", v1, top, err)
	}
	// another project's version says nothing of /p's
	if top, err := s.TopKCosine(store.WithDataVersion(ctx, "/other", v1), "/p", "local:test", q, 5); err != nil || len(top) != 1 {
		t.Fatalf("top with another project's version: %v %v", top, err)
	}
}
