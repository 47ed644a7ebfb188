package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
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

// drainReader passes the client's input through, noting requests; at EOF
// it first waits for their answers.
type drainReader struct {
	ctx  context.Context
	r    io.ReadCloser
	p    *pending
	line []byte
}

func (d *drainReader) Read(b []byte) (int, error) {
	n, err := d.r.Read(b)
	d.line = append(d.line, b[:n]...)
	for {
		i := bytes.IndexByte(d.line, '\n')
		if i < 0 {
			break
		}
		d.p.read(d.line[:i])
		d.line = d.line[i+1:]
	}
	if err == io.EOF {
		if len(d.line) > 0 {
			d.p.read(d.line)
			d.line = nil
		}
		if n > 0 {
			return n, nil // deliver the bytes first; EOF comes on the next call
		}
		d.p.wait(d.ctx)
	}
	return n, err
}

func (d *drainReader) Close() error { return d.r.Close() }

// drainWriter passes the server's output through, noting responses.
type drainWriter struct {
	w    io.WriteCloser
	p    *pending
	mu   sync.Mutex
	line []byte
}

func (d *drainWriter) Write(b []byte) (int, error) {
	n, err := d.w.Write(b)
	d.mu.Lock()
	d.line = append(d.line, b[:n]...)
	for {
		i := bytes.IndexByte(d.line, '\n')
		if i < 0 {
			break
		}
		d.p.wrote(d.line[:i])
		d.line = d.line[i+1:]
	}
	d.mu.Unlock()
	return n, err
}

func (d *drainWriter) Close() error { return d.w.Close() }
