package serve

import (
	"encoding/json"
	"html"
	"net/url"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAPIAndPageFilters: /api/search and the page read the filters inside
// q (file:, repo:); an unknown filter is a 400 with a one-line error.
func TestAPIAndPageFilters(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	var resp struct {
		Results []struct {
			Project string `json:"project"`
			Path    string `json:"path"`
		} `json:"results"`
	}
	for q, keep := range map[string]func(project, path string) bool{
		"start the test server file:server.go":      func(_, p string) bool { return p == "server.go" },
		"start the test server -file:server.go":     func(_, p string) bool { return p != "server.go" },
		"remove an element from the list repo:list": func(pr, _ string) bool { return pr == f.list },
	} {
		resp.Results = nil
		f.getJSON(t, "/api/search?top_k=10&q="+url.QueryEscape(q), &resp)
		if len(resp.Results) == 0 {
			t.Errorf("%q: no results", q)
		}
		for _, r := range resp.Results {
			if !keep(r.Project, r.Path) {
				t.Errorf("%q kept %s in %s", q, r.Path, r.Project)
			}
		}
	}
	code, body := f.do(t, "GET", "/api/search?q="+url.QueryEscape("server lnag:go"), "", "")
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || code != 400 ||
		e.Error != `unknown filter "lnag:" (did you mean "lang:"?); known: lang, file, path, -file, sym, case, repo, project` {
		t.Errorf("unknown filter: %d %s", code, body)
	}
	if code, body := f.do(t, "GET", "/api/search?q="+url.QueryEscape("server repo:nope"), "", ""); code != 400 || !strings.Contains(body, "matches no project") {
		t.Errorf("repo:nope: %d %s", code, body)
	}
	// the page sends the query text: the same filters, the same error
	code, body = f.do(t, "GET", "/?q="+url.QueryEscape("start the test server file:server.go"), "", "")
	if code != 200 || !strings.Contains(body, "server.go") || strings.Contains(body, "recorder.go") {
		t.Errorf("page with file:server.go: %d (recorder.go shown: %v)", code, strings.Contains(body, "recorder.go"))
	}
	code, body = f.do(t, "GET", "/?q="+url.QueryEscape("server lnag:go"), "", "")
	if code != 400 || !strings.Contains(html.UnescapeString(body), `unknown filter "lnag:"`) {
		t.Errorf("page with lnag:go: %d", code)
	}
}

// TestMCPFilters: search_code over MCP reads the filters inside its query;
// an unknown filter is a tool error naming it.
func TestMCPFilters(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	cs := connect(t, f.srv.URL+"/mcp?project=httptest", "")
	text, isErr := callText(t, cs, &sdk.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": "write the response header file:recorder.go", "top_k": 10}})
	if isErr || !strings.Contains(text, "recorder.go:") || strings.Contains(text, "server.go:") {
		t.Errorf("search_code with file:recorder.go (error %v):\n%s", isErr, text)
	}
	text, isErr = callText(t, cs, &sdk.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": "write the response header lnag:go"}})
	if !isErr || !strings.Contains(text, `unknown filter "lnag:" (did you mean "lang:"?); known: lang, file, path, -file, sym, case, repo, project`) {
		t.Errorf("search_code with lnag:go: error %v: %s", isErr, text)
	}
}
