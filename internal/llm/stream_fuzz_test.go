package llm

import (
	"bufio"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReadStream checks the server-sent-events reader of streamed
// completions (seeds: f.Add and testdata/fuzz/FuzzReadStream).
//
// Any body: readStream does not panic; it returns either a response with
// one choice whose content is exactly the pieces passed to onDelta, in
// order, or an error that is a malformed body (errBadBody), an error event
// (*APIError) or a line over the scanner's limit.
//
// Two content pieces a and b, and the same two as tool-call argument
// fragments, sent as a well-formed stream in one of the framings servers
// use (framing%3: events ended by a blank line, one data line per event
// with no blank line, or each event's JSON split over two data lines)
// come back joined: content a+b, one call with arguments a+b.
func FuzzReadStream(f *testing.F) {
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n", "Hel", "lo", uint8(0))
	f.Add(": keep-alive\nevent: message\ndata: {\"id\":\"x\",\"choices\":[]}\n", "{\"path\":", "\"a.go\"}", uint8(1))
	f.Add("data: {\"choices\":\ndata: [{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n", "多行\n内容", "", uint8(2))
	f.Add("data: {\"error\":{\"message\":\"context length exceeded\"}}\n\n", "", "x", uint8(0))
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}},{\"id\":\"c2\"}]}}]}\n", "data: [DONE]", "\r\n", uint8(1))
	f.Add("data: {not json}\n\n", "<&>", "\u2028", uint8(2))
	f.Add("", "a", "b", uint8(0))
	f.Fuzz(func(t *testing.T, body, a, b string, framing uint8) {
		if len(body) > 1<<16 || len(a)+len(b) > 1<<12 {
			return
		}
		checkAnyStream(t, body)
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return // JSON cannot carry them unchanged
		}
		var events []string
		// As servers send them: the call's id and name in its first
		// fragment only, the arguments in pieces.
		head := `"id":"call_1","type":"function","function":{"name":"f",`
		for _, p := range []string{a, b} {
			piece, _ := json.Marshal(p)
			events = append(events,
				`{"choices":[{"index":0,"delta":{"content":`+string(piece)+`}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,`+head+`"arguments":`+string(piece)+`}}]}}]}`)
			head = `"function":{`
		}
		events = append(events, `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, "[DONE]")
		var sb strings.Builder
		for _, e := range events {
			switch framing % 3 {
			case 0:
				sb.WriteString("data: " + e + "\n\n")
			case 1:
				sb.WriteString("data: " + e + "\n")
			case 2:
				if head, tail, ok := strings.Cut(e, `"choices":`); ok {
					sb.WriteString("data: " + head + `"choices":` + "\ndata: " + tail + "\n\n")
				} else {
					sb.WriteString("data: " + e + "\n\n")
				}
			}
		}
		var deltas strings.Builder
		resp, err := readStream(strings.NewReader(sb.String()), func(s string) { deltas.WriteString(s) })
		if err != nil {
			t.Fatalf("well-formed stream (framing %d): %v\n%s", framing%3, err, sb.String())
		}
		m := resp.Message()
		if m.Content != a+b || deltas.String() != a+b {
			t.Fatalf("content %q, deltas %q, want %q\n%s", m.Content, deltas.String(), a+b, sb.String())
		}
		if len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != "call_1" || m.ToolCalls[0].Function.Name != "f" ||
			m.ToolCalls[0].Function.Arguments != a+b || resp.FinishReason() != "tool_calls" {
			t.Fatalf("tool calls %+v, finish %q; want one call f(%q)", m.ToolCalls, resp.FinishReason(), a+b)
		}
	})
}

// checkAnyStream holds for any body: one choice whose content is what
// onDelta saw, or a classified error.
func checkAnyStream(t *testing.T, body string) {
	t.Helper()
	var deltas strings.Builder
	resp, err := readStream(strings.NewReader(body), func(s string) { deltas.WriteString(s) })
	if err != nil {
		var apiErr *APIError
		if !errors.Is(err, errBadBody) && !errors.As(err, &apiErr) && !errors.Is(err, bufio.ErrTooLong) {
			t.Fatalf("unclassified error %v for %q", err, body)
		}
		return
	}
	if len(resp.Choices) != 1 {
		t.Fatalf("%d choices for %q", len(resp.Choices), body)
	}
	if got := resp.Message().Content; got != deltas.String() {
		t.Fatalf("content %q but onDelta saw %q for %q", got, deltas.String(), body)
	}
}
