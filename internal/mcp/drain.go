// This file is a transport shim between stdio and the SDK's IOTransport
// for two open bugs of github.com/modelcontextprotocol/go-sdk (v1.8.0):
//
//   - go-sdk#1061, "stdio: responses to already-received requests are
//     dropped when stdin EOF arrives first (one-shot pipes get no output)",
//     https://github.com/modelcontextprotocol/go-sdk/issues/1061: the EOF
//     of the read side shuts the connection down, which cancels the calls
//     in flight and refuses to write their answers. drainReader holds the
//     EOF back until every request read has been answered (pending).
//   - go-sdk#1209, "mcp: a malformed JSON frame terminates the stdio
//     session", https://github.com/modelcontextprotocol/go-sdk/issues/1209
//     (fix proposed in go-sdk#1210): the SDK reads stdin with one streaming
//     json.Decoder and its read loop ends on the first decode error, so one
//     line that is not JSON ends the session. The same read loop ends on a
//     line that is JSON but not JSON-RPC, and on one longer than
//     IOTransport.MaxLineLength (no upstream issue found for these two).
//     drainReader answers such a line with a JSON-RPC error (-32700 or
//     -32600) and drops it.
//
// Remove the shim when both are fixed in a released SDK; drain_test.go
// pins the behaviour either way.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// drainTimeout bounds how long the end of the client's input waits for the
// answers to requests already read.
const drainTimeout = 90 * time.Second

// pending tracks the JSON-RPC requests read from the client that have no
// response written yet, so that a client which writes its requests and then
// closes its end of stdin (a shell pipe, a one-shot script) still gets every
// answer: the SDK ends the session, and cancels calls in flight, as soon as
// its reader returns EOF.
type pending struct {
	mu   sync.Mutex
	ids  map[string]bool
	cond *sync.Cond
}

func newPending() *pending {
	p := &pending{ids: map[string]bool{}}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// rpcHead is the part of a JSON-RPC message that tells requests and
// responses apart.
type rpcHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// scan calls fn for each message in a complete line (an object or a batch).
func scan(line []byte, fn func(rpcHead)) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if line[0] == '[' {
		var batch []rpcHead
		if json.Unmarshal(line, &batch) == nil {
			for _, h := range batch {
				fn(h)
			}
		}
		return
	}
	var h rpcHead
	if json.Unmarshal(line, &h) == nil {
		fn(h)
	}
}

// has reports whether a request of id (its JSON text) awaits its answer.
func (p *pending) has(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ids[id]
}

func (p *pending) read(line []byte) {
	scan(line, func(h rpcHead) {
		if h.Method != "" && len(h.ID) > 0 && string(h.ID) != "null" {
			p.mu.Lock()
			p.ids[string(h.ID)] = true
			p.mu.Unlock()
		}
	})
}

func (p *pending) wrote(line []byte) {
	scan(line, func(h rpcHead) {
		if h.Method == "" && len(h.ID) > 0 {
			p.mu.Lock()
			delete(p.ids, string(h.ID))
			p.cond.Broadcast()
			p.mu.Unlock()
		}
	})
}

// wait blocks until no request is unanswered, ctx ends or drainTimeout.
func (p *pending) wait(ctx context.Context) {
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { p.mu.Lock(); p.cond.Broadcast(); p.mu.Unlock() })
	defer stop()
	timer := time.AfterFunc(drainTimeout, func() { close(done); p.mu.Lock(); p.cond.Broadcast(); p.mu.Unlock() })
	defer timer.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.ids) > 0 && ctx.Err() == nil {
		select {
		case <-done:
			return
		default:
		}
		p.cond.Wait()
	}
}

// maxLine bounds one input line (one JSON-RPC message or batch): longer
// lines are answered with an error and dropped.
const maxLine = 32 << 20

// drainReader passes the client's input through line by line, noting
// requests; at EOF it first waits for their answers. A line that is not a
// JSON-RPC message is not passed on (the SDK would end the session): it is
// answered with a JSON-RPC error, -32700 for invalid JSON and -32600 for
// JSON that is no request, notification or response, and the session goes
// on (JSON-RPC 2.0, section 5.1).
type drainReader struct {
	ctx  context.Context
	r    io.ReadCloser
	p    *pending
	w    *drainWriter // where rejections are answered
	g    *gate        // session rules (protocol.go); nil = none
	buf  []byte
	line []byte // the current incomplete line
	long bool   // the current line passed maxLine: skip to its end
	out  []byte // accepted lines not yet returned
	eof  bool
}

func (d *drainReader) Read(b []byte) (int, error) {
	for len(d.out) == 0 {
		if d.eof {
			d.p.wait(d.ctx)
			return 0, io.EOF
		}
		if d.buf == nil {
			d.buf = make([]byte, 64<<10)
		}
		n, err := d.r.Read(d.buf)
		chunk := d.buf[:n]
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				d.add(chunk)
				break
			}
			d.add(chunk[:i])
			d.endLine()
			chunk = chunk[i+1:]
		}
		if err == io.EOF {
			d.endLine()
			d.eof = true
			continue
		}
		if err != nil {
			if len(d.out) > 0 {
				break
			}
			return 0, err
		}
	}
	n := copy(b, d.out)
	d.out = d.out[n:]
	return n, nil
}

func (d *drainReader) add(b []byte) {
	if d.long {
		return
	}
	if len(d.line)+len(b) > maxLine {
		d.long, d.line = true, nil
		return
	}
	d.line = append(d.line, b...)
}

// endLine accepts or rejects the line read so far.
func (d *drainReader) endLine() {
	line := bytes.TrimSpace(d.line)
	long := d.long
	d.line, d.long = d.line[:0], false
	switch {
	case long:
		d.w.reject(nil, -32600, fmt.Sprintf("Invalid Request: message longer than %d MiB", maxLine>>20))
	case len(line) == 0:
	case !json.Valid(line):
		d.w.reject(nil, -32700, "Parse error: the line is not valid JSON")
	default:
		if id, ok := validMessage(line); !ok {
			d.w.reject(id, -32600, `Invalid Request: want a JSON-RPC 2.0 object with "jsonrpc":"2.0" and a method or an id (a string or an integer), or a non-empty array of them`)
			return
		}
		if !d.g.pass(line, d.w) {
			return
		}
		d.p.read(line)
		d.out = append(d.out, line...)
		d.out = append(d.out, '\n')
	}
}

// validMessage reports whether line (valid JSON) is a JSON-RPC 2.0 message
// or a non-empty batch of them; for an invalid object it returns its id, if
// any, for the error response.
func validMessage(line []byte) (json.RawMessage, bool) {
	type msg struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  string          `json:"method"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	ok := func(m msg) bool {
		return m.JSONRPC == "2.0" && (m.Method != "" || len(m.ID) > 0 && (len(m.Result) > 0 || len(m.Error) > 0)) && validID(m.ID)
	}
	if line[0] == '[' {
		var batch []msg
		if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
			return nil, false
		}
		for _, m := range batch {
			if !ok(m) {
				return nil, false
			}
		}
		return nil, true
	}
	var m msg
	if line[0] != '{' || json.Unmarshal(line, &m) != nil {
		return nil, false
	}
	if !ok(m) {
		var id json.RawMessage
		if json.Unmarshal(m.ID, new(any)) == nil && len(m.ID) > 0 && (m.ID[0] == '"' || m.ID[0] >= '0' && m.ID[0] <= '9' || m.ID[0] == '-') {
			id = m.ID
		}
		return id, false
	}
	return nil, true
}

// validID reports whether id, a message's raw "id" (empty when absent), is
// one the SDK keeps as it is: absent, null (a notification to the SDK), a
// string, or an integer that fits an int64. The SDK ends the session on
// any other type (true, [1], {}) and truncates a fraction (2.5 answered as
// 2, and the request then never counts as answered), so such a message is
// answered with -32600 here instead (JSON-RPC 2.0, section 4: an id
// should not contain fractional parts).
func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	switch {
	case len(id) == 0, string(id) == "null":
		return true
	case id[0] == '"':
		var s string
		return json.Unmarshal(id, &s) == nil
	}
	_, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil
}

func (d *drainReader) Close() error { return d.r.Close() }

// drainWriter passes the server's output through, noting responses.
type drainWriter struct {
	w    io.WriteCloser
	p    *pending
	g    *gate // drops answers to cancelled requests; nil = none
	mu   sync.Mutex
	line []byte
}

func (d *drainWriter) Write(b []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.line) == 0 && bytes.IndexByte(b, '\n') == len(b)-1 && d.g.drop(b) {
		d.p.wrote(b)
		return len(b), nil
	}
	// a response is noted as answered before it is written: a client that
	// reads it may send its next request with the same id at once, and
	// the gate must not still take that id for a pending one
	d.line = append(d.line, b...)
	for {
		i := bytes.IndexByte(d.line, '\n')
		if i < 0 {
			break
		}
		d.p.wrote(d.line[:i])
		d.line = d.line[i+1:]
	}
	return d.w.Write(b)
}

// reject writes a JSON-RPC error response for a line that was not passed
// on; id is null when the line had none.
func (d *drainWriter) reject(id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	d.mu.Lock()
	defer d.mu.Unlock()
	d.w.Write(append(resp, '\n'))
}

func (d *drainWriter) Close() error { return d.w.Close() }

// BadID reports whether body, one JSON-RPC message or a batch of them
// (an MCP request body over HTTP), has a message whose id is neither
// absent, null, a string nor an int64 integer (validID); id is that id
// when it is a number (echoed in the error), else null. A body that is
// not JSON is left to the SDK, which answers it.
func BadID(body []byte) (id json.RawMessage, bad bool) {
	type msg struct {
		ID json.RawMessage `json:"id"`
	}
	var ms []msg
	body = bytes.TrimSpace(body)
	switch {
	case len(body) > 0 && body[0] == '[':
		if json.Unmarshal(body, &ms) != nil {
			return nil, false
		}
	default:
		var m msg
		if json.Unmarshal(body, &m) != nil {
			return nil, false
		}
		ms = []msg{m}
	}
	for _, m := range ms {
		if !validID(m.ID) {
			if json.Unmarshal(m.ID, new(float64)) == nil {
				return m.ID, true
			}
			return nil, true
		}
	}
	return nil, false
}
