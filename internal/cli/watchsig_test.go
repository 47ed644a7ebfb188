//go:build unix

package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/testutil"
)

// TestWatchNamesFilesAndStopsOnSigterm runs the real binary's `index
// --watch`: a re-index line names the saved and the deleted files, and
// SIGTERM ends the process with status 0 and a line saying it stopped and
// why.
func TestWatchNamesFilesAndStopsOnSigterm(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the coderag binary")
	}
	bin := testutil.Binary(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel, src string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package a\n\n// Alpha does a.\nfunc Alpha() {}\n")
	write("old.go", "package a\n\nfunc Old() {}\n")
	cmd := exec.Command(bin, "index", "--watch", "--quiet", root)
	cmd.Env = serverEnv(t)
	var out, errb lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		// a bound on a hung process, not a timing assertion
		for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %s; stdout %q stderr %q", what, out.String(), errb.String())
			}
		}
	}
	waitFor("watching line", func() bool { return strings.Contains(errb.String(), "watching "+root) })
	write("pkg/b.go", "package pkg\n\n// Beta does b.\nfunc Beta() {}\n")
	if err := os.Remove(filepath.Join(root, "old.go")); err != nil {
		t.Fatal(err)
	}
	waitFor("re-index line naming both files", func() bool {
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.Contains(l, "re-indexed") && strings.Contains(l, "pkg/b.go") && strings.Contains(l, "old.go (removed)") {
				return true
			}
		}
		return false
	})
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("exit status %d after SIGTERM (%v), want 0; stderr %q", code, err, errb.String())
		}
	case <-time.After(30 * time.Second): // a bound, not a timing assertion
		t.Fatalf("still running after SIGTERM; stderr %q", errb.String())
	}
	if want := "watch: stopped watching " + root + " (terminated signal received)\n"; !strings.HasSuffix(errb.String(), want) {
		t.Errorf("stderr after SIGTERM %q, want it to end with %q", errb.String(), want)
	}
}
