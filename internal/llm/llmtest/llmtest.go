// Package llmtest is a scripted OpenAI-compatible chat server for tests: an
// httptest server whose answers are produced turn by turn by a Go function
// and written in the exact JSON shapes the OpenAI API uses (whole responses,
// or server-sent event chunks when the request sets stream: true), including
// its error bodies.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/coderag/coderag/internal/llm"
)

// Reply is one scripted answer. Build it with Text, ToolCalls or Error.
type Reply struct {
	Status  int               // 0 means 200
	Header  map[string]string // extra response headers (e.g. Retry-After)
	Body    string            // raw body for non-200 replies
	Message llm.Message       // the assistant message for 200 replies
}

// Text is an answer without tool calls.
func Text(s string) Reply {
	return Reply{Message: llm.Message{Role: llm.RoleAssistant, Content: s}}
}

// ToolCalls is an assistant turn that calls tools.
func ToolCalls(calls ...llm.ToolCall) Reply {
	return Reply{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: calls}}
}

// Call builds one tool call.
func Call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Type: "function", Function: llm.FunctionCall{Name: name, Arguments: args}}
}

// Error is a non-200 reply with the OpenAI error body.
func Error(status int, message string) Reply {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": message, "type": "invalid_request_error", "param": nil, "code": nil}})
	return Reply{Status: status, Body: string(b)}
}

// Handler returns the reply to the turn-th request (1-based).
type Handler func(turn int, req llm.Request) Reply

// Server is a running scripted server.
type Server struct {
	*httptest.Server
	t       testing.TB
	handler Handler
	mu      sync.Mutex
	reqs    []llm.Request
}

// New starts a server answering with h; it is closed when the test ends.
// Requests must POST JSON to /v1/chat/completions.
func New(t testing.TB, h Handler) *Server {
	s := &Server{t: t, handler: h}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"Unknown request URL: `+r.Method+` `+r.URL.Path+`","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	var req llm.Request
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &req); err != nil {
		http.Error(w, `{"error":{"message":"We could not parse the JSON body of your request.","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	turn := len(s.reqs)
	s.mu.Unlock()
	rep := s.handler(turn, req)
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	if rep.Status != 0 && rep.Status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		io.WriteString(w, rep.Body)
		return
	}
	id := fmt.Sprintf("chatcmpl-test%d", turn)
	finish := "stop"
	if len(rep.Message.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	if req.Stream {
		writeStream(w, id, req.Model, rep.Message, finish)
		return
	}
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if rep.Message.Content != "" || len(rep.Message.ToolCalls) == 0 {
		msg["content"] = rep.Message.Content
	}
	if len(rep.Message.ToolCalls) > 0 {
		msg["tool_calls"] = rep.Message.ToolCalls
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": id, "object": "chat.completion", "created": 1715000000, "model": req.Model,
		"choices":            []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		"usage":              map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
		"system_fingerprint": "fp_test",
	})
}

// writeStream sends m as OpenAI chat.completion.chunk events: the role,
// content in 8-byte pieces, each tool call's name then its arguments in
// two fragments, the finish reason, then [DONE].
func writeStream(w http.ResponseWriter, id, model string, m llm.Message, finish string) {
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(delta map[string]any, fin any) {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1715000000, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": fin}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	send(map[string]any{"role": "assistant", "content": ""}, nil)
	for c := m.Content; c != ""; {
		n := min(8, len(c))
		send(map[string]any{"content": c[:n]}, nil)
		c = c[n:]
	}
	for i, tc := range m.ToolCalls {
		args := tc.Function.Arguments
		half := len(args) / 2
		send(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Function.Name, "arguments": args[:half]}}}}, nil)
		send(map[string]any{"tool_calls": []any{map[string]any{"index": i,
			"function": map[string]any{"arguments": args[half:]}}}}, nil)
	}
	send(map[string]any{}, finish)
	io.WriteString(w, "data: [DONE]\n\n")
}

// ToolResults returns the tool messages at the end of req (the results of
// the previous turn's calls), in order.
func ToolResults(req llm.Request) []llm.Message {
	var out []llm.Message
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role == llm.RoleTool; i-- {
		out = append([]llm.Message{req.Messages[i]}, out...)
	}
	return out
}

// ToolNames returns the names of the tools offered in req.
func ToolNames(req llm.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// LastUser returns the content of the last user message of req.
func LastUser(req llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			return req.Messages[i].Content
		}
	}
	return ""
}
