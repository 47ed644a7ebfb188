package serve

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// Admission. A request other than a static file goes through admit before
// it is routed, in three steps:
//
//  1. its client (remote IP address) takes one of its MaxPerClient places
//     (an MCP event stream one of its MaxStreamsPerClient places), held
//     until the answer is written: one client's slow or many requests do
//     not reach the others', and its open MCP sessions do not take the
//     places of its requests;
//  2. its body, if any, is read whole (at most MaxBodyBytes) within
//     BodyTimeout, a deadline of its own, shorter than the server's
//     ReadTimeout, while it holds one of MaxPendingBodies places but no
//     request slot: a client that sends its body a byte a second holds a
//     connection and its own places, never the server's slots;
//  3. it takes a request slot (an event stream slot for GET /mcp). The
//     last Reserved of the MaxRequests slots go to authenticated requests
//     only (the bearer token, or the page's cookie with PrivateReads), so
//     anonymous clients, however many, leave room for the team.
//
// The idea is the one of net/http's own ReadHeaderTimeout for headers and
// of nginx's client_body_timeout and of its buffering of request bodies
// before they are handed on: a request costs the server a slot only once
// it is all there.

// Defaults of the admission limits (Options).
const (
	// DefaultBodyTimeout is Options.BodyTimeout's default.
	DefaultBodyTimeout = 10 * time.Second
	// DefaultMaxPendingBodies is Options.MaxPendingBodies' default.
	DefaultMaxPendingBodies = 256
)

// errFull: a cap of admit is reached (503 with Retry-After).
var errFull = errors.New("the server is serving as many requests as it takes: try again shortly")

// clientOf is the remote IP address of r, its client for MaxPerClient and
// MaxStreamsPerClient.
func clientOf(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

// authenticated reports whether r carries the token: a bearer header, or
// the page's cookie when reads are private.
func (s *Server) authenticated(r *http.Request) bool {
	if s.opts.Token == "" {
		return false
	}
	if s.bearer(r) {
		return true
	}
	if !s.opts.PrivateReads {
		return false
	}
	c, err := r.Cookie(tokenCookie)
	return err == nil && s.cookieOK(c)
}

// hasBody reports whether r may carry a body to read.
func hasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0
}

// admit admits r (the steps above) and returns the function that gives
// back what it took. Errors: errFull (503) when a cap is reached, or the
// body's read error (refuse maps them); once admitted, r's body is in
// memory.
func (s *Server) admit(w http.ResponseWriter, r *http.Request) (release func(), err error) {
	client := clientOf(r)
	// an MCP event stream stays open as long as its session: it takes a
	// place among the client's streams, not among its requests
	stream := r.Method == http.MethodGet && r.URL.Path == "/mcp"
	places, capacity := s.clients, s.opts.MaxPerClient
	if stream {
		places, capacity = s.clientStreams, s.opts.MaxStreamsPerClient
	}
	s.clientMu.Lock()
	if places[client] >= capacity {
		s.clientMu.Unlock()
		return nil, errFull
	}
	places[client]++
	s.clientMu.Unlock()
	leave := func() {
		s.clientMu.Lock()
		if places[client]--; places[client] <= 0 {
			delete(places, client)
		}
		s.clientMu.Unlock()
	}
	if hasBody(r) {
		if err := s.readBody(w, r); err != nil {
			leave()
			return nil, err
		}
	}
	n, limit := &s.served, s.opts.MaxRequests
	switch {
	case stream:
		n, limit = &s.streamsN, s.opts.MaxStreams
	case !s.authenticated(r):
		limit -= s.opts.Reserved
	}
	s.clientMu.Lock()
	full := *n >= limit
	if !full {
		*n++
	}
	s.clientMu.Unlock()
	if full {
		leave()
		return nil, errFull
	}
	return func() {
		s.clientMu.Lock()
		*n--
		s.clientMu.Unlock()
		leave()
	}, nil
}

// readBody reads r's body whole, at most MaxBodyBytes, within BodyTimeout
// (and never past the server's ReadTimeout from now), holding one of
// MaxPendingBodies places, and puts it back in r as an in-memory reader.
// The connection's read deadline is lifted once the body is in, so an
// answer streamed after it (MCP) is not cut. Errors: errFull when
// MaxPendingBodies bodies are being read, else the read error.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) error {
	s.clientMu.Lock()
	if s.pending >= s.opts.MaxPendingBodies {
		s.clientMu.Unlock()
		return errFull
	}
	s.pending++
	s.clientMu.Unlock()
	defer func() {
		s.clientMu.Lock()
		s.pending--
		s.clientMu.Unlock()
	}()
	d := s.opts.BodyTimeout
	if hs, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && hs.ReadTimeout > 0 {
		d = min(d, hs.ReadTimeout)
	}
	rc := http.NewResponseController(w)
	// an error: the writer cannot set deadlines (a test recorder), and the
	// server's ReadTimeout alone bounds the read
	_ = rc.SetReadDeadline(time.Now().Add(d))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		// the deadline stays: net/http's discarding of the rest of the
		// body, when the answer is written, must not wait for it
		return fmt.Errorf("read request body: %w", err)
	}
	_ = rc.SetReadDeadline(time.Time{})
	r.Body = io.NopCloser(bytes.NewReader(body))
	return nil
}

// refuse answers a request admit did not admit: 503 with Retry-After when
// full, 408 for a body that did not arrive within BodyTimeout, 413 for
// one over MaxBodyBytes, 400 for another read error. Every refusal but
// 503 closes the connection, whose body is left half read.
func refuse(w http.ResponseWriter, r *http.Request, err error) {
	var tooBig *http.MaxBytesError
	code := http.StatusBadRequest
	switch {
	case errors.Is(err, errFull):
		w.Header().Set("Retry-After", retryAfter)
		code = http.StatusServiceUnavailable
	case errors.Is(err, os.ErrDeadlineExceeded):
		code = http.StatusRequestTimeout
		err = fmt.Errorf("the request body did not arrive in time: %w", err)
	case errors.As(err, &tooBig):
		code = http.StatusRequestEntityTooLarge
	}
	w.Header().Set("Connection", "close")
	httpError(w, r, code, err)
}
