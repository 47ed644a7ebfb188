package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type bufCloser struct{ bytes.Buffer }

func (b *bufCloser) Close() error { return nil }

// stdioServer returns a server over a fresh index for a project holding
// a.go with the given source.
func stdioServer(t *testing.T, src string) *Server {
	t.Helper()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte(src), 0o644)
	srv, err := NewServer(Config{Root: root, Engine: tempEngine(t, localEmbedder, 20*time.Second), Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestRequestsBeforeEOFAreAnswered pipes requests and closes the input at
// once, as `printf ... | coderag mcp` does: every request read is answered,
// including a search that first has to index the project.
func TestRequestsBeforeEOFAreAnswered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := stdioServer(t, "package a\n\n// Retry retries.\nfunc Retry() {}\n")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"glob_files","arguments":{"pattern":"*.go"}}}`,
		`{"jsonrpc":"2.0","id":"four","method":"tools/call","params":{"name":"search_code","arguments":{"query":"retry"}}}`,
	}, "\n") + "\n"
	var out bufCloser
	if err := srv.Run(ctx, io.NopCloser(strings.NewReader(in)), &out); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line is not JSON-RPC: %q", line)
		}
		if len(m.Error) == 0 {
			got[string(m.ID)] = true
		}
	}
	for _, id := range []string{"1", "2", "3", `"four"`} {
		if !got[id] {
			t.Errorf("request %s was not answered; output:\n%s", id, out.String())
		}
	}
	if !strings.Contains(out.String(), "Retry") {
		t.Errorf("search_code did not find Retry: %s", out.String())
	}
}

// TestMalformedLinesAreAnsweredNotFatal: a line that is not JSON, or JSON
// that is not a JSON-RPC message, gets a JSON-RPC error and the session
// goes on to answer the requests after it.
func TestMalformedLinesAreAnsweredNotFatal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := stdioServer(t, "package a\n")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`not json`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`42`,
		`{"id":7,"hello":"world"}`,
		`[]`,
		``,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"glob_files","arguments":{"pattern":"*.go"}}}`,
	}, "\n") // no final newline: the last line ends at EOF
	var out bufCloser
	if err := srv.Run(ctx, io.NopCloser(strings.NewReader(in)), &out); err != nil {
		t.Fatalf("session ended with %v; output:\n%s", err, out.String())
	}
	answered := map[string]bool{}
	codes := map[string][]int{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", line)
		}
		if m.Error != nil {
			codes[string(m.ID)] = append(codes[string(m.ID)], m.Error.Code)
		} else {
			answered[string(m.ID)] = true
		}
	}
	for _, id := range []string{"1", "2", "3"} {
		if !answered[id] {
			t.Errorf("request %s not answered; output:\n%s", id, out.String())
		}
	}
	// not json -> -32700; 42 and [] -> -32600 with a null id; the object with id 7 -> -32600 with id 7
	if got := codes["null"]; len(got) != 3 || got[0] != -32700 || got[1] != -32600 || got[2] != -32600 {
		t.Errorf("errors with a null id: %v", got)
	}
	if got := codes["7"]; len(got) != 1 || got[0] != -32600 {
		t.Errorf("errors for id 7: %v", got)
	}
	if !strings.Contains(out.String(), "a.go") {
		t.Errorf("glob_files after the bad lines: %s", out.String())
	}
}

// TestLongLinesAreAnsweredNotFatal: a request line longer than the SDK's
// own 16 MiB frame cap (which used to end the session) but under maxLine is
// served, one over maxLine gets a JSON-RPC error, and the session answers
// the request after both.
func TestLongLinesAreAnsweredNotFatal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := stdioServer(t, "package a\n")
	call := func(id int, pad int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"glob_files","arguments":{"pattern":"*.go","path":""}},"pad":"%s"}`,
			id, strings.Repeat("x", pad))
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		call(2, 20<<20),    // over the SDK's default cap, under maxLine
		call(3, maxLine+1), // over maxLine
		call(4, 0),
	}, "\n") + "\n"
	var out bufCloser
	if err := srv.Run(ctx, io.NopCloser(strings.NewReader(in)), &out); err != nil {
		t.Fatalf("session ended with %v", err)
	}
	ok, codes := map[string]bool{}, map[string]int{}
	for _, m := range rpcLines(t, out.String()) {
		if m.Error != nil {
			codes[string(m.ID)] = m.Error.Code
		} else {
			ok[string(m.ID)] = true
		}
	}
	if !ok["2"] || !ok["4"] || codes["null"] != -32600 {
		t.Errorf("answered %v, errors %v; output %.500s", ok, codes, out.String())
	}
}

// TestBadIDsAreAnsweredNotFatal: a message whose id is neither a string
// nor an integer of int64 range (true, [1], {}, 2.5, 1e400, 2^63) gets
// -32600 and the session goes on: the SDK ended it on the first kinds and
// answered 2.5 as 2, which then kept Run from returning at EOF. A number
// is echoed back as it was sent; an id of another type is answered null.
func TestBadIDsAreAnsweredNotFatal(t *testing.T) {
	t.Parallel()
	srv := stdioServer(t, "package a\n")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{},"result":{}}`,
		`[{"jsonrpc":"2.0","id":[1],"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":-3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","method":"ping"}`,
	}, "\n") + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out bufCloser
	if err := srv.Run(ctx, io.NopCloser(strings.NewReader(in)), &out); err != nil {
		t.Fatalf("session ended with %v; output:\n%s", err, out.String())
	}
	if ctx.Err() != nil {
		t.Fatalf("Run did not return at EOF; output:\n%s", out.String())
	}
	answered, rejected := map[string]bool{}, map[string]int{}
	for _, m := range rpcLines(t, out.String()) {
		if m.Error != nil && m.Error.Code == -32600 {
			rejected[string(m.ID)]++
		} else if m.Error == nil {
			answered[string(m.ID)] = true
		}
	}
	for _, id := range []string{"1", "-3", `"x"`} {
		if !answered[id] {
			t.Errorf("request %s not answered; output:\n%s", id, out.String())
		}
	}
	// true, {}, [1] and 1e400 (no float64 holds it) are answered null
	if rejected["null"] != 4 || rejected["2.5"] != 1 || rejected["9223372036854775808"] != 1 {
		t.Errorf("-32600 answers by id: %v; output:\n%s", rejected, out.String())
	}
	if answered["2"] {
		t.Errorf("2.5 answered as 2:\n%s", out.String())
	}
}

// rpcLine is the id and error code of one JSON-RPC line the server wrote.
type rpcLine struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code int `json:"code"`
	} `json:"error"`
}

// rpcLines decodes every line of a session's output; a line that is not
// JSON fails the test.
func rpcLines(t *testing.T, out string) []rpcLine {
	t.Helper()
	var ms []rpcLine
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m rpcLine
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %.200q", line)
		}
		ms = append(ms, m)
	}
	return ms
}
