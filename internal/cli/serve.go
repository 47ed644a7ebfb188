package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/mcp"
	"github.com/coderag/coderag/internal/serve"
	"github.com/coderag/coderag/internal/store"
)

func init() {
	register(command{name: "serve", summary: "HTTP server for a team: web page, JSON API and MCP over HTTP on one index", run: runServe})
}

func runServe(e *env, args []string) error {
	fs := newFlags(e, "serve", "[--addr 127.0.0.1:7777] [--store PATH] [--token T] [--private]",
		`Serve the index over HTTP: a web page for people (search, highlighted results,
file view, score breakdown, call graph, index status), a JSON API under /api/
with the field names of the CLI's --json, and MCP over the streamable HTTP
transport at /mcp (the tools of 'coderag mcp', rooted at one indexed project:
/mcp?project=NAME; the project's name is the base name of its root, or give the
root; with one project indexed, /mcp alone).

API: GET /api/status, /api/search?q=&project=&top_k=&explain=1 (project
repeatable; none = all projects, merged by relevance), /api/explain, /api/file?project=
&path=&offset=&limit=, /api/graph?project=&name=[&format=svg];
POST /api/index, /api/remove and /api/cancel (stop an index run) with
{"root": "/path"}.

Access: it listens on localhost unless --addr says otherwise. Writes (index,
remove, MCP's index_project and the refresh before MCP's search_code) need the
token (--token or CODERAG_TOKEN) as "Authorization: Bearer TOKEN"; with no token
they are refused, and MCP sessions answer from the index as it is. Reads are open
unless --private, which makes them need the token too (the page asks for it
once). File views are confined to the project roots like the CLI's, and show
only the files the index takes (no .env, .git/ or ignored files).`)
	addr := fs.String("addr", serve.DefaultAddr, "address to listen on (host:port); a non-loopback host shares the index on the network")
	token := fs.String("token", "", "bearer token for writes (default $CODERAG_TOKEN, better: a flag shows in ps); with --private, for reads too")
	private := fs.Bool("private", false, "reads need the token too")
	verbose := fs.Bool("v", false, "log MCP transport diagnostics to stderr")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	tok := strings.TrimSpace(*token)
	if tok == "" {
		tok = e.cfg.Token
	}
	if *private && tok == "" {
		return usagef("--private needs a token (--token or CODERAG_TOKEN)")
	}
	if _, err := e.newEmbedder(); err != nil {
		return fmt.Errorf("embedder: %w", err)
	}
	// a mistyped --store makes a new, empty index: say so at start, not
	// only through "nothing is indexed yet" on the page
	existed, err := store.Exists(e.cfg.DBPath())
	if err != nil {
		return err
	}
	ec := e.engineConfig(true)
	if w := logTo(e, *verbose); w != nil {
		ec.Log = mcp.NewLogger(w, false) // warnings of index runs, as the MCP server logs them
	}
	eng, err := engine.Open(e.ctx, ec)
	if err != nil {
		return err
	}
	defer eng.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", *addr, err)
	}
	defer ln.Close()
	loopback := false
	if ta, ok := ln.Addr().(*net.TCPAddr); ok {
		loopback = ta.IP.IsLoopback()
	}
	b, err := serve.NewLocal(serve.LocalConfig{
		Engine:  eng,
		Version: Version,
		Log:     logTo(e, *verbose),
		Redact:  e.redactor().Redact,
	})
	if err != nil {
		return err
	}
	defer b.Close()
	h, err := serve.New(b, serve.Options{Token: tok, PrivateReads: *private, Loopback: loopback, Version: Version, Log: logTo(e, *verbose)})
	if err != nil {
		return err
	}
	srv := serve.NewHTTPServer(h)
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(e.stderr, "coderag serve %s: %s (index %s; MCP at %s/mcp; writes %s)\n", Version, url, eng.StorePath(), url, map[bool]string{true: "need the token", false: "off: no token"}[tok != ""])
	if !existed {
		fmt.Fprintf(e.stderr, "note: there was no index at %s: a new, empty one was made (check --store or CODERAG_HOME if you meant another)\n", eng.StorePath())
	}
	if !loopback && tok == "" {
		fmt.Fprintf(e.stderr, "note: listening beyond localhost with no token: anyone who reaches %s can read the indexed code\n", *addr)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-e.ctx.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if stoppedBySIGTERM(e.ctx) {
		return nil
	}
	return e.ctx.Err()
}

// logTo is stderr when verbose, else nil (discarded).
func logTo(e *env, verbose bool) io.Writer {
	if verbose {
		return e.stderr
	}
	return nil
}
