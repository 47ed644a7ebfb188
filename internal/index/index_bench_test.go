package index

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/walk"
)

func gorootSrc(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Fatal(err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

func localEmbedder(tb testing.TB) embed.Embedder {
	tb.Helper()
	e, err := provider.New(embed.Options{Provider: "local"})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// BenchmarkIndexNetHTTP measures a full index of net/http (fresh DB each time).
func BenchmarkIndexNetHTTP(b *testing.B) {
	root := filepath.Join(gorootSrc(b), "net", "http")
	emb := localEmbedder(b)
	for i := 0; i < b.N; i++ {
		st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "index.db"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Run(context.Background(), st, emb, root, Options{}); err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}

// BenchmarkNoChange re-indexes an unchanged tree that was indexed into
// CODERAG_BENCH_DB (set CODERAG_BENCH_DB and CODERAG_BENCH_ROOT; e.g. the
// tree and index bench/index_bench.sh leaves behind).
func BenchmarkNoChange(b *testing.B) {
	db, root := os.Getenv("CODERAG_BENCH_DB"), os.Getenv("CODERAG_BENCH_ROOT")
	if db == "" || root == "" {
		b.Skip("set CODERAG_BENCH_DB and CODERAG_BENCH_ROOT")
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	emb := localEmbedder(b)
	for i := 0; i < b.N; i++ {
		rep, err := Run(context.Background(), st, emb, root, Options{})
		if err != nil || rep.Changed != 0 {
			b.Fatalf("%v %+v", err, rep)
		}
	}
}

// BenchmarkFreshCheck times the freshness check a search runs first, on an
// unchanged tree indexed into CODERAG_BENCH_DB (with CODERAG_BENCH_ROOT,
// as for BenchmarkNoChange): "walk" is the check without a tree listing (a
// full walk.Collect and the fingerprints, what Diff did before listings),
// "listing" is Diff from the stored listing (walk.List), which must read
// no directory.
func BenchmarkFreshCheck(b *testing.B) {
	db, root := os.Getenv("CODERAG_BENCH_DB"), os.Getenv("CODERAG_BENCH_ROOT")
	if db == "" || root == "" {
		b.Skip("set CODERAG_BENCH_DB and CODERAG_BENCH_ROOT")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if root, err = ResolveRoot(root); err != nil {
		b.Fatal(err)
	}
	b.Run("walk", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			if _, err := st.Files(ctx, root); err != nil {
				b.Fatal(err)
			}
			if _, _, err := walk.Collect(ctx, root, walk.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	if _, err := Diff(ctx, st, root, "", false); err != nil { // stores a listing if there is none
		b.Fatal(err)
	}
	b.Run("listing", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			ch, err := Diff(ctx, st, root, "", false)
			if err != nil {
				b.Fatal(err)
			}
			if ch.Len() != 0 || ch.Listing.Full || ch.Listing.Relisted != 0 {
				b.Fatalf("unchanged tree: %d changes, listing %+v", ch.Len(), ch.Listing)
			}
		}
	})
}
