package search

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
	_ "github.com/coderag/coderag/internal/store/sqlite"
)

// warmQueries are the queries the warm-route tests compare: the ranking
// regression's, and queries whose terms FTS5 tokenises differently from
// the in-memory index's simple terms (punctuation, '_', accents), which
// must go to FTS5.
var warmQueries = func() []string {
	var qs []string
	for _, c := range rankingCases {
		qs = append(qs, c.query)
	}
	return append(qs, "read_request header", "http.Request", "ServeHTTP", "net/http cookie jar",
		"café résumé", "TLS handshake timeout", "sym:Handler", "lang:go file:*_test.go roundtrip",
		"gzip", "the", "zorblaxConfigBridge", "\"quoted\" term")
}()

// indexNetHTTP indexes GOROOT/src/net/http into a new SQLite file and
// returns the store, the embedder and the resolved root.
func indexNetHTTP(t *testing.T) (*store.Store, embed.Embedder, string) {
	t.Helper()
	ctx := context.Background()
	root := filepath.Join(runtime.GOROOT(), "src", "net", "http")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no GOROOT/src/net/http: %v", err)
	}
	root, err := index.ResolveRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	emb, err := provider.New(embed.Options{Provider: "local", Expand: analyze.GlossaryExpand, Analyzer: analyze.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	st := tempStore(t)
	if _, err := index.Run(ctx, st, emb, root, index.Options{Threads: 2}); err != nil {
		t.Fatal(err)
	}
	return st, emb, root
}

// TestWarmKeywordsEqualFTS5 builds the in-memory keyword index of
// GOROOT/src/net/http and compares it with FTS5 for every term of the
// queries alone, for each query's terms together, and with every row that
// matches (no limit): the same chunks, in the same order, with bitwise the
// same scores.
func TestWarmKeywordsEqualFTS5(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: indexes net/http")
	}
	ctx := context.Background()
	st, _, root := indexNetHTTP(t)
	m, err := buildMemKeywords(ctx, st, root, 0)
	if err != nil {
		t.Fatal(err)
	}
	hp := DefaultHybridParams()
	var sets [][]string
	for _, q := range warmQueries {
		words, _, err := ParseQuery(q)
		if err != nil {
			continue
		}
		terms := AnalyzeQuery(nil, words, hp.QueryOptions).Terms
		sets = append(sets, terms)
		for _, t := range terms {
			sets = append(sets, []string{t})
		}
	}
	sets = append(sets, []string{"request", "request"}, []string{"Request"}, []string{"nosuchtokenanywhere"}, []string{"err", "nil", "return"})
	compared := 0
	for _, terms := range sets {
		for _, k := range []int{1, 10, 200, -1} {
			want, err := st.KeywordSearch(ctx, root, terms, hp.FTS, k)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := m.search(terms, hp.FTS, k)
			if !ok {
				continue // FTS5 answers these
			}
			compared++
			if len(got) != len(want) {
				t.Fatalf("%q k=%d: %d rows in memory, FTS5 %d", terms, k, len(got), len(want))
			}
			for i := range want {
				if got[i].ID != want[i].ID || math.Float64bits(got[i].Score) != math.Float64bits(want[i].Score) {
					t.Fatalf("%q k=%d rank %d: memory %d %.17g, FTS5 %d %.17g", terms, k, i+1, got[i].ID, got[i].Score, want[i].ID, want[i].Score)
				}
			}
		}
	}
	if compared < 100 {
		t.Fatalf("only %d comparisons ran in memory", compared)
	}
	for _, q := range []string{"read_request", "café", "a b", ""} {
		if _, ok := m.search([]string{q}, hp.FTS, 10); ok {
			t.Errorf("%q was answered in memory; FTS5 tokenises it otherwise", q)
		}
	}
}

// TestWarmSearchEqualsCold runs the same queries with and without a Warm
// (its keyword index loaded, then rows and relations cached by the first
// pass) on an index of GOROOT/src/net/http, with both rankers and
// --explain: the same results, scores and explanations.
func TestWarmSearchEqualsCold(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: indexes net/http")
	}
	ctx := context.Background()
	st, emb, root := indexNetHTTP(t)
	cold := &Searcher{Store: st, Embedder: emb, Project: root}
	w := NewWarm()
	defer w.Close()
	if err := w.LoadKeywords(ctx, st, root); err != nil {
		t.Fatal(err)
	}
	warm := &Searcher{Store: st, Embedder: emb, Project: root, Warm: w}
	for pass := 0; pass < 2; pass++ { // the second pass answers from the caches
		for _, q := range warmQueries {
			for _, r := range []string{RankerHybrid, RankerSeed} {
				opts := Options{TopK: 10, Ranker: r, Explain: true}
				want, werr := cold.Search(ctx, q, opts)
				got, gerr := warm.Search(ctx, q, opts)
				if fmt.Sprint(werr) != fmt.Sprint(gerr) {
					t.Fatalf("%q %s: error %v warm, %v cold", q, r, gerr, werr)
				}
				if werr != nil {
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("pass %d %q %s: warm answer differs\nwarm: %s\ncold: %s", pass, q, r, describe(got), describe(want))
				}
			}
		}
	}
	if s := w.Stats(root); s.KeywordVersion == "" || s.Rows == 0 {
		t.Fatalf("the caches were not used: %+v", s)
	}
}

// describe lists a response's results with their scores, for a failure.
func describe(r *Response) string {
	s := fmt.Sprintf("note=%q keywords=%q\n", r.Note, r.Keywords)
	for i, x := range r.Results {
		s += fmt.Sprintf("  %d %s:%d %s %.17g\n", i+1, x.Path, x.StartLine, x.Name, x.Score)
	}
	return s
}

// TestWarmSeesWrites indexes a copy of GOROOT/src/net/url with a Warm
// loaded, then writes a new function with a word found nowhere else and
// re-indexes: the next search must find it (the caches of the old version
// are not used), answer as a search without Warm does, and the keyword
// index is rebuilt at the new version behind it.
func TestWarmSeesWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := copyGoTree(t, "net/url")
	emb, err := provider.New(embed.Options{Provider: "local", Expand: analyze.GlossaryExpand, Analyzer: analyze.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := index.Run(ctx, st, emb, root, index.Options{Threads: 2}); err != nil {
		t.Fatal(err)
	}
	w := NewWarm()
	defer w.Close()
	if err := w.LoadKeywords(ctx, st, root); err != nil {
		t.Fatal(err)
	}
	warm := &Searcher{Store: st, Embedder: emb, Project: root, Warm: w}
	cold := &Searcher{Store: st, Embedder: emb, Project: root}
	const query = "frobnicate the quuxwidget escape"
	before, err := warm.Search(ctx, query, Options{TopK: 5, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range before.Results {
		if strings.HasPrefix(r.Name, "FrobnicateQuuxwidget") {
			t.Fatal("found before it was written")
		}
	}
	v0 := w.Stats(root).KeywordVersion
	src := "package url\n\n// FrobnicateQuuxwidget escapes a quuxwidget.\nfunc FrobnicateQuuxwidget(s string) string { return QueryEscape(s) }\n"
	if err := os.WriteFile(filepath.Join(root, "frob.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Run(ctx, st, emb, root, index.Options{Threads: 2}); err != nil {
		t.Fatal(err)
	}
	got, err := warm.Search(ctx, query, Options{TopK: 5, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range got.Results {
		found = found || strings.HasPrefix(r.Name, "FrobnicateQuuxwidget")
	}
	if !found {
		t.Fatalf("after the write the new function is not found:\n%s", describe(got))
	}
	want, err := cold.Search(ctx, query, Options{TopK: 5, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("warm answer differs after the write\nwarm: %s\ncold: %s", describe(got), describe(want))
	}
	// searches at the new version rebuild the keyword index behind them
	// (after a pause of a few build times, see rebuildAfter)
	for i := 0; w.Stats(root).KeywordVersion == v0; i++ {
		if i == 3000 {
			t.Fatalf("keyword index not rebuilt after the write: still version %q", v0)
		}
		if _, err := warm.Search(ctx, query, Options{TopK: 5}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	w.Close() // waits for a build going on
	// and the rebuilt index answers as FTS5 does
	got, err = warm.Search(ctx, query, Options{TopK: 5, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rebuilt index answers otherwise\nwarm: %s\ncold: %s", describe(got), describe(want))
	}
}
