// Package resident lets a long-lived coderag process answer the CLI's
// searches over a Unix socket, so that one `coderag search` costs a process
// start and a warm search instead of a cold open of the index, as a build
// server answers its thin clients (Bazel's client/server, gopls' daemon
// mode).
//
// The server is the watcher (`coderag index --watch`): it keeps the index
// open and its caches warm (search.Warm) while it re-indexes saved files.
// A client sends one Request per connection; the server acknowledges it at
// once, writes a keep-alive newline every KeepAlive while the run goes on,
// then one Response. The socket lives in the index's home directory with
// mode 0600, and each side checks that the other runs as its own user
// (SO_PEERCRED where the system has it).
//
// A client never depends on a server: no socket, a stale one, a server of
// another binary or another configuration (Request.Identity), a server
// that stops acknowledging or sending (a stopped process), or any I/O
// error before the answer, and the client runs the command itself (Call
// reports false). Only the answer's bytes cross the socket; the command
// runs in the server with the server's configuration, which Identity
// proves equal to the client's.
package resident

import (
	"bufio"
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

// MaxConns bounds the connections a server holds at once; one more is
// closed unanswered, and its client runs the command itself.
const MaxConns = 32

// dialTimeout bounds the client's connect: a live server accepts at once.
const dialTimeout = 200 * time.Millisecond

// Timeouts of the exchange. Variables so that tests can shorten them.
var (
	// RequestTimeout bounds the time a server waits for a connection's
	// request: a client sends it as soon as it connects, and a connection
	// that sends nothing must not hold a descriptor or the server's exit.
	RequestTimeout = 2 * time.Second
	// AckTimeout bounds the client's wait for the acknowledgement: a
	// connect succeeds into the socket's backlog even when the server
	// process is stopped (Ctrl-Z), and the client must not wait on it.
	AckTimeout = time.Second
	// KeepAlive is how often a server writes a newline while a run goes
	// on, and IdleTimeout how long a client waits for any byte after the
	// acknowledgement before it gives the server up (stopped after it
	// acknowledged) and runs the command itself.
	KeepAlive   = time.Second
	IdleTimeout = 5 * time.Second
)

// Request is one command a client asks the server to run.
type Request struct {
	// Identity names the client's binary and the configuration a search
	// depends on (see the CLI's residentIdentity); the server runs nothing
	// for another identity than its own.
	Identity string `json:"identity"`
	// Args are the command and its arguments, as the client was given them.
	Args []string `json:"args"`
	// Wd is the client's working directory, against which the server
	// resolves the relative paths of Args (its own is another).
	Wd string `json:"wd"`
	// Projects are where the command's project paths lead in the client
	// (symlinks resolved, "" for one that does not resolve); the server
	// runs nothing when they lead elsewhere in its process (/proc/self).
	Projects []string `json:"projects"`
	// Color says whether the client's standard output is a terminal that
	// may be coloured.
	Color bool `json:"color,omitempty"`
}

// Chunk is a piece of a command's output: Stream 1 is standard output, 2
// standard error.
type Chunk struct {
	Stream int    `json:"stream"`
	Data   []byte `json:"data"`
}

// Response is the server's answer: the command's output, in the order it
// was written, and its exit status, or why it ran nothing.
type Response struct {
	// Refused is why the server ran nothing (another identity, a command
	// it does not serve); the client then runs the command itself.
	Refused string  `json:"refused,omitempty"`
	Output  []Chunk `json:"output,omitempty"`
	Code    int     `json:"code"`
}

// Recorder collects a command's standard output and error as one ordered
// list of chunks (Response.Output). Safe for concurrent writes.
type Recorder struct {
	mu     sync.Mutex
	chunks []Chunk
}

// Stream returns the writer of stream n (1 stdout, 2 stderr).
func (r *Recorder) Stream(n int) io.Writer { return streamWriter{r, n} }

// Chunks returns what was written, in order.
func (r *Recorder) Chunks() []Chunk {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.chunks
}

type streamWriter struct {
	r *Recorder
	n int
}

func (w streamWriter) Write(p []byte) (int, error) {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	if k := len(w.r.chunks); k > 0 && w.r.chunks[k-1].Stream == w.n {
		w.r.chunks[k-1].Data = append(w.r.chunks[k-1].Data, p...)
	} else {
		w.r.chunks = append(w.r.chunks, Chunk{Stream: w.n, Data: append([]byte(nil), p...)})
	}
	return len(p), nil
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

// Listening reports whether a process accepts connections on the socket at
// path (a watcher answering searches); a stale socket file is not one.
func Listening(path string) bool {
	if path == "" {
		return false
	}
	c, err := net.DialTimeout("unix", path, dialTimeout)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// ErrServing is returned by Listen when a live server already answers on
// the socket.
var ErrServing = errors.New("another coderag process already answers searches on this index")

// Listener is a server's socket. Its Close removes the socket file only
// while it is still this listener's (another server may have replaced a
// socket it took for stale).
type Listener struct {
	net.Listener
	path string
	file os.FileInfo
}

// Close closes the socket and removes its file if it is still this
// listener's.
func (l *Listener) Close() error {
	err := l.Listener.Close()
	if fi, serr := os.Lstat(l.path); serr == nil && os.SameFile(fi, l.file) {
		os.Remove(l.path)
	}
	return err
}

// Listen creates the socket at path, mode 0600. A socket file left by a
// process that died is removed first; a live server's is kept and Listen
// returns ErrServing. Errors: path is "", something else than a socket is
// there, or the socket cannot be made.
func Listen(path string) (*Listener, error) {
	if path == "" {
		return nil, errors.New("resident: no socket path (the index's home directory path is too long)")
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("resident: %s exists and is not a socket", path)
		}
		if Listening(path) {
			return nil, ErrServing
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("resident: remove stale socket: %w", err)
		}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("resident: %w", err)
	}
	ln.SetUnlinkOnClose(false) // Listener.Close removes only its own file
	fi, err := os.Lstat(path)
	if err == nil {
		err = os.Chmod(path, 0o600)
	}
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("resident: %w", err)
	}
	return &Listener{Listener: ln, path: path, file: fi}, nil
}

// Handler runs one request. ctx ends when the client goes away (its
// process was interrupted) or the server stops.
type Handler func(ctx context.Context, req Request) Response

// Serve answers connections on ln with handle until ctx ends, then closes
// ln and every connection, and waits for the requests in flight. Each
// connection carries one request; a peer of another user is dropped
// unanswered, and so is a connection past MaxConns. An Accept error (out
// of descriptors) is waited out, as net/http's server does. It returns
// nil when ctx ended, else the listener's lasting error.
func Serve(ctx context.Context, ln net.Listener, handle Handler) error {
	var wg sync.WaitGroup
	defer ln.Close() // here too: the file is gone when Serve returns
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer wg.Wait()
	slots := make(chan struct{}, MaxConns)
	t := timing{request: RequestTimeout, keepAlive: KeepAlive} // read once: tests change them
	var delay time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			// EMFILE, ENFILE, ECONNABORTED: wait and accept again
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(delay):
			}
			continue
		}
		delay = 0
		select {
		case slots <- struct{}{}:
		default:
			c.Close() // too many at once: the client runs its command itself
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			serveConn(ctx, c, handle, t)
		}()
	}
}

// timing is a server's RequestTimeout and KeepAlive.
type timing struct{ request, keepAlive time.Duration }

// serveConn reads one request from c, acknowledges it, runs it while
// writing keep-alives, and writes the answer.
func serveConn(ctx context.Context, c net.Conn, handle Handler, tm timing) {
	defer c.Close()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(rctx, func() { c.Close() })
	defer stop()
	if !samePeer(c) {
		return
	}
	c.SetReadDeadline(time.Now().Add(tm.request))
	var req Request
	dec := json.NewDecoder(io.LimitReader(c, maxRequestBytes))
	if err := dec.Decode(&req); err != nil {
		return
	}
	c.SetReadDeadline(time.Time{})
	var mu sync.Mutex // one writer at a time: keep-alives and the answer
	write := func(b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		_, err := c.Write(b)
		return err
	}
	if b, err := json.Marshal(ack{Ack: true}); err != nil || write(append(b, '\n')) != nil {
		return
	}
	// the client writes nothing after its request: a read that returns
	// means it closed the connection (interrupted), so the run stops
	go func() {
		var b [1]byte
		c.Read(b[:])
		cancel()
	}()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(tm.keepAlive)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if write([]byte("\n")) != nil {
					return
				}
			}
		}
	}()
	resp := handle(rctx, req)
	close(done)
	b, err := json.Marshal(resp)
	if err != nil {
		return
	}
	write(append(b, '\n'))
}

// ack is the server's first line on a connection: the request was read.
type ack struct {
	Ack bool `json:"ack"`
}

// deadlineReader sets c's read deadline d ahead before each read: any byte
// (a keep-alive) proves the server alive.
type deadlineReader struct {
	c net.Conn
	d time.Duration
}

func (r deadlineReader) Read(p []byte) (int, error) {
	r.c.SetReadDeadline(time.Now().Add(r.d))
	return r.c.Read(p)
}

// Call sends req to the server listening at path and returns its answer.
// ok is false when there is no server, the process listening is another
// user's, it did not acknowledge the request within AckTimeout, it went
// silent for IdleTimeout after that, it refused the request, or the
// exchange failed before a whole answer came: the caller then runs the
// command itself. Cancelling ctx closes the connection, which stops the
// server's run, and returns ok false with ctx's error.
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
	r := &deadlineReader{c: c, d: AckTimeout}
	dec := json.NewDecoder(bufio.NewReader(r))
	var a ack
	if err := dec.Decode(&a); err != nil || !a.Ack {
		return Response{}, false, ctx.Err()
	}
	r.d = IdleTimeout
	if err := dec.Decode(&resp); err != nil {
		return Response{}, false, ctx.Err()
	}
	if resp.Refused != "" {
		return resp, false, nil
	}
	return resp, true, nil
}
