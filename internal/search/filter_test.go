package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
)

func TestParseQuery(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, words, filter string
		err               error
	}{
		{in: "retry lang:go", words: "retry", filter: "lang:go"},
		{in: "lang:Go retry file:*_test.go -file:vendor/** ", words: "retry", filter: "lang:Go file:*_test.go -file:vendor/**"},
		{in: "sym:RetryRequest", words: "RetryRequest", filter: "sym:RetryRequest"},
		{in: "Retry case:yes", words: "Retry", filter: "case:yes"},
		{in: "retry repo:alpha project:/be.a/", words: "retry", filter: "repo:alpha project:/be.a/"},
		// identifiers with colons, URLs and labels stay words
		{in: "std::vec push", words: "std::vec push"},
		{in: "fetch http://example.com/x https://a.b", words: "fetch http://example.com/x https://a.b"},
		{in: "TODO: fix Foo:bar", words: "TODO: fix Foo:bar"},
		{in: "a::b::c lang:rust", words: "a::b::c", filter: "lang:rust"},
		{in: "plain words only", words: "plain words only"},
		// errors
		{in: "retry lnag:go", err: ErrUnknownFilter},
		{in: "retry -lang:go", err: ErrUnknownFilter},
		{in: "lang:go", err: ErrOnlyFilters},
		{in: "lang:go file:*.go", err: ErrOnlyFilters},
		{in: "retry lang:klingon", err: ErrBadQuery},
		{in: "retry lang:", err: ErrBadQuery},
		{in: "retry case:maybe", err: ErrBadQuery},
		{in: "retry file:/(/", err: ErrBadQuery},
		{in: "retry file:[ab", err: ErrBadQuery},
	} {
		words, f, err := ParseQuery(c.in)
		if c.err != nil {
			if !errors.Is(err, c.err) || !errors.Is(err, ErrBadQuery) {
				t.Errorf("ParseQuery(%q) err = %v, want %v", c.in, err, c.err)
			} else if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "bad query") {
				t.Errorf("ParseQuery(%q) err %q: want one line without the sentinel's text", c.in, err)
			}
			continue
		}
		if err != nil || words != c.words || f.String() != c.filter {
			t.Errorf("ParseQuery(%q) = %q, %q, %v; want %q, %q", c.in, words, f.String(), err, c.words, c.filter)
		}
	}
	_, _, err := ParseQuery("retry lnag:go")
	if want := `unknown filter "lnag:" (did you mean "lang:"?); known: lang, file, path, -file, sym, case, repo, project`; err == nil || err.Error() != want {
		t.Errorf("unknown filter error = %v, want %q", err, want)
	}
	if _, _, err := ParseQuery("retry -fiel:x_test.go"); !errors.Is(err, ErrUnknownFilter) {
		t.Errorf("-fiel: err = %v, want ErrUnknownFilter", err)
	}
	// a word:value no filter is spelt like is text of a question
	for _, in := range []string{
		"print seconds as hh:mm:ss",
		"resolve a key written as prefix:name at the first colon",
		"retry foo:bar",
	} {
		words, f, err := ParseQuery(in)
		if err != nil || words != in || !f.Empty() {
			t.Errorf("ParseQuery(%q) = %q, %v, %v; want the text unchanged, no filter", in, words, f.String(), err)
		}
	}
}

func TestPatternMatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pat, path string
		want      bool
	}{
		{"*_test.go", "server/retry_test.go", true},
		{"*_test.go", "server/retry.go", false},
		{"src/**", "src/web/retry.ts", true},
		{"src/**", "lib/src/retry.ts", false},
		{"**/retry.go", "retry.go", true},
		{"**/retry.go", "a/b/retry.go", true},
		{"server/*.go", "server/sub/x.go", false},
		{"ret?y.py", "tools/retry.py", true},
		{"[!r]*.go", "server/retry.go", false},
		{"/^vendor/", "vendor/lib/retry.go", true},
		{"/^vendor/", "x/vendor/retry.go", false},
		{"Server", "server/retry.go", true}, // a plain value: case-insensitive substring
	} {
		p, err := compilePattern(c.pat)
		if err != nil {
			t.Fatalf("compilePattern(%q): %v", c.pat, err)
		}
		if got := p.Match(c.path); got != c.want {
			t.Errorf("%q matches %q = %v, want %v", c.pat, c.path, got, c.want)
		}
	}
}

// filterTree is the small real tree the filters are tried on: the same
// word in Go, its tests, TypeScript, Python, a vendored copy and prose.
var filterTree = map[string]string{
	"server/retry.go":      "package server\n\n// RetryRequest sends req again after a failure, up to n times.\nfunc RetryRequest(req string, n int) error {\n\tfor i := 0; i < n; i++ {\n\t\tif send(req) == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n\treturn errRetry\n}\n\nfunc send(req string) error { return nil }\n",
	"server/retry_test.go": "package server\n\nimport \"testing\"\n\nfunc TestRetryRequest(t *testing.T) {\n\tif err := RetryRequest(\"x\", 3); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n",
	"src/web/retry.ts":     "// retry a fetch with backoff\nexport function retryFetch(url: string, times: number): Promise<Response> {\n  return fetch(url).catch(() => retryFetch(url, times - 1));\n}\n",
	"tools/retry.py":       "def retry_call(fn, times):\n    \"\"\"call fn again on failure (retry)\"\"\"\n    for _ in range(times):\n        try:\n            return fn()\n        except Exception:\n            pass\n",
	"vendor/lib/retry.go":  "package lib\n\n// VendoredRetry is a copy of a retry helper.\nfunc VendoredRetry(f func() error) error {\n\treturn f()\n}\n",
	"docs/retry.md":        "# Retry\n\nRetryRequest retries a request; see retry_call for the Python side.\n",
}

// namedProject indexes files under a root whose base name is name.
func namedProject(t *testing.T, st *store.Store, emb embed.Embedder, name string, files map[string]string) *Searcher {
	t.Helper()
	root := filepath.Join(t.TempDir(), name)
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := index.ResolveRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := index.Run(context.Background(), st, emb, root, index.Options{Threads: 2}); err != nil || rep.Failed > 0 {
		t.Fatalf("index %s: %v %+v", root, err, rep)
	}
	return &Searcher{Store: st, Embedder: emb, Project: root}
}

// checkFilter runs query with and without its filters over searchers
// and checks the filtered answer is not empty, that every result obeys
// the filters (checked here by what each filter means, not by
// Filter.Keep), and that the unfiltered answer had a result the filters
// drop, so the filter did something.
func checkFilter(t *testing.T, searchers []*Searcher, query string) {
	t.Helper()
	words, _, err := ParseQuery(query)
	if err != nil {
		t.Fatalf("%q: %v", query, err)
	}
	run := func(q string) []MultiResult {
		resp, err := SearchProjects(context.Background(), searchers, q, Options{TopK: 30})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		return resp.Results
	}
	obeys := func(r MultiResult) error {
		for _, tok := range strings.Fields(query) {
			name, val, ok := strings.Cut(tok, ":")
			if !ok {
				continue
			}
			switch name {
			case "lang":
				if want := map[string]string{"go": "go", "py": "python", "ts": "typescript"}[val]; r.Language != want {
					return fmt.Errorf("language %q, want %q", r.Language, want)
				}
			case "file", "path":
				if !pathIn(val, r.Path) {
					return fmt.Errorf("path %s outside %s", r.Path, val)
				}
			case "-file":
				if pathIn(val, r.Path) {
					return fmt.Errorf("path %s inside %s", r.Path, val)
				}
			case "sym":
				if r.Type == "text" {
					return fmt.Errorf("text chunk %s", r.Name)
				}
			case "case":
				if !strings.Contains(r.Content(), words) {
					return fmt.Errorf("no %q in %s %s", words, r.Path, r.Name)
				}
			case "repo", "project":
				if filepath.Base(r.Project) != val {
					return fmt.Errorf("project %s, want %s", r.Project, val)
				}
			}
		}
		return nil
	}
	got := run(query)
	if len(got) == 0 {
		t.Fatalf("%q: no results", query)
	}
	for _, r := range got {
		if err := obeys(r); err != nil {
			t.Errorf("%q: %s:%s: %v", query, r.Path, r.Name, err)
		}
	}
	dropped := false
	for _, r := range run(words) {
		dropped = dropped || obeys(r) != nil
	}
	if !dropped {
		t.Errorf("%q: the unfiltered query %q has no result the filter drops; the example proves nothing", query, words)
	}
}

// pathIn is what a file: value means, written out for the three forms
// the examples use: /regex/, dir/** and a base-name glob.
func pathIn(val, p string) bool {
	switch {
	case strings.HasPrefix(val, "/"):
		return regexp.MustCompile(strings.Trim(val, "/")).MatchString(p)
	case strings.HasSuffix(val, "/**"):
		return strings.HasPrefix(p, strings.TrimSuffix(val, "**"))
	}
	ok, _ := filepath.Match(val, filepath.Base(p))
	return ok
}

// TestFilterREADME runs every example of the README's query filter table
// against filterTree indexed twice, as projects alpha and beta.
func TestFilterREADME(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "\n### Query filters\n")
	if !ok {
		t.Fatal("README has no \"### Query filters\" section")
	}
	row := regexp.MustCompile("(?m)^\\| `(-?[a-z]+:)` \\| `([^`]+)` \\|")
	rows := row.FindAllStringSubmatch(strings.SplitN(table, "\n### ", 2)[0], -1)
	if len(rows) != len(FilterNames) {
		t.Fatalf("README filter table has %d rows, want one per filter (%d: %v)", len(rows), len(FilterNames), FilterNames)
	}
	st, emb := testStore(t)
	beta := map[string]string{"retry.go": "package beta\n\n// RetryBeta retries in beta.\nfunc RetryBeta() {}\n"}
	ss := []*Searcher{namedProject(t, st, emb, "alpha", filterTree), namedProject(t, st, emb, "beta", beta)}
	for _, m := range rows {
		t.Run(m[1], func(t *testing.T) {
			if !strings.Contains(m[2], m[1]) {
				t.Fatalf("example %q does not use %s", m[2], m[1])
			}
			searchers := ss
			if m[1] != "repo:" && m[1] != "project:" {
				searchers = ss[:1]
			}
			checkFilter(t, searchers, m[2])
		})
	}
}

// TestFilterEach runs each filter over one real index with queries the
// README does not show, on both rankers.
func TestFilterEach(t *testing.T) {
	t.Parallel()
	st, emb := testStore(t)
	s := namedProject(t, st, emb, "alpha", filterTree)
	for _, q := range []string{"retry lang:py", "retry lang:ts", "retry file:/^server/", "retry -file:src/** lang:go", "sym:retry_call", "RetryRequest case:yes"} {
		checkFilter(t, []*Searcher{s}, q)
	}
	for _, ranker := range []string{RankerSeed, RankerHybrid} {
		rs := top(t, s, "retry lang:go -file:*_test.go", ranker, 30)
		if len(rs) == 0 {
			t.Fatalf("%s: no results", ranker)
		}
		for _, r := range rs {
			if r.Language != "go" || strings.HasSuffix(r.Path, "_test.go") {
				t.Errorf("%s: %s (%s) passed lang:go -file:*_test.go", ranker, r.Path, r.Language)
			}
		}
	}
	resp, err := s.Search(context.Background(), "retry lang:go", Options{})
	if err != nil || resp.Filter != "lang:go" || resp.Query != "retry lang:go" {
		t.Errorf("Response.Filter = %q, Query = %q, err %v", resp.Filter, resp.Query, err)
	}
	// a single project's search with a repo: filter naming another
	if _, err := s.Search(context.Background(), "retry repo:beta", Options{}); !errors.Is(err, ErrBadQuery) {
		t.Errorf("repo:beta over alpha: err = %v, want ErrBadQuery", err)
	}
	if _, err := SearchProjects(context.Background(), []*Searcher{s}, "retry lnag:go", Options{}); !errors.Is(err, ErrUnknownFilter) {
		t.Errorf("SearchProjects with lnag:go: err = %v, want ErrUnknownFilter", err)
	}
}

// TestFilterNoStarve: the one Python chunk that mentions the word ranks
// far below forty Go files that repeat it, past the top 30 and the
// per-file cap; lang:py still finds it, because the filter runs over
// the pool before the cut.
func TestFilterNoStarve(t *testing.T) {
	t.Parallel()
	files := map[string]string{"tools/once.py": "def helper():\n    # one retry here\n    return 1\n"}
	for i := range 40 {
		files[fmt.Sprintf("pkg/retry%02d.go", i)] = fmt.Sprintf("package pkg\n\n// Retry%02d retries: retry retry retry.\nfunc Retry%02d() { retry() }\n", i, i)
	}
	st, emb := testStore(t)
	s := namedProject(t, st, emb, "many", files)
	if rs := top(t, s, "retry", RankerHybrid, 30); rankOf(rs, "tools/once.py", "") > 0 {
		t.Fatalf("the Python chunk is in the unfiltered top 30 (%d); the test needs it below", rankOf(rs, "tools/once.py", ""))
	}
	for _, ranker := range []string{RankerSeed, RankerHybrid} {
		rs := top(t, s, "retry lang:py", ranker, 5)
		if len(rs) != 1 || rs[0].Path != "tools/once.py" {
			t.Errorf("%s: retry lang:py = %v, want tools/once.py alone", ranker, rs)
		}
	}
}

// TestFilterReadsDeeper: with a pool of 5 per route (25 with the filter's
// factor), the Python chunk is not among the keyword route's first 25;
// the hybrid ranker reads deeper until the filter keeps it.
func TestFilterReadsDeeper(t *testing.T) {
	t.Parallel()
	files := map[string]string{"tools/once.py": "def helper():\n    # one retry here\n    return 1\n"}
	for i := range 40 {
		files[fmt.Sprintf("pkg/retry%02d.go", i)] = fmt.Sprintf("package pkg\n\n// Retry%02d retries: retry retry retry.\nfunc Retry%02d() { retry() }\n", i, i)
	}
	st, emb := testStore(t)
	s := namedProject(t, st, emb, "many", files)
	hp := DefaultHybridParams()
	hp.Candidates, hp.Alpha = 5, 0 // the keyword route alone, 5 deep
	s.Params = &hp
	ctx := context.Background()
	kw, err := st.KeywordSearch(ctx, s.Project, []string{"retry"}, hp.FTS, hp.Candidates*filterPoolFactor)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(kw))
	for i, x := range kw {
		ids[i] = x.ID
	}
	rows, err := st.ChunksByID(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Path == "tools/once.py" {
			t.Fatal("the Python chunk is in the first pool; the test needs it deeper")
		}
	}
	if rs := top(t, s, "retry lang:py", RankerHybrid, 5); len(rs) != 1 || rs[0].Path != "tools/once.py" {
		t.Errorf("retry lang:py = %v, want tools/once.py", names(rs))
	}
}

// FuzzParseQuery: ParseQuery never panics; what it accepts splits into
// words that parse again to themselves with no filter, and a Filter whose
// text is the filter words of the input.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"retry lang:go", "std::vec", "http://x y", "file:/(/", "file:[a", "sym:", "a -file:** b", "case:yes X", "lang:c++ x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, flt, err := ParseQuery(s)
		if err != nil {
			if !errors.Is(err, ErrBadQuery) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: error %q", s, err)
			}
			return
		}
		again, f2, err := ParseQuery(words)
		if words != "" && (err != nil || again != words || !f2.Empty()) {
			t.Fatalf("%q: words %q parse again to %q, %q, %v", s, words, again, f2.String(), err)
		}
		for _, w := range strings.Fields(flt.String()) {
			if !strings.Contains(s, w) {
				t.Fatalf("%q: filter %q not in the input", s, w)
			}
		}
	})
}

// A word written like a filter whose name is no filter nor near one is
// searched as words, and the answer's note names it, so a filter the user
// believed in is never dropped silently; code-like colons ("TODO:",
// "std::vector", "http://host", "hh:mm:ss") are plain text without a note.
func TestFilterLikeWordsNoted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		query string
		as    []string
	}{
		{"parse the header prefix:name", []string{"prefix:name"}},
		{"owner:alice retry loop", []string{"owner:alice"}},
		{"TODO: fix the retry", nil},
		{"std::vector growth", nil},
		{"fetch http://host/path", nil},
		{"timestamps like 12:30:00 parsed", nil},
	} {
		words, f, err := ParseQuery(tc.query)
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		if !reflect.DeepEqual(f.AsWords, tc.as) {
			t.Errorf("%q: AsWords %q, want %q", tc.query, f.AsWords, tc.as)
		}
		for _, w := range tc.as {
			if !strings.Contains(words, w) {
				t.Errorf("%q: %q is not searched (words %q)", tc.query, w, words)
			}
			if n := f.Note(); !strings.Contains(n, "`"+w+"` searched as words") || !strings.Contains(n, "lang:") {
				t.Errorf("%q: note %q", tc.query, n)
			}
		}
		if tc.as == nil && f.Note() != "" {
			t.Errorf("%q: note %q, want none", tc.query, f.Note())
		}
	}
	s := fixture(t, map[string]string{"io/io.go": ioFixture})
	resp, err := s.Search(context.Background(), "copy owner:alice", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Note, "`owner:alice` searched as words (no filter owner:") {
		t.Errorf("response note %q does not name the filter-like word", resp.Note)
	}
}

// TestAbsentLanguageNote: a lang: filter the project has no file of, and so
// no result, says so with the languages the project holds; a language it
// holds with no result for the query says nothing of the kind.
func TestAbsentLanguageNote(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{
		"a.go": "package a\n\n// Parse reads a config.\nfunc Parse() {}\n",
		"b.go": "package a\n\n// Render writes it.\nfunc Render() {}\n",
		"c.js": "function parse() { return 1 }\n",
	})
	resp, err := s.Search(context.Background(), "parse lang:python", Options{TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 0 || !strings.Contains(resp.Note, "the project has no python files (its languages: go 2, javascript 1)") {
		t.Errorf("lang:python: %d results, note %q", len(resp.Results), resp.Note)
	}
	if out := FormatForTool(resp); !strings.Contains(out, "Note: the project has no python files") {
		t.Errorf("the tools' format drops the note:\n%s", out)
	}
	resp, err = s.Search(context.Background(), "zzzqqq lang:go", Options{TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(resp.Note, "has no go files") {
		t.Errorf("lang:go on a Go project: note %q", resp.Note)
	}
}
