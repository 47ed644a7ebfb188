package serve

import (
	"errors"
	"net/http"
	"time"
)

// MCP sessions over HTTP. The SDK keeps a session (about 13 KB) from its
// initialize until the client deletes it or, with SessionTimeout set, it
// has been idle that long; nothing else bounds how many there are, so a
// client that only ever initializes grows the server without end. The
// server therefore closes idle sessions (Options.SessionTimeout) and
// counts the sessions it opened, per client and in all
// (Options.MaxSessions, MaxSessionsPerClient): an initialize beyond a cap
// is answered 503 with Retry-After, as a request or stream beyond its cap.

// Session limits' defaults.
const (
	// DefaultMaxSessions is Options.MaxSessions' default.
	DefaultMaxSessions = 1024
	// DefaultSessionTimeout is Options.SessionTimeout's default: an agent
	// idle that long starts a new session on its next call.
	DefaultSessionTimeout = 30 * time.Minute
)

// errSessionsFull: an initialize beyond MaxSessions or
// MaxSessionsPerClient.
var errSessionsFull = errors.New("the server holds as many MCP sessions as it takes: close idle ones (DELETE /mcp with their Mcp-Session-Id) or try again later")

// mcpSession is what the server knows of a session the SDK opened.
type mcpSession struct {
	client string
	root   string    // the project it was opened on
	last   time.Time // its last request
}

// sessionRoot returns the project root the session id was opened on, and
// whether the session is known.
func (s *Server) sessionRoot(id string) (string, bool) {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	ss, ok := s.sessions[id]
	return ss.root, ok
}

// expireSessions forgets the sessions idle for SessionTimeout or longer
// at now, as the SDK closes them. s.sessMu must be held.
func (s *Server) expireSessions(now time.Time) {
	for id, ss := range s.sessions {
		if now.Sub(ss.last) >= s.opts.SessionTimeout {
			s.forgetSession(id, ss.client)
		}
	}
}

// forgetSession drops session id of client from the counts. s.sessMu must
// be held.
func (s *Server) forgetSession(id, client string) {
	delete(s.sessions, id)
	s.clientSessions[client]--
	if s.clientSessions[client] <= 0 {
		delete(s.clientSessions, client)
	}
}

// admitSession reports, for an initialize of client (a POST with no
// Mcp-Session-Id), whether a session may open: errSessionsFull when
// MaxSessions, or MaxSessionsPerClient for client, are open.
func (s *Server) admitSession(client string, now time.Time) error {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	s.expireSessions(now)
	if len(s.sessions) >= s.opts.MaxSessions || s.clientSessions[client] >= s.opts.MaxSessionsPerClient {
		return errSessionsFull
	}
	return nil
}

// sessionServed records the request r of client, answered by the SDK
// through w: an initialize that opened a session (the SDK set its
// Mcp-Session-Id on w) is counted, a request of a known session renews
// it, a DELETE of one forgets it.
func (s *Server) sessionServed(w http.ResponseWriter, r *http.Request, client, root string, now time.Time) {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		ss, ok := s.sessions[id]
		switch {
		case !ok:
		case r.Method == http.MethodDelete:
			s.forgetSession(id, ss.client)
		default:
			ss.last = now
			s.sessions[id] = ss
		}
		return
	}
	if id := w.Header().Get("Mcp-Session-Id"); id != "" && r.Method == http.MethodPost {
		if _, ok := s.sessions[id]; !ok {
			s.sessions[id] = mcpSession{client: client, root: root, last: now}
			s.clientSessions[client]++
		}
	}
}

// refuseSession answers an initialize admitSession refused: 503 with
// Retry-After and the reason.
func refuseSession(w http.ResponseWriter, r *http.Request, err error) {
	w.Header().Set("Retry-After", retryAfter)
	httpError(w, r, http.StatusServiceUnavailable, err)
}
