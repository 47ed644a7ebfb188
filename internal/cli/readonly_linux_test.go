package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadOnlyFileSystemHome: with CODERAG_HOME on a read-only file system (a
// read-only bind mount, which stops root too; skipped where mounts are
// not allowed), search, stats and doctor work on the index made before,
// and doctor finds it healthy; index says it cannot write.
func TestReadOnlyFileSystemHome(t *testing.T) {
	home := setHome(t)
	root := filepath.Join(t.TempDir(), "list")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(goroot(t), "src", "container", "list", "list.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "list.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	if out, err := exec.Command("mount", "--bind", home, home).CombinedOutput(); err != nil {
		t.Skipf("no bind mount here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", home).Run() })
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", home).CombinedOutput(); err != nil {
		t.Skipf("no read-only remount here: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(home, "probe"), nil, 0o644); err == nil {
		t.Fatal("the home is still writable")
	}
	for _, args := range [][]string{
		{"search", "--project", root, "insert an element after mark"},
		{"stats", "--project", root},
		{"doctor"},
	} {
		code, out, errs := run(t, args...)
		if code != 0 || strings.Contains(out+errs, "readonly") || strings.Contains(out+errs, "unable to open") {
			t.Errorf("%s on a read-only home: %d\n%s\n%s", args[0], code, out, errs)
		}
		if args[0] == "search" && !strings.Contains(out, "list.go") {
			t.Errorf("search: no hit in list.go: %s", out)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "more.go"), []byte("package list\n\nfunc More() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "index", "--quiet", root); code != 1 || !strings.Contains(errs, "read-only") {
		t.Errorf("index on a read-only home: %d %q", code, errs)
	}
}
