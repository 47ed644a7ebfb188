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
