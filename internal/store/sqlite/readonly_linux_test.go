package sqlite

import (
	"context"
	"github.com/coderag/coderag/internal/store"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tests run as root, which write permission bits do not stop, so an
// index that "cannot be written" is made with what stops root too: a
// read-only bind mount of its directory (EROFS, a read-only file system)
// and the immutable attribute (chattr +i: EPERM on any write, of a
// directory's entries or of a file). Both need root and a file system
// that has them (ext4 does); the test is skipped where they fail.

// roMount mounts dir read-only on itself until the test ends.
func roMount(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("mount", "--bind", dir, dir).CombinedOutput(); err != nil {
		t.Skipf("no bind mount here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", dir).CombinedOutput(); err != nil {
		t.Skipf("no read-only remount here: %v %s", err, out)
	}
}

// immutable sets the immutable attribute of p until the test ends.
func immutable(t *testing.T, p string) {
	t.Helper()
	if out, err := exec.Command("chattr", "+i", p).CombinedOutput(); err != nil {
		t.Skipf("no chattr +i here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", p).Run() })
}

// TestReadOnlyIndex: an index on a read-only file system, in a directory
// that cannot be written, or itself immutable opens read-only (ReadOnly),
// lists its projects, and Check (`coderag doctor`) finds it healthy, with
// no "attempt to write a readonly database"; a write fails.
func TestReadOnlyIndex(t *testing.T) {
	for _, tc := range []struct {
		name string
		lock func(t *testing.T, dir, file string)
	}{
		{"read-only file system", func(t *testing.T, dir, _ string) { roMount(t, dir) }},
		{"immutable directory", func(t *testing.T, dir, _ string) { immutable(t, dir) }},
		{"immutable file", func(t *testing.T, _, file string) { immutable(t, file) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			file := filepath.Join(dir, "index.db")
			s, err := Open(ctx, file)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.PutProject(ctx, store.Project{Path: "/src/p", Embedder: "local:test", Dim: 4}); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(file + "-wal"); err == nil {
				t.Fatalf("a WAL file is left after Close")
			}
			tc.lock(t, dir, file)
			s, err = Open(ctx, file)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer s.Close()
			ps, err := s.Projects(ctx)
			if err != nil || len(ps) != 1 || ps[0].Path != "/src/p" {
				t.Fatalf("projects: %v %+v", err, ps)
			}
			if !s.ReadOnly() {
				t.Errorf("not opened read-only")
			}
			if err := s.PutProject(ctx, store.Project{Path: "/src/q"}); err == nil {
				t.Errorf("a write to a read-only index succeeded")
			}
			rep, err := Check(ctx, file, true)
			if err != nil || len(rep.Problems) != 0 || len(rep.Projects) != 1 {
				t.Errorf("check: %v %+v", err, rep)
			}
			for _, p := range rep.Problems {
				if strings.Contains(p, "readonly") {
					t.Errorf("check reports %q for a healthy index", p)
				}
			}
		})
	}
}

// TestReadOnlyIndexWithUnmergedWAL: an index whose directory cannot be
// written while its WAL holds changes (a run killed before its checkpoint,
// or a writer still at work on the same files) is not opened immutable,
// which would read the main file without them (or torn pages of a live
// writer) and call that damage: Open fails saying the changes are not
// merged, not damaged, and Check reports it unreadable, with no problem.
func TestReadOnlyIndexWithUnmergedWAL(t *testing.T) {
	ctx := context.Background()
	live := filepath.Join(t.TempDir(), "index.db")
	s, err := Open(ctx, live)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutProject(ctx, store.Project{Path: "/src/p", Embedder: "local:test", Dim: 4}); err != nil {
		t.Fatal(err)
	}
	// a copy of the files while the store is open: the project row is in
	// the WAL only, as after a kill before the checkpoint
	dir := t.TempDir()
	file := filepath.Join(dir, "index.db")
	for _, suf := range []string{"", "-wal"} {
		b, err := os.ReadFile(live + suf)
		if err != nil {
			t.Fatal(err)
		}
		if suf == "-wal" && len(b) == 0 {
			t.Fatal("the open store's WAL is empty")
		}
		if err := os.WriteFile(file+suf, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	roMount(t, dir)
	if _, err := Open(ctx, file); err == nil || store.Damaged(err) || !strings.Contains(err.Error(), "not yet merged") {
		t.Errorf("open: %v, want the unmerged changes named, not damage", err)
	}
	rep, err := Check(ctx, file, true)
	if err != nil || len(rep.Problems) != 0 || !strings.Contains(rep.Unreadable, "not yet merged") {
		t.Errorf("check: %v %+v, want unreadable for the unmerged changes and no problem", err, rep)
	}
}
