package serve

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWrongToken: a token that is present but not the server's is a 401
// "token does not match" on every route (API, pages, static files, MCP),
// where before reads fell back to an anonymous session; no token at all
// keeps the open reads, and the right one keeps working.
func TestWrongToken(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret"})
	routes := []struct{ method, path, body string }{
		{"GET", "/api/status", ""},
		{"GET", "/api/search?q=list", ""},
		{"GET", "/api/file?project=list&path=list.go", ""},
		{"GET", "/api/graph?project=list&symbol=New", ""},
		{"GET", "/", ""},
		{"GET", "/status", ""},
		{"GET", "/file?project=list&path=list.go", ""},
		{"GET", "/static/style.css", ""},
		{"POST", "/api/index", `{"root":"list"}`},
		{"POST", "/api/cancel", `{"root":"list"}`},
		{"POST", "/mcp?project=list", `{}`},
	}
	for _, rt := range routes {
		code, body := f.do(t, rt.method, rt.path, "wrong", rt.body)
		if code != http.StatusUnauthorized || !strings.Contains(body, "oken does not match") {
			t.Errorf("%s %s with a wrong token: %d %.200s", rt.method, rt.path, code, body)
		}
	}
	for _, path := range []string{"/api/status", "/status", "/static/style.css"} {
		if code, body := f.do(t, "GET", path, "", ""); code != 200 {
			t.Errorf("GET %s without a token: %d %.200s", path, code, body)
		}
		if code, body := f.do(t, "GET", path, "s3cret", ""); code != 200 {
			t.Errorf("GET %s with the token: %d %.200s", path, code, body)
		}
	}
	// the scheme's name is case-insensitive (RFC 7235): "bearer" with the
	// token may write, with another token it is refused; a scheme that
	// only starts with the letters is another scheme
	for h, want := range map[string]int{"bearer s3cret": 202, "BEARER s3cret": 202, "bearer wrong": 401, "Bearers s3cret": 401, "bearer\ts3cret": 202} {
		req, _ := http.NewRequest("POST", f.srv.URL+"/api/cancel", strings.NewReader(`{"root":"list"}`))
		req.Header.Set("Authorization", h)
		res, err := f.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if (want == 401) != (res.StatusCode == 401) {
			t.Errorf("Authorization: %q: %d, want %d", h, res.StatusCode, want)
		}
	}
	// another scheme than Bearer is a wrong token too
	req, _ := http.NewRequest("GET", f.srv.URL+"/api/status", nil)
	req.SetBasicAuth("u", "s3cret")
	if res, err := f.srv.Client().Do(req); err != nil || res.StatusCode != 401 {
		t.Errorf("basic auth: %v %v", err, res.StatusCode)
	}

	// over MCP with the official SDK: the session is refused, not opened
	// read-only
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	hc := &http.Client{Transport: bearerTransport{"wrong"}}
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: f.srv.URL + "/mcp?project=list", HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err == nil {
		cs.Close()
		t.Fatal("an MCP session opened with a wrong token")
	}
	if !strings.Contains(err.Error(), "401") && !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("MCP connect with a wrong token: %v", err)
	}
	// without a token it is the read-only session, as before
	if got := toolNames(t, connect(t, f.srv.URL+"/mcp?project=list", "")); len(got) == 0 {
		t.Error("no tools without a token")
	}
}

// TestWrongTokenNoServerToken: a server started without a token refuses a
// request that sends one (there is none it could match), and stays open
// to requests without.
func TestWrongTokenNoServerToken(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	if code, body := f.do(t, "GET", "/api/status", "anything", ""); code != 401 || !strings.Contains(body, "token does not match: this server has no token") {
		t.Errorf("a token to a server without one: %d %s", code, body)
	}
	if code, _ := f.do(t, "GET", "/api/status", "", ""); code != 200 {
		t.Errorf("no token: %d", code)
	}
	// an empty bearer (a client configured with an unset token variable)
	// is no credential: reads stay open; any other scheme is told that
	// this server takes none
	for h, want := range map[string]int{"Bearer ": 200, "Bearer": 200, "Basic dXNlcjpwYXNz": 401} {
		req, _ := http.NewRequest("GET", f.srv.URL+"/api/status", nil)
		req.Header.Set("Authorization", h)
		res, err := f.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want || want == 401 && !strings.Contains(string(b), "send no Authorization header") {
			t.Errorf("Authorization %q: %d %s, want %d", h, res.StatusCode, b, want)
		}
	}
}

// TestWrongTokenCookie: with private reads, a page cookie holding another
// token (a stale login) gets the login page saying so, 401; the login form
// itself and static files still answer, so the person can log in again.
func TestWrongTokenCookie(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret", PrivateReads: true})
	get := func(path string) (int, string) {
		req, _ := http.NewRequest("GET", f.srv.URL+path, nil)
		req.AddCookie(&http.Cookie{Name: tokenCookie, Value: "old"})
		res, err := f.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get("/status"); code != 401 || !strings.Contains(body, "token does not match") || !strings.Contains(body, `name="token"`) {
		t.Errorf("page with a stale cookie: %d %.300s", code, body)
	}
	if code, body := get("/api/status"); code != 401 || !strings.Contains(body, "token does not match") {
		t.Errorf("API with a stale cookie: %d %.300s", code, body)
	}
	if code, _ := get("/static/style.css"); code != 200 {
		t.Errorf("static file with a stale cookie: %d", code)
	}
}
