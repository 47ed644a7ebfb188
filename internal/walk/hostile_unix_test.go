//go:build unix

package walk

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/testutil"
)

// TestHostileIgnoreFiles: a .gitignore symlinked to /dev/zero, FIFOs named
// .gitignore and .coderagignore, and a 3 MiB .gitignore. The walk finishes
// (the old one ran out of memory on /dev/zero and blocked on the FIFOs),
// reports each as a Skip, and applies the first MiB of the big one.
func TestHostileIgnoreFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "a.go", "package a")
	write(t, root, "sub/b.go", "package b")
	write(t, root, "deep/c.go", "package c")
	write(t, root, "deep/drop.go", "package c")
	write(t, root, "deep/late.go", "package c")
	if err := os.Symlink("/dev/zero", filepath.Join(root, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".coderagignore", "sub/.gitignore"} {
		if err := syscall.Mkfifo(filepath.Join(root, p), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	// deep/.gitignore: drop.go in the first MiB, late.go after it
	big := "drop.go\n" + strings.Repeat("#"+strings.Repeat("x", 98)+"\n", 3<<20/100) + "late.go\n"
	write(t, root, "deep/.gitignore", big)

	done := make(chan struct{})
	var files []File
	var skips []Skip
	var err error
	go func() {
		defer close(done)
		files, skips, err = Collect(context.Background(), root, Options{})
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // a hang guard, not a timing assertion
		t.Fatal("the walk hangs on hostile ignore files")
	}
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if strings.Join(got, ",") != "a.go,deep/c.go,deep/late.go,sub/b.go" {
		t.Errorf("files: %v", got)
	}
	reasons := map[string]Reason{}
	for _, s := range skips {
		reasons[s.Path] = s.Reason
	}
	for p, want := range map[string]Reason{
		".gitignore":      ReasonIgnoreFileNotRead,
		".coderagignore":  ReasonIgnoreFileNotRead,
		"sub/.gitignore":  ReasonIgnoreFileNotRead,
		"deep/.gitignore": ReasonIgnoreFileCut,
	} {
		if reasons[p] != want {
			t.Errorf("%s: reason %q, want %q (skips %+v)", p, reasons[p], want, skips)
		}
	}
}

// TestOpenRegular: through os.Root, a FIFO is refused without blocking, a
// symlink out is refused, a symlink inside is followed, a size cap cuts.
func TestOpenRegular(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "a.txt", "0123456789")
	os.Symlink("a.txt", filepath.Join(root, "in.txt"))
	outside := filepath.Join(t.TempDir(), "o.txt")
	write(t, filepath.Dir(outside), "o.txt", "outside")
	os.Symlink(outside, filepath.Join(root, "out.txt"))
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if data, cut, err := ReadRegular(r, "in.txt", 4); err != nil || string(data) != "0123" || !cut {
		t.Errorf("in.txt: %q %v %v", data, cut, err)
	}
	if data, cut, err := ReadRegular(r, "a.txt", -1); err != nil || string(data) != "0123456789" || cut {
		t.Errorf("a.txt: %q %v %v", data, cut, err)
	}
	if _, _, err := ReadRegular(r, "out.txt", -1); err == nil {
		t.Error("out.txt: read outside the root")
	}
	if _, _, err := ReadRegular(r, "fifo", -1); err == nil || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("fifo: %v", err)
	}
}

// TestUnreadableDirectoryOnce: a directory that cannot be read is one skip
// (ReasonUnreadable); the ignore files it may or may not hold are not
// reported, while an ignore file that is there and unreadable still is.
func TestUnreadableDirectoryOnce(t *testing.T) {
	if testutil.RerunUnprivileged(t) {
		return
	}
	root := t.TempDir()
	write(t, root, "a.go", "package a")
	write(t, root, "locked/b.go", "package b")
	write(t, root, "open/c.go", "package c")
	write(t, root, "open/.gitignore", "x.go\n")
	for p, mode := range map[string]os.FileMode{"locked": 0, "open/.gitignore": 0} {
		os.Chmod(filepath.Join(root, p), mode)
		defer os.Chmod(filepath.Join(root, p), 0o755)
	}
	_, skips, err := Collect(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range skips {
		got = append(got, s.Path+" "+string(s.Reason))
	}
	sort.Strings(got)
	if want := "locked unreadable,open/.gitignore ignore file not read"; strings.Join(got, ",") != want {
		t.Errorf("skips %q, want %q", got, want)
	}
}

// TestSpecialFilesAreSkips: a FIFO or socket whose name a language claims
// is reported as a skip (ReasonNotRegular), never opened, and a FIFO with
// another name is passed over in silence, as before.
func TestSpecialFilesAreSkips(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "main.go", "package main")
	for _, p := range []string{"pipe.go", "pipe.unknownext"} {
		if err := syscall.Mkfifo(filepath.Join(root, p), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	files, skips, err := Collect(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "main.go" {
		t.Errorf("files %+v, want main.go alone", files)
	}
	if len(skips) != 1 || skips[0].Path != "pipe.go" || skips[0].Reason != ReasonNotRegular {
		t.Errorf("skips %+v, want pipe.go as %q", skips, ReasonNotRegular)
	}
}
