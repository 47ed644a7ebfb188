package cli

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/testutil"
)

// TestSIGKILLDuringIndex kills the indexer in the middle of a run and checks
// the database opens, passes integrity_check, searches, and that the next
// run completes it to the same chunk count as a fresh index.
func TestSIGKILLDuringIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the coderag binary")
	}
	bin := testutil.Binary(t)
	home := setHome(t)
	root := filepath.Join(goroot(t), "src", "net")
	cmd := exec.Command(bin, "index", root)
	cmd.Env = append(os.Environ(), "CODERAG_HOME="+home)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// wait until some files are committed, then SIGKILL: the first
	// progress line comes after 10 files (off a terminal the next ones
	// only every few seconds), a second later some 50 are done
	sc := bufio.NewScanner(stderr)
	deadline := time.After(2 * time.Minute)
	progressed := make(chan struct{})
	go func() {
		first := true
		for sc.Scan() {
			if first && strings.HasPrefix(sc.Text(), "processed ") {
				first = false
				close(progressed)
			}
		}
	}()
	select {
	case <-progressed:
	case <-deadline:
		t.Fatal("indexer made no progress")
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(home, "index.db"))
	if err != nil {
		t.Fatalf("open after kill: %v", err)
	}
	if v, err := st.IntegrityCheck(ctx); err != nil || v != "ok" {
		t.Fatalf("integrity_check: %q %v", v, err)
	}
	st.Close()
	if code, _, errs := run(t, "search", "--project", root, "dial a TCP connection"); code != 0 {
		t.Fatalf("search after kill: %s", errs)
	}
	if code, _, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("resume: %s", errs)
	}
	count := func(home string) int {
		st, err := store.Open(ctx, filepath.Join(home, "index.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		c, err := st.Count(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		return c.Chunks
	}
	resumed := count(home)
	fresh := setHome(t)
	if code, _, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("fresh: %s", errs)
	}
	if want := count(fresh); resumed != want {
		t.Fatalf("resumed index has %d chunks, fresh has %d", resumed, want)
	}
}
