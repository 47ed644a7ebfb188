//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/testutil"
)

// TestUnreadableFileIsSkipped: a file this user may not read is named as a
// skip with its reason by index (exit 0, run after run) and stats, and the
// search after it notes no change; an unreadable directory is named once,
// without the ignore files it may hold.
func TestUnreadableFileIsSkipped(t *testing.T) {
	if testutil.RerunUnprivileged(t) {
		return
	}
	setHome(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.go"), "package a\n\n// Alpha is first.\nfunc Alpha() {}\n")
	writeFile(t, filepath.Join(dir, "locked.go"), "package a\n\nfunc Locked() {}\n")
	writeFile(t, filepath.Join(dir, "sealed", "b.go"), "package sealed\n\nfunc B() {}\n")
	for _, p := range []string{"locked.go", "sealed"} {
		os.Chmod(filepath.Join(dir, p), 0)
		defer os.Chmod(filepath.Join(dir, p), 0o755)
	}
	for i := 0; i < 2; i++ {
		code, out, errs := run(t, "index", "--quiet", dir)
		if code != 0 || !strings.Contains(out, "0 failed, 2 skipped") || !strings.Contains(out, "skipped: locked.go (unreadable)") ||
			strings.Count(out, "skipped: sealed") != 1 || strings.Contains(out, "ignore file") {
			t.Fatalf("index run %d: exit %d\n%s\n%s", i+1, code, out, errs)
		}
	}
	code, out, errs := run(t, "search", "--project", dir, "alpha")
	if code != 0 || !strings.Contains(out, "Alpha") || strings.Contains(errs, "changed since the last index") {
		t.Errorf("search: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = run(t, "stats")
	if code != 0 || !strings.Contains(out, "skipped:   2 by the last run") || !strings.Contains(out, "locked.go (unreadable)") {
		t.Errorf("stats: exit %d\n%s", code, out)
	}
}
