package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
)

// signalWriter is a syncBuffer that closes first on its first write.
type signalWriter struct {
	syncBuffer
	once  sync.Once
	first chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	defer w.once.Do(func() { close(w.first) })
	return w.syncBuffer.Write(p)
}

// TestRemoveWaitsForIndexRun: `remove` goes through the engine, so while
// another process holds the project's index lock (taken here on the same
// index database) it says so on stderr and waits, and it removes the
// project once the lock is free.
func TestRemoveWaitsForIndexRun(t *testing.T) {
	home := setHome(t)
	root, err := index.ResolveRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\n// Alpha is first.\nfunc Alpha() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(home, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := index.Lock(ctx, st, root, nil)
	st.Close() // the lock is a file beside the database, held without it
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	errw := &signalWriter{first: make(chan struct{})}
	done := make(chan int, 1)
	go func() {
		done <- MainIO(ctx, []string{"remove", root}, testLookup(t), strings.NewReader(""), &out, errw)
	}()
	select {
	case <-errw.first:
	case code := <-done:
		t.Fatalf("remove did not wait for the index lock: exit %d %q %q", code, out.String(), errw.String())
	}
	if msg := errw.String(); !strings.Contains(msg, "indexing "+root) || !strings.Contains(msg, "waiting") {
		t.Errorf("while waiting remove says %q", msg)
	}
	unlock()
	if code := <-done; code != 0 || !strings.Contains(out.String(), "removed "+root+" from the index (1 file)") {
		t.Fatalf("remove after the run: exit %d %q %q", code, out.String(), errw.String())
	}
	code, o, _ := run(t, "stats", "--json")
	if code != 0 || strings.Contains(o, root) {
		t.Errorf("stats after remove still lists %s: %s", root, o)
	}
}

// TestRemoveWithoutPath: `coderag remove` and `coderag remove ""` (an
// unset shell variable, unquoted and quoted) are one usage error, word
// for word, exit 2 (with --json also {"error": MSG} on stdout, as every
// command's error), and remove nothing: the working directory's project
// stays indexed.
func TestRemoveWithoutPath(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.go"), "package a\n\nfunc Alpha() {}\n")
	if code, _, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	t.Chdir(dir)
	want := "coderag remove: " + noRemovePath + "\n"
	for _, args := range [][]string{{"remove"}, {"remove", ""}} {
		if code, out, errs := run(t, args...); code != exitUsage || out != "" || errs != want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, out, errs, want)
		}
	}
	for _, args := range [][]string{{"remove", "--json"}, {"remove", "--json", ""}} {
		checkJSONError(t, args, exitUsage, noRemovePath)
	}
	if _, out, _ := run(t, "stats"); !strings.Contains(out, "project:   ") {
		t.Errorf("the project went:\n%s", out)
	}
}
