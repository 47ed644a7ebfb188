package search

import (
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
)

// TestSortResultsEqualsSliceStable: sortResults (indices sorted, results
// moved once) gives the order sort.SliceStable gives with the comparison
// it was given before, on pools with tied scores, tied paths, equal
// results in several places (stability), NaN scores and sizes around the
// stable sort's insertion-sort blocks.
func TestSortResultsEqualsSliceStable(t *testing.T) {
	t.Parallel()
	less := func(rs []Result) func(i, j int) bool {
		return func(i, j int) bool {
			if rs[i].Score != rs[j].Score {
				return rs[i].Score > rs[j].Score
			}
			if rs[i].Path != rs[j].Path {
				return rs[i].Path < rs[j].Path
			}
			return rs[i].Name < rs[j].Name
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	paths := []string{"a.go", "b.go", "c/d.go", "c/e.go"}
	names := []string{"F", "G", "H"}
	for _, n := range []int{0, 1, 2, 3, 19, 20, 21, 41, 64, 300, 1000} {
		for trial := 0; trial < 20; trial++ {
			rs := make([]Result, n)
			for i := range rs {
				rs[i] = Result{Path: paths[rng.IntN(len(paths))], Name: names[rng.IntN(len(names))],
					Score: float64(rng.IntN(5)) / 4, id: int64(i)}
				if trial%5 == 4 && rng.IntN(10) == 0 {
					rs[i].Score = math.NaN()
				}
			}
			want := append([]Result(nil), rs...)
			sort.SliceStable(want, less(want))
			sortResults(rs)
			ids := func(rs []Result) []int64 {
				out := make([]int64, len(rs))
				for i, r := range rs {
					out[i] = r.id
				}
				return out
			}
			if !reflect.DeepEqual(ids(rs), ids(want)) {
				t.Fatalf("n=%d trial %d:\n got %v\nwant %v", n, trial, ids(rs), ids(want))
			}
		}
	}
}

// TestSortResultsNamesakesByLine: results of one score, path and name
// (three validator(value) closures in one file) come out by line, whatever
// order they were given in: the order varied from run to run before.
func TestSortResultsNamesakesByLine(t *testing.T) {
	for _, order := range [][]int{{506, 318, 383}, {383, 506, 318}, {318, 383, 506}} {
		var rs []Result
		for _, l := range order {
			rs = append(rs, Result{Path: "src/types.ts", Name: "validator(value)", StartLine: l, Score: 0.023})
		}
		sortResults(rs)
		if rs[0].StartLine != 318 || rs[1].StartLine != 383 || rs[2].StartLine != 506 {
			t.Errorf("from %v: %d %d %d, want 318 383 506", order, rs[0].StartLine, rs[1].StartLine, rs[2].StartLine)
		}
	}
}
