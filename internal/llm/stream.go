package llm

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/coderag/coderag/internal/httpx"
)

// streamChunk is one server-sent event of a streamed completion.
type streamChunk struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role      string          `json:"role"`
			Content   string          `json:"content"`
			ToolCalls []toolCallDelta `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *Usage          `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// toolCallDelta is a fragment of a tool call; fragments with the same Index
// belong to the same call, and Arguments arrive in pieces.
type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// readStream assembles a streamed completion: "data: {json}" lines until
// "data: [DONE]" (or the end of the body); comments, "event:" and other
// fields are ignored. Content pieces are passed to onDelta as they arrive;
// tool-call fragments are accumulated by index (a fragment with a new id at
// an index already in use starts a new call, for servers that send every
// call at index 0). An {"error": ...} event is returned as an *APIError.
// A stream longer than MaxResponseBytes fails (errTooLarge).
func readStream(r io.Reader, onDelta func(string)) (*Response, error) {
	sc := bufio.NewScanner(&cappedReader{r: r, n: MaxResponseBytes})
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	out := &Response{}
	var (
		content strings.Builder
		role    = RoleAssistant
		finish  string
		calls   []ToolCall
		args    []*strings.Builder // calls' arguments as they arrive (appending to a string would copy it each time)
		slot    = map[int]int{}    // delta index -> position in calls
		data    strings.Builder
		sawAny  bool
	)
	flush := func() (done bool, err error) {
		payload := strings.TrimSpace(data.String())
		data.Reset()
		if payload == "" {
			return false, nil
		}
		if payload == "[DONE]" {
			return true, nil
		}
		var ch streamChunk
		if err := json.Unmarshal([]byte(payload), &ch); err != nil {
			return false, fmt.Errorf("%w: bad event %q: %w", errBadBody, httpx.Snippet([]byte(payload), 120), err)
		}
		if len(ch.Error) > 0 && string(ch.Error) != "null" {
			msg, typ, code := errorMessage([]byte(payload))
			return false, &APIError{StatusCode: http.StatusOK, Message: msg, Type: typ, Code: code, RetryAfter: -1}
		}
		sawAny = true
		if ch.ID != "" {
			out.ID = ch.ID
		}
		if ch.Model != "" {
			out.Model = ch.Model
		}
		if ch.Usage != nil {
			out.Usage = ch.Usage
		}
		for _, c := range ch.Choices {
			if c.Index != 0 {
				continue // coderag asks for one choice
			}
			if c.Delta.Role != "" {
				role = c.Delta.Role
			}
			if c.Delta.Content != "" {
				content.WriteString(c.Delta.Content)
				if onDelta != nil {
					onDelta(c.Delta.Content)
				}
			}
			for _, d := range c.Delta.ToolCalls {
				idx := len(calls)
				if d.Index != nil {
					idx = *d.Index
				}
				pos, ok := slot[idx]
				if ok && d.ID != "" && calls[pos].ID != "" && calls[pos].ID != d.ID {
					ok = false // a new call reusing the index
				}
				if !ok {
					calls = append(calls, ToolCall{Type: "function"})
					args = append(args, &strings.Builder{})
					pos = len(calls) - 1
					slot[idx] = pos
				}
				tc := &calls[pos]
				if d.ID != "" {
					tc.ID = d.ID
				}
				if d.Type != "" {
					tc.Type = d.Type
				}
				tc.Function.Name += d.Function.Name
				args[pos].WriteString(d.Function.Arguments)
			}
			if c.FinishReason != nil && *c.FinishReason != "" {
				finish = *c.FinishReason
			}
		}
		return false, nil
	}
	for sc.Scan() {
		line := sc.Text()
		if line == "" { // end of one event
			if done, err := flush(); err != nil || done {
				if err != nil {
					return nil, err
				}
				return assemble(out, role, content.String(), calls, args, finish), nil
			}
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		if field != "data" {
			continue
		}
		value = strings.TrimPrefix(value, " ")
		if data.Len() > 0 {
			// Most servers put one JSON object per data line without a blank
			// line between; a complete object is its own event.
			if json.Valid([]byte(strings.TrimSpace(data.String()))) || strings.TrimSpace(data.String()) == "[DONE]" {
				if done, err := flush(); err != nil || done {
					if err != nil {
						return nil, err
					}
					return assemble(out, role, content.String(), calls, args, finish), nil
				}
			} else {
				data.WriteByte('\n')
			}
		}
		data.WriteString(value)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if _, err := flush(); err != nil {
		return nil, err
	}
	if !sawAny {
		return nil, fmt.Errorf("%w: stream ended without any event", errBadBody)
	}
	return assemble(out, role, content.String(), calls, args, finish), nil
}

func assemble(out *Response, role, content string, calls []ToolCall, args []*strings.Builder, finish string) *Response {
	for i := range calls {
		calls[i].Function.Arguments = args[i].String()
	}
	out.Choices = []Choice{{Message: Message{Role: role, Content: content, ToolCalls: calls}, FinishReason: finish}}
	return out
}
