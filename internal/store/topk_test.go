package store

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/coderag/coderag/internal/vec"
)

// TestVectorSetTopKParts checks the parallel scan of cached vectors: for any
// number of parts, the top k equals a full sort of every row's score (by
// score, then id), ties included (a third of the rows repeat another row's
// codes and scale, so their scores are equal).
func TestVectorSetTopKParts(t *testing.T) {
	const n, dim = 1000, 16
	rng := rand.New(rand.NewSource(29))
	vs := &vectorSet{dim: dim, data: make([]byte, n*dim), scale: make([]float32, n)}
	for i := 0; i < n; i++ {
		vs.ids = append(vs.ids, int64(3*n-2*i)) // ids not in row order
		if i > 0 && i%3 == 0 {
			src := rng.Intn(i)
			copy(vs.data[i*dim:(i+1)*dim], vs.data[src*dim:(src+1)*dim])
			vs.scale[i] = vs.scale[src]
			continue
		}
		for j := 0; j < dim; j++ {
			vs.data[i*dim+j] = byte(int8(rng.Intn(255) - 127))
		}
		vs.scale[i] = rng.Float32() / 64
	}
	q := make([]float32, dim)
	for j := range q {
		q[j] = rng.Float32()*2 - 1
	}
	all := make([]Scored, n)
	for i := range all {
		all[i] = Scored{ID: vs.ids[i], Score: float64(vs.scale[i] * vec.DotCodes(q, vs.data[i*dim:(i+1)*dim]))}
	}
	sortScored(all)
	ties := 0
	for i := 1; i < n; i++ {
		if all[i].Score == all[i-1].Score {
			ties++
		}
	}
	if ties < 100 {
		t.Fatalf("only %d tied scores: the test does not exercise the id order", ties)
	}
	for _, k := range []int{0, 1, 7, 100, n, n + 5} {
		want := all[:min(k, n)]
		for parts := 1; parts <= 9; parts++ {
			got := vs.topK(q, k, parts)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("k=%d parts=%d: got %d results, first %v; want first %v", k, parts, len(got), head(got), head(want))
			}
		}
	}
}

func head(s []Scored) []Scored { return s[:min(3, len(s))] }
