//go:build unix

package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/walk"
)

// The tests in this file build hostile trees on the real file system: FIFOs
// (syscall.Mkfifo), symlinks to /dev/zero and to files outside the root,
// files swapped while they are read, names that are not UTF-8.

// hangGuard runs f and fails the test if it has not returned after limit: a
// guard against a hang (the old code blocked forever on a FIFO), not a
// timing assertion.
func hangGuard(t *testing.T, what string, limit time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("%s did not return within %s: it hangs", what, limit)
	}
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// TestFIFOsAreNeverRead: a FIFO named like source, as a file and as the
// project's .gitignore and .coderagignore, and a .gitignore symlinked to
// /dev/zero: read refuses the FIFO at once, grep (both engines) and glob
// finish and list the regular files.
func TestFIFOsAreNeverRead(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "a.go", "package a\n// Needle is here.\n")
	mkfifo(t, filepath.Join(root, "pipe.go"))
	mkfifo(t, filepath.Join(root, "sub", "pipe.txt"))
	write(t, root, "sub/b.go", "package b\n// Needle again.\n")
	mkfifo(t, filepath.Join(root, ".coderagignore"))
	mkfifo(t, filepath.Join(root, "sub", ".gitignore"))
	if err := os.Symlink("/dev/zero", filepath.Join(root, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	hangGuard(t, "read of a FIFO", time.Minute, func() {
		_, err := Read(ctx, root, ReadParams{Path: "pipe.go"})
		if !errors.Is(err, walk.ErrNotRegular) {
			t.Errorf("read pipe.go: %v, want ErrNotRegular", err)
		}
	})
	for _, eng := range engines(t) {
		hangGuard(t, eng+" grep over FIFOs", time.Minute, func() {
			r := grep(t, root, GrepParams{Pattern: "Needle", Engine: eng})
			if len(r.Matches) != 2 || r.Partial {
				t.Errorf("%s: %d matches, want 2, partial %v %s: %+v", eng, len(r.Matches), r.Partial, r.Note, r.Matches)
			}
		})
		hangGuard(t, eng+" grep of a FIFO", time.Minute, func() {
			_, err := Grep(ctx, root, GrepParams{Pattern: "x", Path: "pipe.go", Engine: eng})
			if !errors.Is(err, walk.ErrNotRegular) {
				t.Errorf("%s grep pipe.go: %v, want ErrNotRegular", eng, err)
			}
		})
	}
	hangGuard(t, "glob over FIFOs", time.Minute, func() {
		r, err := Glob(ctx, root, GlobParams{Pattern: "**"})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(r.Files, ",") != "a.go,sub/b.go" {
			t.Errorf("glob: %v", r.Files)
		}
	})
}

// TestReadStreamsLargeFiles: reading 2 lines of a 48 MiB text file does not
// load it (the old Read held the file, a string copy and its lines: three
// times its size), and past the scan cap the total is a lower bound.
func TestReadStreamsLargeFiles(t *testing.T) {
	root := t.TempDir()
	line := strings.Repeat("x", 99) + "\n"
	f, err := os.Create(filepath.Join(root, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	block := strings.Repeat(line, 10_000) // 1,000,000 bytes
	for range 48 {
		f.WriteString(block)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := Read(context.Background(), root, ReadParams{Path: "big.txt", Limit: 2})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("read of 2 lines allocated %d bytes for a 48 MB file", alloc)
	}
	if len(r.Lines) != 2 || r.TotalLines != 480_000 || r.NextOffset != 3 || r.TotalAtLeast {
		t.Errorf("got %d lines, total %d, next %d, at least %v", len(r.Lines), r.TotalLines, r.NextOffset, r.TotalAtLeast)
	}

	old := readScanCap
	readScanCap = 1 << 20
	t.Cleanup(func() { readScanCap = old })
	r, err = Read(context.Background(), root, ReadParams{Path: "big.txt", Offset: 10_000, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !r.TotalAtLeast || r.TotalLines != 10_485 || r.NextOffset != 10_002 || !strings.Contains(r.Text, "of at least 10485") {
		t.Errorf("past the cap: total %d, at least %v, next %d, text %q", r.TotalLines, r.TotalAtLeast, r.NextOffset, r.Text)
	}
	if _, err := Read(context.Background(), root, ReadParams{Path: "big.txt", Offset: 20_000}); !errors.Is(err, ErrOffsetPastEnd) {
		t.Errorf("offset past the cap: %v", err)
	}
}

// TestSwapRaceNeverReadsOutside swaps root/race.txt between a regular file
// and a symlink to a secret outside the root while read_file and grep
// (both engines) run: no answer may ever hold the secret. Bounded by a
// number of calls, not by time.
func TestSwapRaceNeverReadsOutside(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("TOPSECRET outside the root\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, root, "a.go", "package a\n")
	race := filepath.Join(root, "race.txt")
	regular, link := filepath.Join(root, ".regular.tmp"), filepath.Join(root, ".link.tmp")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the attacker: atomic renames, so race.txt always exists
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			if i%2 == 0 {
				os.WriteFile(regular, []byte("TOPSECRET is not here, harmless inside\n"), 0o644)
				os.Rename(regular, race)
			} else {
				os.Symlink(outside, link)
				os.Rename(link, race)
			}
		}
	}()
	defer func() { stop.Store(true); wg.Wait() }()
	ctx := context.Background()
	calls := 0
	check := func(what, text string) {
		calls++
		if strings.Contains(text, "outside the root") {
			t.Fatalf("%s returned outside content after %d calls: %q", what, calls, text)
		}
	}
	for i := range 600 {
		if r, err := Read(ctx, root, ReadParams{Path: "race.txt"}); err == nil {
			check("read_file", r.Text)
		} else {
			check("read_file error", err.Error())
		}
		for _, eng := range engines(t) {
			p := GrepParams{Pattern: "TOPSECRET", Engine: eng}
			if i%2 == 1 {
				p.Path = "race.txt"
			}
			if r, err := Grep(ctx, root, p); err == nil {
				check(eng+" grep", r.Text())
			} else {
				check(eng+" grep error", err.Error())
			}
		}
	}
	t.Logf("%d calls, no outside content", calls)
}

// TestRefusalsDoNotPrintTheTarget: a symlink that leads out is refused
// without saying where it leads.
func TestRefusalsDoNotPrintTheTarget(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outDir := filepath.Join(t.TempDir(), "private-place")
	write(t, outDir, "key.txt", "k\n")
	os.Symlink(filepath.Join(outDir, "key.txt"), filepath.Join(root, "k.txt"))
	os.Symlink(outDir, filepath.Join(root, "d"))
	ctx := context.Background()
	for _, p := range []string{"k.txt", "d/key.txt", "d"} {
		_, rerr := Read(ctx, root, ReadParams{Path: p})
		_, gerr := Grep(ctx, root, GrepParams{Pattern: "k", Path: p})
		_, lerr := Glob(ctx, root, GlobParams{Pattern: "*", Path: p})
		for _, err := range []error{rerr, gerr, lerr} {
			if !errors.Is(err, ErrOutsideRoot) || strings.Contains(err.Error(), "private-place") {
				t.Errorf("%s: %v", p, err)
			}
		}
	}
}

// TestInvalidUTF8NamesRoundTrip: a file name that is not UTF-8 is shown by
// glob and grep in a quoted form that read, grep and glob accept back.
func TestInvalidUTF8NamesRoundTrip(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	name := "bad\xff\xfename.go"
	write(t, root, "dir/"+name, "package bad\n// Marker line.\n")
	write(t, root, "tab\tname.go", "// Marker tab.\n")
	ctx := context.Background()
	g, err := Glob(ctx, root, GlobParams{Pattern: "**/*.go"})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Files) != 2 {
		t.Fatalf("glob: %q", g.Files)
	}
	for _, shown := range g.Files {
		if !strings.HasPrefix(shown, `"`) {
			t.Errorf("glob shows %q unquoted", shown)
		}
		r, err := Read(ctx, root, ReadParams{Path: shown})
		if err != nil || !strings.Contains(r.Text, "Marker") || r.Path != shown {
			t.Errorf("read %s: %v %+v", shown, err, r)
		}
	}
	for _, eng := range engines(t) {
		gr := grep(t, root, GrepParams{Pattern: "Marker line", Engine: eng})
		if len(gr.Matches) != 1 || gr.Matches[0].Path != fmt.Sprintf("%q", "dir/"+name) {
			t.Fatalf("%s grep: %+v", eng, gr.Matches)
		}
		sr := gr.SuggestedReads[0].Args
		if r, err := Read(ctx, root, sr); err != nil || !strings.Contains(r.Text, "Marker line") {
			t.Errorf("%s: suggested read %+v: %v", eng, sr, err)
		}
		if r, err := Grep(ctx, root, GrepParams{Pattern: "Marker", Path: gr.Matches[0].Path, Engine: eng}); err != nil || len(r.Matches) != 1 {
			t.Errorf("%s: grep in %s: %v", eng, gr.Matches[0].Path, err)
		}
	}
}

// TestHugePatternIsNotEchoed: a 9 MiB pattern is refused at once in a
// short message (the old code echoed it twice: 19 MB), and a pattern just
// under the limit that does not compile is quoted in part only.
func TestHugePatternIsNotEchoed(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "a.go", "package a\n")
	for _, p := range []string{strings.Repeat("a", 9<<20), "(" + strings.Repeat("a", 9<<20), "(" + strings.Repeat("a", MaxPatternBytes-1)} {
		for _, eng := range engines(t) {
			_, err := Grep(context.Background(), root, GrepParams{Pattern: p, Engine: eng})
			if !errors.Is(err, ErrBadPattern) || len(err.Error()) > 1024 {
				t.Errorf("%s: a %d-byte pattern gave a %d-byte error: %.300v", eng, len(p), len(fmt.Sprint(err)), err)
			}
		}
	}
}
