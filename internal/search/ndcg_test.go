package search

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// NDCG@10 as the semble benchmark computes it: binary gains, IDCG over
// min(10, targets) hits, a rank counted once.
func TestNDCGAt10(t *testing.T) {
	t.Parallel()
	l := func(i int) float64 { return 1 / math.Log2(float64(i+1)) }
	cases := []struct {
		ranks []int
		n     int
		want  float64
	}{
		{[]int{1}, 1, 1},
		{[]int{2}, 1, l(2)},
		{[]int{0}, 1, 0},
		{[]int{11}, 1, 0},
		{[]int{1, 3}, 2, (l(1) + l(3)) / (l(1) + l(2))},
		{[]int{3, 3}, 2, l(3) / (l(1) + l(2))}, // two targets at one rank count once
		{[]int{1}, 12, l(1) / func() float64 {
			s := 0.0
			for i := 1; i <= 10; i++ {
				s += l(i)
			}
			return s
		}()},
	}
	for _, c := range cases {
		if got := NDCGAt10(c.ranks, c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("NDCGAt10(%v, %d) = %v, want %v", c.ranks, c.n, got, c.want)
		}
	}
}

func TestBenchRanks(t *testing.T) {
	t.Parallel()
	results := []Result{
		{Path: "core/a.js", StartLine: 1, EndLine: 10},
		{Path: "core/a.js", StartLine: 40, EndLine: 60},
		{Path: "b.js", StartLine: 1, EndLine: 5},
	}
	q := BenchQuery{
		Relevant:  []BenchTarget{{Path: "lib/core/a.js", StartLine: 45, EndLine: 50}}, // label relative to the repo
		Secondary: []BenchTarget{{Path: "lib/b.js"}, {Path: "lib/c.js"}},
	}
	chunk, file := BenchRanks(results, q)
	if want := []int{2, 3, 0}; !equalInts(chunk, want) {
		t.Errorf("chunk ranks %v, want %v (line span overlap, suffix match)", chunk, want)
	}
	if want := []int{1, 2, 0}; !equalInts(file, want) {
		t.Errorf("file ranks %v, want %v (distinct files)", file, want)
	}
}

func TestLoadBenchSet(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "set.json")
	os.WriteFile(p, []byte(`[
	 {"query": "how routes are grouped", "relevant": ["routergroup.go"], "secondary": []},
	 {"query": "Context", "relevant": [{"path": "context.go", "start_line": 3, "end_line": 9}], "secondary": ["gin.go"], "category": "symbol"},
	 {"query": "radix tree matching", "relevant": ["tree.go"], "secondary": []}]`), 0o644)
	qs, err := LoadBenchSet(p)
	if err != nil {
		t.Fatal(err)
	}
	if qs[0].Category != "architecture" || qs[1].Category != "symbol" || qs[2].Category != "semantic" {
		t.Errorf("categories: %q %q %q", qs[0].Category, qs[1].Category, qs[2].Category)
	}
	if qs[1].Relevant[0].StartLine != 3 || qs[1].Secondary[0].Path != "gin.go" {
		t.Errorf("targets: %+v", qs[1])
	}
	os.WriteFile(p, []byte(`[{"query": "x", "relevant": [], "secondary": []}]`), 0o644)
	if _, err := LoadBenchSet(p); err == nil {
		t.Error("a query without targets was accepted")
	}
	if !IsBenchSet([]byte("  [ ]")) || IsBenchSet([]byte(`{"queries": []}`)) {
		t.Error("IsBenchSet")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
