package relate

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/coderag/coderag/internal/store"
)

// BenchmarkQueries measures one CLI-equivalent query (load the project's
// definitions, then answer) on the net/http package of the Go standard
// library, or on the project named by CODERAG_BENCH_DB and
// CODERAG_BENCH_PROJECT (an existing index, e.g. of $(go env GOROOT)/src).
func BenchmarkQueries(b *testing.B) {
	ctx := context.Background()
	db, root := benchDB(b)
	queries := []struct {
		name string
		run  func(r *Resolver) error
	}{
		{"load", func(*Resolver) error { return nil }},
		{"graph", func(r *Resolver) error { _, err := r.Graph("net/http.Server.Serve"); return err }},
		{"callers-depth4", func(r *Resolver) error { _, err := r.Callers("net/http.(*conn).serve", 4); return err }},
		{"callees-depth4", func(r *Resolver) error { _, err := r.Callees("net/http.(*Server).ListenAndServe", 4); return err }},
		{"path", func(r *Resolver) error {
			_, err := r.Path("net/http.ListenAndServe", "net/http.(*conn).serve")
			return err
		}},
	}
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				r, err := NewResolver(ctx, db, root)
				if err != nil {
					b.Fatal(err)
				}
				if err := q.run(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchDB opens CODERAG_BENCH_DB, else indexes net/http into a temp file.
func benchDB(b *testing.B) (*store.Store, string) {
	if p := os.Getenv("CODERAG_BENCH_DB"); p != "" {
		st, err := store.Open(context.Background(), p)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		return st, os.Getenv("CODERAG_BENCH_PROJECT")
	}
	return indexDir(b, filepath.Join(goroot(b), "src", "net", "http"))
}

// BenchmarkCachedDescribe is code_graph in a long-lived process (MCP, ask):
// the definitions are loaded once, each query then only reads relations.
// Compare with BenchmarkQueries/graph, which loads them every time.
func BenchmarkCachedDescribe(b *testing.B) {
	ctx := context.Background()
	db, root := benchDB(b)
	var c Cache
	if _, err := c.Describe(ctx, db, root, "net/http.Server.Serve"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := c.Describe(ctx, db, root, "net/http.Server.Serve"); err != nil {
			b.Fatal(err)
		}
	}
}
