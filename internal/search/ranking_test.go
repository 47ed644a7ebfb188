package search

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite testdata/ranking/*.golden.txt from the current ranking")

// rankingQueries are the fixed queries of the ranking regression test, over
// GOROOT/src/net/http: descriptive, topical, symbol, identifier and Chinese
// questions, so that every ranking change shows up as a diff in review.
var rankingQueries = []string{
	"parse the HTTP request line",
	"how are cookies parsed and serialized",
	"where does the server close idle keep-alive connections",
	"redirect policy of the client",
	"Transport",
	"ServeMux.Handle",
	"ResponseWriter WriteHeader",
	"sniff the content type of a response body",
	"chunked transfer encoding reader",
	"basic authentication header",
	"request timeout handler",
	"file server directory listing",
	"请求体的大小限制在哪里",
	"连接池是怎么复用连接的",
}

// TestRankingRegression indexes GOROOT/src/net/http with each built-in
// local embedder and compares the top 5 of every rankingQueries query with
// its golden file, testdata/ranking/nethttp.model.golden.txt for the
// learned model (the default) and nethttp.golden.txt for feature hashing
// (zoekt's way of reviewing ranking changes). Run `go test ./internal/search -run TestRankingRegression
// -update` after a deliberate ranking change and commit the diff. The
// golden file records the Go version whose sources it ranks; on another
// version the tree differs and the test says so and skips.
func TestRankingRegression(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: indexes GOROOT/src/net/http")
	}
	root := filepath.Join(runtime.GOROOT(), "src", "net", "http")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no Go sources at %s: %v", root, err)
	}
	header := "# go " + runtime.Version() + ", net/http, top 5 per query (path:line type name)\n"
	an := withRealDictionary(t) // the Chinese queries rank with CC-CEDICT, as users get them
	root, err := index.ResolveRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	// one golden file per local embedder: the learned model (the default)
	// and the feature-hashing one (EMBEDDING_MODEL=hashing-768-v1)
	for _, e := range []struct{ name, model, golden string }{
		{"model", "", "nethttp.model.golden.txt"},
		{"hashing", "hashing-768-v1", "nethttp.golden.txt"},
	} {
		t.Run(e.name, func(t *testing.T) {
			golden := filepath.Join("testdata", "ranking", e.golden)
			if !*update {
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if first, _, _ := strings.Cut(string(want), "\n"); first+"\n" != header {
					t.Skipf("golden ranking is for %q, this is %s: run with -update on this Go version", strings.TrimPrefix(first, "# "), runtime.Version())
				}
			}
			// the same golden file for both stores: PostgreSQL's BM25 must
			// give the same top 5 as SQLite's FTS5
			for _, kind := range []string{"sqlite", "postgres"} {
				t.Run(kind, func(t *testing.T) {
					if *update && kind != "sqlite" {
						t.Skip("-update writes the golden file from SQLite only; PostgreSQL is compared with it in a normal run")
					}
					target := filepath.Join(t.TempDir(), "index.db")
					if kind == "postgres" {
						target = testutil.Postgres(t)
					}
					rankingRegression(t, an, target, root, golden, header, e.model)
				})
			}
		})
	}
}

// rankingRegression indexes root into the store at target with the local
// embedder of model ("" the default) and the analysis an, and compares the rankings of
// rankingQueries with the golden file.
func rankingRegression(t *testing.T, an *analyze.Analyzer, target, root, golden, header, model string) {
	ctx := context.Background()
	st, err := store.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	emb, err := provider.New(embed.Options{Provider: "local", Model: model, Expand: analyze.GlossaryExpand, Analyzer: an})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := index.Run(ctx, st, emb, root, index.Options{Threads: 2}); err != nil || rep.Failed > 0 {
		t.Fatalf("index: %v %+v", err, rep)
	}
	s := &Searcher{Store: st, Embedder: emb, Project: root, Analyzer: an}
	var b strings.Builder
	b.WriteString(header)
	for _, q := range rankingQueries {
		resp, err := s.Search(ctx, q, Options{TopK: 5})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		fmt.Fprintf(&b, "\n%s\n", q)
		for i, r := range resp.Results {
			fmt.Fprintf(&b, "  %d. %s:%d %s %s\n", i+1, r.Path, r.StartLine, r.Type, r.Name)
			// the score shown is the one the list is ordered by
			if i > 0 && r.Score > resp.Results[i-1].Score {
				t.Errorf("%q: #%d scores %.4f above #%d's %.4f", q, i+1, r.Score, i, resp.Results[i-1].Score)
			}
		}
	}
	got := b.String()
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, _ := os.ReadFile(golden)
	if got != string(want) {
		t.Errorf("ranking changed; review and run with -update if intended:\n%s", lineDiff(string(want), got))
	}
}

// lineDiff lists the lines that differ between two texts of equal shape
// ("-" want, "+" got), or both texts when their line counts differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	if len(w) != len(g) {
		return "want:\n" + want + "\ngot:\n" + got
	}
	var b strings.Builder
	for i := range w {
		if w[i] != g[i] {
			fmt.Fprintf(&b, "- %s\n+ %s\n", w[i], g[i])
		}
	}
	return b.String()
}
