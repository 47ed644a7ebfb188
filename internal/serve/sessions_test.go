package serve

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// initializeMCP opens an MCP session on f's /mcp as a client would and
// returns the HTTP status and the session id the server gave ("" when
// refused).
func initializeMCP(t *testing.T, f *fixture) (int, string) {
	t.Helper()
	const body = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, err := http.NewRequest("POST", f.srv.URL+"/mcp?project=list", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	io.Copy(io.Discard, res.Body)
	if res.StatusCode == http.StatusServiceUnavailable && res.Header.Get("Retry-After") == "" {
		t.Errorf("503 without Retry-After")
	}
	return res.StatusCode, res.Header.Get("Mcp-Session-Id")
}

// TestMCPSessionsAreCapped: a client that only ever initializes cannot
// grow the server without end (each session the SDK keeps is ~13 KB, and
// it kept them forever): beyond MaxSessionsPerClient an initialize is
// answered 503 with Retry-After; a DELETE of a session frees its place;
// a session idle for SessionTimeout is closed and its place freed.
func TestMCPSessionsAreCapped(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{MaxSessions: 8, MaxSessionsPerClient: 2, SessionTimeout: time.Hour})
	var ids []string
	for i := 0; i < 2; i++ {
		code, id := initializeMCP(t, f)
		if code != http.StatusOK || id == "" {
			t.Fatalf("initialize %d: %d, session %q", i+1, code, id)
		}
		ids = append(ids, id)
	}
	if code, id := initializeMCP(t, f); code != http.StatusServiceUnavailable || id != "" {
		t.Fatalf("a third session of one client: %d %q, want 503", code, id)
	}
	req, _ := http.NewRequest("DELETE", f.srv.URL+"/mcp?project=list", nil)
	req.Header.Set("Mcp-Session-Id", ids[0])
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if code, id := initializeMCP(t, f); code != http.StatusOK || id == "" {
		t.Fatalf("after a DELETE: %d %q, want a new session", code, id)
	}

	short := newFixture(t, Options{MaxSessions: 2, MaxSessionsPerClient: 2, SessionTimeout: 100 * time.Millisecond})
	for i := 0; i < 2; i++ {
		if code, _ := initializeMCP(t, short); code != http.StatusOK {
			t.Fatalf("initialize %d: %d", i+1, code)
		}
	}
	if code, _ := initializeMCP(t, short); code != http.StatusServiceUnavailable {
		t.Fatalf("a third session with MaxSessions 2: %d, want 503", code)
	}
	time.Sleep(300 * time.Millisecond) // both sessions idle past SessionTimeout
	if code, _ := initializeMCP(t, short); code != http.StatusOK {
		t.Fatalf("after the idle sessions expired: %d, want a new session", code)
	}
	if all, _ := short.s.sessionCount("127.0.0.1"); all != 1 {
		t.Errorf("%d sessions counted after expiry and one new, want 1", all)
	}
}

// sessionCount returns the MCP sessions open and those of client.
func (s *Server) sessionCount(client string) (all, ofClient int) {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	s.expireSessions(time.Now())
	return len(s.sessions), s.clientSessions[client]
}
