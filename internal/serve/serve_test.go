package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
)

// fixture is a real SQLite index of two projects copied from GOROOT/src
// (container/list and net/http/httptest), served by a Server over Local.
type fixture struct {
	list, rec string // project roots
	outside   string // a directory next to the roots, with a secret file
	st        *store.Store
	eng       *engine.Engine
	local     *Local
	srv       *httptest.Server
	s         *Server // the handler srv serves
	// wrap, when set before the first index run of the server, wraps
	// every embedder the engine builds (tests that count or hold embeds).
	wrap func(embed.Embedder) embed.Embedder
}

// copyFiles copies GOROOT/src/<dir>/<name> for each name into dst.
func copyFiles(t *testing.T, dst, dir string, names ...string) {
	t.Helper()
	src := filepath.Join(runtime.GOROOT(), "src", filepath.FromSlash(dir))
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatalf("GOROOT source: %v", err)
		}
		if err := os.WriteFile(filepath.Join(dst, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{list: filepath.Join(base, "list"), rec: filepath.Join(base, "httptest"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{f.list, f.rec, f.outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFiles(t, f.list, "container/list", "list.go")
	copyFiles(t, f.rec, "net/http/httptest", "recorder.go", "server.go")
	if err := os.WriteFile(filepath.Join(f.outside, "secret.txt"), []byte("top secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// a symlink inside a project that leads out of it
	if err := os.Symlink(filepath.Join(f.outside, "secret.txt"), filepath.Join(f.list, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	f.st, err = store.Open(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.st.Close() })
	newEmb := func() (embed.Embedder, error) {
		return provider.New(embed.Options{Provider: "local", Expand: analyze.GlossaryExpand})
	}
	emb, err := newEmb()
	if err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{f.list, f.rec} {
		if rep, err := index.Run(ctx, f.st, emb, root, index.Options{Threads: 2}); err != nil || rep.Failed > 0 {
			t.Fatalf("index %s: %v %+v", root, err, rep)
		}
	}
	wrapped := func() (embed.Embedder, error) {
		e, err := newEmb()
		if err == nil && f.wrap != nil {
			e = f.wrap(e)
		}
		return e, err
	}
	f.eng, err = engine.New(engine.Config{Store: f.st, Embedders: engine.Fixed(wrapped),
		Index: index.Options{Threads: 2}, LongLived: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.eng.Close() })
	f.local, err = NewLocal(LocalConfig{Engine: f.eng, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.local.Close() })
	opts.Loopback = true
	h, err := New(f.local, opts)
	if err != nil {
		t.Fatal(err)
	}
	f.s = h
	f.srv = httptest.NewServer(h)
	t.Cleanup(f.srv.Close)
	return f
}

// do sends a request with an optional bearer token and returns the status
// and body.
func (f *fixture) do(t *testing.T, method, path, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}

func (f *fixture) getJSON(t *testing.T, path string, v any) {
	t.Helper()
	code, body := f.do(t, "GET", path, "", "")
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
}

func TestAPISearchAcrossProjects(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	var resp struct {
		Query    string `json:"query"`
		Projects []struct {
			Project string `json:"project"`
		} `json:"projects"`
		Results []struct {
			Project     string          `json:"project"`
			Path        string          `json:"path"`
			Name        string          `json:"name"`
			StartLine   int             `json:"start_line"`
			ProjectRank int             `json:"project_rank"`
			Explain     json.RawMessage `json:"explain"`
		} `json:"results"`
	}
	f.getJSON(t, "/api/search?q="+url.QueryEscape("insert an element at the back of the list")+"&top_k=4", &resp)
	if len(resp.Projects) != 2 {
		t.Fatalf("projects %+v", resp.Projects)
	}
	if len(resp.Results) == 0 || resp.Results[0].Project != f.list || resp.Results[0].Path != "list.go" || resp.Results[0].StartLine < 1 {
		t.Fatalf("results %+v", resp.Results)
	}
	if resp.Results[0].Explain != nil {
		t.Errorf("explain given without explain=1")
	}
	// one project by name; the explain endpoint adds the breakdown
	f.getJSON(t, "/api/explain?project=httptest&q="+url.QueryEscape("record the response headers"), &resp)
	for _, r := range resp.Results {
		if r.Project != f.rec || r.Explain == nil {
			t.Fatalf("explain result %+v", r)
		}
	}
	if !strings.Contains(resp.Results[0].Path, "recorder.go") {
		t.Errorf("best hit %s, want recorder.go", resp.Results[0].Path)
	}
	for _, tc := range []struct {
		path string
		code int
	}{
		{"/api/search", 400},
		{"/api/search?q=x&top_k=99", 400},
		{"/api/search?q=x&project=nope", 404},
		{"/api/search?q=x&ranker=nope", 400},
	} {
		if code, body := f.do(t, "GET", tc.path, "", ""); code != tc.code || !strings.Contains(body, `"error"`) {
			t.Errorf("GET %s: %d %s, want %d", tc.path, code, body, tc.code)
		}
	}
}

func TestAPIStatusGraphFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	var st statusJSON
	f.getJSON(t, "/api/status", &st)
	if len(st.Projects) != 2 || st.Projects[0].Project != f.rec || st.Projects[1].Project != f.list || st.Writes {
		t.Fatalf("status %+v", st)
	}
	for _, p := range st.Projects {
		if p.Files == 0 || p.Chunks == 0 || p.Relations == 0 || p.Embedder == "" || p.LastRun == nil || !p.LastRun.Done {
			t.Errorf("status of %s: %+v", p.Project, p)
		}
	}
	var g Graph
	f.getJSON(t, "/api/graph?project=list&name=List.insertValue", &g)
	if g.Start == nil || !strings.HasPrefix(g.Start.Name, "List.insertValue") {
		t.Fatalf("graph start %+v", g.Start)
	}
	callers := map[string]bool{}
	for _, e := range g.Callers.Edges {
		if e.Caller != nil {
			callers[strings.SplitN(e.Caller.Name, "(", 2)[0]] = true
		}
	}
	for _, want := range []string{"List.PushBack", "List.PushFront", "List.InsertBefore", "List.InsertAfter"} {
		if !callers[want] {
			t.Errorf("callers of List.insertValue lack %s: %v", want, callers)
		}
	}
	if len(g.Callees.Edges) == 0 || g.Callees.Edges[0].Target == nil || !strings.HasPrefix(g.Callees.Edges[0].Target.Name, "List.insert(") {
		t.Errorf("callees %+v", g.Callees.Edges)
	}
	code, svg := f.do(t, "GET", "/api/graph?project=list&name=List.insertValue&format=svg", "", "")
	if code != 200 || !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "List.PushBack") || !strings.Contains(svg, "/file?") {
		t.Errorf("svg: %d %.300s", code, svg)
	}
	if code, _ := f.do(t, "GET", "/api/graph?project=list&name=NoSuchThing", "", ""); code != 404 {
		t.Errorf("graph of an unknown name: %d, want 404", code)
	}
	var rd struct {
		Path       string   `json:"path"`
		Offset     int      `json:"offset"`
		TotalLines int      `json:"total_lines"`
		Lines      []string `json:"lines"`
	}
	f.getJSON(t, "/api/file?project=list&path=list.go&offset=100&limit=5", &rd)
	if rd.Path != "list.go" || rd.Offset != 100 || len(rd.Lines) != 5 || rd.TotalLines < 200 {
		t.Errorf("file %+v", rd)
	}
}

// TestConfinement: every way out of a project root is refused with a 4xx
// by the API and the page alike, and the secret is never in the answer.
func TestConfinement(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	for _, tc := range []struct {
		path string
		code int
	}{
		{"../outside/secret.txt", 403},
		{"../httptest/recorder.go", 403},
		{filepath.Join(f.outside, "secret.txt"), 403},
		{"leak.txt", 403}, // a symlink out of the root
		{"/etc/passwd", 403},
		{"missing.go", 404},
		{".", 400},
	} {
		for _, prefix := range []string{"/api/file", "/file"} {
			code, body := f.do(t, "GET", prefix+"?project=list&path="+url.QueryEscape(tc.path), "", "")
			if code != tc.code || strings.Contains(body, "top secret") {
				t.Errorf("GET %s %s: %d, want %d: %.200s", prefix, tc.path, code, tc.code, body)
			}
		}
	}
	if code, _ := f.do(t, "GET", "/api/file?project="+url.QueryEscape(f.outside)+"&path=secret.txt", "", ""); code != 404 {
		t.Errorf("a directory that is not an indexed project: %d, want 404", code)
	}
}

// TestTokens: with no token writes are refused; with one, writes need it
// as a bearer header (not the page's cookie); with private reads, reads
// need it too and the page's login keeps it in a cookie.
func TestTokens(t *testing.T) {
	t.Parallel()
	t.Run("no token", func(t *testing.T) {
		f := newFixture(t, Options{})
		if code, body := f.do(t, "POST", "/api/index", "", `{"root":"`+f.list+`"}`); code != 403 || !strings.Contains(body, "--token") {
			t.Errorf("index without a configured token: %d %s", code, body)
		}
		if code, _ := f.do(t, "POST", "/api/remove", "", `{"root":"`+f.list+`"}`); code != 403 {
			t.Errorf("remove without a configured token: %d", code)
		}
	})
	t.Run("token", func(t *testing.T) {
		f := newFixture(t, Options{Token: "s3cret"})
		if code, _ := f.do(t, "GET", "/api/status", "", ""); code != 200 {
			t.Errorf("reads are open: %d", code)
		}
		for _, tok := range []string{"", "wrong"} {
			if code, _ := f.do(t, "POST", "/api/index", tok, `{"root":"`+f.list+`"}`); code != 401 {
				t.Errorf("index with token %q: %d, want 401", tok, code)
			}
		}
		// a cookie is not enough for a write
		req, _ := http.NewRequest("POST", f.srv.URL+"/api/remove", strings.NewReader(`{"root":"list"}`))
		req.AddCookie(&http.Cookie{Name: tokenCookie, Value: "s3cret"})
		if res, err := f.srv.Client().Do(req); err != nil || res.StatusCode != 401 {
			t.Errorf("remove with the cookie only: %v %v", err, res.StatusCode)
		}
		// a new project: index it, follow it to the end
		extra := filepath.Join(filepath.Dir(f.list), "extra")
		if err := os.Mkdir(extra, 0o755); err != nil {
			t.Fatal(err)
		}
		copyFiles(t, extra, "container/ring", "ring.go")
		code, body := f.do(t, "POST", "/api/index", "s3cret", `{"root":"`+extra+`"}`)
		if code != 202 || !strings.Contains(body, `"indexing"`) {
			t.Fatalf("index: %d %s", code, body)
		}
		<-f.local.run(extra).Done() // the run is done (no wall clock)
		var st statusJSON
		f.getJSON(t, "/api/status", &st)
		var found *ProjectStatus
		for i := range st.Projects {
			if st.Projects[i].Project == extra {
				found = &st.Projects[i]
			}
		}
		if found == nil || !found.Indexed || found.Files != 1 || found.Indexing == nil || found.Indexing.Running || found.Indexing.Report == nil || found.Indexing.Error != "" {
			t.Fatalf("status after index: %+v", found)
		}
		code, body = f.do(t, "POST", "/api/remove", "s3cret", `{"root":"extra"}`)
		if code != 200 || !strings.Contains(body, `"files": 1`) {
			t.Fatalf("remove: %d %s", code, body)
		}
		if code, _ := f.do(t, "POST", "/api/remove", "s3cret", `{"root":"`+extra+`"}`); code != 404 {
			t.Errorf("remove twice: %d, want 404", code)
		}
		if code, _ := f.do(t, "POST", "/api/index", "s3cret", `{}`); code != 400 {
			t.Errorf("index without root: %d, want 400", code)
		}
	})
	t.Run("private reads", func(t *testing.T) {
		f := newFixture(t, Options{Token: "s3cret", PrivateReads: true})
		if code, _ := f.do(t, "GET", "/api/status", "", ""); code != 401 {
			t.Errorf("private read without token: %d", code)
		}
		if code, _ := f.do(t, "GET", "/api/status", "s3cret", ""); code != 200 {
			t.Errorf("private read with token: %d", code)
		}
		if code, body := f.do(t, "GET", "/?q=list", "", ""); code != 401 || !strings.Contains(body, `name="token"`) {
			t.Errorf("page without token: %d, no login form", code)
		}
		if code, _ := f.do(t, "GET", "/static/style.css", "", ""); code != 200 {
			t.Errorf("static files stay public: %d", code)
		}
		// the login form sets a cookie that reads accept
		c := f.srv.Client()
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		res, err := c.PostForm(f.srv.URL+"/login", url.Values{"token": {"s3cret"}, "next": {"/status"}})
		if err != nil || res.StatusCode != http.StatusSeeOther || len(res.Cookies()) != 1 {
			t.Fatalf("login: %v %v", err, res)
		}
		cookie := res.Cookies()[0]
		req, _ := http.NewRequest("GET", f.srv.URL+"/status", nil)
		req.AddCookie(cookie)
		if res, err := c.Do(req); err != nil || res.StatusCode != 200 {
			t.Errorf("page with the cookie: %v %v", err, res.StatusCode)
		}
		// the cookie is derived from the token, never the token: it
		// grants reads only, as a bearer it is refused
		if strings.Contains(cookie.Value, "s3cret") || !cookie.HttpOnly {
			t.Errorf("the login cookie holds the token or is readable by scripts: %+v", cookie)
		}
		if code, _ := f.do(t, "POST", "/api/remove", cookie.Value, `{"root":"list"}`); code != 401 {
			t.Errorf("the cookie's value as a bearer token for a write: %d, want 401", code)
		}
		if res, _ := c.PostForm(f.srv.URL+"/login", url.Values{"token": {"nope"}}); res.StatusCode != 401 {
			t.Errorf("login with a wrong token: %d", res.StatusCode)
		}
	})
}

func TestHostCheck(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	req, _ := http.NewRequest("GET", f.srv.URL+"/api/status", nil)
	req.Host = "attacker.example:7777"
	res, err := f.srv.Client().Do(req)
	if err != nil || res.StatusCode != 403 {
		t.Errorf("foreign Host on a loopback server: %v %v", err, res.StatusCode)
	}
	for _, h := range []string{"localhost:7777", "127.0.0.1", "[::1]:80"} {
		if !loopbackHost(h) {
			t.Errorf("loopbackHost(%q) = false", h)
		}
	}
}

func TestPages(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	code, body := f.do(t, "GET", "/?q="+url.QueryEscape("insert value before mark element"), "", "")
	for _, want := range []string{
		`class="result"`, `href="/file?`, "#L", // path:line link with an anchor
		`<span class="line">`, `class="chroma lnw`, // highlighted snippet
		"why this score", "callers &amp; callees", `type="checkbox" name="project" value="` + f.list + `"`,
	} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("search page lacks %q (status %d)", want, code)
		}
	}
	code, body = f.do(t, "GET", "/file?project=list&path=list.go&line=102&end=105", "", "")
	if code != 200 || !strings.Contains(body, `id="L102"`) || !strings.Contains(body, `href="#L102"`) || !strings.Contains(body, "hl") {
		t.Errorf("file page: %d, no anchors or highlight", code)
	}
	code, body = f.do(t, "GET", "/graph?project=list&name=List.insertValue", "", "")
	if code != 200 || !strings.Contains(body, "<svg") || !strings.Contains(body, "List.PushFront") {
		t.Errorf("graph page: %d", code)
	}
	code, body = f.do(t, "GET", "/status", "", "")
	if code != 200 || !strings.Contains(body, `data-project="`+f.list+`"`) {
		t.Errorf("status page: %d", code)
	}
	code, body = f.do(t, "GET", "/static/chroma.css", "", "")
	if code != 200 || !strings.Contains(body, ".chroma") {
		t.Errorf("chroma.css: %d", code)
	}
	if code, _ := f.do(t, "GET", "/static/nothing.txt", "", ""); code != 404 {
		t.Errorf("unknown static file: %d", code)
	}
}

// TestAPIRemoveExcludesIndex: over the API, a remove of a project whose
// index run is going on (held in its embedder) is refused with 409 and the
// engine's reason, and leaves the run and the project alone; while the
// engine holds a root for a remove, an index request of it is refused with
// 409; once the run is done, remove drops the project.
func TestAPIRemoveExcludesIndex(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret"})
	extra, gate, _ := startGatedIndex(t, f)
	run := f.local.run(extra)
	code, body := f.do(t, "POST", "/api/remove", "s3cret", `{"root":"`+extra+`"}`)
	if code != 409 || !strings.Contains(body, "the project is being indexed") {
		t.Fatalf("remove during the run: %d %s", code, body)
	}
	close(gate)
	<-run.Done()
	if out := run.Outcome(); out.Err != nil || out.Report.Changed != 1 {
		t.Fatalf("the run after a refused remove: %+v", out)
	}

	release, err := f.eng.Hold(f.list)
	if err != nil {
		t.Fatal(err)
	}
	code, body = f.do(t, "POST", "/api/index", "s3cret", `{"root":"list"}`)
	if code != 409 || !strings.Contains(body, "the project is being removed") {
		t.Errorf("index during a remove: %d %s", code, body)
	}
	release()

	code, body = f.do(t, "POST", "/api/remove", "s3cret", `{"root":"extra"}`)
	if code != 200 || !strings.Contains(body, `"files": 1`) {
		t.Fatalf("remove after the run: %d %s", code, body)
	}
	if _, err := f.st.GetProject(context.Background(), extra); !errors.Is(err, store.ErrNotIndexed) {
		t.Errorf("the project is still indexed: %v", err)
	}
}

// TestUnknownAPIRoute: an /api/ path the server does not have, or a route
// asked with another method, answers JSON like the API's other errors (a
// plain-text 404 or 405 before), naming the routes or the method to use.
func TestUnknownAPIRoute(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	code, body := f.do(t, "GET", "/api/nope", "", "")
	var e struct{ Error string }
	if err := json.Unmarshal([]byte(body), &e); code != 404 || err != nil || !strings.Contains(e.Error, "GET /api/search") {
		t.Errorf("GET /api/nope: %d %v %.300s", code, err, body)
	}
	code, body = f.do(t, "POST", "/api/search?q=x", "", "")
	if err := json.Unmarshal([]byte(body), &e); code != 405 || err != nil || !strings.Contains(e.Error, "takes GET") {
		t.Errorf("POST /api/search: %d %v %.300s", code, err, body)
	}
	if code, _ := f.do(t, "GET", "/api/search?q=list", "", ""); code != 200 {
		t.Errorf("GET /api/search: %d", code)
	}
}
