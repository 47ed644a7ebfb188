package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestResidentArgs(t *testing.T) {
	wd := "/work/proj"
	for _, c := range []struct {
		args []string
		want []string // nil: not forwarded
	}{
		{[]string{"retry", "backoff"}, []string{"--project=/work/proj", "retry", "backoff"}},
		{[]string{"--json", "--top-k", "5", "retry"}, []string{"--project=/work/proj", "--json", "--top-k=5", "retry"}},
		{[]string{"--project", "sub/dir", "q"}, []string{"--project=/work/proj/sub/dir", "q"}},
		{[]string{"-project=/abs", "q"}, []string{"--project=/abs", "q"}},
		{[]string{"--all", "q"}, []string{"--all", "q"}},
		{[]string{"q", "-file:vendor/**"}, []string{"--project=/work/proj", "q", "-file:vendor/**"}},
		{[]string{"--", "--store", "x"}, []string{"--project=/work/proj", "--", "--store", "x"}},
		{[]string{"--store", "/other.db", "q"}, nil}, // a configuration flag
		{[]string{"--allow-secrets", "q"}, nil},      // one too
		{[]string{"--help"}, nil},                    // help is printed here
		{[]string{"--top-k"}, nil},                   // a value flag without its value
		{[]string{"--project=", "q"}, nil},           // the command's own error
		{[]string{"--projcet", "x", "q"}, nil},       // misspelt: the command's own error
	} {
		got, ok := residentArgs(c.args, wd)
		if c.want == nil {
			if ok {
				t.Errorf("residentArgs(%q) forwarded %q", c.args, got)
			}
			continue
		}
		if !ok || !slices.Equal(got, c.want) {
			t.Errorf("residentArgs(%q) = %q, %v; want %q", c.args, got, ok, c.want)
		}
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- MainIO(ctx, []string{"index", "--watch", "--quiet", root}, testLookup(t), strings.NewReader(""), &out, &errb)
	}()
	waitUntil(t, "watching", func() bool { return strings.Contains(errb.String(), "watching") }, &out, &errb)
	if fi, err := os.Lstat(filepath.Join(home, "resident.sock")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the watcher's socket: %v %v", fi, err)
	}

	local := func(args ...string) (int, string, string) {
		t.Helper()
		setenv(t, "CODERAG_RESIDENT", "off")
		defer setenv(t, "CODERAG_RESIDENT", "on")
		return run(t, args...)
	}
	for _, args := range [][]string{
		{"search", "--project", root, "wait longer after a failure"},
		{"search", "--json", "--project", root, "header line"},
		{"search", "--explain", "--top-k", "1", "--project", root, "Backoff"},
		{"search", "--project", root, "lnag:go retry"}, // a bad filter: exit 2 either way
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

	// a save is seen by the watcher's next answers
	os.WriteFile(filepath.Join(root, "parse.go"), []byte("package a\n\n// Zebra grazes all day.\nfunc Zebra() {}\n"), 0o644)
	waitUntil(t, "the saved file answered by the watcher", func() bool {
		_, o, _ := run(t, "search", "--project", root, "zebra grazes")
		return strings.Contains(o, "Zebra()")
	}, &out, &errb)

	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("watch exit %d: %s", code, errb.String())
	}
	if _, err := os.Lstat(filepath.Join(home, "resident.sock")); err == nil {
		t.Fatal("the socket outlived the watcher")
	}
}
