package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"golang.org/x/term"

	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/resident"
)

// A watcher (`coderag index --watch`) answers the CLI's searches of its
// index over a Unix socket (package resident): `coderag search` first asks
// it, and runs the search itself when no watcher answers. The watcher runs
// the same runSearch with the same configuration (residentIdentity) on an
// engine it keeps open, so the answer is the one the client would have
// printed, from warm caches.

// residentSearchFlags are the search flags a resident server runs exactly
// as the client would, with the value flags among them. Any other flag (a
// configuration flag, help, a misspelt one) makes the client run the
// search itself.
var residentSearchFlags = map[string]bool{
	"top-k": true, "project": true, "ranker": true, // with a value
	"json": false, "all": false, "explain": false, "tool-format": false, "expand": false,
}

// residentArgs returns search's arguments as a resident server must see
// them: each --project value made absolute against wd, and --project wd
// added when neither --project nor --all is given. ok is false when args
// hold a flag outside residentSearchFlags or a value flag without its
// value.
func residentArgs(args []string, wd string) (out []string, ok bool) {
	project, all := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" || negatedFilter(a) {
			out = append(out, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		takes, known := residentSearchFlags[name]
		if !known {
			return nil, false
		}
		if !takes {
			all = all || name == "all"
			out = append(out, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, false
			}
			i++
			val = args[i]
		}
		if name == "project" {
			project = true
			if val == "" {
				return nil, false // the command's own error says it
			}
			if !filepath.IsAbs(val) {
				val = filepath.Join(wd, val)
			}
		}
		out = append(out, "--"+name+"="+val)
	}
	if !project && !all {
		out = append([]string{"--project=" + wd}, out...)
	}
	return out, true
}

// residentIdentity names this binary and the configuration a search
// depends on: the version, the executable's path, size and modification
// time, the index (home, store), the embedding settings, the dictionary
// this process would load and the secrets switch. A server runs a
// client's search only when their identities are equal, so it answers
// with what the client would have computed. The hex SHA-256 of those
// values; no secret (the embedding key) appears in it.
func residentIdentity(cfg config.Config) string {
	h := sha256.New()
	exe, _ := os.Executable()
	var size, mtime int64
	if fi, err := os.Stat(exe); err == nil {
		size, mtime = fi.Size(), fi.ModTime().UnixNano()
	}
	home, _ := filepath.Abs(cfg.Home)
	db := cfg.DBPath()
	if !strings.Contains(db, "://") && !strings.Contains(db, "=") {
		db, _ = filepath.Abs(db)
	}
	dict, _ := locateDictionary(cfg)
	for _, v := range []string{Version, exe, fmt.Sprint(size, mtime), home, db, cfg.CEDICT, dict,
		cfg.Embedding.Provider, cfg.Embedding.Model, cfg.Embedding.BaseURL, cfg.Embedding.APIKey,
		fmt.Sprint(cfg.Embedding.BatchSize, cfg.AllowSecrets)} {
		h.Write([]byte(v))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// searchResident asks the watcher of cfg's index, if one runs, to answer
// `coderag search args`, and copies its answer to stdout and stderr. It
// reports the exit status and true when the watcher answered; false when
// the search must run here (CODERAG_RESIDENT=off, no watcher, another
// identity, a flag it does not forward, or a failed exchange).
func searchResident(ctx context.Context, cfg config.Config, args []string, stdout, stderr io.Writer) (int, bool) {
	if !cfg.Resident {
		return 0, false
	}
	path := resident.SocketPath(cfg.Home)
	if path == "" {
		return 0, false
	}
	if _, err := os.Lstat(path); err != nil {
		return 0, false // no watcher: the common case, one stat
	}
	wd, err := os.Getwd()
	if err != nil {
		return 0, false
	}
	rargs, ok := residentArgs(args, wd)
	if !ok {
		return 0, false
	}
	color := false
	if f, isFile := stdout.(*os.File); isFile {
		color = !cfg.NoColor && term.IsTerminal(int(f.Fd()))
	}
	resp, ok, err := resident.Call(ctx, path, resident.Request{
		Identity: residentIdentity(cfg), Args: append([]string{"search"}, rargs...), Color: color})
	if err != nil {
		fmt.Fprintln(stderr, "coderag search: interrupted")
		return exitInterrupted, true
	}
	if !ok {
		return 0, false
	}
	stdout.Write(resp.Stdout)
	stderr.Write(resp.Stderr)
	return resp.Code, true
}

// serveResident answers the searches of e's index on its socket while the
// watcher of root runs, from one engine kept open (and its caches warm) for
// them. While settled is true (the watcher has re-indexed every change it
// saw and watches every directory) a search of root skips the freshness
// walk: the watcher's events stand for it.
// It returns the function that stops answering and closes that engine. A
// socket that cannot be made, or another process answering already, is a
// note on stderr: the watcher goes on without answering.
func serveResident(e *env, root string, settled *atomic.Bool) (stop func()) {
	if !e.cfg.Resident {
		return func() {}
	}
	path := resident.SocketPath(e.cfg.Home)
	ln, err := resident.Listen(path)
	if err != nil {
		if errors.Is(err, resident.ErrServing) {
			fmt.Fprintf(e.stderr, "note: %v; this watcher leaves searches to it\n", err)
		} else {
			fmt.Fprintf(e.stderr, "note: searches are not answered by this watcher: %v\n", err)
		}
		return func() {}
	}
	id := residentIdentity(e.cfg)
	fmt.Fprintf(e.stderr, "answering this index's searches warm on %s (CODERAG_RESIDENT=off: each search runs alone)\n", path)
	shared := &sharedEngine{}
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := resident.Serve(ctx, ln, func(rctx context.Context, req resident.Request) resident.Response {
			return answerResident(e, shared, id, rctx, req, func(r string) bool { return r == root && settled.Load() })
		})
		if err != nil {
			fmt.Fprintf(e.stderr, "note: this watcher stopped answering searches: %v\n", err)
		}
	}()
	return func() {
		cancel()
		<-done
		shared.close()
	}
}

// residentAnswered counts the searches this process answered for clients
// (tests read it).
var residentAnswered atomic.Int64

// answerResident runs one client's search in the watcher: with the
// watcher's configuration (equal to the client's, by identity), the shared
// engine, the client's colour choice, and its output captured; trusted
// says which project needs no freshness walk (env.trusted). A search
// that panics is refused, so the client runs it itself and the watcher
// lives on.
func answerResident(e *env, shared *sharedEngine, id string, ctx context.Context, req resident.Request, trusted func(string) bool) (resp resident.Response) {
	if req.Identity != id {
		return resident.Response{Refused: "another coderag binary or configuration"}
	}
	if len(req.Args) == 0 || req.Args[0] != "search" {
		return resident.Response{Refused: "only searches are answered"}
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(e.stderr, "watch: a search failed (%v); its client ran it itself\n", r)
			resp = resident.Response{Refused: "the search failed in the watcher"}
		}
	}()
	var out, errb bytes.Buffer
	color := req.Color
	re := &env{ctx: ctx, cfg: e.cfg, stdout: &out, stderr: &errb, stdin: strings.NewReader(""), an: e.an,
		shared: shared, longLived: true, colorSet: &color, perRun: true, trusted: trusted}
	code := finish(re, "search", runSearch(re, req.Args[1:]))
	residentAnswered.Add(1)
	return resident.Response{Stdout: out.Bytes(), Stderr: errb.Bytes(), Code: code}
}
