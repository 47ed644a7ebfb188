package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/resident"
)

func TestResidentArgs(t *testing.T) {
	for _, c := range []struct {
		args     []string
		projects []string // nil with ok false: not forwarded
		ok       bool
	}{
		{[]string{"retry", "backoff"}, []string{"."}, true},
		{[]string{"--json", "--top-k", "5", "retry"}, []string{"."}, true},
		{[]string{"--project", "sub/dir", "q"}, []string{"sub/dir"}, true},
		{[]string{"-project=/abs", "--project", "b", "q"}, []string{"/abs", "b"}, true},
		{[]string{"--all", "q"}, nil, true},
		{[]string{"q", "-file:vendor/**"}, []string{"."}, true},
		{[]string{"--", "--store", "x"}, []string{"."}, true},
		{[]string{"--project", "/proc/self/cwd", "q"}, []string{"/proc/self/cwd"}, true}, // resolveProjects decides
		{[]string{"--store", "/other.db", "q"}, nil, false},                              // a configuration flag
		{[]string{"--allow-secrets", "q"}, nil, false},                                   // one too
		{[]string{"--help"}, nil, false},                                                 // help is printed here
		{[]string{"--top-k"}, nil, false},                                                // a value flag without its value
		{[]string{"--projcet", "x", "q"}, nil, false},                                    // misspelt: the command's own error
	} {
		got, ok := residentArgs(c.args)
		if ok != c.ok || !slices.Equal(got, c.projects) {
			t.Errorf("residentArgs(%q) = %q, %v; want %q, %v", c.args, got, ok, c.projects, c.ok)
		}
	}
}

// A project path that leads elsewhere in the server than in the client
// (/proc/self/cwd is each process's own directory) is refused, and the
// client runs the search itself.
func TestResidentRefusesPathsThatLeadElsewhere(t *testing.T) {
	setHome(t)
	wd := t.TempDir()
	cfg, err := config.FromLookup(testLookup(t))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{ctx: context.Background(), cfg: cfg, stdout: io.Discard, stderr: io.Discard, an: newAnalyzer(cfg)}
	id := residentIdentity(cfg)
	args := []string{"search", "--project", "/proc/self/cwd", "q"}
	here := resolveProjects(wd, []string{"/proc/self/cwd"})
	if here[0] == "" {
		t.Skip("no /proc/self/cwd on this system")
	}
	resp := answerResident(context.Background(), e, &sharedEngine{}, id, resident.Request{Identity: id, Args: args, Wd: wd,
		Projects: []string{"/home/the-client"}})
	if resp.Refused == "" {
		t.Fatalf("a project that leads elsewhere here was run: %+v", resp)
	}
}

// TestResidentSearch runs searches while a watcher runs: the watcher
// answers them, with the bytes and exit status the search prints when it
// runs in its own process; a client of another configuration, a
// configuration flag and CODERAG_RESIDENT=off run in their own process.
func TestResidentSearch(t *testing.T) {
	home := setHome(t)
	// the dictionary is part of the identity, and without a setting it is
	// looked for above the working directory, which this test changes
	setenv(t, "CODERAG_CEDICT", "off")
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "retry.go"), []byte("package a\n\n// Backoff waits longer after each failed attempt.\nfunc Backoff(n int) int { return n * 2 }\n"), 0o644)
	os.WriteFile(filepath.Join(root, "parse.go"), []byte("package a\n\n// ParseHeader reads one header line.\nfunc ParseHeader(s string) string { return s }\n"), 0o644)
	if code, _, errb := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %s", errb)
	}
	out, errb, stop := startWatch(t, root)
	// the socket is made beside the watch, after "watching" is printed
	waitUntil(t, "the socket", func() bool { return strings.Contains(errb.String(), "answering this index's searches") }, out, errb)
	if fi, err := os.Lstat(filepath.Join(home, "resident.sock")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the watcher's socket: %v %v", fi, err)
	}

	if _, o, _ := run(t, "stats"); !strings.Contains(o, "resident: a watcher answers this index's searches on "+filepath.Join(home, "resident.sock")) {
		t.Fatalf("stats does not say a watcher answers: %q", o)
	}
	local := func(args ...string) (int, string, string) {
		t.Helper()
		setenv(t, "CODERAG_RESIDENT", "off")
		defer setenv(t, "CODERAG_RESIDENT", "on")
		return run(t, args...)
	}
	t.Chdir(filepath.Dir(root))
	for _, args := range [][]string{
		{"search", "--project", root, "wait longer after a failure"},
		{"search", "--json", "--project", root, "header line"},
		{"search", "--explain", "--top-k", "1", "--project", root, "Backoff"},
		{"search", "--project", root, "lnag:go retry"},                       // a bad filter: exit 2 either way
		{"search", "--project", filepath.Base(root), "header line"},          // relative to the client's directory
		{"search", "--project", filepath.Base(root) + "/nonexist", "header"}, // its error names it as typed
		{"search", "--json", "--project", "nonexist", "header"},              // as typed in JSON too
	} {
		before := residentAnswered.Load()
		code, o, e := run(t, args...)
		if residentAnswered.Load() != before+1 {
			t.Fatalf("%q was not answered by the watcher", args)
		}
		lcode, lo, le := local(args...)
		if code != lcode || o != lo || e != le {
			t.Fatalf("%q: the watcher answered %d %q %q, the process alone %d %q %q", args, code, o, e, lcode, lo, le)
		}
	}
	if _, o, _ := run(t, "search", "--project", root, "wait longer after a failure"); !strings.Contains(o, "Backoff") {
		t.Fatalf("the watcher's answer lacks Backoff: %q", o)
	}

	// an output that cannot be written (a full disk) fails as it does in
	// the process alone: the client runs the search and meets the error
	full := func(mode string) (int, string) {
		setenv(t, "CODERAG_RESIDENT", mode)
		defer setenv(t, "CODERAG_RESIDENT", "on")
		var errb bytes.Buffer
		code := MainIO(context.Background(), []string{"search", "--json", "--project", root, "header line"}, testLookup(t),
			strings.NewReader(""), fullWriter{}, &errb)
		return code, errb.String()
	}
	rcode, rerr := full("on")
	lcode, lerr := full("off")
	if rcode != lcode || rerr != lerr || rcode == 0 {
		t.Fatalf("a full disk: with the watcher %d %q, alone %d %q", rcode, rerr, lcode, lerr)
	}

	// the working directory is the client's, not the watcher's
	t.Chdir(root)
	before := residentAnswered.Load()
	if code, o, e := run(t, "search", "header line"); code != 0 || !strings.Contains(o, "ParseHeader") || residentAnswered.Load() != before+1 {
		t.Fatalf("a search of the working directory: %d %q %q (answered by the watcher: %v)", code, o, e, residentAnswered.Load() != before)
	}

	// another configuration, a configuration flag, or off: not the watcher
	for _, c := range []struct {
		env  [2]string
		args []string
	}{
		{[2]string{"EMBEDDING_MODEL", "hashing-768-v1"}, []string{"search", "--project", root, "header line"}},
		{[2]string{"CODERAG_RESIDENT", "off"}, []string{"search", "--project", root, "header line"}},
		{[2]string{}, []string{"search", "--allow-secrets", "--project", root, "header line"}},
	} {
		if c.env[0] != "" {
			setenv(t, c.env[0], c.env[1])
		}
		before := residentAnswered.Load()
		code, o, e := run(t, c.args...)
		if c.env[0] != "" {
			setenv(t, c.env[0], "")
		}
		if residentAnswered.Load() != before {
			t.Fatalf("%v %q was answered by the watcher", c.env, c.args)
		}
		if code != 0 || !strings.Contains(o, "ParseHeader") {
			t.Fatalf("%v %q in its own process: %d %q %q", c.env, c.args, code, o, e)
		}
	}

	// a project the watcher does not watch, with more changed files than
	// a search re-indexes in place: its note on stderr comes before the
	// results on stdout, in the watcher's answer as in the process alone
	other := t.TempDir()
	for i := 0; i < 40; i++ {
		os.WriteFile(filepath.Join(other, fmt.Sprintf("f%02d.go", i)), []byte(fmt.Sprintf("package o\n\n// Decode%d reads stream %d.\nfunc Decode%d() {}\n", i, i, i)), 0o644)
	}
	if code, _, e := run(t, "index", "--quiet", other); code != 0 {
		t.Fatalf("index: %s", e)
	}
	for i := 0; i < 40; i++ {
		f, _ := os.OpenFile(filepath.Join(other, fmt.Sprintf("f%02d.go", i)), os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("// changed\n")
		f.Close()
	}
	combined := func(mode string) (int, string) {
		setenv(t, "CODERAG_RESIDENT", mode)
		var b bytes.Buffer
		code := MainIO(context.Background(), []string{"search", "--top-k", "2", "--project", other, "decode stream"}, testLookup(t), strings.NewReader(""), &b, &b)
		return code, b.String()
	}
	before = residentAnswered.Load()
	rcode, rout := combined("on")
	if residentAnswered.Load() != before+1 {
		t.Fatal("the unwatched project's search was not answered by the watcher")
	}
	lcode, lout := combined("off")
	setenv(t, "CODERAG_RESIDENT", "on")
	if rcode != lcode || rout != lout || !strings.HasPrefix(rout, "note: 40 files changed") || !strings.Contains(rout, "\n 1. ") {
		t.Fatalf("interleaved output: the watcher gave %d %q, the process alone %d %q", rcode, rout, lcode, lout)
	}

	// an edit the watcher's events do not show (an emptied ignore file
	// un-ignores a directory nobody watches) is seen by the freshness
	// check each answer runs
	os.MkdirAll(filepath.Join(root, "extra"), 0o755)
	os.WriteFile(filepath.Join(root, "extra", "e.go"), []byte("package extra\n\n// Vicuna grazes high.\nfunc Vicuna() {}\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("extra/\n"), 0o644)
	waitUntil(t, "the ignore file re-indexed", func() bool {
		_, o, _ := run(t, "search", "--project", root, "vicuna grazes")
		return !strings.Contains(o, "Vicuna()")
	}, out, errb)
	os.WriteFile(filepath.Join(root, ".gitignore"), nil, 0o644)
	before = residentAnswered.Load()
	if _, o, e := run(t, "search", "--project", root, "vicuna grazes"); !strings.Contains(o, "Vicuna()") || residentAnswered.Load() != before+1 {
		t.Fatalf("an un-ignored file, answered by the watcher: %q %q", o, e)
	}

	// a save is seen by the watcher's next answers
	os.WriteFile(filepath.Join(root, "parse.go"), []byte("package a\n\n// Zebra grazes all day.\nfunc Zebra() {}\n"), 0o644)
	waitUntil(t, "the saved file answered by the watcher", func() bool {
		_, o, _ := run(t, "search", "--project", root, "zebra grazes")
		return strings.Contains(o, "Zebra()")
	}, out, errb)

	stop()
	if _, err := os.Lstat(filepath.Join(home, "resident.sock")); err == nil {
		t.Fatal("the socket outlived the watcher")
	}
	if _, o, _ := run(t, "stats"); strings.Contains(o, "resident:") {
		t.Fatalf("stats says a watcher answers after it stopped: %q", o)
	}
}

// fullWriter fails every write, as a file on a full disk does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestResidentTakeOver runs two watchers of one index: the second leaves
// the answering to the first, says so, and takes the socket over when the
// first stops.
func TestResidentTakeOver(t *testing.T) {
	defer func(d time.Duration) { residentRetry = d }(residentRetry)
	residentRetry = 50 * time.Millisecond
	home := setHome(t)
	setenv(t, "CODERAG_CEDICT", "off")
	a, b := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(a, "a.go"), []byte("package a\n\n// Alpha answers.\nfunc Alpha() {}\n"), 0o644)
	os.WriteFile(filepath.Join(b, "b.go"), []byte("package b\n\n// Beta answers.\nfunc Beta() {}\n"), 0o644)
	_, errA, stopA := startWatch(t, a)
	_, errB, stopB := startWatch(t, b)
	waitUntil(t, "the second watcher steps aside", func() bool { return strings.Contains(errB.String(), "answers them when it stops") }, errA, errB)
	if strings.Contains(errB.String(), "answering this index's searches") {
		t.Fatalf("the second watcher answers too: %s", errB.String())
	}
	stopA()
	waitUntil(t, "the second watcher takes over", func() bool { return strings.Contains(errB.String(), "answering this index's searches") }, errA, errB)
	before := residentAnswered.Load()
	if _, o, e := run(t, "search", "--project", a, "alpha answers"); !strings.Contains(o, "Alpha()") || residentAnswered.Load() != before+1 {
		t.Fatalf("after the take-over: %q %q", o, e)
	}
	stopB()
	if _, err := os.Lstat(filepath.Join(home, "resident.sock")); err == nil {
		t.Fatal("the socket outlived both watchers")
	}
}

// TestResidentIdentityReadsLibpqEnv: with a PostgreSQL store whose
// connection string leaves the database out, libpq's environment picks
// it, so a watcher of one database must not answer a client whose
// PGDATABASE names another (their identities differ); a SQLite index's
// identity does not depend on it.
func TestResidentIdentityReadsLibpqEnv(t *testing.T) {
	cfg, err := config.FromLookup(func(k string) (string, bool) {
		switch k {
		case "CODERAG_HOME":
			return t.TempDir(), true
		case "CODERAG_STORE":
			return "host=127.0.0.1 port=5432", true
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGDATABASE", "dba")
	a := residentIdentity(cfg)
	t.Setenv("PGDATABASE", "dbb")
	if b := residentIdentity(cfg); a == b {
		t.Error("the identity is the same for PGDATABASE=dba and dbb")
	}
	cfg.Store = ""
	c := residentIdentity(cfg)
	t.Setenv("PGDATABASE", "dba")
	if d := residentIdentity(cfg); c != d {
		t.Error("a SQLite index's identity depends on PGDATABASE")
	}
}

// TestResidentMakesItsHome: a watcher whose index is not in its home
// (CODERAG_STORE elsewhere, as a PostgreSQL store is) makes the home, so
// that its socket can be bound and searches answered.
func TestResidentMakesItsHome(t *testing.T) {
	home := filepath.Join(setHome(t), "not-yet")
	setenv(t, "CODERAG_HOME", home)
	setenv(t, "CODERAG_STORE", filepath.Join(t.TempDir(), "index.db"))
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\n// Alpha does a.\nfunc Alpha() {}\n"), 0o644)
	out, errb, stop := startWatch(t, root)
	defer stop()
	waitUntil(t, "answering", func() bool { return strings.Contains(errb.String(), "answering this index's searches") }, out, errb)
	if strings.Contains(errb.String(), "not answered by this watcher") {
		t.Errorf("the watcher did not answer searches: %s", errb.String())
	}
	if fi, err := os.Stat(home); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("home %v %v, want a 0700 directory", fi, err)
	}
}
