package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/mcp"
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
	return connectWith(t, endpoint, token, nil)
}

// connectWith is connect with client options (nil: the defaults).
func connectWith(t *testing.T, endpoint, token string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearerTransport{token}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts)
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
	t.Parallel()
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

// callText calls tool name over cs and returns its text and whether it is
// a tool error.
func callText(t *testing.T, cs *sdk.ClientSession, params *sdk.CallToolParams) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatalf("%s: %v", params.Name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// gatedEmbedder holds every Embed call until gate is closed and counts
// the non-blank documents it embeds; queries pass through, and so does
// the model probe an index run sends first (index.ProbeText: the wrapper
// is not embed.InProcess, so the run takes it for a remote embedder).
type gatedEmbedder struct {
	embed.Embedder
	gate <-chan struct{}
	docs *atomic.Int64
}

func (g gatedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 1 && texts[0] == index.ProbeText {
		return g.Embedder.Embed(ctx, texts)
	}
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for _, s := range texts {
		if strings.TrimSpace(s) != "" {
			g.docs.Add(1)
		}
	}
	return g.Embedder.Embed(ctx, texts)
}

// TestMCPSharesIndexJob: an index run started over the API and a
// search_code over MCP-over-HTTP on the same root are one engine job: the
// MCP session's index_status sees the API's run, search_code joins it
// (its progress notifications come from that run, which is held until the
// first one arrives), answers from the finished index, and no second run
// follows; every chunk was embedded once.
func TestMCPSharesIndexJob(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret"})
	extra, gate, docs := startGatedIndex(t, f)
	apiRun := f.local.run(extra)
	if apiRun == nil || apiRun.Joined {
		t.Fatalf("the API did not start a run: %+v", apiRun)
	}

	var once sync.Once
	var progress atomic.Value
	cs := connectWith(t, f.srv.URL+"/mcp?project=extra", "s3cret", &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			progress.Store(req.Params.Message)
			once.Do(func() { close(gate) })
		},
	})
	text, isErr := callText(t, cs, &sdk.CallToolParams{Name: "index_status"})
	if isErr || !strings.Contains(text, "state: running (whole project") {
		t.Errorf("index_status over MCP during the API's run:\n%s", text)
	}
	params := &sdk.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": "move the ring forward by n elements", "top_k": 3}}
	params.SetProgressToken("p1")
	text, isErr = callText(t, cs, params)
	if isErr || !strings.Contains(text, "ring.go:") || strings.Contains(text, "still running") {
		t.Fatalf("search_code joined to the API's run:\n%s", text)
	}
	if msg, _ := progress.Load().(string); !strings.HasPrefix(msg, "indexing "+extra+":") {
		t.Errorf("progress notification %q", msg)
	}
	js := f.eng.Job(extra)
	if js.Running || js.Last == nil || js.Last != apiRun.Outcome() || js.Last.Err != nil {
		t.Fatalf("job after search_code: %+v; the API's run ended with %+v", js, apiRun.Outcome())
	}
	c, err := f.st.Count(context.Background(), extra)
	if err != nil {
		t.Fatal(err)
	}
	if c.Embedded == 0 || docs.Load() != int64(c.Embedded) {
		t.Errorf("embedded %d documents for %d embedded chunks: each chunk must be embedded once", docs.Load(), c.Embedded)
	}
}

// TestMCPReadSessionDoesNotIndex: a session without the token answers
// from the index as it is (a file added since indexing is not indexed and
// not found, and no index run happens); a session with the token
// refreshes the same index before answering.
func TestMCPReadSessionDoesNotIndex(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret"})
	ctx := context.Background()
	src := "package list\n\n// Thermostat regulates the boiler temperature.\nfunc Thermostat(celsius int) bool { return celsius < 60 }\n"
	if err := os.WriteFile(filepath.Join(f.list, "thermo.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := f.st.Count(ctx, f.list)
	if err != nil {
		t.Fatal(err)
	}
	query := &sdk.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": "thermostat regulates the boiler temperature", "top_k": 3}}
	ro := connect(t, f.srv.URL+"/mcp?project=list", "")
	text, isErr := callText(t, ro, query)
	if isErr || strings.Contains(text, "thermo.go") || !strings.Contains(text, "list.go") {
		t.Errorf("search_code without the token:\n%s", text)
	}
	if text, isErr := callText(t, ro, &sdk.CallToolParams{Name: "code_graph", Arguments: map[string]any{"name": "Thermostat"}}); !isErr || !strings.Contains(text, "no function or class named Thermostat") {
		t.Errorf("code_graph without the token: %v %s", isErr, text)
	}
	if js := f.eng.Job(f.list); js.Running || js.Last != nil {
		t.Errorf("a session without the token ran an index job: %+v", js)
	}
	if after, err := f.st.Count(ctx, f.list); err != nil || after.Files != before.Files || after.Chunks != before.Chunks {
		t.Errorf("index changed by a read session: %+v -> %+v (%v)", before, after, err)
	}

	rw := connect(t, f.srv.URL+"/mcp?project=list", "s3cret")
	if text, isErr := callText(t, rw, query); isErr || !strings.Contains(text, "thermo.go") {
		t.Errorf("search_code with the token did not refresh:\n%s", text)
	}
	// thermo.go is new; list.go beside it is parsed again (Reread) for the
	// declarations thermo.go adds to its package
	if js := f.eng.Job(f.list); js.Last == nil || js.Last.Report == nil || js.Last.Report.Changed-js.Last.Report.Reread != 1 {
		t.Errorf("job after search_code with the token: %+v", js)
	}
}

// startGatedIndex starts, over the API, an index run of a copy of
// container/ring whose embedder blocks until gate is closed (docs counts
// the texts it embedded), and returns the copy's root and the gate.
func startGatedIndex(t *testing.T, f *fixture) (root string, gate chan struct{}, docs *atomic.Int64) {
	t.Helper()
	gate, docs = make(chan struct{}), new(atomic.Int64)
	f.wrap = func(e embed.Embedder) embed.Embedder { return gatedEmbedder{Embedder: e, gate: gate, docs: docs} }
	root = filepath.Join(filepath.Dir(f.list), "extra")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFiles(t, root, "container/ring", "ring.go")
	if code, body := f.do(t, "POST", "/api/index", "s3cret", `{"root":"`+root+`"}`); code != 202 {
		t.Fatalf("index: %d %s", code, body)
	}
	return root, gate, docs
}

// TestMCPBadIDOverHTTP: a request whose id the SDK would misread (2.5,
// answered as 2) or refuse (true) is answered 400 with a JSON-RPC -32600
// error echoing a numeric id; a request with a good id still reaches the
// SDK whole, and a session then works as before.
func TestMCPBadIDOverHTTP(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	for body, wantID := range map[string]string{
		`{"jsonrpc":"2.0","id":2.5,"method":"ping"}`:                 "2.5",
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`:                "null",
		`[{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}]`:     "null",
		`{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`: "9223372036854775808",
	} {
		code, out := f.do(t, "POST", "/mcp?project=list", "", body)
		var resp struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(out), &resp); err != nil || code != http.StatusBadRequest || resp.Error.Code != -32600 || string(resp.ID) != wantID {
			t.Errorf("%s: %d %s (%v)", body, code, out, err)
		}
	}
	if got := toolNames(t, connect(t, f.srv.URL+"/mcp?project=list", "")); len(got) == 0 {
		t.Error("no tools over a session opened after the refused requests")
	}
}

// TestMCPErrorCodesOverHTTPMatchStdio: a request before initialize (no
// session) and a JSON-RPC batch, in a session or not, get over HTTP the
// JSON-RPC errors the stdio server gives them (-32002 and -32600, with
// the id echoed where there is one), as HTTP 400, not the SDK's code 0 or
// a batch run; initialize and ping outside a session, and requests in
// one, still reach the SDK.
func TestMCPErrorCodesOverHTTPMatchStdio(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	const (
		initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		early      = `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`
		batch      = `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`
	)
	type answer struct {
		ID    string
		Code  int
		Found bool // a result or an error was answered
	}
	decode := func(t *testing.T, line string) answer {
		t.Helper()
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not a JSON-RPC response: %q", line)
		}
		a := answer{ID: string(r.ID), Found: r.Result != nil || r.Error != nil}
		if r.Error != nil {
			a.Code = r.Error.Code
		}
		return a
	}

	// stdio: the codes to match
	srv, err := mcp.NewServer(mcp.Config{Root: f.list, Engine: f.eng, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { srv.Run(context.Background(), inR, outW); outW.Close() }()
	t.Cleanup(func() { inW.Close() })
	out := bufio.NewScanner(outR)
	stdio := func(line string) answer {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if !out.Scan() {
			t.Fatalf("stdio server: no answer to %s", line)
		}
		return decode(t, out.Text())
	}
	wantEarly, wantBatch := stdio(early), stdio(batch)
	if wantEarly != (answer{"7", -32002, true}) || wantBatch != (answer{"null", -32600, true}) {
		t.Fatalf("stdio: before initialize %+v, batch %+v", wantEarly, wantBatch)
	}

	// HTTP
	post := func(body, session string) (int, answer, string) {
		t.Helper()
		req, err := http.NewRequest("POST", f.srv.URL+"/mcp?project=list", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
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
		line := strings.TrimSpace(string(b))
		if i := strings.Index(line, "data: "); i >= 0 { // an SSE event of the SDK
			line = strings.TrimSpace(strings.SplitN(line[i+len("data: "):], "\n", 2)[0])
		}
		if line == "" {
			return res.StatusCode, answer{}, res.Header.Get("Mcp-Session-Id")
		}
		return res.StatusCode, decode(t, line), res.Header.Get("Mcp-Session-Id")
	}
	if code, got, _ := post(early, ""); code != http.StatusBadRequest || got != wantEarly {
		t.Errorf("HTTP, before initialize: %d %+v, want 400 %+v as over stdio", code, got, wantEarly)
	}
	if code, got, _ := post(batch, ""); code != http.StatusBadRequest || got != wantBatch {
		t.Errorf("HTTP, a batch: %d %+v, want 400 %+v as over stdio", code, got, wantBatch)
	}
	if code, got, _ := post(`{"jsonrpc":"2.0","id":9,"method":"ping"}`, ""); code != http.StatusOK || got != (answer{"9", 0, true}) {
		t.Errorf("HTTP, ping outside a session: %d %+v", code, got)
	}
	code, got, session := post(initialize, "")
	if code != http.StatusOK || got != (answer{"1", 0, true}) || session == "" {
		t.Fatalf("HTTP, initialize: %d %+v, session %q", code, got, session)
	}
	if code, got, _ := post(early, session); code != http.StatusOK || got != (answer{"7", 0, true}) {
		t.Errorf("HTTP, tools/list in the session: %d %+v", code, got)
	}
	if code, got, _ := post(batch, session); code != http.StatusBadRequest || got != wantBatch {
		t.Errorf("HTTP, a batch in the session: %d %+v, want 400 %+v as over stdio", code, got, wantBatch)
	}
	// the session serves the project it was opened on: a request of it
	// naming another project is refused, not answered from the first
	req, err := http.NewRequest("POST", f.srv.URL+"/mcp?project=httptest", strings.NewReader(early))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "this session serves list") {
		t.Errorf("HTTP, the session on another project: %d %s", res.StatusCode, b)
	}
}
