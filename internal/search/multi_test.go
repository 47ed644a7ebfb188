package search

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// twoProjects indexes two projects into one SQLite index and returns their
// searchers: big has many files about retrying with backoff, small has one.
func twoProjects(t *testing.T) (big, small *Searcher) {
	t.Helper()
	st, emb := testStore(t)
	mk := func(files map[string]string) *Searcher { return indexInto(t, st, emb, files) }
	bigFiles := map[string]string{}
	for i := range 12 {
		bigFiles[fmt.Sprintf("retry%02d.go", i)] = fmt.Sprintf(`package retry

// RetryWithBackoff%[1]d retries the request with exponential backoff until
// the retry budget is spent; each retry doubles the backoff delay.
func RetryWithBackoff%[1]d(attempts int) int {
	backoff := 1
	for retry := 0; retry < attempts; retry++ {
		backoff *= 2 // retry backoff
	}
	return backoff
}
`, i)
	}
	big = mk(bigFiles)
	small = mk(map[string]string{
		"client.go": `package client

// Send posts the payload and retries once on a timeout.
func Send(payload string) error {
	return retry(payload)
}
`,
		"other.go": "package client\n\n// Color names a colour.\nfunc Color() string { return \"red\" }\n",
	})
	return big, small
}

// TestSearchProjectsMergeByRelevance: the merged list follows the scores
// (a result never comes after one that scores clearly lower), not one slot
// per project per round; every project's hits are there when k leaves
// room; each result names its project and its rank there.
func TestSearchProjectsMergeByRelevance(t *testing.T) {
	t.Parallel()
	big, small := twoProjects(t)
	ctx := context.Background()
	const q = "retry with backoff"
	for _, k := range []int{4, 30} {
		resp, err := SearchProjects(ctx, []*Searcher{big, small}, q, Options{TopK: k})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Results) == 0 || len(resp.Results) > k {
			t.Fatalf("k=%d: %d merged results", k, len(resp.Results))
		}
		smallAt := 0
		for i, r := range resp.Results {
			if r.Project != big.Project && r.Project != small.Project || r.ProjectRank < 1 {
				t.Errorf("result %d names project %q rank %d", i+1, r.Project, r.ProjectRank)
			}
			if r.Project == small.Project && r.Path == "client.go" {
				smallAt = i + 1
			}
			for _, later := range resp.Results[i+1:] {
				if later.Score > r.Score && !tiedScore(r.Score, later.Score) {
					t.Errorf("k=%d: %s (%.4f) before %s (%.4f), which scores clearly higher", k, r.Path, r.Score, later.Path, later.Score)
				}
			}
		}
		if k == 30 && smallAt == 0 {
			t.Errorf("k=30: the small project's client.go is missing: %+v", resp.Results)
		}
		if got := resp.Projects[0].Results + resp.Projects[1].Results; got != len(resp.Results) {
			t.Errorf("k=%d: per-project result counts sum to %d, want %d", k, got, len(resp.Results))
		}
		if k == 30 {
			var b strings.Builder
			FormatMultiHuman(&b, resp, HumanOptions{})
			if !strings.Contains(b.String(), small.Project) || !strings.Contains(b.String(), "client.go") {
				t.Errorf("human output does not name the small project's hit:\n%s", b.String())
			}
		}
	}
}

func TestSearchProjectsOneFails(t *testing.T) {
	t.Parallel()
	big, small := twoProjects(t)
	missing := &Searcher{Store: big.Store, Embedder: big.Embedder, Project: filepath.Join(t.TempDir(), "gone")}
	resp, err := SearchProjects(context.Background(), []*Searcher{missing, small}, "retry", Options{TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 || resp.Results[0].Project != small.Project {
		t.Fatalf("results %+v", resp.Results)
	}
	_, err = SearchProjects(context.Background(), []*Searcher{big}, "x", Options{Ranker: "nope"})
	if err == nil || !strings.Contains(err.Error(), "unknown ranker") {
		t.Fatalf("unknown ranker: err %v", err)
	}
}

func TestMergeRanked(t *testing.T) {
	t.Parallel()
	res := func(path string, score float64) Result { return Result{Path: path, Score: score} }
	a := &Response{Results: []Result{res("a1", 9), res("a2", 8), res("a3", 7)}}
	b := &Response{Results: []Result{res("b1", 0.5), res("b2", 0.4)}}
	weak := &Response{Results: []Result{res("w1", 50)}, Note: NoKeywordNote + "; " + CutQueryNote}
	c := &Response{Results: []Result{res("c1", 1.0), res("c2", 0.99), res("c3", 0.98)}}
	d := &Response{Results: []Result{res("d1", 0.95), res("d2", 0.2)}}
	d2 := &Response{Results: []Result{res("d1", 0.95), res("d2", 0.2)}}
	for i := range d2.Results {
		d2.Results[i].content = "another text"
	}
	tests := []struct {
		name  string
		resps []*Response
		k     int
		want  string
	}{
		// viper's decode() does not take slot 2 of a serde_json question
		{"by score across projects, not one slot per round", []*Response{b, a}, 5, "B/a1 B/a2 B/a3 A/b1 A/b2"},
		{"cut at k", []*Response{a, b}, 3, "A/a1 A/a2 A/a3"},
		{"a tie goes to the better project rank", []*Response{c, d}, 5, "A/c1 B/d1 A/c2 A/c3 B/d2"},
		{"a full tie keeps the order of the projects", []*Response{d, d2}, 3, "A/d1 B/d1 A/d2"},
		{"the same chunk in two projects is one result", []*Response{d, d}, 3, "A/d1+B A/d2+B"},
		// a copy ranked below the cut in the other project still folds
		{"the same chunk past the cut is still named", []*Response{
			{Results: []Result{res("dup", 9), res("x", 8)}},
			{Results: []Result{res("y", 8.5), res("z", 8.4), res("dup", 1)}}}, 2, "A/dup+B B/y"},
		{"vector-only project after keyword hits", []*Response{weak, a}, 3, "B/a1 B/a2 B/a3"},
		{"vector-only project fills what is left", []*Response{weak, b}, 5, "B/b1 B/b2 A/w1"},
		{"failed project skipped", []*Response{nil, b}, 5, "B/b1 B/b2"},
		{"a copy at another path is named with it", []*Response{
			{Results: []Result{{Path: "parse.go", Score: 9, content: "func parse() {}"}, res("x", 8)}},
			{Results: []Result{{Path: "vendor/p/parse.go", Score: 8.9, content: "func parse() {}"}, res("y", 1)}}}, 2,
			"A/parse.go+B/vendor/p/parse.go A/x"},
		{"a project's own copy stays a result", []*Response{
			{Results: []Result{{Path: "parse.go", Score: 9, content: "func parse() {}"}, {Path: "old/parse.go", Score: 8, content: "func parse() {}"}}}}, 2,
			"A/parse.go A/old/parse.go"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := MergeRanked([]string{"A", "B"}, tc.resps, tc.k)
			var parts []string
			for _, r := range got {
				p := r.Project + "/" + r.Path
				if len(r.AlsoIn) > 0 {
					p += "+" + strings.Join(r.AlsoIn, ",")
				}
				parts = append(parts, p)
			}
			if s := strings.Join(parts, " "); s != tc.want {
				t.Errorf("got %q, want %q", s, tc.want)
			}
		})
	}
}
