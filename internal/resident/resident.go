// Package resident lets a long-lived coderag process answer the CLI's
// searches over a Unix socket, so that one `coderag search` costs a process
// start and a warm search instead of a cold open of the index, as a build
// server answers its thin clients (Bazel's client/server, gopls' daemon
// mode).
//
// The server is the watcher (`coderag index --watch`): it keeps the index
// open and its caches warm (search.Warm) while it re-indexes saved files.
// A client sends one Request per connection and reads one Response. The
// socket lives in the index's home directory with mode 0600, and the server
// answers only a peer of its own user (SO_PEERCRED where the system has
// it).
//
// A client never depends on a server: no socket, a stale one, a server of
// another binary or another configuration (Request.Identity), or any I/O
// error before the answer, and the client runs the command itself (Call
// reports false). Only the answer's bytes cross the socket; the command
// runs in the server with the server's configuration, which Identity
// proves equal to the client's.
package resident

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// SocketName is the socket's file name in the index's home directory.
const SocketName = "resident.sock"

// maxSocketPath is the longest socket path a sockaddr_un holds (108 bytes
// with the terminating NUL on Linux, 104 on the BSDs).
const maxSocketPath = 103

// maxRequestBytes bounds a request (arguments and identity).
const maxRequestBytes = 1 << 20

// dialTimeout bounds the client's connect: a live server accepts at once.
const dialTimeout = 200 * time.Millisecond

// AckTimeout bounds the wait for the server's acknowledgement of a
// request, sent as soon as it is read: a connect succeeds into the
// socket's backlog even when the server process is stopped (Ctrl-Z), and
// the client must not wait on it. After the acknowledgement the client
// waits for the answer as long as the run takes.
var AckTimeout = time.Second

// ack is the server's first line on a connection: the request was read.
type ack struct {
	Ack bool `json:"ack"`
}

// Request is one command a client asks the server to run.
type Request struct {
	// Identity names the client's binary and the configuration a search
	// depends on (see the CLI's residentIdentity); the server runs nothing
	// for another identity than its own.
	Identity string `json:"identity"`
	// Args are the command and its arguments, with every path argument
	// already absolute (the server's working directory is its own).
	Args []string `json:"args"`
	// Color says whether the client's standard output is a terminal that
	// may be coloured.
	Color bool `json:"color,omitempty"`
}

// Response is the server's answer: the command's output and exit status,
// or why it ran nothing.
type Response struct {
	// Refused is why the server ran nothing (another identity, a command
	// it does not serve); the client then runs the command itself.
	Refused string `json:"refused,omitempty"`
	Stdout  []byte `json:"stdout,omitempty"`
	Stderr  []byte `json:"stderr,omitempty"`
	Code    int    `json:"code"`
}

// SocketPath returns the socket of the index whose home directory is home,
// or "" when its path is too long for a Unix socket address (then no server
// listens and every client runs its own command).
func SocketPath(home string) string {
	if home == "" {
		return ""
	}
	abs, err := filepath.Abs(home)
	if err != nil {
		return ""
	}
	p := filepath.Join(abs, SocketName)
	if len(p) > maxSocketPath {
		return ""
	}
	return p
}

// ErrServing is returned by Listen when a live server already answers on
// the socket.
var ErrServing = errors.New("another coderag process already answers searches on this index")

// Listen creates the socket at path, mode 0600. A socket file left by a
// process that died is removed first; a live server's is kept and Listen
// returns ErrServing. Errors: path is "", or the socket cannot be made.
func Listen(path string) (net.Listener, error) {
	if path == "" {
		return nil, errors.New("resident: no socket path (the index's home directory path is too long)")
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("resident: %s exists and is not a socket", path)
		}
		if c, err := net.DialTimeout("unix", path, dialTimeout); err == nil {
			c.Close()
			return nil, ErrServing
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("resident: remove stale socket: %w", err)
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("resident: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("resident: %w", err)
	}
	// the socket file goes with the listener (net.UnixListener unlinks
	// it on Close)
	return ln, nil
}

// Handler runs one request. ctx ends when the client goes away (its
// process was interrupted) or the server stops.
type Handler func(ctx context.Context, req Request) Response

// Serve answers connections on ln with handle until ctx ends, then closes
// ln and waits for the requests in flight. Each connection carries one
// request; a peer of another user is dropped unanswered. It returns nil
// when ctx ended, else the listener's error.
func Serve(ctx context.Context, ln net.Listener, handle Handler) error {
	var wg sync.WaitGroup
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			serveConn(ctx, c, handle)
		}()
	}
}

// serveConn reads one request from c, runs it and writes the answer.
func serveConn(ctx context.Context, c net.Conn, handle Handler) {
	defer c.Close()
	if !samePeer(c) {
		return
	}
	var req Request
	dec := json.NewDecoder(io.LimitReader(c, maxRequestBytes))
	if err := dec.Decode(&req); err != nil {
		return
	}
	enc := json.NewEncoder(c)
	if err := enc.Encode(ack{Ack: true}); err != nil {
		return
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// the client writes nothing after its request: a read that returns
	// means it closed the connection (interrupted), so the run stops
	go func() {
		var b [1]byte
		c.Read(b[:])
		cancel()
	}()
	resp := handle(rctx, req)
	enc.Encode(resp)
}

// Call sends req to the server listening at path and returns its answer.
// ok is false when there is no server, the process listening is another
// user's, it did not acknowledge the request within AckTimeout, it
// refused the request, or the exchange failed before a whole answer came:
// the caller then runs the command itself. Cancelling ctx closes the
// connection, which stops the server's run, and returns ok false with
// ctx's error.
func Call(ctx context.Context, path string, req Request) (resp Response, ok bool, err error) {
	if path == "" {
		return Response{}, false, nil
	}
	d := net.Dialer{Timeout: dialTimeout}
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return Response{}, false, nil
	}
	defer c.Close()
	if !samePeer(c) {
		return Response{}, false, nil // a socket another user made: not ours to trust
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if err := json.NewEncoder(c).Encode(req); err != nil {
		return Response{}, false, ctx.Err()
	}
	dec := json.NewDecoder(c)
	c.SetReadDeadline(time.Now().Add(AckTimeout))
	var a ack
	if err := dec.Decode(&a); err != nil || !a.Ack {
		return Response{}, false, ctx.Err()
	}
	c.SetReadDeadline(time.Time{})
	if err := dec.Decode(&resp); err != nil {
		return Response{}, false, ctx.Err()
	}
	if resp.Refused != "" {
		return resp, false, nil
	}
	return resp, true, nil
}
