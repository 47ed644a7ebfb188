package serve

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP session over streamable HTTP with the SDK's client.
func connect(t *testing.T, endpoint, token string) *sdk.ClientSession {
	t.Helper()
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearerTransport{token}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", endpoint, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func toolNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// TestMCPOverHTTP: the SDK's client lists the stdio server's tools at
// /mcp?project=NAME and gets search_code answers from that project; only
// a session opened with the token has index_project; read_file stays
// inside the project.
func TestMCPOverHTTP(t *testing.T) {
	f := newFixture(t, Options{Token: "s3cret"})
	ctx := context.Background()
	cs := connect(t, f.srv.URL+"/mcp?project=list", "")
	want := []string{"code_graph", "glob_files", "grep_code", "index_status", "read_file", "search_code"}
	if got := toolNames(t, cs); !slices.Equal(got, want) {
		t.Errorf("tools without the token: %v, want %v", got, want)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": "insert a new element before mark", "top_k": 3}})
	if err != nil || res.IsError {
		t.Fatalf("search_code: %v %+v", err, res)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if !strings.Contains(text, "list.go:") || strings.Contains(text, "recorder.go") {
		t.Errorf("search_code over the list project:\n%s", text)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "../outside/secret.txt"}})
	if err != nil || !res.IsError || strings.Contains(res.Content[0].(*sdk.TextContent).Text, "top secret") {
		t.Errorf("read_file out of the root: %v %+v", err, res)
	}

	full := connect(t, f.srv.URL+"/mcp?project="+f.rec, "s3cret")
	if got := toolNames(t, full); !slices.Contains(got, "index_project") || len(got) != len(want)+1 {
		t.Errorf("tools with the token: %v", got)
	}
	res, err = full.CallTool(ctx, &sdk.CallToolParams{Name: "code_graph", Arguments: map[string]any{"name": "ResponseRecorder.WriteHeader"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "recorder.go") {
		t.Errorf("code_graph over the httptest project: %v %+v", err, res)
	}

	// two projects indexed: /mcp must name one; an unknown one is a 404
	for path, code := range map[string]int{"/mcp": 400, "/mcp?project=nope": 404} {
		if got, body := f.do(t, "POST", path, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`); got != code {
			t.Errorf("POST %s: %d %s, want %d", path, got, body, code)
		}
	}
	pf := newFixture(t, Options{Token: "s3cret", PrivateReads: true})
	if code, _ := pf.do(t, "POST", "/mcp?project=list", "", `{}`); code != 401 {
		t.Errorf("MCP on a private server without the token: %d, want 401", code)
	}
}
