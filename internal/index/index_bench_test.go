package index

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// indexFresh indexes root with emb into a fresh database b.N times.
func indexFresh(b *testing.B, emb embed.Embedder, root string) {
	b.Helper()
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

// BenchmarkIndexNetHTTP measures a full index of net/http (fresh DB each time).
func BenchmarkIndexNetHTTP(b *testing.B) {
	root := filepath.Join(gorootSrc(b), "net", "http")
	emb := localEmbedder(b)
	indexFresh(b, emb, root)
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
// no directory, and from the fingerprint snapshot (snapshot.go) that the
// first Diff keeps.
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
	if _, err := Diff(ctx, st, root, nil, false); err != nil { // stores a listing if there is none
		b.Fatal(err)
	}
	b.Run("listing", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			ch, err := Diff(ctx, st, root, nil, false)
			if err != nil {
				b.Fatal(err)
			}
			if ch.Len() != 0 || ch.Listing.Full || ch.Listing.Relisted != 0 {
				b.Fatalf("unchanged tree: %d changes, listing %+v", ch.Len(), ch.Listing)
			}
		}
	})
}

// benchIndexRoot returns the resolved CODERAG_BENCH_INDEX_ROOT, and skips
// the benchmark when it is not set.
func benchIndexRoot(b *testing.B) string {
	b.Helper()
	root := os.Getenv("CODERAG_BENCH_INDEX_ROOT")
	if root == "" {
		b.Skip("set CODERAG_BENCH_INDEX_ROOT")
	}
	root, err := ResolveRoot(root)
	if err != nil {
		b.Fatal(err)
	}
	return root
}

// BenchmarkIndexRoot measures a full index of the tree named by
// CODERAG_BENCH_INDEX_ROOT into a fresh database each time; with
// -cpuprofile it gives the profile of one full index by phase
// (bench/PROFILE.md).
func BenchmarkIndexRoot(b *testing.B) {
	root := benchIndexRoot(b)
	emb := localEmbedder(b)
	defer reportCPU(b)()
	indexFresh(b, emb, root)
}

// BenchmarkWriteRoot measures the write path alone: the files of
// CODERAG_BENCH_INDEX_ROOT are parsed and embedded once, then written
// into a fresh database each time in batches of CODERAG_BENCH_WRITE_CHUNKS
// chunks (default 32), one store.ReplaceFiles call per batch.
func BenchmarkWriteRoot(b *testing.B) {
	root := benchIndexRoot(b)
	per := 32
	if n, err := strconv.Atoi(os.Getenv("CODERAG_BENCH_WRITE_CHUNKS")); err == nil {
		per = n
	}
	ctx := context.Background()
	emb := localEmbedder(b)
	files, _, err := walk.Collect(ctx, root, walk.Options{})
	if err != nil {
		b.Fatal(err)
	}
	rt, err := os.OpenRoot(root)
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	ids, gopkgs, cpp := newFileIDs(emb), newGoPackages(nil), newCppDirs()
	c := &collector{ctx: ctx, emb: emb, rep: &Report{}}
	var batches [][]store.FileData
	var cur []*work
	n := 0
	for _, f := range files {
		w := prepare(rt, f, nil, ids, gopkgs, cpp, true, nil)
		if w.res == nil {
			continue
		}
		cur = append(cur, w)
		n += len(w.res.Chunks)
		if n >= per {
			d, err := c.build(cur)
			if err != nil {
				b.Fatal(err)
			}
			batches = append(batches, d)
			cur, n = nil, 0
		}
	}
	if len(cur) > 0 {
		d, err := c.build(cur)
		if err != nil {
			b.Fatal(err)
		}
		batches = append(batches, d)
	}
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st, err := store.Open(ctx, filepath.Join(b.TempDir(), "index.db"))
		if err != nil {
			b.Fatal(err)
		}
		if err := st.PutProject(ctx, store.Project{Path: root, Embedder: emb.ID(), Dim: emb.Dim()}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for _, d := range batches {
			if err := st.ReplaceFiles(ctx, root, d, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
}
