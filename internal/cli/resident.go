package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

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

// residentArgs reports whether a resident server may run search's
// arguments as the client would (every flag is one of residentSearchFlags
// with its value) and returns the --project values ("." when none is
// given and not --all). The arguments cross as they are: the server
// resolves relative paths against the client's working directory
// (Request.Wd), and its messages name them as they were typed.
func residentArgs(args []string) (projects []string, ok bool) {
	all := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" || negatedFilter(a) {
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		takes, known := residentSearchFlags[name]
		if !known {
			return nil, false
		}
		if !takes {
			all = all || name == "all"
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
			projects = append(projects, val)
		}
	}
	if len(projects) == 0 && !all {
		projects = []string{"."}
	}
	return projects, true
}

// resolveProjects returns where each of projects leads from wd: the path
// joined to wd with every symlink resolved, or "" when it does not
// resolve. A client sends its own (Request.Projects) and the server runs
// the search only when it finds the same: a path through /proc/self or
// /dev/fd, or a symlink into them, leads each process to its own places.
func resolveProjects(wd string, projects []string) []string {
	out := make([]string, len(projects))
	for i, p := range projects {
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			out[i] = r
		}
	}
	return out
}

// residentIdentity names this binary and the configuration a search
// depends on: the version, the executable's path, size and modification
// time, the index (home, store, and for PostgreSQL libpq's environment),
// the embedding settings, the dictionary this process would load and the
// secrets switch. A server runs a
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
	vals := []string{Version, exe, fmt.Sprint(size, mtime), home, db, cfg.CEDICT, dict,
		cfg.Embedding.Provider, cfg.Embedding.Model, cfg.Embedding.BaseURL, cfg.Embedding.APIKey,
		fmt.Sprint(cfg.Embedding.BatchSize, cfg.AllowSecrets, cfg.Embedding.QueryTimeout)}
	if strings.Contains(db, "://") || strings.Contains(db, "=") {
		// a PostgreSQL store: what its connection string leaves out,
		// libpq's environment says (host=x port=y reaches $PGDATABASE)
		for _, k := range libpqEnv {
			vals = append(vals, k+"="+os.Getenv(k))
		}
	}
	for _, v := range vals {
		h.Write([]byte(v))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// libpqEnv are the environment variables libpq (and pgx, which reads
// them the same way) takes a connection's missing parameters from
// (PostgreSQL 15 manual, 34.15).
var libpqEnv = []string{"PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSWORD", "PGPASSFILE",
	"PGSERVICE", "PGSERVICEFILE", "PGOPTIONS", "PGAPPNAME", "PGSSLMODE", "PGSSLCERT", "PGSSLKEY", "PGSSLROOTCERT",
	"PGCONNECT_TIMEOUT", "PGTARGETSESSIONATTRS"}

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
	projects, ok := residentArgs(args)
	if !ok {
		return 0, false
	}
	color := false
	if f, isFile := stdout.(*os.File); isFile {
		color = !cfg.NoColor && term.IsTerminal(int(f.Fd()))
	}
	resp, ok, err := resident.Call(ctx, path, resident.Request{
		Identity: residentIdentity(cfg), Args: append([]string{"search"}, args...), Wd: wd,
		Projects: resolveProjects(wd, projects), Color: color})
	if err != nil {
		fmt.Fprintln(stderr, "coderag search: interrupted")
		return exitInterrupted, true
	}
	if !ok {
		return 0, false
	}
	if color || isTerminal(stdout) {
		stdout = termSafe{stdout} // as MainIO filters a terminal's output
	}
	for _, c := range resp.Output {
		w := stdout
		if c.Stream == 2 {
			w = stderr
		}
		if _, err := w.Write(c.Data); err != nil {
			// a full disk, a closed descriptor: the search runs here
			// and meets the same error, reported as it reports it
			return 0, false
		}
	}
	return resp.Code, true
}

// residentRetry is how often a watcher that found another process
// answering on the socket tries to take it over (when that one exits).
var residentRetry = 10 * time.Second

// serveResident answers the searches of e's index on its socket while the
// watcher runs, from one engine kept open (and its caches warm) for them.
// Every search gets the CLI's freshness check (engine.Freshen): a watcher
// misses changes its events do not show (a replaced root, an edited ignore
// file, a build/ directory that became a package, a hard link), and the
// check's walk reads only changed directories. While another process
// answers on the socket, it tries to take over every residentRetry. It
// returns the function that stops answering and closes the engine. A
// socket that cannot be made is a note on stderr: the watcher goes on
// without answering.
func serveResident(e *env) (stop func()) {
	if !e.cfg.Resident {
		return func() {}
	}
	// the home holds the socket even when the index is elsewhere (a
	// PostgreSQL store, CODERAG_STORE=/other/index.db), which makes no
	// home of its own
	_ = os.MkdirAll(e.cfg.Home, 0o700)
	path := resident.SocketPath(e.cfg.Home)
	id := residentIdentity(e.cfg)
	retry := residentRetry
	shared := &sharedEngine{}
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		noted := false
		for {
			ln, err := resident.Listen(path)
			if errors.Is(err, resident.ErrServing) {
				if !noted {
					fmt.Fprintf(e.stderr, "note: %v; this watcher answers them when it stops\n", err)
					noted = true
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(retry):
					continue
				}
			}
			if err != nil {
				fmt.Fprintf(e.stderr, "note: searches are not answered by this watcher: %v\n", err)
				return
			}
			fmt.Fprintf(e.stderr, "answering this index's searches warm on %s (CODERAG_RESIDENT=off: each search runs alone)\n", path)
			err = resident.Serve(ctx, ln, func(rctx context.Context, req resident.Request) resident.Response {
				return answerResident(rctx, e, shared, id, req)
			})
			ln.Close()
			if err != nil {
				fmt.Fprintf(e.stderr, "note: this watcher stopped answering searches: %v\n", err)
			}
			return
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
// engine, the client's working directory and colour choice, and its
// output recorded in order. A search that panics is refused, so the
// client runs it itself and the watcher lives on.
func answerResident(ctx context.Context, e *env, shared *sharedEngine, id string, req resident.Request) (resp resident.Response) {
	if req.Identity != id {
		return resident.Response{Refused: "another coderag binary or configuration"}
	}
	if len(req.Args) == 0 || req.Args[0] != "search" || !filepath.IsAbs(req.Wd) {
		return resident.Response{Refused: "only searches are answered"}
	}
	projects, ok := residentArgs(req.Args[1:])
	if !ok {
		return resident.Response{Refused: "only searches are answered"}
	}
	if !slices.Equal(resolveProjects(req.Wd, projects), req.Projects) {
		return resident.Response{Refused: "a project path leads elsewhere in this process"}
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(e.stderr, "watch: a search failed (%v); its client ran it itself\n", r)
			resp = resident.Response{Refused: "the search failed in the watcher"}
		}
	}()
	var rec resident.Recorder
	color := req.Color
	re := &env{ctx: ctx, cfg: e.cfg, stdout: rec.Stream(1), stderr: rec.Stream(2), stdin: strings.NewReader(""), an: e.an,
		shared: shared, longLived: true, colorSet: &color, perRun: true, wd: req.Wd}
	code := finish(re, "search", runSearch(re, req.Args[1:]))
	residentAnswered.Add(1)
	return resident.Response{Output: rec.Chunks(), Code: code}
}
