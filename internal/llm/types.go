// Package llm is a client for OpenAI-compatible chat-completions APIs
// (OpenAI, DeepSeek, GLM, Qwen, Ollama's /v1 and the like): one POST to
// {base}/chat/completions with messages and function tools, the answer either
// whole or streamed as server-sent events. Transient failures (HTTP 429 and
// 5xx, dropped connections) are retried with exponential backoff that honours
// Retry-After; every request is bounded by a timeout and by the caller's
// context. Errors carry the server's own message.
package llm

import (
	"encoding/json"
)

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message. An assistant message may carry ToolCalls
// (and then usually empty Content); a tool message answers one call and
// carries its ToolCallID.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// MarshalJSON encodes Content as null on an assistant message that only
// carries tool calls, as the OpenAI API documents; some compatible servers
// reject an empty string there.
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	if m.Role == RoleAssistant && m.Content == "" && len(m.ToolCalls) > 0 {
		return json.Marshal(struct {
			plain
			Content *string `json:"content"`
		}{plain: plain(m)})
	}
	return json.Marshal(plain(m))
}

// ToolCall is the model's request to call one function. Arguments is a JSON
// object encoded as a string, exactly as the model produced it (it may be
// invalid JSON).
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its raw JSON arguments.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool declares one function the model may call.
type Tool struct {
	Type     string      `json:"type"` // "function"
	Function FunctionDef `json:"function"`
}

// FunctionDef is a function's name, description and parameters (a JSON
// Schema object).
type FunctionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Request is one chat-completions request. Model defaults to the client's
// model; Stream selects server-sent events (the result is assembled the same
// way either way).
type Request struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Tools       []Tool    `json:"tools,omitempty"`
	ToolChoice  string    `json:"tool_choice,omitempty"` // "", "auto", "none", "required"
	Temperature *float64  `json:"temperature,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	Stream      bool      `json:"stream,omitempty"`
}

// Response is a chat-completions response (for a streamed request, the
// assembled equivalent).
type Response struct {
	ID      string   `json:"id"`
	Model   string   `json:"model"`
	Choices []Choice `json:"choices"`
	Usage   *Usage   `json:"usage,omitempty"`
}

// Choice is one completion; coderag only ever asks for one.
type Choice struct {
	Index        int     `json:"index"`
	Message      Message `json:"message"`
	FinishReason string  `json:"finish_reason"`
}

// Usage counts tokens as the server reports them.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Message returns the first choice's message, or a zero Message when the
// server returned no choice.
func (r *Response) Message() Message {
	if r == nil || len(r.Choices) == 0 {
		return Message{}
	}
	return r.Choices[0].Message
}

// FinishReason returns the first choice's finish reason ("stop",
// "tool_calls", "length", ...), or "".
func (r *Response) FinishReason() string {
	if r == nil || len(r.Choices) == 0 {
		return ""
	}
	return r.Choices[0].FinishReason
}
