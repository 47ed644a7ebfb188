package mcp

import (
	"bytes"
	"encoding/json"
	"sync"
)

// gate enforces the session rules the SDK does not, between drainReader
// and the SDK:
//
//   - a JSON-RPC batch is answered with -32600 and dropped: protocol
//     2025-06-18 removed batching, and the SDK ends the session on one;
//   - a request other than initialize or ping before initialize is answered
//     with -32002 (server not initialized, as LSP) instead of the SDK's
//     error code 0;
//   - the response to a request the client cancelled
//     (notifications/cancelled) is not written: the client has forgotten
//     the id (MCP, cancellation: the receiver should not send a response).
type gate struct {
	p           *pending // a cancelled request is no longer awaited
	mu          sync.Mutex
	initialized bool
	cancelled   map[string]bool // ids of cancelled requests not yet answered
}

func newGate(p *pending) *gate { return &gate{p: p, cancelled: map[string]bool{}} }

// Error codes of gate's rejections.
const (
	codeInvalidRequest = -32600
	codeNotInitialized = -32002
)

// pass reports whether line (a valid JSON-RPC message or batch) goes on to
// the SDK; a rejected line has been answered through w.
func (g *gate) pass(line []byte, w *drainWriter) bool {
	if g == nil {
		return true
	}
	if line[0] == '[' {
		w.reject(nil, codeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message per line")
		return false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	isRequest := m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.Method == "initialize":
		g.initialized = true
	case isRequest && !g.initialized && m.Method != "ping":
		w.reject(m.ID, codeNotInitialized, "Server not initialized: send initialize first")
		return false
	case m.Method == "notifications/cancelled" && len(m.Params.RequestID) > 0:
		id := string(bytes.TrimSpace(m.Params.RequestID))
		g.cancelled[id] = true
		if g.p != nil {
			g.p.mu.Lock()
			delete(g.p.ids, id)
			g.p.cond.Broadcast()
			g.p.mu.Unlock()
		}
	}
	return true
}

// drop reports whether line, one complete message the server is about to
// write, answers a cancelled request (and forgets that id).
func (g *gate) drop(line []byte) bool {
	if g == nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.cancelled) == 0 {
		return false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != "" || len(m.ID) == 0 {
		return false
	}
	id := string(bytes.TrimSpace(m.ID))
	if g.cancelled[id] {
		delete(g.cancelled, id)
		return true
	}
	return false
}
