package resident

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// socketPath is a socket path in a new temporary directory; the test is
// skipped when that path is too long for a Unix socket address.
func socketPath(t *testing.T) string {
	t.Helper()
	path := SocketPath(t.TempDir())
	if path == "" {
		t.Skip("the temporary directory's path is too long for a Unix socket")
	}
	return path
}

// rawListener listens at path without a server (a test's own peer), closed
// at the test's end.
func rawListener(t *testing.T, path string) net.Listener {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// serve starts Serve on a new socket in a temporary directory with handle,
// and returns the socket's path; the server stops at the test's end.
func serve(t *testing.T, handle Handler) string {
	t.Helper()
	path := socketPath(t)
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- Serve(ctx, ln, handle) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return path
}

// echo answers with the request's arguments on stdout, its identity on
// stderr and exit status 3.
func echo(ctx context.Context, req Request) Response {
	return Response{Output: []Chunk{{1, []byte(strings.Join(req.Args, " "))}, {2, []byte(req.Identity)}}, Code: 3}
}

// text returns what resp printed on stream n.
func text(resp Response, n int) string {
	var b strings.Builder
	for _, c := range resp.Output {
		if c.Stream == n {
			b.Write(c.Data)
		}
	}
	return b.String()
}

func TestRoundTrip(t *testing.T) {
	path := serve(t, echo)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	resp, ok, err := Call(context.Background(), path, Request{Identity: "id-1", Args: []string{"search", "--json", "retry backoff"}})
	if err != nil || !ok {
		t.Fatalf("Call: ok %v err %v", ok, err)
	}
	if text(resp, 1) != "search --json retry backoff" || text(resp, 2) != "id-1" || resp.Code != 3 {
		t.Fatalf("answer %+v", resp)
	}
}

func TestRefusedIsNotAnAnswer(t *testing.T) {
	path := serve(t, func(ctx context.Context, req Request) Response {
		return Response{Refused: "another binary", Output: []Chunk{{1, []byte("must not be printed")}}}
	})
	resp, ok, err := Call(context.Background(), path, Request{Args: []string{"search", "x"}})
	if ok || err != nil {
		t.Fatalf("a refusal gave ok %v err %v", ok, err)
	}
	if resp.Refused != "another binary" {
		t.Fatalf("refusal reason %q", resp.Refused)
	}
}

func TestNoServer(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{"", filepath.Join(dir, SocketName)} {
		if _, ok, err := Call(context.Background(), path, Request{}); ok || err != nil {
			t.Fatalf("Call(%q) with no server: ok %v err %v", path, ok, err)
		}
	}
}

// A socket file left by a process that died (its listener closed without
// unlinking it) is replaced; a live server's socket is not.
func TestStaleAndLiveSockets(t *testing.T) {
	path := socketPath(t)
	old, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	old.SetUnlinkOnClose(false)
	old.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("the stale socket file should be there: %v", err)
	}
	if _, ok, _ := Call(context.Background(), path, Request{}); ok {
		t.Fatal("a stale socket answered")
	}
	ln, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- Serve(ctx, ln, echo) }()
	if _, err := Listen(path); !errors.Is(err, ErrServing) {
		t.Fatalf("a second Listen on a live socket: %v, want ErrServing", err)
	}
	if resp, ok, err := Call(context.Background(), path, Request{Args: []string{"still", "here"}}); !ok || err != nil || text(resp, 1) != "still here" {
		t.Fatalf("the live server stopped answering after a second Listen: %+v %v %v", resp, ok, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the socket file outlived its server: %v", err)
	}
}

func TestListenRefusesAFile(t *testing.T) {
	path := SocketPath(t.TempDir())
	if err := os.WriteFile(path, []byte("not a socket"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("Listen over a regular file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "not a socket" {
		t.Fatal("Listen changed a regular file")
	}
}

// A client that goes away (Ctrl-C) cancels the server's run of its
// request, and Call returns the client's context error.
func TestClientGoneCancelsTheRun(t *testing.T) {
	started, stopped := make(chan struct{}), make(chan error, 1)
	path := serve(t, func(ctx context.Context, req Request) Response {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return Response{}
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	_, ok, err := Call(ctx, path, Request{Args: []string{"search", "slow"}})
	if ok || !errors.Is(err, context.Canceled) {
		t.Fatalf("an interrupted Call: ok %v err %v", ok, err)
	}
	select {
	case err := <-stopped:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the run ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server's run went on after its client left")
	}
}

func TestSocketPath(t *testing.T) {
	if p := SocketPath("/var/tmp/h"); p != "/var/tmp/h/"+SocketName {
		t.Fatalf("SocketPath = %q", p)
	}
	if p := SocketPath("/" + strings.Repeat("d", 120)); p != "" {
		t.Fatalf("a path too long for sockaddr_un gave %q", p)
	}
	if p := SocketPath(""); p != "" {
		t.Fatalf("no home gave %q", p)
	}
}

// A server that does not read its connections (a stopped process: the
// kernel still completes the connect into the backlog) is given up after
// AckTimeout; a server that acknowledged is waited for however long its
// run takes.
func TestAckTimeout(t *testing.T) {
	defer func(d time.Duration) { AckTimeout = d }(AckTimeout)
	AckTimeout = 100 * time.Millisecond
	path := socketPath(t)
	rawListener(t, path) // never accepts
	if _, ok, err := Call(context.Background(), path, Request{Args: []string{"search", "x"}}); ok || err != nil {
		t.Fatalf("a server that never read the request: ok %v err %v", ok, err)
	}

	slowRunAnswered(t, 3*AckTimeout)
}

// slowRunAnswered checks that a run of d is waited for and answered.
func slowRunAnswered(t *testing.T, d time.Duration) {
	t.Helper()
	slow := serve(t, func(ctx context.Context, req Request) Response {
		time.Sleep(d)
		return Response{Output: []Chunk{{1, []byte("late but here")}}}
	})
	resp, ok, err := Call(context.Background(), slow, Request{Args: []string{"search", "x"}})
	if !ok || err != nil || text(resp, 1) != "late but here" {
		t.Fatalf("a run of %v: %+v ok %v err %v", d, resp, ok, err)
	}
}

// The recorder keeps the order in which the two streams were written, as
// a terminal shows them: a note on stderr before the results stays before.
func TestRecorderKeepsOrder(t *testing.T) {
	var r Recorder
	out, errw := r.Stream(1), r.Stream(2)
	errw.Write([]byte("note: 40 files changed\n"))
	out.Write([]byte(" 1. a.go\n"))
	out.Write([]byte(" 2. b.go\n"))
	errw.Write([]byte("hint\n"))
	got := r.Chunks()
	want := []Chunk{{2, []byte("note: 40 files changed\n")}, {1, []byte(" 1. a.go\n 2. b.go\n")}, {2, []byte("hint\n")}}
	if len(got) != len(want) {
		t.Fatalf("chunks %+v", got)
	}
	for i := range want {
		if got[i].Stream != want[i].Stream || string(got[i].Data) != string(want[i].Data) {
			t.Fatalf("chunk %d = %d %q, want %d %q", i, got[i].Stream, got[i].Data, want[i].Stream, want[i].Data)
		}
	}
}

// A server that acknowledged and then went silent (stopped after the
// acknowledgement) is given up after IdleTimeout; a run longer than
// IdleTimeout is waited for, its keep-alives proving the server alive.
func TestKeepAlive(t *testing.T) {
	defer func(k, i time.Duration) { KeepAlive, IdleTimeout = k, i }(KeepAlive, IdleTimeout)
	KeepAlive, IdleTimeout = 20*time.Millisecond, 200*time.Millisecond
	path := socketPath(t)
	ln := rawListener(t, path)
	go func() { // acknowledges, then says nothing more
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			var req Request
			json.NewDecoder(c).Decode(&req)
			c.Write([]byte("{\"ack\":true}\n"))
			defer c.Close()
		}
	}()
	if _, ok, err := Call(context.Background(), path, Request{Args: []string{"search", "x"}}); ok || err != nil {
		t.Fatalf("a server silent after its acknowledgement: ok %v err %v", ok, err)
	}

	slowRunAnswered(t, 5*IdleTimeout)
}

// A connection that never sends its request is closed after
// RequestTimeout, so idle connections neither hold the server's exit nor
// its descriptors; past MaxConns a connection is closed at once and its
// client falls back.
func TestIdleAndExcessConnections(t *testing.T) {
	defer func(d time.Duration) { RequestTimeout = d }(RequestTimeout)
	RequestTimeout = 100 * time.Millisecond
	path := socketPath(t)
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	release := make(chan struct{})
	var holding atomic.Int32
	go func() {
		done <- Serve(ctx, ln, func(ctx context.Context, req Request) Response {
			if req.Args[0] == "hold" {
				holding.Add(1)
				<-release
			}
			return echo(ctx, req)
		})
	}()
	// MaxConns runs in flight: one more connection is refused at once
	held := make(chan bool, MaxConns)
	for i := 0; i < MaxConns; i++ {
		go func() {
			_, ok, _ := Call(context.Background(), path, Request{Args: []string{"hold"}})
			held <- ok
		}()
	}
	for deadline := time.Now().Add(10 * time.Second); holding.Load() < MaxConns; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d runs started", holding.Load(), MaxConns)
		}
	}
	if _, ok, err := Call(context.Background(), path, Request{Args: []string{"extra"}}); ok || err != nil {
		t.Fatalf("a connection past MaxConns: ok %v err %v", ok, err)
	}
	close(release)
	for i := 0; i < MaxConns; i++ {
		if !<-held {
			t.Fatal("a held run was not answered")
		}
	}
	if _, ok, _ := Call(context.Background(), path, Request{Args: []string{"after"}}); !ok {
		t.Fatal("a connection after the runs ended was not answered")
	}
	// an idle connection is dropped, and does not hold the server's exit
	idle, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	idle.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := idle.Read(make([]byte, 1)); err == nil {
		t.Fatal("an idle connection got bytes")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("an idle connection was held past RequestTimeout")
	}
	idle2, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer idle2.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return with an idle connection open")
	}
}

// A listener removes its socket file on Close only while the file is its
// own: a server that replaced it (taking it for stale) keeps its socket.
func TestCloseKeepsAnothersSocket(t *testing.T) {
	path := socketPath(t)
	first, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path) // as a second server does with a socket it cannot reach
	second, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	first.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("the first listener's Close removed the second's socket: %v", err)
	}
	second.Close()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the second listener left its socket: %v", err)
	}
}
