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
//   - a request whose id is that of a request not yet answered is answered
//     with -32600 (JSON-RPC: an id identifies one pending request; the SDK
//     dropped the second silently, and the client waited for ever);
//   - a request with "id": null is answered with -32600 (MCP: a request's
//     id must be a string or an integer, not null; the SDK took it for a
//     notification and never answered);
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

// The messages of gate's rejections, over stdio and HTTP alike.
const (
	msgBatch          = "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them)"
	msgNotInitialized = "Server not initialized: send initialize first"
	msgBadID          = "Invalid Request: a message's id must be a string or an integer"
	msgIDInUse        = "Invalid Request: this id is the id of a request not yet answered; give each request a new id"
	msgNullID         = "Invalid Request: a request's id must be a string or an integer, not null (MCP); leave the id out for a notification"
)

// nullID reports a message with a method whose id is written as null:
// neither a request MCP allows nor a notification (which has no id).
func nullID(method string, id json.RawMessage) bool {
	return method != "" && string(bytes.TrimSpace(id)) == "null"
}

// RPCError is a JSON-RPC error response the server writes itself, before
// the SDK sees the message (CheckHTTP).
type RPCError struct {
	// ID is the id of the message answered, JSON null when it had none
	// or it cannot be echoed.
	ID      json.RawMessage
	Code    int
	Message string
}

// MarshalJSON writes e as a JSON-RPC 2.0 response:
// {"jsonrpc":"2.0","id":ID,"error":{"code":CODE,"message":MSG}}.
func (e *RPCError) MarshalJSON() ([]byte, error) {
	id := e.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": e.Code, "message": e.Message}})
}

// CheckHTTP applies to body, the JSON of one MCP POST over HTTP, the
// rules the stdio server applies (gate, validID), so both transports
// answer alike: a batch is -32600 (the SDK's HTTP handler would run it);
// a request other than initialize or ping outside a session (inSession
// false: no Mcp-Session-Id header) is -32002, not the SDK's code 0; an
// id the SDK would misread (BadID) is -32600. It returns the error to
// answer with (HTTP 400), or nil for a body that goes on to the SDK. A
// body that is not JSON is the SDK's to answer.
func CheckHTTP(body []byte, inSession bool) *RPCError {
	if id, bad := BadID(body); bad {
		return &RPCError{ID: id, Code: codeInvalidRequest, Message: msgBadID}
	}
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		if json.Valid(body) {
			return &RPCError{Code: codeInvalidRequest, Message: msgBatch + "; send one message per request"}
		}
		return nil
	}
	var m rpcHead
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	if nullID(m.Method, m.ID) {
		return &RPCError{Code: codeInvalidRequest, Message: msgNullID}
	}
	isRequest := m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null"
	if isRequest && !inSession && m.Method != "initialize" && m.Method != "ping" {
		return &RPCError{ID: m.ID, Code: codeNotInitialized, Message: msgNotInitialized}
	}
	return nil
}

// pass reports whether line (a valid JSON-RPC message or batch) goes on to
// the SDK; a rejected line has been answered through w.
func (g *gate) pass(line []byte, w *drainWriter) bool {
	if g == nil {
		return true
	}
	if line[0] == '[' {
		w.reject(nil, codeInvalidRequest, msgBatch+"; send one message per line")
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
	case nullID(m.Method, m.ID):
		w.reject(nil, codeInvalidRequest, msgNullID)
		return false
	case m.Method == "initialize":
		g.initialized = true
	case isRequest && !g.initialized && m.Method != "ping":
		w.reject(m.ID, codeNotInitialized, msgNotInitialized)
		return false
	case isRequest && g.p != nil && g.p.has(string(m.ID)):
		w.reject(m.ID, codeInvalidRequest, msgIDInUse)
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
