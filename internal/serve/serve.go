// Package serve is `coderag serve`: one index shared over HTTP by a team.
// It serves three things from one handler:
//
//   - a JSON API under /api/ whose field names are those of the CLI's
//     --json output (search, file, graph, explain, status, index, remove,
//     cancel);
//   - MCP over the streamable HTTP transport at /mcp, with the tools of
//     `coderag mcp` rooted at one indexed project (?project=NAME);
//   - a web page for people, embedded in the binary (web/): a search box,
//     results with highlighted snippets, a file view with line anchors, the
//     score breakdown, a call graph drawn as SVG, index status and progress,
//     and on the status page a directory field to index and a remove button
//     per project (with a confirm step), both through the JSON API.
//
// Every handler goes through Backend (backend.go), so the server does not
// know how the index is stored; Local (local.go) is the backend over an
// engine.Engine, shared by the API, the page and every MCP session.
//
// Access: with no token, reads are open and writes (index, remove) are
// refused. With a token, writes need "Authorization: Bearer TOKEN", and so
// does everything but the static files when Options.PrivateReads is set
// (the page then asks for the token once and keeps it in a cookie, which is
// accepted for reads only). The status page's writes send the token as a
// bearer header from sessionStorage, where the page keeps it once asked. An MCP session opened with the token has
// index_project and refreshes the index before search_code; one opened
// without it writes nothing (no index_project, answers from the index as
// it is). When the listener is on a loopback address, requests whose Host
// is not a loopback name are refused (DNS rebinding).
//
// File views apply the CLI's confinement (tools.Read over os.Root): a path
// with `..`, an absolute path elsewhere or a symlink leading out of the
// project root is refused with 403, a project that is not indexed with 404.
// They show only the files an index run would take (tools.ReadIndexed):
// .git/, ignored files and dot-env files are 404 "not indexed"; MCP's
// read_file and grep_code in these sessions are limited alike.
//
// Limits: NewHTTPServer bounds the reading of headers and requests, idle
// connections and header size; the Server reads each body whole within a
// deadline of its own before the request takes a slot, caps bodies, the
// requests served at once and those of one client (503 with Retry-After
// beyond), and keeps slots for requests with the token (admit.go), so slow
// or many clients cannot hold it; Local runs a bounded number of searches
// at once (budget.go).
package serve

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/mcp"
	"github.com/coderag/coderag/internal/relate"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/tools"
	"github.com/coderag/coderag/internal/walk"
)

// DefaultAddr is where `coderag serve` listens unless told otherwise.
const DefaultAddr = "127.0.0.1:7777"

// tokenCookie holds the page's read credential once a person typed the
// token (readCookieFor): a value derived from the token, never the token, so
// a cookie that leaks (a shared browser profile, a proxy's log) grants
// reads only, never the writes the token allows.
const tokenCookie = "coderag_token"

// readCookieFor is the value of tokenCookie for token: the hex
// HMAC-SHA256 of a fixed label keyed by the token; "" without a token.
func readCookieFor(token string) string {
	if token == "" {
		return ""
	}
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("coderag read cookie v1"))
	return hex.EncodeToString(m.Sum(nil))
}

// cookieOK reports whether c is the server's read cookie.
func (s *Server) cookieOK(c *http.Cookie) bool {
	return s.readCookie != "" && subtle.ConstantTimeCompare([]byte(c.Value), []byte(s.readCookie)) == 1
}

// Options configure a Server.
type Options struct {
	// Token enables writes and is what they must present; "" refuses writes.
	Token string
	// PrivateReads makes reads need the token too (Token must be set).
	PrivateReads bool
	// Loopback is set when the listener is on a loopback address: requests
	// must then name a loopback host.
	Loopback bool
	// Version is shown on the page.
	Version string
	// Log receives diagnostics of the MCP transport; nil discards them.
	Log io.Writer
	// MaxRequests caps the requests served at once, static files and MCP
	// event streams aside; one more is answered 503 with Retry-After.
	// 0 means DefaultMaxRequests.
	MaxRequests int
	// MaxStreams caps the MCP event streams (GET /mcp) open at once,
	// answered likewise beyond it. 0 means DefaultMaxStreams.
	MaxStreams int
	// MaxPerClient caps the requests one client (one remote IP address)
	// has served at once, so one client cannot take every slot; one more
	// is answered 503 with Retry-After. 0 means half of MaxRequests.
	MaxPerClient int
	// MaxStreamsPerClient caps the MCP event streams one client holds
	// open at once. An MCP client keeps a stream open per session, so
	// streams have places of their own: a client's idle sessions (or many
	// agents behind one proxy) never take its request places. 0 means
	// MaxPerClient, at most half of MaxStreams.
	MaxStreamsPerClient int
	// MaxBodyBytes caps a request body; a larger one is answered 413.
	// 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// BodyTimeout bounds the reading of a request's body, which is read
	// whole before the request takes a slot; a body slower than that is
	// answered 408. 0 means DefaultBodyTimeout.
	BodyTimeout time.Duration
	// MaxPendingBodies caps the request bodies being read at once, each
	// at most MaxBodyBytes in memory; one more is answered 503. 0 means
	// DefaultMaxPendingBodies.
	MaxPendingBodies int
	// MaxSessions caps the MCP sessions open at once (each kept by the SDK
	// from its initialize until it is deleted or idle SessionTimeout); one
	// more initialize is answered 503 with Retry-After. 0 means
	// DefaultMaxSessions.
	MaxSessions int
	// MaxSessionsPerClient caps the MCP sessions of one client (one remote
	// IP address). 0 means a quarter of MaxSessions.
	MaxSessionsPerClient int
	// SessionTimeout closes an MCP session that has had no request for
	// that long. 0 means DefaultSessionTimeout.
	SessionTimeout time.Duration
	// Reserved of the MaxRequests slots are kept for authenticated
	// requests (the bearer token, or the page's cookie with
	// PrivateReads): anonymous requests are answered 503 once
	// MaxRequests-Reserved are served. 0 means a quarter of MaxRequests,
	// below 0 none; none without a Token.
	Reserved int
}

// Limits of a Server and of the http.Server NewHTTPServer returns.
const (
	// DefaultMaxRequests is Options.MaxRequests' default.
	DefaultMaxRequests = 64
	// DefaultMaxStreams is Options.MaxStreams' default.
	DefaultMaxStreams = 256
	// DefaultMaxBodyBytes is Options.MaxBodyBytes' default (4 MiB).
	DefaultMaxBodyBytes = 4 << 20
	// HeaderTimeout bounds the reading of a request's headers.
	HeaderTimeout = 10 * time.Second
	// ReadTimeout bounds the reading of a whole request, headers and
	// body: a client that sends it slower is cut off.
	ReadTimeout = 30 * time.Second
	// IdleTimeout closes a kept-alive connection with no request for so long.
	IdleTimeout = 2 * time.Minute
	// MaxHeaderBytes caps a request's headers (64 KiB).
	MaxHeaderBytes = 64 << 10
	// retryAfter is the Retry-After of a 503 when the server is full (s).
	retryAfter = "2"
)

// NewHTTPServer returns the http.Server of `coderag serve` over h, with
// the timeouts and header size cap above. ReadTimeout leaves MCP event
// streams alone: net/http lifts the connection's read deadline once a
// request's body is read, so only the request itself is bounded, not the
// answer streamed after it. There is no WriteTimeout, which would cut
// those streams.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: HeaderTimeout, ReadTimeout: ReadTimeout, IdleTimeout: IdleTimeout, MaxHeaderBytes: MaxHeaderBytes}
}

// Server is the HTTP handler of `coderag serve`. Create it with New.
type Server struct {
	b     Backend
	opts  Options
	mux   *http.ServeMux
	pages map[string]*template.Template
	css   []byte // the stylesheet of highlighted code
	// mcpRead and mcpWrite serve MCP sessions opened without and with the
	// token: a session lives in the handler that opened it.
	mcpRead, mcpWrite http.Handler
	// clientMu guards the counts of admit (admit.go): served and
	// streamsN, the requests and MCP event streams being served
	// (Options.MaxRequests, MaxStreams); pending, the bodies being read
	// (MaxPendingBodies); clients, the requests of each remote IP
	// address, bodies being read included (MaxPerClient), and
	// clientStreams its event streams (MaxStreamsPerClient).
	clientMu                  sync.Mutex
	served, streamsN, pending int
	clients, clientStreams    map[string]int
	// readCookie is tokenCookie's value for Options.Token (readCookieFor).
	readCookie string
	// sessMu guards sessions, the MCP sessions the SDK opened by their
	// Mcp-Session-Id, and clientSessions, their count per client
	// (sessions.go).
	sessMu         sync.Mutex
	sessions       map[string]mcpSession
	clientSessions map[string]int
}

// New returns the server over b, or an error when opts are inconsistent
// (PrivateReads without a Token) or the embedded templates do not parse.
func New(b Backend, opts Options) (*Server, error) {
	if opts.PrivateReads && opts.Token == "" {
		return nil, errors.New("serve: private reads need a token")
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.MaxRequests <= 0 {
		opts.MaxRequests = DefaultMaxRequests
	}
	if opts.MaxStreams <= 0 {
		opts.MaxStreams = DefaultMaxStreams
	}
	if opts.MaxPerClient <= 0 {
		opts.MaxPerClient = max(1, opts.MaxRequests/2)
	}
	if opts.MaxStreamsPerClient <= 0 {
		// as many streams as requests, and never half the server's
		opts.MaxStreamsPerClient = max(1, min(opts.MaxPerClient, opts.MaxStreams/2))
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxSessionsPerClient <= 0 {
		opts.MaxSessionsPerClient = max(1, opts.MaxSessions/4)
	}
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = DefaultSessionTimeout
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	if opts.MaxPendingBodies <= 0 {
		opts.MaxPendingBodies = DefaultMaxPendingBodies
	}
	switch {
	case opts.Token == "" || opts.Reserved < 0:
		opts.Reserved = 0 // no request is authenticated
	case opts.Reserved == 0:
		opts.Reserved = opts.MaxRequests / 4
	}
	opts.Reserved = min(opts.Reserved, opts.MaxRequests-1)
	s := &Server{b: b, opts: opts, mux: http.NewServeMux(), clients: map[string]int{}, clientStreams: map[string]int{},
		readCookie: readCookieFor(opts.Token), sessions: map[string]mcpSession{}, clientSessions: map[string]int{}}
	var err error
	if s.pages, err = parsePages(); err != nil {
		return nil, err
	}
	s.css = chromaCSS()
	log := slog.New(slog.NewTextHandler(opts.Log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	hopts := &sdk.StreamableHTTPOptions{Logger: log, SessionTimeout: opts.SessionTimeout}
	s.mcpRead = sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server { return s.mcpServer(r, false) }, hopts)
	s.mcpWrite = sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server { return s.mcpServer(r, true) }, hopts)

	s.mux.Handle("GET /static/", http.StripPrefix("/static/", s.static()))
	s.mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/static/favicon.svg", http.StatusMovedPermanently) // browsers that ask without reading the page's link
	})
	s.mux.HandleFunc("POST /login", s.login)
	s.mux.HandleFunc("GET /{$}", s.read(s.pageSearch))
	s.mux.HandleFunc("GET /file", s.read(s.pageFile))
	s.mux.HandleFunc("GET /graph", s.read(s.pageGraph))
	s.mux.HandleFunc("GET /status", s.read(s.pageStatus))
	s.mux.HandleFunc("GET /api/status", s.read(s.apiStatus))
	s.mux.HandleFunc("GET /api/search", s.read(s.apiSearch))
	s.mux.HandleFunc("GET /api/explain", s.read(s.apiExplain))
	s.mux.HandleFunc("GET /api/file", s.read(s.apiFile))
	s.mux.HandleFunc("GET /api/graph", s.read(s.apiGraph))
	s.mux.HandleFunc("POST /api/index", s.write(s.apiIndex))
	s.mux.HandleFunc("POST /api/remove", s.write(s.apiRemove))
	s.mux.HandleFunc("POST /api/cancel", s.write(s.apiCancel))
	s.mux.HandleFunc("/mcp", s.mcp)
	// any other /api/ path or method: a JSON error, as the API's others
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		if m, ok := apiRoutes[r.URL.Path]; ok {
			w.Header().Set("Allow", m)
			httpError(w, r, http.StatusMethodNotAllowed, fmt.Errorf("%s %s: this route takes %s", r.Method, r.URL.Path, m))
			return
		}
		httpError(w, r, http.StatusNotFound, fmt.Errorf("no API route %s: the routes are %s", r.URL.Path, apiRouteList()))
	})
	return s, nil
}

// apiRoutes are the JSON API's paths and the method each takes (the
// routes NewServer registers).
var apiRoutes = map[string]string{
	"/api/status": "GET", "/api/search": "GET", "/api/explain": "GET", "/api/file": "GET", "/api/graph": "GET",
	"/api/index": "POST", "/api/remove": "POST", "/api/cancel": "POST",
}

// apiRouteList names apiRoutes as "GET /api/file, ...", sorted by path.
func apiRouteList() string {
	paths := make([]string, 0, len(apiRoutes))
	for p := range apiRoutes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for i, p := range paths {
		paths[i] = apiRoutes[p] + " " + p
	}
	return strings.Join(paths, ", ")
}

// ServeHTTP sets the security headers, refuses a non-loopback Host on a
// loopback listener, admits the request (admit.go: its client's place,
// its body read within BodyTimeout and capped at MaxBodyBytes, then a
// slot, with Reserved slots for authenticated requests; 503 with
// Retry-After when full), then routes. Static files take no slot.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w.Header()) // every answer, first (headers.go)
	if s.opts.Loopback && !loopbackHost(r.Host) {
		httpError(w, r, http.StatusForbidden, fmt.Errorf("host %q is not a loopback name: this server listens on localhost only", r.Host))
		return
	}
	if err := s.wrongToken(r); err != nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="coderag", error="invalid_token"`)
		if pageRoute(r) {
			s.render(w, http.StatusUnauthorized, "login", map[string]any{"Next": localPath(r.URL.RequestURI()), "Wrong": true})
			return
		}
		httpError(w, r, http.StatusUnauthorized, err)
		return
	}
	if !strings.HasPrefix(r.URL.Path, "/static/") && r.URL.Path != "/favicon.ico" {
		release, err := s.admit(w, r)
		if err != nil {
			refuse(w, r, err)
			return
		}
		defer release()
		if rb, ok := s.b.(replacedIndex); ok {
			if err := rb.Replaced(); err != nil {
				// the engine reads a file no longer at the index's path
				httpError(w, r, http.StatusServiceUnavailable, err)
				return
			}
		}
	}
	s.mux.ServeHTTP(w, r)
}

// replacedIndex is implemented by a backend that can tell that its index
// file was replaced under it (Local.Replaced).
type replacedIndex interface{ Replaced() error }

// loopbackHost reports whether host (with or without a port) is localhost
// or a loopback address.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// errWrongToken: a request presented a token that is not the server's
// (401 on every route, whatever the route needs).
var errWrongToken = errors.New("token does not match")

// wrongToken is why the token r presents is refused, or nil when r
// presents none or the server's: an Authorization header that is not
// "Bearer TOKEN" with the server's token (any token, when the server has
// none; an empty "Bearer " is no token at all), or, with PrivateReads,
// the page's cookie holding another value (a stale login, or a cookie of
// an older version that held the token; not checked for static files and
// the login form, which the
// login page needs; without PrivateReads the cookie is no credential and
// is ignored, as cookies are per host, not per port).
// A request with no token at all is left to the route: open reads stay
// open. The idea is RFC 6750's invalid_token: a credential sent is checked,
// never ignored.
func (s *Server) wrongToken(r *http.Request) error {
	if h, ok := r.Header["Authorization"]; ok {
		t, isBearer := cutBearer(strings.TrimSpace(strings.Join(h, ",")))
		switch {
		case isBearer && strings.TrimSpace(t) == "":
			// "Bearer " and nothing: a client configured with an unset
			// token variable (the README's MCP example, CODERAG_TOKEN
			// unset) sends no credential, and open reads stay open
		case !isBearer && s.opts.Token == "":
			return fmt.Errorf("%w: this server has no token (reads are open, writes are off); send no Authorization header", errWrongToken)
		case !isBearer:
			return fmt.Errorf("%w: send Authorization: Bearer TOKEN", errWrongToken)
		case s.opts.Token == "":
			return fmt.Errorf("%w: this server has no token (reads are open, writes are off); send none", errWrongToken)
		case subtle.ConstantTimeCompare([]byte(strings.TrimSpace(t)), []byte(s.opts.Token)) != 1:
			return fmt.Errorf("%w: check the server's --token or CODERAG_TOKEN", errWrongToken)
		}
	}
	if strings.HasPrefix(r.URL.Path, "/static/") || r.URL.Path == "/login" || r.URL.Path == "/favicon.ico" {
		return nil
	}
	if !s.opts.PrivateReads {
		return nil // the cookie is no credential here: ignored, as another server's on this host
	}
	if c, err := r.Cookie(tokenCookie); err == nil && !s.cookieOK(c) {
		return fmt.Errorf("%w: the token kept by this browser is not the server's; log in again", errWrongToken)
	}
	return nil
}

// pageRoute reports whether r is for a page (answered with HTML), not the
// API, MCP or a static file.
func pageRoute(r *http.Request) bool {
	p := r.URL.Path
	return !strings.HasPrefix(p, "/api/") && p != "/mcp" && !strings.HasPrefix(p, "/static/") && r.Method == http.MethodGet
}

// bearer reports whether r carries the token in its Authorization header.
func (s *Server) bearer(r *http.Request) bool {
	t, ok := cutBearer(strings.TrimSpace(r.Header.Get("Authorization")))
	return ok && s.opts.Token != "" && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(t)), []byte(s.opts.Token)) == 1
}

// cutBearer returns the credentials of an Authorization header value of
// the Bearer scheme, whose name is matched case-insensitively (RFC 7235,
// section 2.1: "bearer TOKEN" is "Bearer TOKEN"); ok is false for another
// scheme. "Bearer" alone, as the header parser leaves "Bearer ", has the
// empty token.
func cutBearer(h string) (token string, ok bool) {
	const scheme = "bearer"
	if len(h) < len(scheme) || !strings.EqualFold(h[:len(scheme)], scheme) {
		return "", false
	}
	rest := h[len(scheme):]
	if rest == "" {
		return "", true
	}
	if rest[0] != ' ' && rest[0] != '\t' {
		return "", false // "Bearerish ..."
	}
	return strings.TrimSpace(rest), true
}

// canRead reports whether r may read: always without PrivateReads, else
// with the token as a bearer header or the page's cookie.
func (s *Server) canRead(r *http.Request) bool {
	if !s.opts.PrivateReads || s.bearer(r) {
		return true
	}
	c, err := r.Cookie(tokenCookie)
	return err == nil && s.cookieOK(c)
}

// read wraps a handler that only reads.
func (s *Server) read(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.canRead(r) {
			if !strings.HasPrefix(r.URL.Path, "/api/") {
				s.render(w, http.StatusUnauthorized, "login", map[string]any{"Next": r.URL.RequestURI()})
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="coderag"`)
			httpError(w, r, http.StatusUnauthorized, errors.New("this server needs a token for reads: send Authorization: Bearer TOKEN"))
			return
		}
		h(w, r)
	}
}

// write wraps a handler that changes the index: the bearer token is
// required (a cookie is not enough, so another site cannot make a
// browser write).
func (s *Server) write(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch {
		case s.opts.Token == "":
			httpError(w, r, http.StatusForbidden, errors.New("writes are off: start coderag serve with --token or CODERAG_TOKEN to allow index and remove"))
		case !s.bearer(r):
			w.Header().Set("WWW-Authenticate", `Bearer realm="coderag"`)
			httpError(w, r, http.StatusUnauthorized, errors.New("index and remove need the server's token: send Authorization: Bearer TOKEN"))
		default:
			h(w, r)
		}
	}
}

// login keeps the token a person typed in a cookie, for reads.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	tok := r.PostFormValue("token")
	next := localPath(r.PostFormValue("next"))
	if s.opts.Token == "" || subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) != 1 {
		s.render(w, http.StatusUnauthorized, "login", map[string]any{"Next": next, "Wrong": true})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.readCookie, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// localPath returns next when it is a path of this server ("/status",
// "/file?project=p"), else "/": it must start with one '/' and hold no
// backslash, whitespace or control character (browsers read "/\evil.com" and
// "/\t/evil.com" as "//evil.com"), and must parse with no scheme or host.
func localPath(next string) string {
	if len(next) < 1 || next[0] != '/' || strings.HasPrefix(next, "//") {
		return "/"
	}
	for _, c := range next {
		if c == '\\' || c <= ' ' || c == 0x7f {
			return "/"
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return "/"
	}
	return next
}

// mcp serves MCP: sessions with the bearer token get every tool, others
// (when reads are open) every tool but index_project. The project must
// resolve before a session is opened, so a wrong name is a clear 404; the
// root it resolves to goes to mcpServer in the request's context.
func (s *Server) mcp(w http.ResponseWriter, r *http.Request) {
	write := s.bearer(r)
	if !write && !s.canRead(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="coderag"`)
		httpError(w, r, http.StatusUnauthorized, errors.New("this server needs a token: send Authorization: Bearer TOKEN"))
		return
	}
	root, err := s.mcpProject(r)
	if err == nil {
		// the MCP server is rooted at the recorded root, which must still
		// be the directory that was indexed: mcp.NewServer resolves its
		// root (Local.MCP), so a swapped-in symlink would become its root
		// and its tools would serve the link's target
		err = rootrule.Unmoved(root)
	}
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		// a session serves the project it was opened on: a request of it
		// naming another is refused, not answered from the first
		if sroot, ok := s.sessionRoot(id); ok && sroot != root {
			httpError(w, r, http.StatusBadRequest, fmt.Errorf("this session serves %s, not %s: open a new session at /mcp?project=%s", filepath.Base(sroot), filepath.Base(root), url.QueryEscape(filepath.Base(root))))
			return
		}
	}
	r = r.WithContext(context.WithValue(r.Context(), mcpRootKey{}, root))
	if r.Method == http.MethodPost {
		// what the stdio server refuses is refused here with the same
		// JSON-RPC error (mcp.CheckHTTP): a batch, a request before
		// initialize (outside a session), an id the SDK would misread
		body, err := io.ReadAll(io.LimitReader(r.Body, maxMCPBody+1))
		if err != nil {
			httpError(w, r, http.StatusBadRequest, fmt.Errorf("read the request: %w", err))
			return
		}
		if len(body) > maxMCPBody {
			httpError(w, r, http.StatusRequestEntityTooLarge, fmt.Errorf("request larger than %d MiB", maxMCPBody>>20))
			return
		}
		if rerr := mcp.CheckHTTP(body, r.Header.Get("Mcp-Session-Id") != ""); rerr != nil {
			writeJSON(w, http.StatusBadRequest, rerr)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	client := clientOf(r)
	if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
		// an initialize: a new session, if the caps allow (sessions.go)
		if err := s.admitSession(client, time.Now()); err != nil {
			refuseSession(w, r, err)
			return
		}
	}
	if write {
		s.mcpWrite.ServeHTTP(w, r)
	} else {
		s.mcpRead.ServeHTTP(w, r)
	}
	s.sessionServed(w, r, client, root, time.Now())
}

// maxMCPBody bounds an MCP request body over HTTP, as maxLine does a
// line over stdio.
const maxMCPBody = 32 << 20

// mcpRootKey keys the resolved project root of an /mcp request.
type mcpRootKey struct{}

// mcpProject is the root of ?project=, or the only indexed project.
func (s *Server) mcpProject(r *http.Request) (string, error) {
	name := r.URL.Query().Get("project")
	if name != "" {
		return s.resolve(r.Context(), name)
	}
	roots, err := s.b.Roots(r.Context())
	if err != nil {
		return "", err
	}
	if len(roots) == 1 {
		return roots[0], nil
	}
	return "", mark(errNeedProject, "%d projects are indexed (%s): name one with /mcp?project=NAME", len(roots), strings.Join(suffixNames(roots), ", "))
}

// errNeedProject: a request that must name a project did not (400).
var errNeedProject = errors.New("no project named")

// mcpServer is the MCP server of the root s.mcp resolved; nil (the SDK
// answers 400) when there is none.
func (s *Server) mcpServer(r *http.Request, write bool) *sdk.Server {
	root, _ := r.Context().Value(mcpRootKey{}).(string)
	if root == "" {
		return nil
	}
	srv, err := s.b.MCP(root, write)
	if err != nil {
		return nil
	}
	return srv
}

// resolve maps a project root, or a path suffix of one (its name:
// "lib", or "a/lib" when two roots end in lib, as suffixNames gives), to
// the indexed root: ErrUnknownProject when none matches, an ambiguity
// error naming the projects when a suffix is shared. It reads the list of
// roots only (Backend.Roots), not each project's counts.
func (s *Server) resolve(ctx context.Context, name string) (string, error) {
	roots, err := s.b.Roots(ctx)
	if err != nil {
		return "", err
	}
	var hits []string
	for _, p := range roots {
		if p == name || filepath.Clean(name) == p {
			return p, nil
		}
		if !filepath.IsAbs(name) && hasPathSuffix(p, name) {
			hits = append(hits, p)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", fmt.Errorf("%q: %w", name, ErrUnknownProject)
	}
	return "", mark(errNeedProject, "%q names %d projects: give one of %s", name, len(hits), strings.Join(suffixNames(hits), ", "))
}

// resolveAll resolves every name; none means all projects.
func (s *Server) resolveAll(ctx context.Context, names []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		if n == "" {
			continue
		}
		root, err := s.resolve(ctx, n)
		if err != nil {
			return nil, err
		}
		if !seen[root] {
			seen[root] = true
			out = append(out, root)
		}
	}
	return out, nil
}

// status maps a backend error to an HTTP status.
func status(err error) int {
	switch {
	case errors.Is(err, tools.ErrOutsideRoot), errors.Is(err, rootrule.ErrRefused), errors.Is(err, rootrule.ErrMoved), errors.Is(err, tools.ErrSecret):
		return http.StatusForbidden
	case errors.Is(err, ErrUnknownProject), errors.Is(err, tools.ErrNotFound), errors.Is(err, tools.ErrNotIndexed),
		errors.Is(err, relate.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrBusy), errors.Is(err, engine.ErrRemoving), errors.Is(err, relate.ErrAmbiguous):
		return http.StatusConflict
	case errors.Is(err, errNeedProject), errors.Is(err, errBadRequest), errors.Is(err, search.ErrUnknownRanker), errors.Is(err, search.ErrBadQuery),
		errors.Is(err, tools.ErrBinary), errors.Is(err, tools.ErrIsDir), errors.Is(err, walk.ErrNotRegular),
		errors.Is(err, tools.ErrOffsetPastEnd), errors.Is(err, relate.ErrNotCallable),
		errors.Is(err, syscall.ELOOP): // a symlink loop on the path: refused, not a fault
		return http.StatusBadRequest
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// errBadRequest marks a malformed request (400).
var errBadRequest = errors.New("bad request")

// badRequest is a 400 error whose text is the formatted message alone.
func badRequest(format string, a ...any) error {
	return mark(errBadRequest, format, a...)
}

// marked is an error of a class (kind, a sentinel that errors.Is matches
// and status maps to an HTTP status) whose text is err's alone: the
// sentinel's own words ("bad request", "no project named") are for the
// code, and "%s: %w" would print them at the end of every message.
type marked struct{ kind, err error }

func (m *marked) Error() string   { return m.err.Error() }
func (m *marked) Unwrap() []error { return []error{m.kind, m.err} }

// mark is fmt.Errorf(format, a...) (with %w wrapping as usual) that also
// matches kind, with kind's text left out.
func mark(kind error, format string, a ...any) error {
	return &marked{kind: kind, err: fmt.Errorf(format, a...)}
}

// httpError answers with {"error": msg} for the API and MCP, plain text
// otherwise.
func httpError(w http.ResponseWriter, r *http.Request, code int, err error) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeJSON(w, code, map[string]string{"error": operatorAdvice.Replace(err.Error())})
		return
	}
	if r.URL.Path == "/mcp" {
		writeJSON(w, code, map[string]string{"error": err.Error()})
		return
	}
	http.Error(w, err.Error(), code)
}

// writeJSON writes v as indented JSON with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the client went away: nothing to tell it
}
