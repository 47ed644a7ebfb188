package serve

import (
	"context"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
)

// indexDir writes files (paths may name subdirectories) into a new directory dir (made under the fixture's
// base directory) and indexes it into the fixture's store with the local
// embedder, as `coderag index` would; it returns the root.
func (f *fixture) indexDir(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	root := filepath.Join(filepath.Dir(f.list), filepath.FromSlash(dir))
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	emb, err := provider.New(embed.Options{Provider: "local", Expand: analyze.GlossaryExpand})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := index.Run(context.Background(), f.st, emb, root, index.Options{Threads: 2}); err != nil || rep.Failed > 0 {
		t.Fatalf("index %s: %v %+v", root, err, rep)
	}
	return root
}

// libFiles is a small project; two copies of it are indexed as a/lib and
// b/lib.
func libFiles(who string) map[string]string {
	return map[string]string{"parse.go": fmt.Sprintf("package lib\n\n// ParseConfig reads the %s configuration file.\nfunc ParseConfig(path string) error { return nil }\n", who)}
}

// TestSuffixNames: the shortest path suffix that tells roots apart.
func TestSuffixNames(t *testing.T) {
	t.Parallel()
	got := suffixNames([]string{"/src/a/lib", "/src/b/lib", "/src/c/x/lib", "/home/u/api", "/x/lib", "/lib"})
	want := []string{"a/lib", "b/lib", "c/x/lib", "api", "/x/lib", "/lib"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestDuplicateProjectNames: two roots named lib are told apart by their
// shortest distinct path suffix in /api/status, on the page (checkboxes
// and badges), and as the name a request gives (?project=, /mcp?project=,
// /api/remove); the bare shared name is a 400 naming both (/api/remove and
// /api/cancel alike).
func TestDuplicateProjectNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret"})
	a := f.indexDir(t, "a/lib", libFiles("first"))
	b := f.indexDir(t, "b/lib", libFiles("second"))
	var st statusJSON
	f.getJSON(t, "/api/status", &st)
	names := map[string]string{}
	for _, p := range st.Projects {
		names[p.Project] = p.Name
	}
	if names[a] != filepath.FromSlash("a/lib") || names[b] != filepath.FromSlash("b/lib") || names[f.list] != "list" {
		t.Fatalf("names %v", names)
	}
	var resp struct {
		Results []struct {
			Project string `json:"project"`
		} `json:"results"`
	}
	f.getJSON(t, "/api/search?project=b/lib&q="+url.QueryEscape("parse the configuration file"), &resp)
	if len(resp.Results) == 0 || resp.Results[0].Project != b {
		t.Fatalf("project=b/lib: %+v", resp.Results)
	}
	code, body := f.do(t, "GET", "/api/search?project=lib&q=parse", "", "")
	if code != 400 || !strings.Contains(body, "a/lib") || !strings.Contains(body, "b/lib") {
		t.Errorf("project=lib: %d %s, want a 400 naming a/lib and b/lib", code, body)
	}
	if code, body := f.do(t, "POST", "/mcp?project=lib", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`); code != 400 || !strings.Contains(body, "a/lib") {
		t.Errorf("/mcp?project=lib: %d %s", code, body)
	}
	cs := connect(t, f.srv.URL+"/mcp?project=a/lib", "")
	if text, isErr := callText(t, cs, &sdk.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": "parse the configuration file"}}); isErr || !strings.Contains(text, "parse.go") {
		t.Errorf("search_code over /mcp?project=a/lib: %v %s", isErr, text)
	}
	// the page: checkboxes and badges say a/lib and b/lib
	code, page := f.do(t, "GET", "/?q="+url.QueryEscape("parse the configuration file"), "", "")
	page = html.UnescapeString(page)
	for _, want := range []string{`value="` + a + `">a/lib</label>`, `value="` + b + `">b/lib</label>`, `>a/lib #1</span>`, `>b/lib #1</span>`} {
		if code != 200 || !strings.Contains(page, filepath.FromSlash(want)) {
			t.Errorf("page lacks %s (%d)", want, code)
		}
	}
	for _, api := range []string{"/api/remove", "/api/cancel"} {
		code, body := f.do(t, "POST", api, "s3cret", `{"root": "lib"}`)
		if want := `\"lib\" names 2 projects: give one of ` + filepath.FromSlash("a/lib") + ", " + filepath.FromSlash("b/lib"); code != 400 || !strings.Contains(body, want) {
			t.Errorf("%s lib: %d %s, want 400 %q", api, code, body, want)
		}
	}
	if code, body := f.do(t, "POST", "/api/remove", "s3cret", `{"root": "b/lib"}`); code != 200 || !strings.Contains(body, `"removed": "`+b+`"`) {
		t.Fatalf("remove b/lib: %d %s", code, body)
	}
	f.getJSON(t, "/api/status", &st)
	for _, p := range st.Projects {
		if p.Project == b {
			t.Errorf("b/lib still listed")
		}
		if p.Project == a && p.Name != "lib" {
			t.Errorf("alone, a/lib is named %q, want lib", p.Name)
		}
	}
}

// TestPageMoreAndNotes: the page asks for more results (top_k up to
// config.MaxTopK, a bad top_k is the API's 400 on the page), shows the
// answer's notes in its own words (never a CLI command), and the API and
// the page carry the matched terms (offsets; <mark>).
func TestPageMoreAndNotes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	files := map[string]string{}
	for i := range 16 {
		files[fmt.Sprintf("retry%02d.go", i)] = fmt.Sprintf("package retry\n\n// RetryBackoff%[1]d retries with backoff.\nfunc RetryBackoff%[1]d() {}\n\n// Backoff%[1]d doubles the retry delay.\nfunc Backoff%[1]d() {}\n", i)
	}
	f.indexDir(t, "retry", files)
	get := func(q string) (int, string) {
		code, body := f.do(t, "GET", "/?"+q, "", "")
		return code, html.UnescapeString(body)
	}
	code, page := get("project=retry&q=retry+with+backoff")
	if code != 200 || strings.Count(page, `<li class="result">`) != 10 || !strings.Contains(page, `id="more"`) || !strings.Contains(page, "top_k=20") {
		t.Fatalf("first page: %d, %d results, more link: %v", code, strings.Count(page, `<li class="result">`), strings.Contains(page, `id="more"`))
	}
	code, page = get("project=retry&q=retry+with+backoff&top_k=30")
	if code != 200 || strings.Count(page, `<li class="result">`) != 30 || strings.Contains(page, `id="more"`) || !strings.Contains(page, `id="atmost"`) {
		t.Errorf("top_k=30: %d, %d results, more link %v", code, strings.Count(page, `<li class="result">`), strings.Contains(page, `id="more"`))
	}
	for _, bad := range []string{"31", "0", "ten"} {
		if code, page := get("q=retry&top_k=" + bad); code != 400 || !strings.Contains(page, "top_k") {
			t.Errorf("top_k=%s: %d, want a 400 that names top_k", bad, code)
		}
	}
	if !strings.Contains(page, "<mark>Retry</mark><mark>Backoff</mark>") && !strings.Contains(page, "<mark>RetryBackoff") {
		t.Errorf("no <mark> on the matched words")
	}
	// notes, in the page's words
	for q, want := range map[string]string{
		"???":                                 "the query has no searchable words",
		"the":                                 "only common words",
		"where is zorblaxConfigBridge set up": "no identifier `zorblaxConfigBridge` in the code; results match its parts",
	} {
		code, page := get("q=" + url.QueryEscape(q))
		if code != 200 || !strings.Contains(page, `<p class="note">note: `) || !strings.Contains(page, want) || strings.Contains(page, "`coderag ") {
			t.Errorf("%q: %d, want the note %q and no CLI command", q, code, want)
		}
	}
	if got := webText("index incomplete: 3 of 9 files indexed (an index run was interrupted or is still going); run `coderag index /srv/x`"); strings.Contains(got, "coderag") || !strings.HasPrefix(got, "index incomplete: 3 of 9 files indexed") {
		t.Errorf("incomplete note on the page: %q", got)
	}
	mixed := search.MixedNote(store.MixedVectors{Embedder: "local:a", Other: "local:b", Files: 3, Total: 9})
	if got := webText(mixed + "; run `coderag index /srv/x`"); strings.Contains(got, "coderag") || !strings.HasPrefix(got, mixed+"; indexing the project again embeds them") {
		t.Errorf("mixed note on the page: %q", got)
	}
	if got := webText("read index: database disk image is malformed; run `coderag doctor` to check it, `coderag doctor --rebuild` to rebuild it"); strings.Contains(got, "coderag") || got != "read index: database disk image is malformed" {
		t.Errorf("repair hint on the page: %q", got)
	}
	// the API: offsets that cut the query's words out of the preview
	var resp struct {
		Results []struct {
			Preview        string      `json:"preview"`
			PreviewMatches []matchSpan `json:"preview_matches"`
			LineMatches    []struct {
				Line, Start, End int
			} `json:"line_matches"`
		} `json:"results"`
	}
	f.getJSON(t, "/api/search?project=retry&q="+url.QueryEscape("retry with backoff"), &resp)
	if len(resp.Results) == 0 || len(resp.Results[0].PreviewMatches) == 0 || len(resp.Results[0].LineMatches) == 0 {
		t.Fatalf("no matches in %+v", resp.Results)
	}
	for _, r := range resp.Results {
		for _, m := range r.PreviewMatches {
			if w := strings.ToLower(r.Preview[m.Start:m.End]); !strings.Contains(w, "retr") && !strings.Contains(w, "backoff") {
				t.Errorf("match %q in %q", w, r.Preview)
			}
		}
	}
}

// matchSpan is the shape of a match offset in the API's answers.
type matchSpan struct{ Start, End int }

// TestMCPSearchNotes: search_code over MCP says what the CLI says of a
// weak query: an identifier that exists nowhere (its parts in the list
// package, or no word of it at all: then that alone), a query of stop
// words.
func TestMCPSearchNotes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	cs := connect(t, f.srv.URL+"/mcp?project=list", "")
	for q, want := range map[string]string{
		"where is zorblaxListElement kept":    "no identifier `zorblaxListElement` in the code; results match its parts",
		"where is zorblaxConfigBridge set up": "Note: " + search.NoKeywordNote + ", probably unrelated.",
		"the":                                 "only common words",
	} {
		text, isErr := callText(t, cs, &sdk.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": q}})
		if isErr || !strings.Contains(text, want) || strings.Contains(text, "zorblaxConfigBridge") {
			t.Errorf("search_code %q: %v\n%s", q, isErr, text)
		}
	}
}

// TestFileViewOpensAtTarget: a file view asked for line N starts
// fileContext lines above it (with a link to the earlier ones), its line
// numbers column is as wide as its 3-digit numbers, and the server has a
// favicon, with no token needed.
func TestFileViewOpensAtTarget(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret", PrivateReads: true})
	req := "/file?project=httptest&path=recorder.go&line=200&end=210"
	code, page := f.do(t, "GET", req, "s3cret", "")
	first := regexp.MustCompile(`id="L(\d+)"`).FindStringSubmatch(page)
	if code != 200 || first == nil || first[1] != fmt.Sprint(200-fileContext) {
		t.Fatalf("file view at line 200: %d, first line %v", code, first)
	}
	if !strings.Contains(page, `<pre class="chroma lnw3">`) || !strings.Contains(page, "earlier lines") || !strings.Contains(page, `class="filehead"`) {
		t.Errorf("file view lacks the 3-digit number column, the earlier-lines link or its header")
	}
	code, body := f.do(t, "GET", "/favicon.ico", "", "")
	if code != 200 || !strings.Contains(body, "<svg") {
		t.Errorf("favicon: %d %.40s", code, body)
	}
	if !strings.Contains(page, `rel="icon" href="/static/favicon.svg"`) {
		t.Errorf("the page names no icon")
	}
}

// TestIdenticalFilesFolded: a file copied into two projects is one result
// naming the other project ("also in"), in the API and on the page.
func TestIdenticalFilesFolded(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	c := f.indexDir(t, "c/lib", libFiles("same"))
	d := f.indexDir(t, "d/lib", libFiles("same"))
	var resp struct {
		Results []struct {
			Project string   `json:"project"`
			Path    string   `json:"path"`
			AlsoIn  []string `json:"also_in"`
		} `json:"results"`
	}
	f.getJSON(t, "/api/search?q="+url.QueryEscape("parse the configuration file"), &resp)
	n := 0
	for _, r := range resp.Results {
		if r.Path == "parse.go" {
			n++
			if r.Project != c || len(r.AlsoIn) != 1 || r.AlsoIn[0] != d {
				t.Errorf("parse.go in %s, also in %v; want c/lib, also in d/lib", r.Project, r.AlsoIn)
			}
		}
	}
	if n != 1 {
		t.Errorf("parse.go listed %d times, want once", n)
	}
	code, page := f.do(t, "GET", "/?q="+url.QueryEscape("parse the configuration file"), "", "")
	if code != 200 || !strings.Contains(page, `<span class="also">also in `+filepath.FromSlash("d/lib")+`</span>`) {
		t.Errorf("page: %d, no also-in d/lib", code)
	}
}

// TestPlaceName: the page names a folded copy by its project's short name,
// with the copy's path when it lives at another path.
func TestPlaceName(t *testing.T) {
	t.Parallel()
	names := map[string]string{"/srv/a/lib": "a/lib", "/srv/http": "http", "/srv/http/internal": "internal"}
	for place, want := range map[string]string{
		"/srv/a/lib":                  "a/lib",
		"/srv/http/internal/chunk.go": "internal/chunk.go",
		"/srv/http/net/x.go":          "http/net/x.go",
		"/elsewhere/y.go":             "/elsewhere/y.go",
	} {
		if got := placeName(place, names); got != want {
			t.Errorf("placeName(%q) = %q, want %q", place, got, want)
		}
	}
}
