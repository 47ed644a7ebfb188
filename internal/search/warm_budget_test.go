package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
)

// checkWarm recomputes what w holds from its caches themselves and fails
// the test unless its accounting agrees (each project's sizes, the
// total) and the total is within the budget.
func checkWarm(t *testing.T, w *Warm) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var total int64
	for p, wp := range w.projects {
		var kw, rows, calls int64
		if wp.kw != nil {
			kw = wp.kw.bytes()
		}
		for _, r := range wp.rows {
			rows += rowBytes(r)
		}
		for n, rs := range wp.calls {
			calls += callsBytes(n, rs)
		}
		if kw != wp.kwBytes || rows != wp.rowBytes || calls != wp.callsBytes {
			t.Fatalf("%s: counted keywords %d rows %d calls %d, hold %d %d %d", p, wp.kwBytes, wp.rowBytes, wp.callsBytes, kw, rows, calls)
		}
		total += kw + rows + calls
	}
	if total != w.total {
		t.Fatalf("total counted %d, held %d", w.total, total)
	}
	if total > w.budget() {
		t.Fatalf("warm caches hold %d bytes, over the budget of %d", total, w.budget())
	}
}

// newLocalEmbedder is the built-in embedder the warm tests index with.
func newLocalEmbedder(t *testing.T) embed.Embedder {
	t.Helper()
	emb, err := provider.New(embed.Options{Provider: "local", Expand: analyze.GlossaryExpand, Analyzer: analyze.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	return emb
}

// TestWarmBudget indexes copies of GOROOT/src/net/url, bufio and
// encoding/json into one SQLite store and searches them in turn through
// one Warm whose budget holds two of their keyword indexes but not three:
// the total stays within the budget after every search (and agrees with
// what the caches hold), the third index evicts the least recently
// searched project's caches and not the other's, searching the evicted
// project again evicts the next least recently used, and every answer is
// a search without Warm's. A budget smaller than one index builds none
// (ErrKeywordsTooLarge), with the same answers; Forget gives a project's
// bytes back.
func TestWarmBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	emb := newLocalEmbedder(t)
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	type proj struct {
		root    string
		kw      int64 // its keyword index's size
		queries []string
	}
	ps := []proj{
		{root: copyGoTree(t, "net/url"), queries: []string{"parse a URL query string", "escape a path segment", "UserPassword"}},
		{root: copyGoTree(t, "bufio"), queries: []string{"read a line from a buffered reader", "Scanner split function", "flush the writer"}},
		{root: copyGoTree(t, "encoding/json"), queries: []string{"decode JSON into a struct", "Marshal indent", "HTML escape in strings"}},
	}
	for i := range ps {
		if _, err := index.Run(ctx, st, emb, ps[i].root, index.Options{Threads: 2}); err != nil {
			t.Fatal(err)
		}
		m, err := buildMemKeywords(ctx, st, ps[i].root, 0)
		if err != nil {
			t.Fatal(err)
		}
		ps[i].kw = m.bytes()
	}
	// smallest first: a is evicted for c, and a's index fits again in
	// place of b's
	slices.SortFunc(ps, func(x, y proj) int { return int(x.kw - y.kw) })
	a, b, c := ps[0], ps[1], ps[2]
	w := NewWarm()
	defer w.Close()
	w.MaxBytes = b.kw + c.kw + a.kw/2 // a+b fit, with rows; b+c fit; not a+b+c
	t.Logf("keyword indexes %d, %d, %d bytes; budget %d", a.kw, b.kw, c.kw, w.MaxBytes)

	search := func(p proj) {
		t.Helper()
		warm := &Searcher{Store: st, Embedder: emb, Project: p.root, Warm: w}
		cold := &Searcher{Store: st, Embedder: emb, Project: p.root}
		for _, q := range p.queries {
			for _, r := range []string{RankerHybrid, RankerSeed} {
				opts := Options{TopK: 10, Ranker: r, Explain: true}
				got, err := warm.Search(ctx, q, opts)
				if err != nil {
					t.Fatal(err)
				}
				want, err := cold.Search(ctx, q, opts)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s %q %s: warm answer differs\nwarm: %s\ncold: %s", filepath.Base(p.root), q, r, describe(got), describe(want))
				}
				checkWarm(t, w)
			}
		}
	}
	// searchWarm searches p until its keyword index is built (the first
	// search starts the build; one evicted waits a few build times), then
	// once more from it.
	searchWarm := func(p proj) {
		t.Helper()
		for i := 0; w.Stats(p.root).KeywordVersion == ""; i++ {
			if i == 1000 {
				t.Fatalf("%s: keyword index never built: %+v", p.root, w.Stats(p.root))
			}
			search(p)
			w.builds.Wait()
			checkWarm(t, w)
			if w.Stats(p.root).KeywordVersion == "" {
				time.Sleep(10 * time.Millisecond)
			}
		}
		search(p)
	}
	searchWarm(a)
	searchWarm(b)
	if sa, sb := w.Stats(a.root), w.Stats(b.root); sa.KeywordVersion == "" || sb.KeywordVersion == "" || sa.KeywordsEvicted != 0 {
		t.Fatalf("two indexes that fit: %+v, %+v", sa, sb)
	}
	searchWarm(c)
	sa, sb, sc := w.Stats(a.root), w.Stats(b.root), w.Stats(c.root)
	if sa.KeywordVersion != "" || sa.Rows != 0 || sa.KeywordsEvicted == 0 {
		t.Fatalf("the least recently used project was not evicted: %+v", sa)
	}
	if sb.KeywordVersion == "" || sc.KeywordVersion == "" {
		t.Fatalf("the two most recently used projects lost their indexes: %+v, %+v", sb, sc)
	}
	if n := w.Bytes(); n != sa.Bytes+sb.Bytes+sc.Bytes || n > w.MaxBytes {
		t.Fatalf("Bytes %d: projects %d+%d+%d, budget %d", n, sa.Bytes, sb.Bytes, sc.Bytes, w.MaxBytes)
	}
	// a again: now b is the least recently used
	searchWarm(a)
	sa, sb, sc = w.Stats(a.root), w.Stats(b.root), w.Stats(c.root)
	if sa.KeywordVersion == "" || sb.KeywordVersion != "" || sb.KeywordsEvicted == 0 || sc.KeywordVersion == "" {
		t.Fatalf("after searching the evicted project: %+v, %+v, %+v", sa, sb, sc)
	}

	// Forget gives a project's bytes back
	before, held := w.Bytes(), w.Stats(c.root).Bytes
	w.Forget(c.root)
	if w.Bytes() != before-held || w.Stats(c.root) != (WarmStats{}) {
		t.Fatalf("Forget: %d bytes, %d before with %d of the project's", w.Bytes(), before, held)
	}
	checkWarm(t, w)

	// a budget smaller than any index: none is built, FTS5 answers
	w = NewWarm()
	defer w.Close()
	w.MaxBytes = a.kw / 2
	if err := w.LoadKeywords(ctx, st, a.root); !errors.Is(err, ErrKeywordsTooLarge) {
		t.Fatalf("LoadKeywords over the budget: %v", err)
	}
	search(b)
	w.builds.Wait()
	search(b)
	for _, p := range []proj{a, b} {
		if s := w.Stats(p.root); s.KeywordVersion != "" || !errors.Is(s.KeywordErr, ErrKeywordsTooLarge) {
			t.Fatalf("%s: an index over the budget: %+v", p.root, s)
		}
	}
	checkWarm(t, w)
}

// TestWarmDuringIndexing searches two projects from several goroutines
// through one Searcher each, sharing one Warm (its budget small enough
// that rows and relations are evicted all the time), while another
// goroutine changes files of one of them on disk (every file touched, one
// file added, one removed) and re-indexes it, several times, in batches
// of 8 files: no search fails or comes back empty, a search whose version
// (and run record's chunk count) did not move answers as a search without
// Warm (from another store handle), and once indexing stops every
// search answers exactly as without Warm, from a keyword index of the
// last version. Run it with -race: the package's tests need cgo (the
// grammars), so .ci/run's race step leaves it out.
func TestWarmDuringIndexing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: indexes GOROOT/src/encoding/json four times")
	}
	ctx := context.Background()
	emb := newLocalEmbedder(t)
	dbPath := filepath.Join(t.TempDir(), "index.db")
	st, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The store's vector cache (CacheVectors, the other half of
	// engine.Config.LongLived) is left off: by design it answers from a
	// slowly loaded set of an older version for a while after a write,
	// which is not Warm's to test. The searches without Warm read from a
	// handle of their own.
	coldSt, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer coldSt.Close()
	a, b := copyGoTree(t, "encoding/json"), copyGoTree(t, "bufio")
	var kw int64
	for _, root := range []string{a, b} {
		if _, err := index.Run(ctx, st, emb, root, index.Options{Threads: 2}); err != nil {
			t.Fatal(err)
		}
		m, err := buildMemKeywords(ctx, st, root, 0)
		if err != nil {
			t.Fatal(err)
		}
		kw += m.bytes()
	}
	w := NewWarm()
	defer w.Close()
	w.MaxBytes = kw + kw/10 + 256<<10 // both indexes (a grows a little), a few rows
	searchers := map[string][2]*Searcher{}
	for _, root := range []string{a, b} {
		searchers[root] = [2]*Searcher{
			{Store: st, Embedder: emb, Project: root, Warm: w},
			{Store: coldSt, Embedder: emb, Project: root},
		}
	}
	queries := []string{"decode JSON into a struct", "Unmarshal", "escape HTML in strings", "indent the output",
		"read a line from a buffered reader", "round widget", "Scanner"}

	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // rewrites a several times
		defer wg.Done()
		defer done.Store(true)
		for round := 1; round <= 3; round++ {
			touchGoFiles(t, a, round)
			src := fmt.Sprintf("package json\n\n// Round%dWidget turns a round widget into JSON.\nfunc Round%dWidget() string { return \"round %d\" }\n", round, round, round)
			if err := os.WriteFile(filepath.Join(a, fmt.Sprintf("round%d.go", round)), []byte(src), 0o644); err != nil {
				t.Error(err)
				return
			}
			if round > 1 {
				os.Remove(filepath.Join(a, fmt.Sprintf("round%d.go", round-1)))
			}
			if rep, err := index.Run(ctx, st, emb, a, index.Options{Threads: 2, BatchSize: 8}); err != nil || rep.Failed > 0 || rep.Changed == 0 {
				t.Errorf("re-index round %d: %v %+v", round, err, rep)
				return
			}
		}
	}()
	var searches, compared atomic.Int64
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; !done.Load() || i < g+len(queries); i++ {
				root := []string{a, b}[i%2]
				q := queries[i%len(queries)]
				s := searchers[root]
				v0, err := st.DataVersion(ctx, root)
				if err != nil {
					t.Error(err)
					return
				}
				r0, _, err := st.LastRun(ctx, root)
				if err != nil {
					t.Error(err)
					return
				}
				got, err := s[0].Search(ctx, q, Options{TopK: 5, Explain: true})
				if err != nil {
					t.Errorf("search %q of %s during indexing: %v", q, root, err)
					return
				}
				if len(got.Results) == 0 {
					t.Errorf("search %q of %s during indexing found nothing", q, root)
					return
				}
				searches.Add(1)
				want, err := s[1].Search(ctx, q, Options{TopK: 5, Explain: true})
				if err != nil {
					t.Error(err)
					return
				}
				v1, err := st.DataVersion(ctx, root)
				if err != nil {
					t.Error(err)
					return
				}
				r1, _, err := st.LastRun(ctx, root)
				if err != nil {
					t.Error(err)
					return
				}
				if v0 != v1 || r0.Chunks != r1.Chunks {
					// the version moved: the two may have read different
					// rows; or the run's end counted the chunks anew (the
					// vector share is sized by that count), at the version
					// of the run's last write
					continue
				}
				compared.Add(1)
				// the run's progress (the incomplete note) is written
				// without a version of its own
				got.Incomplete, got.Hints, want.Incomplete, want.Hints = "", nil, "", nil
				if !reflect.DeepEqual(got, want) {
					t.Errorf("search %q of %s at version %s: warm answer differs\nwarm: %s\ncold: %s", q, root, v0, describe(got), describe(want))
					return
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	t.Logf("%d searches during indexing, %d compared at an unmoved version", searches.Load(), compared.Load())
	checkWarm(t, w)

	// indexing has stopped: every answer is a search without Warm's, and
	// the keyword index comes to the last version
	for _, root := range []string{a, b} {
		s := searchers[root]
		v, err := st.DataVersion(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; w.Stats(root).KeywordVersion != v; i++ {
			if i == 3000 {
				t.Fatalf("%s: keyword index not rebuilt at version %s: %+v", root, v, w.Stats(root))
			}
			if _, err := s[0].Search(ctx, queries[i%len(queries)], Options{TopK: 5}); err != nil {
				t.Fatal(err)
			}
			w.builds.Wait()
			if w.Stats(root).KeywordVersion != v {
				time.Sleep(10 * time.Millisecond)
			}
		}
		for pass := 0; pass < 2; pass++ {
			for _, q := range queries {
				for _, r := range []string{RankerHybrid, RankerSeed} {
					opts := Options{TopK: 10, Ranker: r, Explain: true}
					got, err := s[0].Search(ctx, q, opts)
					if err != nil {
						t.Fatal(err)
					}
					want, err := s[1].Search(ctx, q, opts)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("after indexing, %s %q %s: warm answer differs\nwarm: %s\ncold: %s", root, q, r, describe(got), describe(want))
					}
				}
			}
		}
	}
	checkWarm(t, w)
	found := false
	got, err := searchers[a][0].Search(ctx, "Round3Widget round widget", Options{TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got.Results {
		found = found || strings.HasPrefix(r.Name, "Round3Widget")
	}
	if !found {
		t.Fatalf("the last round's function is not found:\n%s", describe(got))
	}
}
