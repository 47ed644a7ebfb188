package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyPathIsUsage: an empty PATH or --project/--root (an unset shell
// variable) is a one-line usage error with exit 2, never the current
// directory, which here holds an indexable file.
func TestEmptyPathIsUsage(t *testing.T) {
	home := setHome(t)
	cwd := t.TempDir()
	os.WriteFile(filepath.Join(cwd, "a.go"), []byte("package a\n\nfunc Alpha() {}\n"), 0o644)
	t.Chdir(cwd)
	for _, args := range [][]string{
		{"index", "--quiet", ""},
		{"remove", ""},
		{"search", "--project", "", "alpha"},
		{"search", "--project", cwd, "--project", "", "alpha"},
		{"stats", "--project", ""},
		{"graph", "--project", "", "Alpha"},
		{"grep", "--project", "", "Alpha"},
		{"glob", "--project", "", "*.go"},
		{"read", "--project", "", "a.go"},
		{"ask", "--project", "", "where is alpha"},
		{"mcp", "--root", ""},
	} {
		code, out, errs := run(t, args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, "is empty") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%q: exit %d out %q err %q", args, code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "index.db")); err == nil {
		t.Error("an empty PATH created an index")
	}
}

// TestReadNamesTheRootsFile: in a subdirectory holding a file of the same
// name as one at the project root, `read NAME` reads the root's (search
// prints root-relative paths) and says so on stderr, naming ./NAME for
// the working directory's; `read ./NAME` reads that one, with no note.
func TestReadNamesTheRootsFile(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	for rel, body := range map[string]string{"jar.go": "package root\n", "sub/jar.go": "package sub\n\nfunc A() {}\n"} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	t.Chdir(filepath.Join(root, "sub"))
	code, out, errs := run(t, "read", "jar.go")
	if code != 0 || !strings.Contains(out, "package root") || !strings.Contains(errs, "the working directory's is ./jar.go") {
		t.Errorf("read jar.go: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run(t, "read", "./jar.go")
	if code != 0 || !strings.Contains(out, "package sub") || errs != "" {
		t.Errorf("read ./jar.go: %d\n%s\n%s", code, out, errs)
	}
}
