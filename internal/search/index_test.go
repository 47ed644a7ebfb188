package search

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/coderag/coderag/internal/store"
)

// recordingIndex is an Index that passes every read to a real store and
// records the terms of keyword searches.
type recordingIndex struct {
	Index
	mu    sync.Mutex
	terms [][]string
}

func (r *recordingIndex) KeywordSearch(ctx context.Context, project string, terms []string, w store.FTSWeights, k int) ([]store.Scored, error) {
	r.mu.Lock()
	r.terms = append(r.terms, append([]string(nil), terms...))
	r.mu.Unlock()
	return r.Index.KeywordSearch(ctx, project, terms, w, k)
}

// TestSearchOverAnIndex: a Searcher reads its index only through Index,
// so it runs over a fake as over the store, with the same answer; keyword
// searches get the query's analysed terms, never a query language (no
// quotes, OR, or column filters for a backend to parse back).
func TestSearchOverAnIndex(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{
		"retry.go": "package a\n\n// Retry retries a call after a delay.\nfunc Retry(f func() error) error { return f() }\n",
		"parse.go": "package a\n\n// Parse parses the request line.\nfunc Parse(line string) string { return line }\n",
	})
	ctx := context.Background()
	const q = `retry OR "the call" NEAR(parse)`
	want, err := s.Search(ctx, q, Options{TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingIndex{Index: s.Store}
	fake := *s
	fake.Store = rec
	got, err := fake.Search(ctx, q, Options{TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Results) == 0 || !reflect.DeepEqual(paths(got.Results), paths(want.Results)) {
		t.Errorf("over the fake: %v; over the store: %v", paths(got.Results), paths(want.Results))
	}
	if len(rec.terms) == 0 {
		t.Fatal("no keyword search went through the Index")
	}
	for _, ts := range rec.terms {
		for _, term := range ts {
			if strings.ContainsAny(term, `"():`) || term == "OR" {
				t.Errorf("keyword term %q looks like query syntax (terms %q)", term, ts)
			}
		}
	}
}

func paths(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Path + ":" + r.Name
	}
	return out
}
