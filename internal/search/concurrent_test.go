package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/testutil"
)

// copyGoTree copies the .go files of GOROOT/src/<rel> (one level) into a new
// directory and returns its resolved path.
func copyGoTree(t *testing.T, rel string) string {
	t.Helper()
	src := filepath.Join(runtime.GOROOT(), "src", filepath.FromSlash(rel))
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Skipf("no Go sources at %s: %v", src, err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := index.ResolveRoot(dst)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// touchGoFiles appends a comment to every .go file of root, so the next
// index run rewrites all of their rows.
func touchGoFiles(t *testing.T, root string, round int) {
	t.Helper()
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Error(err)
		return
	}
	for _, e := range ents {
		p := filepath.Join(root, e.Name())
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		fmt.Fprintf(f, "\n// round %d\n", round)
		f.Close()
	}
}

// TestSearchDuringIndexing searches one project in a loop, from a store
// handle of its own (as another process would), while two indexers
// rewrite every file of that project and index a second project at the
// same time, on each store: no search may fail or come back empty, and
// both projects end complete.
func TestSearchDuringIndexing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: indexes GOROOT/src/encoding/json three times")
	}
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			target := filepath.Join(t.TempDir(), "index.db")
			if kind == "postgres" {
				target = testutil.Postgres(t)
			}
			open := func() *store.Store {
				st, err := store.Open(ctx, target)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				return st
			}
			emb, err := provider.New(embed.Options{Provider: "local"})
			if err != nil {
				t.Fatal(err)
			}
			a, b := copyGoTree(t, "encoding/json"), copyGoTree(t, "encoding/csv")
			writer := open()
			if rep, err := index.Run(ctx, writer, emb, a, index.Options{Threads: 2}); err != nil || rep.Failed > 0 {
				t.Fatalf("index %s: %v %+v", a, err, rep)
			}
			var wg sync.WaitGroup
			var done atomic.Bool
			wg.Add(2)
			go func() { // re-writes every file of the searched project, twice
				defer wg.Done()
				for round := 1; round <= 2; round++ {
					touchGoFiles(t, a, round)
					if rep, err := index.Run(ctx, writer, emb, a, index.Options{Threads: 2, BatchSize: 8}); err != nil || rep.Failed > 0 || rep.Changed == 0 {
						t.Errorf("re-index %s round %d: %v %+v", a, round, err, rep)
					}
				}
			}()
			go func() { // another project, at the same time, from another handle
				defer wg.Done()
				if rep, err := index.Run(ctx, open(), emb, b, index.Options{Threads: 2, BatchSize: 8}); err != nil || rep.Failed > 0 {
					t.Errorf("index %s: %v %+v", b, err, rep)
				}
			}()
			go func() { wg.Wait(); done.Store(true) }()
			s := &Searcher{Store: open(), Embedder: emb, Project: a}
			queries := []string{"decode a JSON value into a struct", "Unmarshal", "escape HTML in strings", "indent the output"}
			n := 0
			for !done.Load() || n < len(queries) {
				q := queries[n%len(queries)]
				resp, err := s.Search(ctx, q, Options{TopK: 5})
				if err != nil {
					t.Fatalf("search %d (%q) during indexing: %v", n, q, err)
				}
				if len(resp.Results) == 0 {
					t.Fatalf("search %d (%q) during indexing found nothing", n, q)
				}
				n++
			}
			wg.Wait()
			t.Logf("%d searches during indexing, none failed", n)
			for _, root := range []string{a, b} {
				if _, _, incomplete, err := writer.Incomplete(ctx, root); err != nil || incomplete {
					t.Errorf("%s incomplete after its run: %v", root, err)
				}
			}
		})
	}
}
