package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/agent"
	"github.com/coderag/coderag/internal/llm"
	"github.com/coderag/coderag/internal/llm/llmtest"
)

// askFixture writes a small Go project and returns its root.
func askFixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"retry/retry.go": `package retry

import "time"

// Retry calls fn until it succeeds or attempts run out, sleeping with
// exponential backoff between attempts.
func Retry(attempts int, base time.Duration, fn func() error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = fn(); err == nil {
			return nil
		}
		time.Sleep(base << i)
	}
	return err
}
`,
		"server/server.go": `package server

// Server answers requests.
type Server struct{ addr string }

// NewServer returns a server listening on addr.
func NewServer(addr string) *Server { return &Server{addr: addr} }

// Start starts the server.
func (s *Server) Start() error { return nil }
`,
		"README.md": "# fixture\n\nA tiny project for coderag's agent tests.\n",
	}
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// askEnv isolates the index and points LLM_* at url ("" = unset).
func askEnv(t *testing.T, url string) {
	t.Helper()
	setenv(t, "CODERAG_HOME", t.TempDir())
	setenv(t, "EMBEDDING_PROVIDER", "")
	setenv(t, "LLM_BASE_URL", url)
	setenv(t, "LLM_MODEL", "")
	setenv(t, "LLM_API_KEY", "")
	if url != "" {
		setenv(t, "LLM_MODEL", "gpt-test")
		setenv(t, "LLM_API_KEY", "sk-test")
	}
}

func askRun(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := MainIO(context.Background(), args, testLookup(t), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestAskConversation drives `coderag ask -v` against a scripted chat
// server: a 429 that is retried, then grep_code and read_file in one turn
// (their real results come back in the order asked), then search_code over
// the real index, then the answer, which is printed.
func TestAskConversation(t *testing.T) {
	root := askFixture(t)
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		switch turn {
		case 1:
			r := llmtest.Error(http.StatusTooManyRequests, "Rate limit reached for gpt-test in organization org-x on requests per min (RPM): Limit 3.")
			r.Header = map[string]string{"Retry-After": "0"}
			return r
		case 2:
			return llmtest.ToolCalls(
				llmtest.Call("call_1", agent.ToolGrep, `{"pattern":"func Retry"}`),
				llmtest.Call("call_2", agent.ToolRead, `{"path":"retry/retry.go","offset":7,"limit":3}`))
		case 3:
			return llmtest.ToolCalls(
				llmtest.Call("call_3", agent.ToolSearch, `{"query":"sleep with exponential backoff between attempts"}`),
				llmtest.Call("call_4", agent.ToolGraph, `{"name":"Retry"}`))
		default:
			return llmtest.Text("Retry sleeps base<<i between attempts (retry/retry.go:13).")
		}
	})
	askEnv(t, srv.URL)
	if code, out, errs := askRun(t, "", "index", "--quiet", root); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := askRun(t, "", "ask", "-v", "--project", root, "how", "are", "retries", "spaced?")
	if code != 0 {
		t.Fatalf("ask: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if out != "Retry sleeps base<<i between attempts (retry/retry.go:13).\n" {
		t.Fatalf("stdout = %q", out)
	}
	for _, w := range []string{"→ grep_code {\"pattern\":\"func Retry\"}", "→ read_file ", "→ search_code "} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errs)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 (one 429 retried)", len(reqs))
	}
	if q := llmtest.LastUser(reqs[1]); q != "how are retries spaced?" {
		t.Errorf("question sent = %q", q)
	}
	tr := llmtest.ToolResults(reqs[2])
	if len(tr) != 2 || tr[0].ToolCallID != "call_1" || tr[1].ToolCallID != "call_2" {
		t.Fatalf("turn-3 tool results: %+v", tr)
	}
	if !strings.Contains(tr[0].Content, "retry/retry.go") || !strings.Contains(tr[0].Content, "7") {
		t.Errorf("grep result:\n%s", tr[0].Content)
	}
	if !strings.Contains(tr[1].Content, "func Retry(attempts int") || strings.Contains(tr[1].Content, "package retry") {
		t.Errorf("read result:\n%s", tr[1].Content)
	}
	if got := strings.Join(llmtest.ToolNames(reqs[1]), ","); got != "glob_files,grep_code,read_file,search_code,code_graph" {
		t.Errorf("tools offered: %s", got)
	}
	tr = llmtest.ToolResults(reqs[3])
	if len(tr) != 2 || !strings.Contains(tr[0].Content, "retry/retry.go") || strings.HasPrefix(tr[0].Content, "error") {
		t.Fatalf("search result: %+v", tr)
	}
	if !strings.Contains(tr[1].Content, "Retry") || strings.HasPrefix(tr[1].Content, "error") {
		t.Errorf("graph result: %q", tr[1].Content)
	}
}

// TestAskNotIndexed: without an index search_code says so as a tool result
// and the exact tools still work.
func TestAskNotIndexed(t *testing.T) {
	root := askFixture(t)
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		if turn == 1 {
			return llmtest.ToolCalls(
				llmtest.Call("s", agent.ToolSearch, `{"query":"server start"}`),
				llmtest.Call("g", agent.ToolGlob, `{"pattern":"**/*.go"}`))
		}
		return llmtest.Text("Start is in server/server.go:10.")
	})
	askEnv(t, srv.URL)
	code, out, errs := askRun(t, "", "ask", "--project", root, "where does the server start?")
	if code != 0 || out != "Start is in server/server.go:10.\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errs)
	}
	tr := llmtest.ToolResults(srv.Requests()[1])
	if len(tr) != 2 || tr[0].Content != agent.NotIndexedMessage || !strings.Contains(tr[1].Content, "server/server.go") {
		t.Fatalf("tool results %+v", tr)
	}
}

// TestAskEmptyIndexFile: an index file of 0 bytes is no index to ask:
// search_code says the project is not indexed, and the file is left as it
// is (ask writes no empty index into it).
func TestAskEmptyIndexFile(t *testing.T) {
	root := askFixture(t)
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		if turn == 1 {
			return llmtest.ToolCalls(llmtest.Call("s", agent.ToolSearch, `{"query":"server start"}`))
		}
		return llmtest.Text("Not indexed.")
	})
	askEnv(t, srv.URL)
	home := t.TempDir()
	setenv(t, "CODERAG_HOME", home)
	db := filepath.Join(home, "index.db")
	if err := os.WriteFile(db, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := askRun(t, "", "ask", "--project", root, "where does the server start?")
	if code != 0 || out != "Not indexed.\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errs)
	}
	if tr := llmtest.ToolResults(srv.Requests()[1]); len(tr) != 1 || tr[0].Content != agent.NotIndexedMessage {
		t.Fatalf("tool results %+v", tr)
	}
	if fi, err := os.Stat(db); err != nil || fi.Size() != 0 {
		t.Fatalf("ask changed the empty index file: %v %v", fi, err)
	}
}

// TestAskToolErrorAndStepLimit: a failing read goes back to the model, and
// --max-steps stops a model that keeps calling tools.
func TestAskToolErrorAndStepLimit(t *testing.T) {
	root := askFixture(t)
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		if len(req.Tools) > 0 {
			return llmtest.ToolCalls(llmtest.Call("r", agent.ToolRead, `{"path":"nope.go"}`))
		}
		return llmtest.Text("I could not find nope.go.")
	})
	askEnv(t, srv.URL)
	code, out, errs := askRun(t, "", "ask", "--max-steps", "2", "--json", "--project", root, "read nope.go")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	var res struct {
		Answer    string `json:"answer"`
		Steps     int    `json:"steps"`
		StepLimit bool   `json:"step_limit"`
		ToolCalls []struct {
			Name  string `json:"name"`
			Error string `json:"error"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if res.Answer != "I could not find nope.go." || res.Steps != 2 || !res.StepLimit || len(res.ToolCalls) != 2 || res.ToolCalls[0].Error == "" {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(errs, "step limit (2) was reached") {
		t.Errorf("stderr %q", errs)
	}
	if tr := llmtest.ToolResults(srv.Requests()[1]); len(tr) != 1 || !strings.HasPrefix(tr[0].Content, "error: ") {
		t.Errorf("tool results %+v", tr)
	}
}

func TestAskErrors(t *testing.T) {
	root := askFixture(t)
	noTools := llmtest.New(t, func(int, llm.Request) llmtest.Reply {
		return llmtest.Reply{Status: http.StatusBadRequest, Body: `{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}`}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		name, url, want string
	}{
		{"no model", "", "coderag ask: no chat model configured: set LLM_BASE_URL, LLM_MODEL (and LLM_API_KEY); without one, `coderag search \"anything?\"` ranks the code for the question\n"},
		{"unreachable", closed, "coderag ask: chat server unreachable at " + closed + "/v1/chat/completions"},
		{"no tool calling", noTools.URL, "coderag ask: model gpt-test does not support tool calling"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			askEnv(t, tc.url)
			code, out, errs := askRun(t, "", "ask", "--project", root, "anything?")
			if code != exitErr || out != "" || !strings.HasPrefix(errs, tc.want) || strings.Count(errs, "\n") != 1 {
				t.Fatalf("exit %d stdout %q stderr %q; want prefix %q", code, out, errs, tc.want)
			}
		})
	}
	askEnv(t, noTools.URL)
	if code, _, errs := askRun(t, "", "ask"); code != exitUsage || !strings.Contains(errs, "missing QUESTION") {
		t.Errorf("no question: exit %d %q", code, errs)
	}
}

// TestAskStream: --stream prints the answer as it arrives over SSE.
func TestAskStream(t *testing.T) {
	root := askFixture(t)
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		if !req.Stream {
			t.Error("stream not requested")
		}
		if turn == 1 {
			return llmtest.ToolCalls(llmtest.Call("g", agent.ToolGlob, `{"pattern":"*.md"}`))
		}
		return llmtest.Text("The README is README.md:1.")
	})
	askEnv(t, srv.URL)
	code, out, errs := askRun(t, "", "ask", "--stream", "--project", root, "where is the readme?")
	if code != 0 || out != "The README is README.md:1.\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errs)
	}
	if tr := llmtest.ToolResults(srv.Requests()[1]); len(tr) != 1 || !strings.Contains(tr[0].Content, "README.md") {
		t.Errorf("tool results %+v", tr)
	}
}

// TestServerTextOnStderrIsVisible: an error text or a tool name a chat
// server sent reaches standard error with its control characters shown,
// not obeyed (standard error is not wrapped in termSafe: it carries the
// progress lines' carriage returns).
func TestServerTextOnStderrIsVisible(t *testing.T) {
	if got, want := oneLine("HTTP 500: boom \x1b[31m red \x1b]0;TITLE\x07\u202e"), `HTTP 500: boom ^[[31m red ^[]0;TITLE^G\u202e`; got != want {
		t.Errorf("oneLine = %q, want %q", got, want)
	}
	var b bytes.Buffer
	printToolEvent(&b, agent.ToolEvent{Name: "\x1b[31mevil\x1b]0;T\x07", Args: "{\"p\":\"\x1b[2J\"}"})
	if s := b.String(); strings.ContainsRune(s, 0x1b) || strings.ContainsRune(s, 0x07) || !strings.Contains(s, "^[[31mevil") {
		t.Errorf("tool event line %q obeys control characters", s)
	}
}
