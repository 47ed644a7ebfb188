package serve

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// TestReservedSlots: anonymous requests take at most MaxRequests-Reserved
// slots, from however many clients; authenticated ones (the bearer token)
// take the reserved ones; with every slot taken, all are refused; a
// released slot is taken again. Event streams (GET /mcp) have their own.
func TestReservedSlots(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret", MaxRequests: 4, Reserved: 1})
	s := f.srv.Config.Handler.(*Server)
	req := func(i int, token, method, path string) *http.Request {
		r := httptest.NewRequest(method, path, nil)
		r.RemoteAddr = "127.0.0." + strconv.Itoa(10+i) + ":5000"
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		return r
	}
	w := httptest.NewRecorder()
	var held []func()
	for i := range 3 {
		release, err := s.admit(w, req(i, "", "GET", "/api/status"))
		if err != nil {
			t.Fatalf("anonymous request %d: %v", i, err)
		}
		held = append(held, release)
	}
	if _, err := s.admit(w, req(5, "wrong", "GET", "/api/status")); !errors.Is(err, errFull) {
		t.Errorf("a fourth anonymous request (wrong token) with one slot left, reserved: %v", err)
	}
	if _, err := s.admit(w, req(6, "", "GET", "/mcp")); err != nil {
		t.Errorf("an event stream: %v", err)
	}
	release, err := s.admit(w, req(7, "s3cret", "POST", "/api/index"))
	if err != nil {
		t.Fatalf("an authenticated request with the reserved slot free: %v", err)
	}
	if _, err := s.admit(w, req(8, "s3cret", "POST", "/api/index")); !errors.Is(err, errFull) {
		t.Errorf("an authenticated request with every slot taken: %v", err)
	}
	release()
	held[0]()
	if release, err := s.admit(w, req(9, "", "GET", "/api/status")); err != nil {
		t.Errorf("an anonymous request after a release: %v", err)
	} else {
		release()
	}
}

// TestBodyTimeout: a body that does not arrive within BodyTimeout is
// answered 408 and the connection closed, even with the server's own
// ReadTimeout long; a body over MaxBodyBytes is 413; a body that arrives
// is handed on whole.
func TestBodyTimeout(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret", BodyTimeout: 100 * time.Millisecond, MaxBodyBytes: 1 << 10})
	srv := shortReads(t, f, time.Hour)
	c := slowRequest(t, srv, "/api/index", "s3cret")
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound for a broken server
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a slow body: %v", err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusRequestTimeout {
		t.Errorf("slow body: %d %s, want 408", res.StatusCode, b)
	}
	big := `{"root":"` + string(make([]byte, 2<<10)) + `"}`
	if code, body := f.do(t, "POST", "/api/cancel", "s3cret", big); code != http.StatusRequestEntityTooLarge {
		t.Errorf("body over MaxBodyBytes: %d %s", code, body)
	}
	if code, body := f.do(t, "POST", "/api/cancel", "s3cret", `{"root":"list"}`); code != 200 {
		t.Errorf("a body that arrives: %d %s", code, body)
	}
}
