package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/walk"
)

// TestRunRefusesASwappedParent: an indexed root whose parent directory was
// replaced by a symlink to another tree (a watcher or a search's refresh
// re-indexes the recorded root) is refused with rootrule.ErrMoved, and
// its rows stay those of the directory that was indexed; nothing of the
// other tree enters the index. Indexing the other tree by its own path
// is a new project, as before.
func TestRunRefusesASwappedParent(t *testing.T) {
	t.Parallel()
	st, emb := openStore(t), localEmbedder(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	parent, other := filepath.Join(base, "work"), filepath.Join(base, "other")
	root := filepath.Join(parent, "app")
	writeFile(t, root, "main.go", "package main\n\nfunc Hello() {}\n")
	writeFile(t, filepath.Join(other, "app"), "main.go", "package main\n\nfunc OtherTreeSecret() {}\n")
	mustRun(t, st, emb, root)
	before := chunkLines(t, st, root)
	if err := os.Rename(parent, parent+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, parent); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), st, emb, root, Options{Threads: 2}); !errors.Is(err, rootrule.ErrMoved) {
		t.Fatalf("re-index through the swapped parent: %v, want ErrMoved", err)
	}
	if after := chunkLines(t, st, root); !slices.Equal(after, before) {
		t.Errorf("rows changed by the refused run:\n%v\nwant\n%v", after, before)
	}
	// the other tree by its own path is a project of its own
	rep := mustRun(t, st, emb, filepath.Join(other, "app"))
	if rep.Changed != 1 {
		t.Errorf("the other tree by its own path: %+v", rep)
	}
}

// A watcher's event on the root itself (which may have become a symlink)
// is no file: walk.Stat leaves it out rather than failing on it.
func TestStatLeavesOutTheRoot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "a.go", "package a\n")
	files, skips := walk.Stat(dir, []string{"", ".", "a.go"}, walk.Options{})
	if len(files) != 1 || files[0].Path != "a.go" || len(skips) != 0 {
		t.Errorf("Stat: %+v %+v, want a.go alone", files, skips)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if files, _ := walk.Stat(link, []string{""}, walk.Options{}); len(files) != 0 {
		t.Errorf("Stat of a symlinked root's own path: %+v", files)
	}
}
