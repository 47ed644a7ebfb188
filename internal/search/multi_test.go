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

func TestSearchProjectsSmallProjectNotCrowdedOut(t *testing.T) {
	t.Parallel()
	big, small := twoProjects(t)
	ctx := context.Background()
	const q, k = "retry with backoff", 4
	// the big project alone has more than k relevant hits, all scoring
	// above the small project's best: a merge by raw score would show none
	// of the small project
	bigResp, err := big.Search(ctx, q, Options{TopK: k})
	if err != nil {
		t.Fatal(err)
	}
	smallResp, err := small.Search(ctx, q, Options{TopK: k})
	if err != nil {
		t.Fatal(err)
	}
	if len(bigResp.Results) < k || len(smallResp.Results) == 0 {
		t.Fatalf("fixture: big %d results, small %d", len(bigResp.Results), len(smallResp.Results))
	}
	if bigResp.Results[k-1].Score <= smallResp.Results[0].Score {
		t.Fatalf("fixture: big project's k-th score %.3f is not above the small project's best %.3f", bigResp.Results[k-1].Score, smallResp.Results[0].Score)
	}
	if smallResp.Results[0].Path != "client.go" {
		t.Fatalf("fixture: small project's best hit is %s, want client.go", smallResp.Results[0].Path)
	}
	resp, err := SearchProjects(ctx, []*Searcher{big, small}, q, Options{TopK: k})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != k {
		t.Fatalf("%d merged results, want %d", len(resp.Results), k)
	}
	var smallAt int
	for i, r := range resp.Results {
		if r.Project != big.Project && r.Project != small.Project {
			t.Errorf("result %d names project %q", i+1, r.Project)
		}
		if r.Project == small.Project && r.Path == "client.go" {
			smallAt = i + 1
		}
	}
	if smallAt == 0 || smallAt > 2 {
		t.Fatalf("small project's client.go at merged rank %d, want 1 or 2: %+v", smallAt, resp.Results)
	}
	if resp.Projects[0].Project != big.Project || resp.Projects[1].Project != small.Project {
		t.Fatalf("projects %+v", resp.Projects)
	}
	if got := resp.Projects[0].Results + resp.Projects[1].Results; got != k {
		t.Errorf("per-project result counts sum to %d, want %d", got, k)
	}
	var b strings.Builder
	FormatMultiHuman(&b, resp, false)
	if !strings.Contains(b.String(), small.Project) || !strings.Contains(b.String(), "client.go") {
		t.Errorf("human output does not name the small project's hit:\n%s", b.String())
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
	weak := &Response{Results: []Result{res("w1", 50)}, Note: NoKeywordNote}
	tests := []struct {
		name  string
		resps []*Response
		k     int
		want  string
	}{
		{"interleave by rank, score within a round", []*Response{b, a}, 5, "B/a1 A/b1 B/a2 A/b2 B/a3"},
		{"cut at k", []*Response{a, b}, 3, "A/a1 B/b1 A/a2"},
		{"vector-only project after keyword hits", []*Response{weak, a}, 3, "B/a1 B/a2 B/a3"},
		{"vector-only project fills what is left", []*Response{weak, b}, 5, "B/b1 B/b2 A/w1"},
		{"failed project skipped", []*Response{nil, b}, 5, "B/b1 B/b2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := MergeRanked([]string{"A", "B"}, tc.resps, tc.k)
			var parts []string
			for _, r := range got {
				parts = append(parts, r.Project+"/"+r.Path)
			}
			if s := strings.Join(parts, " "); s != tc.want {
				t.Errorf("got %q, want %q", s, tc.want)
			}
		})
	}
}
