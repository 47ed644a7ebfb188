package store_test

import (
	"context"
	"fmt"
	"github.com/coderag/coderag/internal/store"
	_ "github.com/coderag/coderag/internal/store/sqlite"
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkTopKCosine scores a query against every vector of a project of
// n 768-d chunks (a real SQLite file), streamed from the table and from
// the in-memory cache.
func BenchmarkTopKCosine(b *testing.B) {
	for _, n := range []int{1000, 20000} {
		s, err := store.Open(context.Background(), b.TempDir()+"/index.db")
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		const dim = 768
		if err := s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: dim}); err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 6))
		unit := func() []float32 {
			v := make([]float32, dim)
			var t float64
			for i := range v {
				v[i] = float32(rng.NormFloat64())
				t += float64(v[i]) * float64(v[i])
			}
			for i := range v {
				v[i] /= float32(math.Sqrt(t))
			}
			return v
		}
		var files []store.FileData
		for f := 0; f < n/100; f++ {
			fd := store.FileData{Record: store.FileRecord{Path: fmt.Sprintf("f%d.go", f), SHA256: "x", Embedder: "local:test", Size: 1, MtimeNS: 1}}
			for i := range 100 {
				fd.Chunks = append(fd.Chunks, store.ChunkRow{Path: fd.Record.Path, Type: "function", Name: fmt.Sprint(i), StartLine: 1, EndLine: 1,
					DeclEndLine: 1, Content: "x", Vector: unit(), Embedder: "local:test", NameTerms: "x"})
			}
			files = append(files, fd)
		}
		if err := s.ReplaceFiles(ctx, "/p", files, nil); err != nil {
			b.Fatal(err)
		}
		q := unit()
		for _, cache := range []bool{false, true} {
			b.Run(fmt.Sprintf("n=%d/cache=%v", n, cache), func(b *testing.B) {
				s.CacheVectors(cache)
				for b.Loop() {
					if _, err := s.TopKCosine(ctx, "/p", "local:test", q, 50); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		s.Close()
	}
}
