package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rawSession runs a Server over pipes and returns a line writer and the
// channel of response lines.
func rawSession(t *testing.T, root string) (send func(string), lines <-chan string) {
	t.Helper()
	srv, err := NewServer(Config{Root: root, Engine: tempEngine(t, localEmbedder, 0), Log: testWriter{t}, Verbose: true})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { srv.Run(context.Background(), inR, outW); outW.Close() }()
	ch := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			ch <- sc.Text()
		}
		close(ch)
	}()
	t.Cleanup(func() { inW.Close() })
	return func(s string) {
		if _, err := io.WriteString(inW, s); err != nil {
			t.Fatal(err)
		}
	}, ch
}

type rpcResp struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

func next(t *testing.T, lines <-chan string) rpcResp {
	t.Helper()
	l, ok := <-lines
	if !ok {
		t.Fatal("server closed its output")
	}
	var r rpcResp
	if err := json.Unmarshal([]byte(l), &r); err != nil {
		t.Fatalf("bad line %q: %v", l, err)
	}
	return r
}

// TestProtocolFaults: a request before initialize gets -32002, a request
// with a null id and a batch under 2025-06-18 get -32600 and the session
// goes on, a cancelled request
// gets no response, the logging capability is not declared, and an
// unknown tool's error names the tools.
func TestProtocolFaults(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644)
	send, lines := rawSession(t, root)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
	if r := next(t, lines); string(r.ID) != "1" || r.Error == nil || r.Error.Code != codeNotInitialized {
		t.Errorf("request before initialize: %+v", r)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	r := next(t, lines)
	if string(r.ID) != "2" || r.Error != nil || strings.Contains(string(r.Result), `"logging"`) {
		t.Errorf("initialize: %+v %s", r, r.Result)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	// a request with a null id: answered, not taken for a notification
	send(`{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n")
	if r := next(t, lines); string(r.ID) != "null" || r.Error == nil || r.Error.Code != codeInvalidRequest || !strings.Contains(r.Error.Message, "not null") {
		t.Errorf("null id: %+v", r)
	}
	send(`[{"jsonrpc":"2.0","id":3,"method":"ping"}]` + "\n")
	if r := next(t, lines); string(r.ID) != "null" || r.Error == nil || r.Error.Code != codeInvalidRequest || !strings.Contains(r.Error.Message, "batch") {
		t.Errorf("batch: %+v", r)
	}
	// the request and its cancellation arrive together: no response to 5
	send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"grep_code","arguments":{"pattern":"A"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}` + "\n")
	send(`{"jsonrpc":"2.0","id":6,"method":"ping"}` + "\n")
	for {
		r := next(t, lines)
		if string(r.ID) == "5" {
			t.Errorf("cancelled request answered: %+v", r)
		}
		if string(r.ID) == "6" {
			break
		}
	}
	send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"glob_files","arguments":{"pattern":"*.go"}}}` + "\n")
	if r := next(t, lines); string(r.ID) != "7" || r.Error != nil {
		t.Errorf("after the faults: %+v", r)
	}
	// an unknown tool: invalid params, naming the tools there are
	send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"serch_code","arguments":{"query":"x"}}}` + "\n")
	if r := next(t, lines); string(r.ID) != "8" || r.Error == nil || r.Error.Code != -32602 ||
		!strings.Contains(r.Error.Message, `unknown tool "serch_code"; the tools are glob_files, grep_code, read_file, search_code`) {
		t.Errorf("unknown tool: %+v", r.Error)
	}
}

// TestDuplicatePendingID: a request sent while another with the same id
// awaits its answer (the attacker's initialize and tools/list, both id 1,
// in one burst) is answered with -32600, not dropped without a word; the
// first is answered as usual, and the id may be used again once it is.
func TestDuplicatePendingID(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644)
	send, lines := rawSession(t, root)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
	var initOK, dupErr bool
	for !initOK || !dupErr {
		r := next(t, lines)
		switch {
		case string(r.ID) == "1" && r.Error == nil:
			initOK = true
		case string(r.ID) == "1" && r.Error.Code == codeInvalidRequest && strings.Contains(r.Error.Message, "not yet answered"):
			dupErr = true
		default:
			t.Fatalf("unexpected answer: %+v", r)
		}
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
	if r := next(t, lines); string(r.ID) != "1" || r.Error != nil {
		t.Errorf("id 1 again once answered: %+v %+v", r, r.Error)
	}
}

// CheckHTTP answers a request with a null id as the stdio gate does, and
// lets a notification (no id) and a request with an id through.
func TestCheckHTTPNullID(t *testing.T) {
	t.Parallel()
	if e := CheckHTTP([]byte(`{"jsonrpc":"2.0","id":null,"method":"ping"}`), true); e == nil || e.Code != codeInvalidRequest {
		t.Errorf("null id: %+v", e)
	}
	for _, body := range []string{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`} {
		if e := CheckHTTP([]byte(body), true); e != nil {
			t.Errorf("%s: %+v", body, e)
		}
	}
}
