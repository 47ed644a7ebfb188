package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/store/storetest"
)

// The index holds the indexed code, so a new one is its owner's alone: the
// file, its write-ahead log and the lock files 0600, a new directory 0700
// (they were 0644 and 0755, and another user could open the index read-only
// and serve a private project's code). An existing file keeps its mode, and
// store.PrivateModeIssue names one other users can read.
func TestNewIndexIsPrivate(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "home")
	path := filepath.Join(dir, "index.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3}); err != nil {
		t.Fatal(err)
	}
	release, err := lockProject(ctx, path, "/p", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("a.go", "alpha")}, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]os.FileMode{dir: 0o700, path: 0o600, path + "-wal": 0o600, path + "-shm": 0o600,
		filepath.Dir(lockPath(path, "/p")): 0o700, lockPath(path, "/p"): 0o600}
	for p, mode := range want {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s is %04o, want %04o", p, fi.Mode().Perm(), mode)
		}
	}
	if issue := store.PrivateModeIssue(path); issue != "" {
		t.Errorf("a private index reported: %s", issue)
	}
	// an index an older coderag made: 0644 in a 0755 directory
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	issue := store.PrivateModeIssue(path)
	if !strings.Contains(issue, path+" is 0644") || !strings.Contains(issue, "chmod 600 "+path+"*") {
		t.Errorf("an index others can read: %q", issue)
	}
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("opening an existing index changed its mode to %04o", fi.Mode().Perm())
	}
	// a directory others cannot enter keeps them out whatever the file's mode
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if issue := store.PrivateModeIssue(path); issue != "" {
		t.Errorf("an index in a 0700 directory reported: %s", issue)
	}
}
