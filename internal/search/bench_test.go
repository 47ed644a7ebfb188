package search

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
)

// BenchmarkSearchWarm measures one warm, in-process hybrid query (store
// open, vectors cached, the Warm caches of a long-lived process with the
// keyword index loaded, dictionary loaded) over the queries of the ranking
// regression test. The tree is GOROOT/src/net/http, indexed once, or the
// project given by CODERAG_BENCH_ROOT with its index at
// CODERAG_BENCH_DB (e.g. an index of all of GOROOT/src).
func BenchmarkSearchWarm(b *testing.B) {
	ctx := context.Background()
	root, dbPath := os.Getenv("CODERAG_BENCH_ROOT"), os.Getenv("CODERAG_BENCH_DB")
	emb, err := provider.New(embed.Options{Provider: "local", Expand: analyze.GlossaryExpand, Analyzer: analyze.New(nil)})
	if err != nil {
		b.Fatal(err)
	}
	if root == "" || dbPath == "" {
		root = filepath.Join(runtime.GOROOT(), "src", "net", "http")
		dbPath = filepath.Join(b.TempDir(), "index.db")
	}
	root, err = index.ResolveRoot(root)
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(ctx, dbPath)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if os.Getenv("CODERAG_BENCH_DB") == "" {
		if _, err := index.Run(ctx, st, emb, root, index.Options{Threads: 2}); err != nil {
			b.Fatal(err)
		}
	}
	st.CacheVectors(true)
	// as engine.Config.LongLived: the in-memory keyword index, chunk rows
	// and relations (Warm), the keyword index loaded before the clock
	w := NewWarm()
	defer w.Close()
	if err := w.LoadKeywords(ctx, st, root); err != nil {
		b.Fatal(err)
	}
	s := &Searcher{Store: st, Embedder: emb, Project: root, Warm: w}
	for _, c := range rankingCases { // warm caches
		if _, err := s.Search(ctx, c.query, Options{TopK: 10}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Search(ctx, rankingCases[i%len(rankingCases)].query, Options{TopK: 10}); err != nil {
			b.Fatal(err)
		}
	}
	ws := w.Stats(root)
	b.ReportMetric(float64(ws.KeywordBytes)/(1<<20), "kw-MiB")
	b.ReportMetric(ws.KeywordBuild.Seconds()*1000, "kw-build-ms")
}
