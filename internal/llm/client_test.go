package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://h", "http://h/v1/chat/completions"},
		{"http://h/", "http://h/v1/chat/completions"},
		{"http://h/v1", "http://h/v1/chat/completions"},
		{"http://h/v1/", "http://h/v1/chat/completions"},
		{"http://localhost:11434", "http://localhost:11434/v1/chat/completions"},
		{"https://open.bigmodel.cn/api/paas/v4", "https://open.bigmodel.cn/api/paas/v4/chat/completions"},
		{"https://api.deepseek.com/chat/completions", "https://api.deepseek.com/chat/completions"},
	} {
		got, err := Endpoint(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Endpoint(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"localhost:11434", "ftp://h", "http://"} {
		if _, err := Endpoint(bad); err == nil {
			t.Errorf("Endpoint(%q): want an error", bad)
		}
	}
}

func TestNewNotConfigured(t *testing.T) {
	for _, cfg := range []Config{{}, {BaseURL: "http://h"}, {Model: "m"}} {
		if _, err := New(cfg); !errors.Is(err, ErrNotConfigured) {
			t.Errorf("New(%+v) = %v, want ErrNotConfigured", cfg, err)
		}
	}
}

func testClient(t *testing.T, url string, mod func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: url, APIKey: "sk-test", Model: "test-model", RetryBase: time.Millisecond, Timeout: 5 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A response as OpenAI sends it when the model calls two tools.
const toolCallsJSON = `{
  "id": "chatcmpl-abc123",
  "object": "chat.completion",
  "created": 1715000000,
  "model": "test-model",
  "choices": [{
    "index": 0,
    "message": {
      "role": "assistant",
      "content": null,
      "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "grep_code", "arguments": "{\"pattern\":\"Retry\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a.go\"}"}}
      ],
      "refusal": null
    },
    "logprobs": null,
    "finish_reason": "tool_calls"
  }],
  "usage": {"prompt_tokens": 82, "completion_tokens": 40, "total_tokens": 122},
  "system_fingerprint": "fp_1"
}`

func TestChatToolCalls(t *testing.T) {
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		if h := r.Header.Get("Authorization"); h != "Bearer sk-test" {
			t.Errorf("Authorization = %q", h)
		}
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, toolCallsJSON)
	}))
	defer srv.Close()
	c := testClient(t, srv.URL, nil)
	req := Request{
		Messages: []Message{
			{Role: RoleSystem, Content: "sys"},
			{Role: RoleUser, Content: "q"},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c0", Type: "function", Function: FunctionCall{Name: "glob_files", Arguments: `{}`}}}},
			{Role: RoleTool, ToolCallID: "c0", Content: "a.go"},
		},
		Tools: []Tool{{Type: "function", Function: FunctionDef{Name: "grep_code", Description: "d", Parameters: json.RawMessage(`{"type":"object"}`)}}},
	}
	resp, err := c.Chat(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := resp.Message()
	if len(m.ToolCalls) != 2 || m.ToolCalls[0].Function.Name != "grep_code" || m.ToolCalls[1].Function.Arguments != `{"path":"a.go"}` {
		t.Fatalf("tool calls = %+v", m.ToolCalls)
	}
	if resp.FinishReason() != "tool_calls" || resp.Usage.TotalTokens != 122 {
		t.Errorf("finish %q usage %+v", resp.FinishReason(), resp.Usage)
	}
	if got["model"] != "test-model" {
		t.Errorf("model = %v", got["model"])
	}
	msgs := got["messages"].([]any)
	asst := msgs[2].(map[string]any)
	if c, ok := asst["content"]; !ok || c != nil {
		t.Errorf("assistant tool-call message content = %#v, want null", c)
	}
	tool := msgs[3].(map[string]any)
	if tool["tool_call_id"] != "c0" || tool["role"] != "tool" {
		t.Errorf("tool message = %v", tool)
	}
	fn := got["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if fn["name"] != "grep_code" || fn["parameters"].(map[string]any)["type"] != "object" {
		t.Errorf("tools = %v", got["tools"])
	}
}

func TestChatRetries429(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
			return
		}
		io.WriteString(w, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	// RetryBase of an hour: only Retry-After: 0 lets this finish quickly.
	c := testClient(t, srv.URL, func(c *Config) { c.RetryBase = time.Hour })
	resp, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "q"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message().Content != "hi" || n.Load() != 2 {
		t.Fatalf("content %q after %d requests", resp.Message().Content, n.Load())
	}
}

func TestChatRetries5xxThenGivesUp(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"message":"The server is overloaded","type":"server_error"}}`)
	}))
	defer srv.Close()
	c := testClient(t, srv.URL, func(c *Config) { c.MaxRetries = 2 })
	_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "q"}}}, nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || !strings.Contains(err.Error(), "The server is overloaded") {
		t.Fatalf("err = %v", err)
	}
	if n.Load() != 3 {
		t.Fatalf("%d requests, want 3 (1 + 2 retries)", n.Load())
	}
}

func TestChatErrorNotRetried(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: sk-test.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
	}))
	defer srv.Close()
	c := testClient(t, srv.URL, nil)
	_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "q"}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "Incorrect API key provided") || n.Load() != 1 {
		t.Fatalf("err = %v after %d requests", err, n.Load())
	}
}

func TestChatToolsUnsupported(t *testing.T) {
	for _, body := range []string{
		`{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}`,                                                                                      // Ollama
		`{"error":{"message":"tools is not supported in this model. For a list of supported models, refer to ...","type":"invalid_request_error"}}`,                   // OpenAI
		`{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","code":400}`, // vLLM
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, body)
		}))
		c := testClient(t, srv.URL, func(c *Config) { c.Model = "gemma:2b" })
		_, err := c.Chat(context.Background(), Request{
			Messages: []Message{{Role: RoleUser, Content: "q"}},
			Tools:    []Tool{{Type: "function", Function: FunctionDef{Name: "f"}}},
		}, nil)
		srv.Close()
		if !errors.Is(err, ErrToolsUnsupported) || !strings.Contains(err.Error(), "model gemma:2b does not support tool calling") {
			t.Errorf("body %s: err = %v", body, err)
		}
	}
}

func TestChatUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := testClient(t, "http://"+addr, nil)
	_, err = c.Chat(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "q"}}}, nil)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), addr) {
		t.Fatalf("err = %v", err)
	}
}

func TestChatContextCancel(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := testClient(t, srv.URL, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := c.Chat(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "q"}}}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestChatTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := testClient(t, srv.URL, func(c *Config) { c.Timeout = 50 * time.Millisecond; c.MaxRetries = -1 })
	_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "q"}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "timed out after 50ms") {
		t.Fatalf("err = %v", err)
	}
}

// sseBody is a streamed completion as OpenAI sends it: content in pieces,
// then two tool calls whose arguments arrive in fragments, interleaved.
var sseBody = strings.Join([]string{
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Let me "},"finish_reason":null}]}`,
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"look."},"finish_reason":null}]}`,
	`: keep-alive`,
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"grep_code","arguments":""}}]},"finish_reason":null}]}`,
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pat"}}]},"finish_reason":null}]}`,
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"read_file","arguments":"{\"path\":"}}]},"finish_reason":null}]}`,
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"tern\":\"Retry\"}"}}]},"finish_reason":null}]}`,
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"a.go\"}"}}]},"finish_reason":null}]}`,
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`,
	`data: [DONE]`,
	``,
}, "\n\n")

func TestChatStream(t *testing.T) {
	var streamed bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req Request
		json.NewDecoder(r.Body).Decode(&req)
		streamed = req.Stream
		w.Header().Set("Content-Type", "text/event-stream")
		for _, part := range strings.SplitAfter(sseBody, "\n\n") {
			io.WriteString(w, part)
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	c := testClient(t, srv.URL, nil)
	var pieces []string
	resp, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "q"}}, Stream: true},
		func(s string) { pieces = append(pieces, s) })
	if err != nil {
		t.Fatal(err)
	}
	if !streamed {
		t.Error("request did not set stream: true")
	}
	m := resp.Message()
	if m.Content != "Let me look." || strings.Join(pieces, "|") != "Let me |look." {
		t.Errorf("content %q pieces %q", m.Content, pieces)
	}
	want := []ToolCall{
		{ID: "call_a", Type: "function", Function: FunctionCall{Name: "grep_code", Arguments: `{"pattern":"Retry"}`}},
		{ID: "call_b", Type: "function", Function: FunctionCall{Name: "read_file", Arguments: `{"path":"a.go"}`}},
	}
	if fmt.Sprint(m.ToolCalls) != fmt.Sprint(want) {
		t.Errorf("tool calls\n got %+v\nwant %+v", m.ToolCalls, want)
	}
	if resp.FinishReason() != "tool_calls" || resp.Usage == nil || resp.Usage.TotalTokens != 15 || resp.ID != "chatcmpl-1" {
		t.Errorf("finish %q usage %+v id %q", resp.FinishReason(), resp.Usage, resp.ID)
	}
}

func TestReadStreamVariants(t *testing.T) {
	// Single-newline separated events (some servers), a call reusing index 0
	// with a new id (Ollama style), and no [DONE].
	body := `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"glob_files","arguments":"{}"}}]}}]}
data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"x\"}"}}]}}]}
data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}
`
	resp, err := readStream(strings.NewReader(body), nil)
	if err != nil {
		t.Fatal(err)
	}
	tc := resp.Message().ToolCalls
	if len(tc) != 2 || tc[0].ID != "c1" || tc[1].Function.Name != "read_file" || tc[1].Function.Arguments != `{"path":"x"}` {
		t.Fatalf("tool calls = %+v", tc)
	}
	// An error event mid-stream.
	_, err = readStream(strings.NewReader("data: {\"error\":{\"message\":\"context length exceeded\"}}\n\n"), nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Message != "context length exceeded" {
		t.Fatalf("err = %v", err)
	}
}

// A huge Retry-After must wait the cap, not overflow into a negative wait
// (before: "Retry-After: 9227000000000" gave -2562047h and 40 retries in
// 1.8 s). Retry-After-Ms is read as the embed client reads it.
func TestRetryAfterClamped(t *testing.T) {
	c := testClient(t, "http://h", func(c *Config) { c.MaxRetryDelay = 7 * time.Second })
	for _, h := range []http.Header{
		{"Retry-After": {"9227000000000"}},
		{"Retry-After-Ms": {"9227000000000"}},
		{"Retry-After": {"1e300"}},
		{"Retry-After": {"Fri, 31 Dec 9999 23:59:59 GMT"}},
	} {
		resp := &http.Response{StatusCode: 429, Header: h, Body: io.NopCloser(strings.NewReader(`{"error":{"message":"slow down"}}`))}
		err := readAPIError(resp)
		d, retry := c.retryDelay(err, 0)
		if !retry || d != 7*time.Second {
			t.Errorf("%v: delay %v, retry %v; want 7s, true", h, d, retry)
		}
	}
	resp := &http.Response{StatusCode: 429, Header: http.Header{"Retry-After-Ms": {"20"}}, Body: io.NopCloser(strings.NewReader(""))}
	if d, _ := c.retryDelay(readAPIError(resp), 0); d != 20*time.Millisecond {
		t.Errorf("Retry-After-Ms 20: delay %v", d)
	}
}

// A server that quotes the key in its 401 (as OpenAI-compatible gateways
// do), and a password in LLM_BASE_URL: neither is in the error, nor in the
// *APIError a caller may print alone.
func TestSecretsNotInErrors(t *testing.T) {
	const key = "sk-chat-SECRET-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	defer srv.Close()
	c := testClient(t, strings.Replace(srv.URL, "http://", "http://me:chat-pass-77@", 1), func(c *Config) { c.APIKey = key })
	_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}, nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 {
		t.Fatalf("err = %v", err)
	}
	for _, s := range []string{err.Error(), apiErr.Message, apiErr.Error(), c.Endpoint()} {
		if strings.Contains(s, "0123456789") || strings.Contains(s, "chat-pass-77") {
			t.Errorf("secret leaked: %q", s)
		}
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	c = testClient(t, "http://me:chat-pass-77@"+addr+"/v1", nil)
	_, err = c.Chat(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}, nil)
	if !errors.Is(err, ErrUnreachable) || strings.Contains(err.Error(), "chat-pass-77") {
		t.Errorf("unreachable: %v", err)
	}
}

// TestHugeRetryAfterWaits: a 429 asking for 9227000000000 ms is waited on
// (capped), not retried at once: before, the overflowed wait was negative
// and the client sent every retry immediately.
func TestHugeRetryAfterWaits(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Retry-After-Ms", "9227000000000")
		w.Header().Set("Retry-After", "9227000000000")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"Rate limit reached for gpt-4o","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
	}))
	defer srv.Close()
	c := testClient(t, srv.URL, func(c *Config) { c.MaxRetries = 5 })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := c.Chat(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline while waiting", err)
	}
	if got := n.Load(); got != 1 {
		t.Fatalf("%d requests, want 1 (the client must wait, not retry at once)", got)
	}
}

// TestChatStreamWithoutEnd: a server streaming content, or one tool
// call's arguments, without end fails the request once the answer passes
// MaxResponseBytes, instead of holding the memory until the timeout.
func TestChatStreamWithoutEnd(t *testing.T) {
	for _, kind := range []string{"content", "arguments"} {
		t.Run(kind, func(t *testing.T) {
			piece := strings.Repeat("Z", 60<<10)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				for i := 0; r.Context().Err() == nil; i++ {
					var ev string
					if kind == "content" {
						ev = `{"choices":[{"index":0,"delta":{"content":"` + piece + `"}}]}`
					} else {
						ev = `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"read_file","arguments":"` + piece + `"}}]}}]}`
					}
					if _, err := io.WriteString(w, "data: "+ev+"\n\n"); err != nil {
						return
					}
				}
			}))
			defer srv.Close()
			c := testClient(t, srv.URL, func(c *Config) { c.Timeout = time.Minute; c.MaxRetries = -1 })
			_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "q"}}, Stream: true}, nil)
			if err == nil || !strings.Contains(err.Error(), "the answer passed 64 MiB") {
				t.Fatalf("err = %v, want the answer's size refused", err)
			}
		})
	}
}

// TestChatRefusesRedirects: a redirect is not followed (the request
// carries the key, which Go keeps for another port of the same host), and
// the error names where it was sent.
func TestChatRefusesRedirects(t *testing.T) {
	var keySeen atomic.Bool
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			keySeen.Store(true)
		}
		io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}]}`)
	}))
	defer target.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	c := testClient(t, srv.URL, nil)
	_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "q"}}}, nil)
	if !errors.Is(err, ErrRedirected) || !strings.Contains(err.Error(), strings.TrimPrefix(target.URL, "http://")) {
		t.Errorf("err = %v, want ErrRedirected naming the target", err)
	}
	if keySeen.Load() {
		t.Error("the API key was sent to the redirect's target")
	}
}
