//go:build unix

package tools

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// confineTree makes a root and a directory outside it:
//
//	root/d/f.txt             "inside"
//	root/in.txt -> d/f.txt   (stays inside)
//	root/indir -> d          (stays inside)
//	root/up -> ../root/d     (leaves and comes back: os.Root refuses it)
//	root/absin -> <root>/d   (absolute: os.Root refuses it)
//	root/out.txt -> <outside>/secret.txt
//	root/outdir -> <outside>
//	outside/secret.txt       "secret"
func confineTree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "root")
	outside = filepath.Join(base, "outside-private-place")
	for _, d := range []string{filepath.Join(root, "d"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "d", "f.txt"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "f.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{
		"in.txt": "d/f.txt", "indir": "d", "up": "../root/d", "absin": filepath.Join(root, "d"),
		"out.txt": filepath.Join(outside, "secret.txt"), "outdir": outside,
	} {
		if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

// readAll reads rel through the target's root.
func readAll(t *testing.T, tg *Target, rel string) (string, error) {
	t.Helper()
	f, _, err := tg.OpenRegular(rel)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), err
}

// TestConfine pins what Confine lets through: paths inside, and symlinks
// that stay inside (named by where they lead), but no `..` escape, no
// absolute path elsewhere, no symlink to a file or directory outside, and
// no absolute symlink; a refusal never names the outside path.
func TestConfine(t *testing.T) {
	root, outside := confineTree(t)
	for _, c := range []struct {
		in, rel string
		err     error
	}{
		{"", ".", nil},
		{"d/f.txt", "d/f.txt", nil},
		{filepath.Join(root, "d", "f.txt"), "d/f.txt", nil},
		{"in.txt", "d/f.txt", nil},
		{"indir/f.txt", "d/f.txt", nil},
		{"indir", "d", nil},
		{"d/../d/f.txt", "d/f.txt", nil},
		{"..", "", ErrOutsideRoot},
		{"../outside-private-place/secret.txt", "", ErrOutsideRoot},
		{"d/../../x", "", ErrOutsideRoot},
		{filepath.Join(outside, "secret.txt"), "", ErrOutsideRoot},
		{"/etc/passwd", "", ErrOutsideRoot},
		{"out.txt", "", ErrOutsideRoot},
		{"outdir", "", ErrOutsideRoot},
		{"outdir/secret.txt", "", ErrOutsideRoot},
		{"absin/f.txt", "", ErrOutsideRoot},
		{"up/f.txt", "", ErrOutsideRoot},
		{"missing.txt", "", ErrNotFound},
	} {
		tg, err := Confine(root, c.in)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("Confine(%q) = %v, want %v", c.in, err, c.err)
			}
			if err != nil && strings.Contains(err.Error(), "private-place") && !strings.Contains(c.in, "private-place") {
				t.Errorf("Confine(%q): the message names the outside: %v", c.in, err)
			}
			if tg != nil {
				t.Errorf("Confine(%q) returned a target with an error", c.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("Confine(%q): %v", c.in, err)
			continue
		}
		if tg.Rel() != c.rel {
			t.Errorf("Confine(%q).Rel() = %q, want %q", c.in, tg.Rel(), c.rel)
		}
		if !tg.Info().IsDir() {
			if got, err := readAll(t, tg, tg.Rel()); err != nil || got != "inside" {
				t.Errorf("read %q = %q, %v", c.in, got, err)
			}
		}
		tg.Close()
	}
}

// TestConfineSwapAfterCheck: a directory confined and then replaced by a
// symlink to outside (the check-then-open race) cannot be read through:
// every open goes through the os.Root, which refuses the symlink at open
// time. The same holds for a file swapped for a symlink.
func TestConfineSwapAfterCheck(t *testing.T) {
	root, outside := confineTree(t)
	tg, err := Confine(root, "d/f.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if got, err := readAll(t, tg, tg.Rel()); err != nil || got != "inside" {
		t.Fatalf("before the swap: %q, %v", got, err)
	}
	// the directory on the path becomes a symlink to outside
	if err := os.Rename(filepath.Join(root, "d"), filepath.Join(root, "d.orig")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, tg, tg.Rel())
	if !errors.Is(err, ErrOutsideRoot) || got != "" {
		t.Fatalf("after the directory swap: read %q, %v; want ErrOutsideRoot", got, err)
	}
	// the file itself becomes a symlink to outside
	if err := os.Remove(filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "d.orig"), filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "d", "f.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "f.txt"), filepath.Join(root, "d", "f.txt")); err != nil {
		t.Fatal(err)
	}
	got, err = readAll(t, tg, tg.Rel())
	if !errors.Is(err, ErrOutsideRoot) || got != "" {
		t.Fatalf("after the file swap: read %q, %v; want ErrOutsideRoot", got, err)
	}
	// the root itself renamed away and replaced by a symlink: the open root
	// still names the original directory
	if err := os.Remove(filepath.Join(root, "d", "f.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "d", "f.txt"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(root, root+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, root); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(outside, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "d", "f.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := readAll(t, tg, tg.Rel()); err != nil || got != "inside" {
		t.Fatalf("after the root swap: read %q, %v; want the original file", got, err)
	}
}

// TestIndexedRefuseASwappedRoot: a served project's root (recorded
// resolved) renamed away and replaced by a symlink to a directory outside
// is not followed by the Indexed variants, which the team server and its
// MCP sessions use: each refuses with ErrOutsideRoot and shows nothing of
// the outside directory. Read itself, the library call a CLI makes with a
// root it resolves, still takes a root given through a symlink.
func TestIndexedRefuseASwappedRoot(t *testing.T) {
	root, outside := confineTree(t)
	ctx := context.Background()
	if err := os.WriteFile(filepath.Join(outside, "leak.go"), []byte("package leak // OUTSIDE_MARKER\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := ReadIndexed(ctx, root, ReadParams{Path: "d/f.txt"}); err != nil || len(r.Lines) != 1 {
		t.Fatalf("before the swap: %+v, %v", r, err)
	}
	if err := os.Rename(root, root+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, root); err != nil {
		t.Fatal(err)
	}
	r, err := ReadIndexed(ctx, root, ReadParams{Path: "leak.go"})
	if !errors.Is(err, ErrOutsideRoot) || r != nil {
		t.Errorf("ReadIndexed after the root swap: %+v, %v; want ErrOutsideRoot", r, err)
	}
	g, err := GrepIndexed(ctx, root, GrepParams{Pattern: "OUTSIDE_MARKER"})
	if !errors.Is(err, ErrOutsideRoot) || g != nil {
		t.Errorf("GrepIndexed after the root swap: %+v, %v; want ErrOutsideRoot", g, err)
	}
	l, err := GlobIndexed(ctx, root, GlobParams{Pattern: "*.go"})
	if !errors.Is(err, ErrOutsideRoot) || l != nil {
		t.Errorf("GlobIndexed after the root swap: %+v, %v; want ErrOutsideRoot", l, err)
	}
	if err != nil && strings.Contains(err.Error(), outside) {
		t.Errorf("the refusal names where the symlink leads: %v", err)
	}
	// the plain Read follows a root given through a symlink (TestReadErrors)
	if r, err := Read(ctx, root, ReadParams{Path: "leak.go"}); err != nil || len(r.Lines) != 1 {
		t.Errorf("Read through a symlinked root: %+v, %v", r, err)
	}
}

// TestIndexedRefuseASwappedParent: the root stays a real directory, but a
// directory above it is renamed away and replaced by a symlink to a tree
// with a directory of the root's name: the recorded root's path now leads
// there. The Indexed variants refuse it as they refuse a swapped root.
func TestIndexedRefuseASwappedParent(t *testing.T) {
	base := t.TempDir()
	parent, other := filepath.Join(base, "work"), filepath.Join(base, "other")
	root := filepath.Join(parent, "app")
	for d, f := range map[string]string{root: "inside.go", filepath.Join(other, "app"): "leak.go"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, f), []byte("package p // "+f+" OUTSIDE_MARKER\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if _, err := ReadIndexed(ctx, root, ReadParams{Path: "inside.go"}); err != nil {
		t.Fatalf("before the swap: %v", err)
	}
	if err := os.Rename(parent, parent+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, parent); err != nil {
		t.Fatal(err)
	}
	if r, err := ReadIndexed(ctx, root, ReadParams{Path: "leak.go"}); !errors.Is(err, ErrOutsideRoot) || r != nil {
		t.Errorf("ReadIndexed after the parent swap: %+v, %v; want ErrOutsideRoot", r, err)
	}
	if g, err := GrepIndexed(ctx, root, GrepParams{Pattern: "OUTSIDE_MARKER"}); !errors.Is(err, ErrOutsideRoot) || g != nil {
		t.Errorf("GrepIndexed after the parent swap: %+v, %v; want ErrOutsideRoot", g, err)
	}
	l, err := GlobIndexed(ctx, root, GlobParams{Pattern: "*.go"})
	if !errors.Is(err, ErrOutsideRoot) || l != nil {
		t.Errorf("GlobIndexed after the parent swap: %+v, %v; want ErrOutsideRoot", l, err)
	}
	if err != nil && strings.Contains(err.Error(), other) {
		t.Errorf("the refusal names where the symlink leads: %v", err)
	}
}
