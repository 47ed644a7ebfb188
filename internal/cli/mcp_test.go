package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/testutil"
)

// The tests in this file build the real binary once (TestMCP) and drive
// `coderag mcp` as a subprocess over stdio, as an MCP client would.

// legacyProtocol makes the SDK client use the initialize handshake, as
// today's clients (Claude Code, Cursor, Codex) do.
const legacyProtocol = "2025-11-25"

var toolNames = []string{"code_graph", "glob_files", "grep_code", "index_project", "index_status", "read_file", "search_code"}

func TestMCP(t *testing.T) {
	t.Parallel() // a subprocess with its own environment; no t.Setenv
	if testing.Short() {
		t.Skip("-short: builds and runs the coderag binary")
	}
	bin := testutil.Binary(t)
	t.Run("Tools", func(t *testing.T) { testMCPTools(t, bin) })
	t.Run("BadArguments", func(t *testing.T) { testMCPBadArguments(t, bin) })
	t.Run("StdoutIsOnlyJSONRPC", func(t *testing.T) { testMCPStdoutIsOnlyJSONRPC(t, bin) })
	t.Run("ConcurrentCallsDuringIndexing", func(t *testing.T) { testMCPConcurrent(t, bin) })
	t.Run("RootFromClientRoots", func(t *testing.T) { testMCPClientRoots(t, bin) })
	t.Run("LatestProtocol", func(t *testing.T) { testMCPLatestProtocol(t, bin) })
}

// fixture writes a small Go + Python project and a file outside it; it
// returns the project root and the outside file.
func fixture(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "project")
	files := map[string]string{
		"auth/session.go": `package auth

import "time"

// LoginTimeout is how long a login may take before it is abandoned.
const LoginTimeout = 30 * time.Second

// SessionStore keeps the sessions of logged-in users.
type SessionStore struct {
	sessions map[string]time.Time
}

// Expire removes sessions older than the login timeout.
func (s *SessionStore) Expire(now time.Time) int {
	n := 0
	for id, t := range s.sessions {
		if now.Sub(t) > LoginTimeout {
			delete(s.sessions, id)
			n++
		}
	}
	return n
}

// Sweep expires stale sessions periodically.
func Sweep(s *SessionStore) int {
	return s.Expire(time.Now())
}
`,
		"auth/token.go": `package auth

// ParseToken splits a bearer token into its user id and signature.
func ParseToken(tok string) (string, string) {
	for i := range tok {
		if tok[i] == '.' {
			return tok[:i], tok[i+1:]
		}
	}
	return tok, ""
}
`,
		"server/handler.py": `import time


class RequestHandler:
    """Handles incoming requests and retries failed ones."""

    def handle(self, request):
        try:
            return self.process(request)
        except IOError:
            return self.retry_with_backoff(request)

    def retry_with_backoff(self, request, attempts=5):
        """Retry a failed request with exponential backoff between attempts."""
        delay = 0.1
        for _ in range(attempts):
            time.sleep(delay)
            delay *= 2
        return None

    def process(self, request):
        return request
`,
		"README.md": "# project\n\nA fixture for the coderag MCP tests.\n",
		"data.bin":  "\x00\x01\x02binary\x00",
	}
	for p, c := range files {
		writeFile(t, filepath.Join(root, p), c)
	}
	outside = filepath.Join(base, "outside", "secret.txt")
	writeFile(t, outside, "secret\n")
	return root, outside
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// serverEnv is the environment of a server subprocess: its own index.
func serverEnv(t *testing.T) []string {
	t.Helper()
	env := []string{"CODERAG_HOME=" + t.TempDir(), "EMBEDDING_PROVIDER=local"}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "CODERAG_HOME", "EMBEDDING_PROVIDER", "EMBEDDING_MODEL", "EMBEDDING_BASE_URL", "EMBEDDING_API_KEY":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// connect starts `coderag mcp args...` with the SDK client and returns the
// session; it is closed when the test ends. stderr is kept in the log on
// failure.
func connect(t *testing.T, bin string, client *sdk.Client, dir, protocol string, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	cmd.Env = serverEnv(t)
	cmd.Dir = dir
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if client == nil {
		client = sdk.NewClient(&sdk.Implementation{Name: "coderag-test", Version: "1"}, nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var opts *sdk.ClientSessionOptions
	if protocol != "" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: protocol}
	}
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, opts)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	return cs
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// call calls a tool; a protocol error fails the test, a tool error does not.
func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (text string, isError bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", name, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// mustCall calls a tool that must succeed and whose text must contain every
// one of want.
func mustCall(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, want ...string) string {
	t.Helper()
	text, isErr := call(t, cs, name, args)
	if isErr {
		t.Fatalf("%s %v: tool error: %s", name, args, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s %v: result lacks %q:\n%s", name, args, w, text)
		}
	}
	return text
}

func testMCPTools(t *testing.T, bin string) {
	root, _ := fixture(t)
	cs := connect(t, bin, nil, t.TempDir(), legacyProtocol, "--root", root)
	if got := cs.InitializeResult().ServerInfo.Name; got != "coderag" {
		t.Errorf("server name %q", got)
	}

	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*sdk.Tool{}
	for _, tool := range lt.Tools {
		byName[tool.Name] = tool
	}
	for _, n := range toolNames {
		tool := byName[n]
		if tool == nil {
			t.Errorf("tool %s missing (have %d tools)", n, len(lt.Tools))
			continue
		}
		wantRO := n != "index_project" && n != "search_code" // search_code refreshes the index
		if tool.Annotations == nil || tool.Annotations.ReadOnlyHint != wantRO {
			t.Errorf("%s: read-only hint = %+v, want %v", n, tool.Annotations, wantRO)
		}
		// The search order is said once, in the instructions, not in
		// every description.
		if strings.Contains(tool.Description, "vague descriptions") {
			t.Errorf("%s: description repeats the search order:\n%s", n, tool.Description)
		}
	}
	d := cs.InitializeResult().Instructions
	ex, vague := strings.Index(d, "exact names and strings"), strings.Index(d, "vague descriptions")
	if ex < 0 || vague < ex || !strings.Contains(d[ex:vague], "grep_code") || !strings.Contains(d[vague:], "search_code") {
		t.Errorf("instructions do not give the search order:\n%s", d)
	}
	if len(lt.Tools) != len(toolNames) {
		t.Errorf("got %d tools, want %d", len(lt.Tools), len(toolNames))
	}

	mustCall(t, cs, "glob_files", map[string]any{"pattern": "**/*.py"}, "server/handler.py")
	if text := mustCall(t, cs, "glob_files", map[string]any{"pattern": "*.go", "path": "auth"}, "auth/session.go", "auth/token.go"); strings.Contains(text, ".py") {
		t.Errorf("glob *.go listed a Python file:\n%s", text)
	}
	mustCall(t, cs, "grep_code", map[string]any{"pattern": `func \(s \*SessionStore\) Expire`}, "auth/session.go", "14:", "read_file")
	mustCall(t, cs, "grep_code", map[string]any{"pattern": "retry_with_backoff", "glob": "*.py"}, "server/handler.py")
	mustCall(t, cs, "grep_code", map[string]any{"pattern": "NoSuchIdentifierAnywhere"}, "search_code")
	mustCall(t, cs, "read_file", map[string]any{"path": "auth/session.go", "offset": 5, "limit": 2}, "LoginTimeout", "     5\t")
	mustCall(t, cs, "read_file", map[string]any{"path": filepath.Join(root, "README.md")}, "A fixture")

	// search_code indexes the project by itself before its first answer.
	mustCall(t, cs, "index_status", nil, "project root: "+root, "state: idle", "indexed: no")
	mustCall(t, cs, "search_code", map[string]any{"query": "retry a failed request with exponential backoff", "top_k": 3},
		"server/handler.py", "Best entry point")
	mustCall(t, cs, "search_code", map[string]any{"query": "登录超时 login timeout"}, "auth/session.go")
	if text, isErr := call(t, cs, "search_code", map[string]any{"query": "session", "top_k": 1000}); !isErr || !strings.Contains(text, "top_k must be 1 to 30 (omit it for the default, 5); got 1000") {
		t.Errorf("top_k 1000 not refused with its range: %v %s", isErr, text)
	}
	mustCall(t, cs, "index_status", nil, "state: idle", "indexed: ", "last run:", "chunks")

	graph := mustCall(t, cs, "code_graph", map[string]any{"name": "Sweep"}, "Expire", "auth/session.go")
	t.Logf("code_graph Sweep:\n%s", graph)
	mustCall(t, cs, "code_graph", map[string]any{"name": "SessionStore.Expire"}, "Sweep")

	mustCall(t, cs, "index_project", nil, "Indexed the whole project", "unchanged")
	writeFile(t, filepath.Join(root, "auth", "password.go"), "package auth\n\n// HashPassword hashes a password with bcrypt.\nfunc HashPassword(p string) string { return p }\n")
	// password.go is the one change; the package's two other files are
	// parsed again for the function it declares
	mustCall(t, cs, "index_project", map[string]any{"path": "auth"}, "Indexed auth of", "3 changed", "2 of the changed files were parsed again only because")
	mustCall(t, cs, "search_code", map[string]any{"query": "hash a password"}, "auth/password.go")
	writeFile(t, filepath.Join(root, "auth", "password.go"), "package auth\n\n// CheckPassword compares a password with its hash.\nfunc CheckPassword(p, h string) bool { return p == h }\n")
	mustCall(t, cs, "index_project", map[string]any{"path": "auth/password.go"}, "Indexed auth/password.go", "3 changed", "2 of the changed files were parsed again only because")
}

func testMCPBadArguments(t *testing.T, bin string) {
	root, outside := fixture(t)
	cs := connect(t, bin, nil, t.TempDir(), legacyProtocol, "--root", root)
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"grep_code", map[string]any{"pattern": "func (x"}, "invalid pattern"},
		{"grep_code", map[string]any{}, "pattern"}, // missing required argument
		{"grep_code", map[string]any{"pattern": "x", "path": "../outside"}, "outside the project root"},
		{"glob_files", map[string]any{"pattern": "*", "path": "../outside"}, "outside the project root"},
		{"read_file", map[string]any{"path": "../outside/secret.txt"}, "outside the project root"},
		{"read_file", map[string]any{"path": outside}, "outside the project root"},
		{"read_file", map[string]any{"path": "auth/missing.go"}, "no such file"},
		{"read_file", map[string]any{"path": "data.bin"}, "binary"},
		{"read_file", map[string]any{"path": "auth/session.go", "offset": 10000}, "offset"},
		{"read_file", map[string]any{"path": "auth/session.go", "offset": "ten"}, "offset"}, // wrong type
		{"search_code", map[string]any{"query": "   "}, "empty query"},
		{"code_graph", map[string]any{"name": ""}, "empty name"},
		{"code_graph", map[string]any{"name": "NoSuchThing"}, "no function or class named"},
		{"index_project", map[string]any{"path": "../outside"}, "outside the project root"},
		{"index_project", map[string]any{"path": "no/such/dir"}, "no such file"},
	}
	for _, c := range cases {
		text, isErr := call(t, cs, c.tool, c.args)
		if !isErr {
			t.Errorf("%s %v: want a tool error, got:\n%s", c.tool, c.args, text)
			continue
		}
		if !strings.Contains(strings.ToLower(text), c.want) {
			t.Errorf("%s %v: error %q lacks %q", c.tool, c.args, text, c.want)
		}
	}
	// The server is still alive and answering.
	mustCall(t, cs, "read_file", map[string]any{"path": "README.md"}, "A fixture")
}

// rpcEnvelope is what every line on the server's stdout must be.
type rpcEnvelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func testMCPStdoutIsOnlyJSONRPC(t *testing.T, bin string) {
	root, outside := fixture(t)
	cmd := exec.Command(bin, "mcp", "-v", "--root", root)
	cmd.Env = serverEnv(t)
	cmd.Dir = t.TempDir()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	calls := []struct {
		name string
		args map[string]any
	}{
		{"index_project", nil},
		{"search_code", map[string]any{"query": "session expiry"}},
		{"grep_code", map[string]any{"pattern": "LoginTimeout"}},
		{"grep_code", map[string]any{"pattern": "(("}},
		{"glob_files", map[string]any{"pattern": "**/*"}},
		{"read_file", map[string]any{"path": "auth/session.go"}},
		{"read_file", map[string]any{"path": outside}},
		{"code_graph", map[string]any{"name": "Expire"}},
		{"index_status", nil},
		{"no_such_tool", nil},
	}
	var lines []string
	add := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	add(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}})
	add(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	add(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
	for i, c := range calls {
		add(map[string]any{"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": map[string]any{"name": c.name, "arguments": c.args}})
	}
	go func() {
		for _, l := range lines {
			io.WriteString(stdin, l+"\n")
		}
	}()

	want := map[string]bool{"1": true, "2": true}
	for i := range calls {
		want[fmt.Sprint(10+i)] = true
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	deadline := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	n := 0
	check := func(line string) {
		n++
		var env rpcEnvelope
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&env); err != nil || dec.More() {
			t.Errorf("stdout line %d is not one JSON-RPC message (%v): %q", n, err, line)
			return
		}
		if env.JSONRPC != "2.0" {
			t.Errorf("stdout line %d: jsonrpc %q: %q", n, env.JSONRPC, line)
		}
		isResponse := len(env.ID) > 0 && (len(env.Result) > 0) != (len(env.Error) > 0) && env.Method == ""
		isRequestOrNote := env.Method != "" && len(env.Result) == 0 && len(env.Error) == 0
		if !isResponse && !isRequestOrNote {
			t.Errorf("stdout line %d is neither a response nor a request/notification: %q", n, line)
		}
		if isResponse {
			delete(want, string(env.ID))
		}
	}
	for len(want) > 0 && sc.Scan() {
		check(sc.Text())
	}
	if len(want) > 0 {
		t.Fatalf("no response for ids %v (scan error %v)\nstderr:\n%s", want, sc.Err(), stderr.String())
	}
	stdin.Close() // the client hangs up: the server must exit cleanly
	for sc.Scan() {
		check(sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("server exit: %v\nstderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "tool call") {
		t.Errorf("-v logged no tool calls to stderr:\n%s", stderr.String())
	}
}

// testMCPConcurrent runs 4 tool calls at once, with search_code during an
// index_project run that is left in the background.
func testMCPConcurrent(t *testing.T, bin string) {
	root, _ := fixture(t)
	cs := connect(t, bin, nil, t.TempDir(), legacyProtocol, "--root", root, "--index-budget", "100ms")
	// First index the small fixture, so the project exists; then add many
	// files so the next run takes a while.
	waitIdle(t, cs, mustCall(t, cs, "index_project", nil))
	for i := range 400 {
		var b strings.Builder
		fmt.Fprintf(&b, "package gen%d\n\n", i)
		for k := range 6 {
			fmt.Fprintf(&b, "// Compute%d_%d computes value %d for shard %d.\nfunc Compute%d_%d(x int) int {\n\tif x > %d {\n\t\treturn x * %d\n\t}\n\treturn helper%d(x)\n}\n\n", i, k, k, i, i, k, k, i, k)
		}
		fmt.Fprintf(&b, "func helper0(x int) int { return x }\nfunc helper1(x int) int { return x }\nfunc helper2(x int) int { return x }\nfunc helper3(x int) int { return x }\nfunc helper4(x int) int { return x }\nfunc helper5(x int) int { return x }\n")
		writeFile(t, filepath.Join(root, "gen", fmt.Sprintf("g%03d", i), "gen.go"), b.String())
	}

	type outcome struct {
		name, text string
		isErr      bool
	}
	calls := []struct {
		name string
		args map[string]any
	}{
		{"index_project", nil},
		{"search_code", map[string]any{"query": "exponential backoff retry"}},
		{"grep_code", map[string]any{"pattern": "LoginTimeout"}},
		{"read_file", map[string]any{"path": "server/handler.py", "limit": 10}},
	}
	results := make([]outcome, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.name, Arguments: c.args})
			if err != nil {
				results[i] = outcome{c.name, err.Error(), true}
				return
			}
			var b strings.Builder
			for _, ct := range res.Content {
				if tc, ok := ct.(*sdk.TextContent); ok {
					b.WriteString(tc.Text)
				}
			}
			results[i] = outcome{c.name, b.String(), res.IsError}
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.isErr {
			t.Errorf("%s failed: %s", r.name, r.text)
		}
	}
	if !strings.Contains(results[1].text, "server/handler.py") {
		t.Errorf("search_code during indexing lacks the already indexed file:\n%s", results[1].text)
	}
	if strings.Contains(results[0].text, "continues in the background") {
		t.Logf("index_project went to the background; search_code said:\n%s", results[1].text)
	}
	waitIdle(t, cs, results[0].text)
	// Everything is indexed now.
	mustCall(t, cs, "search_code", map[string]any{"query": "Compute399_5 computes value for shard 399"}, "gen/g399/gen.go")
	// the search may have started an incremental run of its own (the
	// last one ended more than Config.Freshness ago on a loaded machine)
	// and answered before it ended: it settles the files written within a
	// second of their indexing by their content
	waitIdle(t, cs, "")
	mustCall(t, cs, "index_status", nil, "state: idle", "last run:")
}

// waitIdle polls index_status until no run is going (the runs of these
// tests are small; the bound only stops a hung test).
func waitIdle(t *testing.T, cs *sdk.ClientSession, _ string) {
	t.Helper()
	for i := 0; ; i++ {
		text := mustCall(t, cs, "index_status", nil)
		if strings.Contains(text, "state: idle") {
			return
		}
		if i == 600 {
			t.Fatalf("index still running after 5 minutes:\n%s", text)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func testMCPClientRoots(t *testing.T, bin string) {
	root, _ := fixture(t)
	client := sdk.NewClient(&sdk.Implementation{Name: "roots-client", Version: "1"}, nil)
	client.AddRoots(&sdk.Root{URI: "file://" + filepath.ToSlash(root), Name: "project"})
	// The working directory is elsewhere: paths must resolve against the
	// client's root.
	cs := connect(t, bin, client, t.TempDir(), legacyProtocol)
	mustCall(t, cs, "glob_files", map[string]any{"pattern": "**/*.py"}, "server/handler.py")
	mustCall(t, cs, "index_status", nil, "project root: "+root)

	// Without roots and without --root, the working directory is the root
	// when it is inside a project (a marker at or above it).
	writeFile(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
	noRoots := sdk.NewClient(&sdk.Implementation{Name: "plain-client", Version: "1"},
		&sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	cs2 := connect(t, bin, noRoots, filepath.Join(root, "auth"), legacyProtocol)
	mustCall(t, cs2, "glob_files", map[string]any{"pattern": "*.go"}, "session.go", "token.go")
}

func testMCPLatestProtocol(t *testing.T, bin string) {
	root, _ := fixture(t)
	cs := connect(t, bin, nil, t.TempDir(), "", "--root", root)
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lt.Tools) != len(toolNames) {
		t.Errorf("got %d tools, want %d", len(lt.Tools), len(toolNames))
	}
	mustCall(t, cs, "read_file", map[string]any{"path": "auth/token.go"}, "ParseToken")
}
