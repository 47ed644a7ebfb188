package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/tools"
)

// TestHTTPServerLimits: the http.Server of `coderag serve` bounds the
// reading of headers and of whole requests, idle connections and header
// size, and sets no write timeout, which would cut MCP event streams.
func TestHTTPServerLimits(t *testing.T) {
	t.Parallel()
	srv := NewHTTPServer(http.NotFoundHandler())
	if srv.ReadHeaderTimeout != HeaderTimeout || srv.ReadTimeout != ReadTimeout || srv.IdleTimeout != IdleTimeout || srv.MaxHeaderBytes != MaxHeaderBytes {
		t.Errorf("server limits: header %v read %v idle %v max header %d", srv.ReadHeaderTimeout, srv.ReadTimeout, srv.IdleTimeout, srv.MaxHeaderBytes)
	}
	if HeaderTimeout <= 0 || ReadTimeout < HeaderTimeout || IdleTimeout <= 0 || MaxHeaderBytes <= 0 || MaxHeaderBytes >= http.DefaultMaxHeaderBytes {
		t.Errorf("limits must be set and below the default header cap: %v %v %v %d", HeaderTimeout, ReadTimeout, IdleTimeout, MaxHeaderBytes)
	}
	if srv.WriteTimeout != 0 {
		t.Errorf("write timeout %v would cut MCP streams", srv.WriteTimeout)
	}
}

// shortReads serves f's handler with the http.Server of NewHTTPServer,
// its ReadTimeout shortened to d.
func shortReads(t *testing.T, f *fixture, d time.Duration) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = NewHTTPServer(f.srv.Config.Handler)
	srv.Config.ReadTimeout = d
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// dialFrom is a dialer whose connections come from the loopback address
// ip (any 127.x.y.z is a loopback address on Linux): another client.
func dialFrom(ip string) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
}

// clientFrom is an HTTP client whose requests come from ip.
func clientFrom(ip string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: dialFrom(ip).DialContext}}
}

// slowRequest opens a connection to srv and sends the headers of a POST
// to path announcing a body of 100000 bytes, and its first byte.
func slowRequest(t *testing.T, srv *httptest.Server, path, token string) net.Conn {
	t.Helper()
	return slowRequestFrom(t, "127.0.0.1", srv, path, token)
}

// slowRequestFrom is slowRequest from the loopback address ip.
func slowRequestFrom(t *testing.T, ip string, srv *httptest.Server, path, token string) net.Conn {
	t.Helper()
	c, err := dialFrom(ip).Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n"
	if token != "" {
		req += "Authorization: Bearer " + token + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n{"); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSlowBodyIsCut: a client that sends a body slower than the read
// timeout is answered and disconnected, on the API and on MCP alike.
func TestSlowBodyIsCut(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret"})
	srv := shortReads(t, f, 100*time.Millisecond)
	for _, path := range []string{"/api/index", "/mcp?project=list"} {
		c := slowRequest(t, srv, path, "s3cret")
		// a bound for a broken server, not a measure: the server's own
		// timeout is 100 ms
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s: no answer to a slow body: %v", path, err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode < 400 {
			t.Errorf("%s: status %d for a body that never came", path, res.StatusCode)
		}
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Errorf("%s: the connection is not closed: %v", path, err)
		}
	}
}

// TestMCPCallOutlivesReadTimeout: the read timeout bounds the request,
// not the answer streamed after it: a tool call that answers long after
// it (search_code waiting for an index run, which is held until the
// second progress notification, a second after the first) is not cut.
func TestMCPCallOutlivesReadTimeout(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret"})
	srv := shortReads(t, f, 50*time.Millisecond)
	_, gate, _ := startGatedIndex(t, f)
	var n atomic.Int64
	cs := connectWith(t, srv.URL+"/mcp?project=extra", "s3cret", &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) {
			if n.Add(1) == 2 {
				close(gate)
			}
		},
	})
	params := &sdk.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": "move the ring forward by n elements", "top_k": 3}}
	params.SetProgressToken("p")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a bound for a broken server
	defer cancel()
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("search_code: %v", err)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError || !strings.Contains(text, "ring.go:") || n.Load() < 2 {
		t.Fatalf("search_code after %d progress notifications: %v\n%s", n.Load(), res.IsError, text)
	}
}

// waitStatus gets /api/status with c until it answers code.
func waitStatus(t *testing.T, c *http.Client, srv *httptest.Server, code int) {
	t.Helper()
	for i := 0; ; i++ {
		res, err := c.Get(srv.URL + "/api/status")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode == code {
			return
		}
		if i == 500 {
			t.Fatalf("/api/status still answers %d, want %d", res.StatusCode, code)
		}
		time.Sleep(10 * time.Millisecond) // until the slow clients have left
	}
}

// waitPending waits until the server s reads n request bodies: the slow
// requests sent have been read up to their bodies.
func waitPending(t *testing.T, s *Server, n int) {
	t.Helper()
	for i := 0; ; i++ {
		s.clientMu.Lock()
		p := s.pending
		s.clientMu.Unlock()
		if p == n {
			return
		}
		if i == 1000 {
			t.Fatalf("reading %d bodies, want %d", p, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// get is the status and Retry-After of GET /api/status by c.
func get(t *testing.T, c *http.Client, srv *httptest.Server) (int, string) {
	t.Helper()
	res, err := c.Get(srv.URL + "/api/status")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Retry-After")
}

// TestRequestCap: a client with MaxPerClient requests going on (two
// slow bodies) is answered 503 with Retry-After for one more, while
// another client is served; slow bodies take no request slot, so with
// more of them than MaxRequests being read, a third client is still
// served; static files are always served; once the slow clients leave,
// requests are served again.
func TestRequestCap(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret", MaxRequests: 3, MaxPerClient: 2})
	s := f.srv.Config.Handler.(*Server)
	a, b := clientFrom("127.0.0.1"), clientFrom("127.0.0.2")
	slow := []net.Conn{slowRequest(t, f.srv, "/api/index", "s3cret"), slowRequest(t, f.srv, "/mcp?project=list", "")}
	waitPending(t, s, 2)
	if code, retry := get(t, a, f.srv); code != http.StatusServiceUnavailable || retry == "" {
		t.Errorf("a third request of a client with two going on: %d, Retry-After %q", code, retry)
	}
	if code, _ := get(t, b, f.srv); code != 200 {
		t.Errorf("another client: %d", code)
	}
	slow = append(slow, slowRequestFrom(t, "127.0.0.2", f.srv, "/api/index", "s3cret"), slowRequestFrom(t, "127.0.0.2", f.srv, "/api/index", ""))
	waitPending(t, s, 4)
	if code, _ := get(t, clientFrom("127.0.0.3"), f.srv); code != 200 {
		t.Errorf("a third client while %d slow bodies are read, over MaxRequests: %d", 4, code)
	}
	if res, err := clientFrom("127.0.0.2").Get(f.srv.URL + "/static/style.css"); err != nil || res.StatusCode != 200 {
		t.Errorf("static file of a client at its cap: %v %v", err, res)
	}
	for _, c := range slow {
		c.Close()
	}
	waitStatus(t, a, f.srv, http.StatusOK)
}

// countingBackend counts the calls of Projects, which reads every
// project's counts and runs.
type countingBackend struct {
	*Local
	projects atomic.Int64
}

func (c *countingBackend) Projects(ctx context.Context) ([]ProjectStatus, error) {
	c.projects.Add(1)
	return c.Local.Projects(ctx)
}

// TestResolveDoesNotReadCounts: the API and MCP resolve a project name
// without Projects (its counts and runs): only the status page and
// endpoint read them.
func TestResolveDoesNotReadCounts(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	cb := &countingBackend{Local: f.local}
	h, err := New(cb, Options{Loopback: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, p := range []string{
		"/api/file?project=list&path=list.go",
		"/api/search?q=insert&project=list&project=httptest",
		"/api/graph?project=list&name=List.insertValue",
		"/file?project=list&path=list.go",
	} {
		res, err := srv.Client().Get(srv.URL + p)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", p, err, res.StatusCode)
		}
		res.Body.Close()
	}
	cs := connect(t, srv.URL+"/mcp?project=list", "")
	if text, isErr := callText(t, cs, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "list.go", "limit": 3}}); isErr {
		t.Fatalf("read_file: %s", text)
	}
	if n := cb.projects.Load(); n != 0 {
		t.Errorf("Projects read %d times to resolve names", n)
	}
	res, err := srv.Client().Get(srv.URL + "/api/status")
	if err != nil || res.StatusCode != 200 || cb.projects.Load() != 1 {
		t.Errorf("status: %v %v, Projects read %d times", err, res.StatusCode, cb.projects.Load())
	}
}

// TestFileViewIndexedOnly: the file views of the API, the page and MCP's
// read_file show the files the index takes and answer 404 "not indexed"
// (a tool error over MCP; 403 "withheld" for the secret-looking .env and
// secret.key) for a dot-env file, .git/config, gitignored files and a
// symlink inside the root to one of them, and MCP's grep_code does not
// search them; the CLI's read and grep (tools.Read, tools.Grep) still do,
// secret-looking names with --allow-secrets.
func TestFileViewIndexedOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	write := func(rel, text string) {
		p := filepath.Join(f.list, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".env", "API_KEY=hunter2\n")
	write(".git/config", "[remote] url = https://hunter2@example.com\n")
	write(".gitignore", "secret.key\nsecret.go\n")
	write("secret.key", "hunter2\n")
	write("secret.go", "package list // hunter2\n")
	if err := os.Symlink("secret.go", filepath.Join(f.list, "alias.go")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, f.srv.URL+"/mcp?project=list", "")
	for _, p := range []string{".env", ".git/config", "secret.key", "secret.go", "alias.go", "./.git/../.env"} {
		for _, prefix := range []string{"/api/file", "/file"} {
			code, body := f.do(t, "GET", prefix+"?project=list&path="+url.QueryEscape(p), "", "")
			if code/100 != 4 || !(strings.Contains(body, "not indexed") || strings.Contains(body, "withheld")) || strings.Contains(body, "hunter2") {
				t.Errorf("GET %s %s: %d %.200s", prefix, p, code, body)
			}
		}
		text, isErr := callText(t, cs, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": p}})
		if !isErr || !(strings.Contains(text, "not indexed") || strings.Contains(text, "withheld")) || strings.Contains(text, "hunter2") {
			t.Errorf("MCP read_file %s: %v %.200s", p, isErr, text)
		}
		if p == "./.git/../.env" {
			continue
		}
		if res, err := tools.Read(context.Background(), f.list, tools.ReadParams{Path: p, AllowSecrets: true}); err != nil || !strings.Contains(res.Text, "hunter2") {
			t.Errorf("tools.Read %s (the CLI's read --allow-secrets): %v", p, err)
		}
	}
	// grep_code searches the same files: no line of the secrets, and a
	// path into .git/ is refused; the CLI's grep still finds them
	grep := &sdk.CallToolParams{Name: "grep_code", Arguments: map[string]any{"pattern": "hunter[2]"}}
	if text, isErr := callText(t, cs, grep); isErr || strings.Contains(text, "hunter2") || !strings.Contains(text, "No matches") {
		t.Errorf("MCP grep_code of the secrets: %v %.300s", isErr, text)
	}
	grep.Arguments = map[string]any{"pattern": "url", "path": ".git"}
	if text, isErr := callText(t, cs, grep); !isErr || !strings.Contains(text, "not indexed") || strings.Contains(text, "hunter2") {
		t.Errorf("MCP grep_code in .git: %v %.300s", isErr, text)
	}
	if res, err := tools.Grep(context.Background(), f.list, tools.GrepParams{Pattern: "hunter[2]", AllowSecrets: true}); err != nil || len(res.Matches) == 0 || res.Matches[0].Path != ".env" {
		t.Errorf("tools.Grep (the CLI's grep --allow-secrets): %v %+v", err, res)
	}
	if code, body := f.do(t, "GET", "/api/file?project=list&path=list.go&limit=2", "", ""); code != 200 || !strings.Contains(body, "Copyright") {
		t.Errorf("an indexed file: %d %.200s", code, body)
	}
	if text, isErr := callText(t, cs, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "list.go", "limit": 2}}); isErr || !strings.Contains(text, "Copyright") {
		t.Errorf("MCP read_file of an indexed file: %s", text)
	}
}

// TestAPIIndexRefusesRoots: POST /api/index refuses, with a 400 (a
// relative directory that names no project) or a 403 (rootrule) that says
// why, the file-system root,
// the home directory and the one above it, and system directories; no
// run starts.
func TestAPIIndexRefusesRoots(t *testing.T) {
	f := newFixture(t, Options{Token: "s3cret"})
	home := filepath.Join(filepath.Dir(f.list), "home", "me")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFiles(t, home, "container/ring", "ring.go")
	t.Setenv("HOME", home)
	for _, tc := range []struct {
		root, want string
		code       int
	}{
		{".", "relative", 400},
		{"some/dir", "relative", 400},
		{"/", "file-system root", 403},
		{home, "home directory", 403},
		{filepath.Dir(home), "home directory", 403},
		{"/etc", "system directory", 403},
		{"/proc", "system directory", 403},
		{"/proc/self/root", "system directory", 403},
		{"/etc/ssl", "system directory", 403},
		{"/usr", "system directory", 403},
	} {
		body, _ := json.Marshal(rootRequest{Root: tc.root})
		code, out := f.do(t, "POST", "/api/index", "s3cret", string(body))
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("index %s: %d %s, want %d %q", tc.root, code, out, tc.code, tc.want)
		}
	}
	var st statusJSON
	f.getJSON(t, "/api/status", &st)
	if len(st.Projects) != 2 {
		t.Errorf("projects after refused roots: %+v", st.Projects)
	}
	// a project's name still re-indexes it
	if code, out := f.do(t, "POST", "/api/index", "s3cret", `{"root":"list"}`); code != 202 {
		t.Errorf("index by name: %d %s", code, out)
	}
	<-f.local.run(f.list).Done()
}

// TestAPICancel: POST /api/cancel needs the token, stops the run going on
// (held in its embedder) and answers once it has stopped, with the run's
// error saying so; a second cancel finds no run.
func TestAPICancel(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret"})
	extra, gate, _ := startGatedIndex(t, f)
	defer close(gate)
	run := f.local.run(extra)
	if code, _ := f.do(t, "POST", "/api/cancel", "", `{"root":"extra"}`); code != 401 {
		t.Errorf("cancel without the token: %d", code)
	}
	code, body := f.do(t, "POST", "/api/cancel", "s3cret", `{"root":"extra"}`)
	if code != 200 || !strings.Contains(body, `"cancelled": true`) {
		t.Fatalf("cancel: %d %s", code, body)
	}
	out := run.Outcome() // nil unless the run has ended
	if out == nil || !errors.Is(out.Err, context.Canceled) {
		t.Fatalf("the run after cancel: %+v", out)
	}
	if js := f.eng.Job(extra); js.Running {
		t.Errorf("still running: %+v", js)
	}
	code, body = f.do(t, "POST", "/api/cancel", "s3cret", `{"root":"`+extra+`"}`)
	if code != 200 || !strings.Contains(body, `"cancelled": false`) {
		t.Errorf("second cancel: %d %s", code, body)
	}
	if code, _ := f.do(t, "POST", "/api/cancel", "s3cret", `{"root":"nope"}`); code != 404 {
		t.Errorf("cancel of an unknown name: %d, want 404", code)
	}
}

// TestLoginRedirect: the login's next is followed only when it is a path
// of this server; anything a browser could read as another host goes to /.
func TestLoginRedirect(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret", PrivateReads: true})
	c := f.srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for next, want := range map[string]string{
		"/status":                   "/status",
		"/file?project=list&path=a": "/file?project=list&path=a",
		`/\evil.com`:                "/",
		`/\/evil.com`:               "/",
		"//evil.com":                "/",
		"/\t/evil.com":              "/",
		"https://evil.com":          "/",
		"evil.com":                  "/",
		"":                          "/",
	} {
		res, err := c.PostForm(f.srv.URL+"/login", url.Values{"token": {"s3cret"}, "next": {next}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
			t.Errorf("next %q: %d Location %q, want %q", next, res.StatusCode, res.Header.Get("Location"), want)
		}
	}
}

// TestFileParams: a NUL byte in the path and a line number that is not
// one are 400s that name the value as given, on the API and the page.
func TestFileParams(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	for _, tc := range []struct{ query, want string }{
		{"path=list.go%00.txt", "NUL byte"},
		{"path=list.go&offset=99999999999999999999", "99999999999999999999"},
		{"path=list.go&offset=1e3", "1e3"},
		{"path=list.go&limit=x", "limit must be"},
	} {
		for _, prefix := range []string{"/api/file", "/file"} {
			if prefix == "/file" && strings.Contains(tc.query, "limit") {
				continue // the page has no limit: it shows a fixed window
			}
			code, body := f.do(t, "GET", prefix+"?project=list&"+tc.query, "", "")
			if code != 400 || !strings.Contains(body, tc.want) || strings.Contains(body, "9223372036854775807") {
				t.Errorf("GET %s?%s: %d %.300s", prefix, tc.query, code, body)
			}
		}
	}
	if code, body := f.do(t, "GET", "/file?project=list&path=list.go&line=99999999999999999999", "", ""); code != 400 {
		t.Errorf("page line out of range: %d %.200s", code, body)
	}
}

// TestStreamPlacesApart: a client's open MCP event streams take places of
// their own (MaxStreamsPerClient), not its request places: with as many
// streams open as it may hold, its requests are still admitted, and its
// request cap and stream cap each refuse one more with errFull.
func TestStreamPlacesApart(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{MaxRequests: 8, MaxPerClient: 4, MaxStreams: 8})
	s := f.srv.Config.Handler.(*Server)
	req := func(method, target string) *http.Request {
		r := httptest.NewRequest(method, target, nil)
		r.RemoteAddr = "127.0.0.1:5000"
		return r
	}
	var held []func()
	defer func() {
		for _, release := range held {
			release()
		}
	}()
	for i := 0; i < 4; i++ { // MaxPerClient, which is MaxStreams/2 here
		release, err := s.admit(httptest.NewRecorder(), req(http.MethodGet, "/mcp?project=list"))
		if err != nil {
			t.Fatalf("stream %d: %v", i+1, err)
		}
		held = append(held, release)
	}
	if _, err := s.admit(httptest.NewRecorder(), req(http.MethodGet, "/mcp?project=list")); !errors.Is(err, errFull) {
		t.Errorf("a fifth stream of one client: %v, want errFull", err)
	}
	for i := 0; i < 4; i++ {
		release, err := s.admit(httptest.NewRecorder(), req(http.MethodGet, "/api/status"))
		if err != nil {
			t.Fatalf("request %d of a client holding 4 streams: %v", i+1, err)
		}
		held = append(held, release)
	}
	if _, err := s.admit(httptest.NewRecorder(), req(http.MethodGet, "/api/status")); !errors.Is(err, errFull) {
		t.Errorf("a fifth request of one client: %v, want errFull", err)
	}
}
