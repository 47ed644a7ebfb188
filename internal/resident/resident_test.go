package resident

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serve starts Serve on a new socket in a temporary directory with handle,
// and returns the socket's path; the server stops at the test's end.
func serve(t *testing.T, handle Handler) string {
	t.Helper()
	path := SocketPath(t.TempDir())
	if path == "" {
		t.Skip("the temporary directory's path is too long for a Unix socket")
	}
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
	return Response{Stdout: []byte(strings.Join(req.Args, " ")), Stderr: []byte(req.Identity), Code: 3}
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
	if string(resp.Stdout) != "search --json retry backoff" || string(resp.Stderr) != "id-1" || resp.Code != 3 {
		t.Fatalf("answer %+v", resp)
	}
}

func TestRefusedIsNotAnAnswer(t *testing.T) {
	path := serve(t, func(ctx context.Context, req Request) Response {
		return Response{Refused: "another binary", Stdout: []byte("must not be printed")}
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
	path := SocketPath(t.TempDir())
	if path == "" {
		t.Skip("the temporary directory's path is too long for a Unix socket")
	}
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
	if resp, ok, err := Call(context.Background(), path, Request{Args: []string{"still", "here"}}); !ok || err != nil || string(resp.Stdout) != "still here" {
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
	path := SocketPath(t.TempDir())
	if path == "" {
		t.Skip("the temporary directory's path is too long for a Unix socket")
	}
	ln, err := net.Listen("unix", path) // never accepts
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, ok, err := Call(context.Background(), path, Request{Args: []string{"search", "x"}}); ok || err != nil {
		t.Fatalf("a server that never read the request: ok %v err %v", ok, err)
	}

	slow := serve(t, func(ctx context.Context, req Request) Response {
		time.Sleep(3 * AckTimeout)
		return Response{Stdout: []byte("late but here")}
	})
	resp, ok, err := Call(context.Background(), slow, Request{Args: []string{"search", "x"}})
	if !ok || err != nil || string(resp.Stdout) != "late but here" {
		t.Fatalf("a slow run after its acknowledgement: %+v ok %v err %v", resp, ok, err)
	}
}
