package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/llm"
	"github.com/coderag/coderag/internal/llm/llmtest"
)

func newClient(t *testing.T, url string) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: url, Model: "gpt-test", APIKey: "sk-test", RetryBase: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// barrier lets n tool calls proceed only once all n have started; a call
// that waits longer than the timeout fails, so a sequential loop fails the
// test instead of hanging it.
type barrier struct {
	n       int32
	started atomic.Int32
	all     chan struct{}
	once    sync.Once
}

func newBarrier(n int) *barrier { return &barrier{n: int32(n), all: make(chan struct{})} }

func (b *barrier) wait(ctx context.Context) error {
	if b.started.Add(1) >= b.n {
		b.once.Do(func() { close(b.all) })
	}
	select {
	case <-b.all:
		return nil
	case <-time.After(3 * time.Second):
		return fmt.Errorf("only %d of %d calls started: tools ran sequentially", b.started.Load(), b.n)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestParallelToolsThenSearchThenAnswer scripts a typical conversation:
// grep_code and read_file in one turn (they must run in parallel,
// and their results must come back in the order asked even though grep
// finishes last), then search_code, then the answer.
func TestParallelToolsThenSearchThenAnswer(t *testing.T) {
	b := newBarrier(2)
	grep := NewTool(ToolGrep, "grep", true, func(ctx context.Context, p struct {
		Pattern string `json:"pattern"`
	}) (string, error) {
		if err := b.wait(ctx); err != nil {
			return "", err
		}
		time.Sleep(50 * time.Millisecond) // finish after read_file
		return "retry.go:12: func Retry(" + p.Pattern + ")", nil
	})
	read := NewTool(ToolRead, "read", true, func(ctx context.Context, p struct {
		Path string `json:"path"`
	}) (string, error) {
		if err := b.wait(ctx); err != nil {
			return "", err
		}
		return "     1\tpackage " + p.Path, nil
	})
	searched := ""
	srch := NewTool(ToolSearch, "search", true, func(ctx context.Context, p SearchParams) (string, error) {
		searched = p.Query
		return "Best entry point: Retry (function) at retry.go:12-30.", nil
	})
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		switch turn {
		case 1:
			return llmtest.ToolCalls(
				llmtest.Call("call_grep", ToolGrep, `{"pattern":"Retry"}`),
				llmtest.Call("call_read", ToolRead, `{"path":"retry.go","offset":1,"limit":40}`))
		case 2:
			return llmtest.ToolCalls(llmtest.Call("call_search", ToolSearch, `{"query":"backoff between attempts","top_k":3}`))
		default:
			return llmtest.Text("Retries are scheduled in Retry (retry.go:12).")
		}
	})
	var events []string
	a := &Agent{Client: newClient(t, srv.URL), Tools: []Tool{grep, read, srch},
		OnToolCall: func(e ToolEvent) { events = append(events, e.Name) }}
	res, err := a.Run(context.Background(), "how are retries scheduled?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "Retries are scheduled in Retry (retry.go:12)." || res.Steps != 2 || len(res.ToolCalls) != 3 {
		t.Fatalf("result %+v", res)
	}
	for _, e := range res.ToolCalls {
		if e.Err != nil {
			t.Errorf("%s: %v", e.Name, e.Err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	// Turn 1: system prompt with the search order, the tools offered.
	if sys := reqs[0].Messages[0]; sys.Role != llm.RoleSystem || !strings.Contains(sys.Content, "grep_code or glob_files first") {
		t.Errorf("system prompt: %q", sys.Content)
	}
	if got := strings.Join(llmtest.ToolNames(reqs[0]), ","); got != "grep_code,read_file,search_code" {
		t.Errorf("tools offered: %s", got)
	}
	// Turn 2: results in the order asked, despite grep finishing last.
	tr := llmtest.ToolResults(reqs[1])
	if len(tr) != 2 || tr[0].ToolCallID != "call_grep" || tr[1].ToolCallID != "call_read" ||
		tr[0].Content != "retry.go:12: func Retry(Retry)" || tr[1].Content != "     1\tpackage retry.go" {
		t.Fatalf("turn-2 tool results: %+v", tr)
	}
	if events[len(events)-1] != ToolSearch || events[0] != ToolRead {
		t.Errorf("completion order %v: want read_file to finish before grep_code", events)
	}
	asst := reqs[1].Messages[len(reqs[1].Messages)-3]
	if asst.Role != llm.RoleAssistant || len(asst.ToolCalls) != 2 {
		t.Errorf("assistant turn not echoed: %+v", asst)
	}
	// Turn 3: the search result.
	tr = llmtest.ToolResults(reqs[2])
	if len(tr) != 1 || tr[0].ToolCallID != "call_search" || !strings.HasPrefix(tr[0].Content, "Best entry point") || searched != "backoff between attempts" {
		t.Fatalf("turn-3 tool results: %+v (query %q)", tr, searched)
	}
}

// TestParallelismLimit: six read-only calls in one turn run four at a time.
func TestParallelismLimit(t *testing.T) {
	b := newBarrier(4)
	var inflight, peak atomic.Int32
	slow := NewTool("probe", "probe", true, func(ctx context.Context, p struct{}) (string, error) {
		n := inflight.Add(1)
		defer inflight.Add(-1)
		for {
			old := peak.Load()
			if n <= old || peak.CompareAndSwap(old, n) {
				break
			}
		}
		if err := b.wait(ctx); err != nil {
			return "", err
		}
		time.Sleep(20 * time.Millisecond)
		return "ok", nil
	})
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		if turn == 1 {
			var calls []llm.ToolCall
			for i := range 6 {
				calls = append(calls, llmtest.Call(fmt.Sprintf("c%d", i), "probe", `{}`))
			}
			return llmtest.ToolCalls(calls...)
		}
		return llmtest.Text("done")
	})
	a := &Agent{Client: newClient(t, srv.URL), Tools: []Tool{slow}}
	res, err := a.Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.ToolCalls {
		if e.Err != nil {
			t.Fatal(e.Err)
		}
	}
	if p := peak.Load(); p != 4 {
		t.Fatalf("peak concurrency %d, want 4", p)
	}
}

// TestWritingToolsRunAlone: a tool that is not read-only does not overlap
// with others, and order is kept around it.
func TestWritingToolsRunAlone(t *testing.T) {
	var inflight, peak atomic.Int32
	track := func(name string, ro bool) Tool {
		return NewTool(name, name, ro, func(ctx context.Context, p struct{}) (string, error) {
			n := inflight.Add(1)
			defer inflight.Add(-1)
			if !ro && n != 1 {
				peak.Store(99)
			}
			time.Sleep(10 * time.Millisecond)
			return name, nil
		})
	}
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		if turn == 1 {
			return llmtest.ToolCalls(llmtest.Call("1", "r1", ``), llmtest.Call("2", "w", `{}`), llmtest.Call("3", "r2", `{}`))
		}
		var got []string
		for _, m := range llmtest.ToolResults(req) {
			got = append(got, m.Content)
		}
		return llmtest.Text(strings.Join(got, ","))
	})
	a := &Agent{Client: newClient(t, srv.URL), Tools: []Tool{track("r1", true), track("w", false), track("r2", true)}}
	res, err := a.Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "r1,w,r2" || peak.Load() == 99 {
		t.Fatalf("answer %q peak %d", res.Answer, peak.Load())
	}
}

// TestToolErrorsReachModel: a failing tool, an unknown tool, malformed JSON
// arguments and a panicking tool all become "error: ..." results, and the
// loop continues to an answer.
func TestToolErrorsReachModel(t *testing.T) {
	failing := NewTool(ToolRead, "read", true, func(ctx context.Context, p struct {
		Path string `json:"path"`
	}) (string, error) {
		return "", fmt.Errorf("read %s: %w", p.Path, os.ErrNotExist)
	})
	panicky := FuncTool{ToolName: "boom", IsReadOnly: true, Fn: func(context.Context, json.RawMessage) (string, error) { panic("kaboom") }}
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		if turn == 1 {
			return llmtest.ToolCalls(
				llmtest.Call("a", ToolRead, `{"path":"missing.go"}`),
				llmtest.Call("b", "no_such_tool", `{}`),
				llmtest.Call("c", ToolRead, `{"path": "x.go"`),
				llmtest.Call("d", "boom", `{}`))
		}
		return llmtest.Text("could not read missing.go")
	})
	a := &Agent{Client: newClient(t, srv.URL), Tools: []Tool{failing, panicky}}
	res, err := a.Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "could not read missing.go" {
		t.Fatalf("answer %q", res.Answer)
	}
	tr := llmtest.ToolResults(srv.Requests()[1])
	want := []string{
		"error: read missing.go: file does not exist",
		`error: unknown tool "no_such_tool"; available tools: boom, read_file`,
		"error: invalid JSON arguments for read_file",
		"error: tool boom panicked: kaboom",
	}
	if len(tr) != len(want) {
		t.Fatalf("%d tool results", len(tr))
	}
	for i, w := range want {
		if !strings.HasPrefix(tr[i].Content, w) {
			t.Errorf("result %d = %q, want prefix %q", i, tr[i].Content, w)
		}
	}
	if res.ToolCalls[0].Err == nil || !errors.Is(res.ToolCalls[0].Err, os.ErrNotExist) {
		t.Errorf("event error %v", res.ToolCalls[0].Err)
	}
}

// TestStepLimit: a model that keeps calling tools is stopped after MaxSteps
// turns and asked, without tools, for a final answer.
func TestStepLimit(t *testing.T) {
	noop := NewTool(ToolGlob, "glob", true, func(ctx context.Context, p struct{}) (string, error) { return "a.go", nil })
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		if len(req.Tools) > 0 {
			return llmtest.ToolCalls(llmtest.Call(fmt.Sprint("c", turn), ToolGlob, `{"pattern":"*.go"}`))
		}
		return llmtest.Text("best effort: see a.go:1")
	})
	a := &Agent{Client: newClient(t, srv.URL), Tools: []Tool{noop}, MaxSteps: 3}
	res, err := a.Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if !res.StepLimit || res.Steps != 3 || len(res.ToolCalls) != 3 || len(reqs) != 4 || res.Answer != "best effort: see a.go:1" {
		t.Fatalf("result %+v after %d requests", res, len(reqs))
	}
	if last := reqs[3]; len(last.Tools) != 0 || !strings.Contains(llmtest.LastUser(last), "tool-call limit") {
		t.Errorf("final request: tools %v, last user %q", llmtest.ToolNames(last), llmtest.LastUser(last))
	}

	// A model that ignores the request gets ErrStepLimit.
	stubborn := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		return llmtest.ToolCalls(llmtest.Call(fmt.Sprint("c", turn), ToolGlob, `{}`))
	})
	a.Client = newClient(t, stubborn.URL)
	res, err = a.Run(context.Background(), "q")
	if !errors.Is(err, ErrStepLimit) || !res.StepLimit || len(stubborn.Requests()) != 4 {
		t.Fatalf("err %v, %d requests", err, len(stubborn.Requests()))
	}
}

// TestRetried429: a rate-limited turn is retried by the client and the
// conversation goes on.
func TestRetried429(t *testing.T) {
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		if turn == 1 {
			r := llmtest.Error(http.StatusTooManyRequests, "Rate limit reached for gpt-test")
			r.Header = map[string]string{"Retry-After": "0"}
			return r
		}
		return llmtest.Text("ok")
	})
	a := &Agent{Client: newClient(t, srv.URL)}
	res, err := a.Run(context.Background(), "q")
	if err != nil || res.Answer != "ok" || len(srv.Requests()) != 2 {
		t.Fatalf("res %+v err %v requests %d", res, err, len(srv.Requests()))
	}
}

// TestStreaming: the same conversation over server-sent events.
func TestStreaming(t *testing.T) {
	echo := NewTool(ToolGrep, "grep", true, func(ctx context.Context, p struct {
		Pattern string `json:"pattern"`
	}) (string, error) {
		return "hit for " + p.Pattern, nil
	})
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		if !req.Stream {
			t.Error("stream not requested")
		}
		if turn == 1 {
			return llmtest.ToolCalls(llmtest.Call("s1", ToolGrep, `{"pattern":"NewServer"}`))
		}
		return llmtest.Text("NewServer is defined in server.go:10.")
	})
	var text strings.Builder
	a := &Agent{Client: newClient(t, srv.URL), Tools: []Tool{echo}, Stream: true, OnText: func(s string) { text.WriteString(s) }}
	res, err := a.Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "NewServer is defined in server.go:10." || text.String() != res.Answer {
		t.Fatalf("answer %q streamed %q", res.Answer, text.String())
	}
	if tr := llmtest.ToolResults(srv.Requests()[1]); len(tr) != 1 || tr[0].Content != "hit for NewServer" {
		t.Fatalf("tool results %+v", tr)
	}
}

func TestChatErrorsSurface(t *testing.T) {
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		return llmtest.Reply{Status: http.StatusBadRequest, Body: `{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}`}
	})
	a := &Agent{Client: newClient(t, srv.URL), Tools: ProjectTools(t.TempDir(), nil)}
	_, err := a.Run(context.Background(), "q")
	if !errors.Is(err, llm.ErrToolsUnsupported) || !strings.Contains(err.Error(), "model gpt-test does not support tool calling") {
		t.Fatalf("err = %v", err)
	}
}

func TestTruncate(t *testing.T) {
	long := strings.Repeat("0123456789abcdef\n", 100) // 1700 ASCII chars ≈ 425 tokens
	out, cut := Truncate(long, 100)
	if !cut || !strings.HasSuffix(out, "more characters; narrow the query or use read_file offset/limit]") {
		t.Fatalf("not truncated: %q", out)
	}
	body, _, _ := strings.Cut(out, "[truncated: ")
	if EstimateTokens(body) > 100 || !strings.HasSuffix(body, "\n") || len(body) < 300 {
		t.Errorf("kept %d chars (%d tokens)", len(body), EstimateTokens(body))
	}
	if want := fmt.Sprintf("[truncated: %d more", len(long)-len(body)); !strings.Contains(out, want) {
		t.Errorf("note %q lacks %q", out[len(body):], want)
	}
	if s, cut := Truncate("short", 100); cut || s != "short" {
		t.Errorf("short: %q %v", s, cut)
	}
	// CJK counts a token per character and is cut on a rune boundary.
	cjk := strings.Repeat("上下文压缩", 100)
	out, cut = Truncate(cjk, 50)
	if !cut || !strings.HasPrefix(out, strings.Repeat("上下文压缩", 10)+"\n[truncated: 450 more") {
		t.Errorf("cjk: %q", out)
	}
}

// TestToolOutputBudget: each result is cut to MaxResultTokens, and older
// results are elided once the total passes ContextTokens.
func TestToolOutputBudget(t *testing.T) {
	big := NewTool(ToolRead, "read", true, func(ctx context.Context, p struct{}) (string, error) {
		return strings.Repeat("x", 10_000), nil
	})
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		if turn <= 3 {
			return llmtest.ToolCalls(llmtest.Call(fmt.Sprint("r", turn), ToolRead, `{}`))
		}
		return llmtest.Text("done")
	})
	a := &Agent{Client: newClient(t, srv.URL), Tools: []Tool{big}, MaxResultTokens: 1000, ContextTokens: 1500}
	res, err := a.Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if !res.ToolCalls[0].Truncated || res.ToolCalls[0].Chars != 10_000 {
		t.Errorf("event %+v", res.ToolCalls[0])
	}
	last := srv.Requests()[3]
	var tool []string
	for _, m := range last.Messages {
		if m.Role == llm.RoleTool {
			tool = append(tool, m.Content)
		}
	}
	if len(tool) != 3 || !strings.HasPrefix(tool[0], "[elided:") || !strings.HasPrefix(tool[1], "[elided:") ||
		!strings.Contains(tool[2], "[truncated: 6000 more characters") {
		for i, s := range tool {
			t.Logf("tool %d: %.80q", i, s)
		}
		t.Fatal("budget not applied")
	}
}

func TestProjectTools(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := ProjectTools(root, nil)
	byName := map[string]Tool{}
	for _, tl := range ts {
		byName[tl.Name()] = tl
		if !tl.ReadOnly() || tl.Description() == "" {
			t.Errorf("%s: read-only %v, description %q", tl.Name(), tl.ReadOnly(), tl.Description())
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(tl.Schema(), &schema); err != nil || schema.Type != "object" {
			t.Errorf("%s schema %s: %v", tl.Name(), tl.Schema(), err)
		}
		if tl.Name() == ToolGrep {
			if _, ok := schema.Properties["pattern"]; !ok || len(schema.Required) != 1 || schema.Required[0] != "pattern" {
				t.Errorf("grep schema %s", tl.Schema())
			}
			if _, ok := schema.Properties["Engine"]; ok {
				t.Errorf("grep schema exposes Engine: %s", tl.Schema())
			}
		}
	}
	ctx := context.Background()
	call := func(name, args string) string {
		t.Helper()
		out, err := byName[name].Call(ctx, json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s %s: %v", name, args, err)
		}
		return out
	}
	if out := call(ToolGrep, `{"pattern":"println"}`); !strings.Contains(out, "main.go") || !strings.Contains(out, "4") {
		t.Errorf("grep: %s", out)
	}
	if out := call(ToolGlob, `{"pattern":"*.go"}`); !strings.Contains(out, "main.go") {
		t.Errorf("glob: %s", out)
	}
	if out := call(ToolRead, `{"path":"main.go","offset":"3","limit":1}`); !strings.Contains(out, "func main()") || strings.Contains(out, "println") {
		t.Errorf("read: %s", out)
	}
	if out := call(ToolSearch, `{"query":"entry point"}`); out != NotIndexedMessage {
		t.Errorf("search without index: %s", out)
	}
	if _, err := byName[ToolRead].Call(ctx, json.RawMessage(`{"path":"../etc/passwd"}`)); err == nil {
		t.Error("read outside root: no error")
	}
}

// TestCallsPerTurnBounded: a turn asking for thousands of tool calls runs
// only MaxCallsPerTurn of them (by default as many as the context budget
// holds at the per-result budget), sends back only their results, and
// tells the model how many were not run.
func TestCallsPerTurnBounded(t *testing.T) {
	var ran atomic.Int32
	probe := NewTool("probe", "probe", true, func(ctx context.Context, p struct{}) (string, error) {
		ran.Add(1)
		return "ok", nil
	})
	var second llm.Request
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		if turn == 1 {
			var calls []llm.ToolCall
			for i := range 5000 {
				calls = append(calls, llmtest.Call(fmt.Sprintf("c%d", i), "probe", `{}`))
			}
			return llmtest.ToolCalls(calls...)
		}
		second = req
		return llmtest.Text("done")
	})
	a := &Agent{Client: newClient(t, srv.URL), Tools: []Tool{probe}}
	res, err := a.Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultContextTokens / DefaultMaxResultTokens
	if n := int(ran.Load()); n != want || len(res.ToolCalls) != want || res.DroppedCalls != 5000-want {
		t.Fatalf("ran %d calls (%d events, %d dropped), want %d run and %d dropped", n, len(res.ToolCalls), res.DroppedCalls, want, 5000-want)
	}
	tools := 0
	for _, m := range second.Messages {
		if m.Role == llm.RoleTool {
			tools++
		}
		if m.Role == llm.RoleAssistant && len(m.ToolCalls) != want {
			t.Errorf("the assistant turn sent back holds %d calls, want %d", len(m.ToolCalls), want)
		}
	}
	if tools != want {
		t.Errorf("%d tool results sent back, want %d", tools, want)
	}
	if first := second.Messages[len(second.Messages)-want]; !strings.Contains(first.Content, fmt.Sprintf("%d more tool calls of this turn were not run", 5000-want)) {
		t.Errorf("the model was not told of the calls not run: %q", first.Content)
	}
}
