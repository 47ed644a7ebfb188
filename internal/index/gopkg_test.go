package index

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/walk"
)

// A directory's package is loaded once while its files are prepared and
// dropped after the last of them; a directory the run's counts do not know
// keeps its package.
func TestGoPackagesDropDoneDirectories(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, f := range []string{"a/x.go", "a/y.go", "b/z.go", "c/w.go"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package p\n\ntype T struct{ n int }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	abs := func(f string) string { return filepath.Join(root, filepath.FromSlash(f)) }
	var files []walk.File
	for _, f := range []string{"a/x.go", "a/y.go", "a/notes.txt", "b/z.go"} {
		files = append(files, walk.File{Path: f, Abs: abs(f)})
	}
	g := newGoPackages(files)
	held := func(dir string) bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.dirs[abs(dir)] != nil
	}
	p1 := g.get(abs("a/x.go"))
	if p1 == nil {
		t.Fatal("no package for a/x.go")
	}
	g.done(abs("a/x.go"))
	g.done(abs("a/notes.txt"))
	if !held("a") {
		t.Fatal("a's package dropped with a/y.go still to prepare")
	}
	if p := g.get(abs("a/y.go")); p != p1 {
		t.Error("a/y.go got another package than a/x.go: loaded twice")
	}
	g.done(abs("a/y.go"))
	if held("a") {
		t.Error("a's package held after its last file")
	}
	// b/z.go is done without asking for its package (a skip, a read error)
	g.done(abs("b/z.go"))
	if held("b") {
		t.Error("b has an entry though nothing asked for it")
	}
	// c is not among the run's files: its package stays
	if g.get(abs("c/w.go")) == nil {
		t.Fatal("no package for c/w.go")
	}
	g.done(abs("c/w.go"))
	if !held("c") {
		t.Error("c's package dropped though the counts do not know c")
	}
	// a package asked for again after its directory was done is loaded again
	if p := g.get(abs("a/x.go")); p == nil || p == p1 {
		t.Errorf("a/x.go after a was done: %p, want a new package (first %p)", p, p1)
	}
}

// A big file waits for the big parse in progress (bigParse); a small one
// does not.
func TestBigParsesOneAtATime(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\n")
	for i := 0; b.Len() < bigParseBytes; i++ {
		fmt.Fprintf(&b, "func f%d(a int) int { return a + %d }\n", i, i)
	}
	big := []byte(b.String())
	// how long the big file takes unhindered: below, the test waits
	// twice that (and more) for a parse that must not end
	start := time.Now()
	if _, err := parseSafe("big.go", big, chunk.Options{}); err != nil {
		t.Fatal(err)
	}
	alone := time.Since(start)
	bigParse.Lock()
	if _, err := parseSafe("small.go", []byte("package p\n\nfunc f() {}\n"), chunk.Options{}); err != nil {
		bigParse.Unlock()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := parseSafe("big.go", big, chunk.Options{})
		done <- err
	}()
	select {
	case err := <-done:
		bigParse.Unlock()
		t.Fatalf("a big file was parsed while another big parse held bigParse (err %v)", err)
	case <-time.After(2*alone + 100*time.Millisecond):
	}
	bigParse.Unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
