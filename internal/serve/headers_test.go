package serve

import (
	"net/http"
	"strings"
	"testing"
)

// TestSecurityHeaders: every answer, whatever its type or status (pages,
// JSON, SVG, static files, errors, refusals, MCP), forbids framing, sniffing
// and referrers, and carries the strict CSP.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "tok"})
	want := map[string]string{
		"X-Frame-Options":         "DENY",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
		"Content-Security-Policy": ContentSecurityPolicy,
	}
	for _, c := range []struct {
		method, path, host string
		code               int
	}{
		{"GET", "/", "", 200},
		{"GET", "/?q=list", "", 200},
		{"GET", "/status", "", 200},
		{"GET", "/file?project=list&path=list.go", "", 200},
		{"GET", "/graph?project=list&name=List.insertValue", "", 200},
		{"GET", "/api/status", "", 200},
		{"GET", "/api/search?q=list", "", 200},
		{"GET", "/api/file?project=list&path=list.go", "", 200},
		{"GET", "/api/graph?project=list&name=List.insertValue&format=svg", "", 200},
		{"GET", "/static/app.js", "", 200},
		{"GET", "/static/style.css", "", 200},
		{"GET", "/api/file?project=list&path=../outside/secret.txt", "", 403},
		{"GET", "/api/file?project=nosuch&path=a.go", "", 404},
		{"GET", "/nosuchpage", "", 404},
		{"POST", "/api/remove", "", 401},
		{"GET", "/api/status", "evil.example", 403},
		{"POST", "/mcp", "", 400},
	} {
		req, err := http.NewRequest(c.method, f.srv.URL+c.path, strings.NewReader(""))
		if err != nil {
			t.Fatal(err)
		}
		if c.host != "" {
			req.Host = c.host
		}
		res, err := f.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, res.StatusCode, c.code)
		}
		for k, v := range want {
			if got := res.Header.Get(k); got != v {
				t.Errorf("%s %s (%d): %s = %q, want %q", c.method, c.path, res.StatusCode, k, got, v)
			}
		}
	}
	for _, part := range []string{"frame-ancestors 'none'", "default-src 'none'", "script-src 'self'"} {
		if !strings.Contains(ContentSecurityPolicy, part) {
			t.Errorf("the CSP lacks %s", part)
		}
	}
}
