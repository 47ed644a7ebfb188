package rootrule

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheck: the system's trees, the home directory and what holds it,
// hidden directories and directories an enclosing project does not index
// are refused with an error naming the rule; projects are accepted.
func TestCheck(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(tmp, "home", "u")
	t.Setenv("HOME", home)
	parent := filepath.Join(tmp, "work", "app")
	for _, d := range []string{
		filepath.Join(home, "proj"), filepath.Join(home, ".docker"), filepath.Join(home, ".config", "gcloud"),
		filepath.Join(parent, ".git"), filepath.Join(parent, ".hidden"), filepath.Join(parent, "build"),
		filepath.Join(parent, "gen"), filepath.Join(parent, "node_modules", "x"), filepath.Join(parent, "src", "pkg"),
		filepath.Join(parent, "vendored"),
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(parent, ".gitignore"), []byte("gen/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "etc-link")
	if err := os.Symlink("/etc", link); err != nil {
		t.Fatal(err)
	}
	indexed := []string{parent}
	for _, c := range []struct {
		dir  string
		rule string // "" = accepted; else a part of the error
	}{
		{"/", "file-system root"},
		{"/etc", "system directory /etc"},
		{"/etc/fonts", "system directory /etc"},
		{link, "system directory /etc"},
		{"/proc/self/root", "system directory /proc"},
		{"/proc", "system directory /proc"},
		{"/proc/self", "system directory /proc"},
		{"/sys", "system directory /sys"},
		{"/dev", "system directory /dev"},
		{"/root", "system directory /root"},
		{"/root/proj", "system directory /root"},
		{"/var/log", "system directory /var/log"},
		{"/var/lib/postgresql", "system directory /var/lib"},
		{"/usr/share/doc", "system directory /usr/share/doc"},
		{"/boot", "system directory /boot"},
		{"/run", "system directory /run"},
		{"/usr", "holds the trees of others"},
		{"/home", "holds the trees of others"},
		{"/opt", "holds the trees of others"},
		{"/var", "holds the trees of others"},
		{home, "is the home directory"},
		{filepath.Dir(home), "holds the home directory"},
		{filepath.Join(home, ".docker"), "hidden directory .docker"},
		{filepath.Join(home, ".config", "gcloud"), "hidden directory .config"},
		{filepath.Join(parent, ".git"), "hidden directory .git"},
		{filepath.Join(parent, ".hidden"), "hidden directory .hidden"},
		{filepath.Join(parent, "build"), "the project " + parent},
		{filepath.Join(parent, "gen"), "the project " + parent},
		{filepath.Join(parent, "node_modules", "x"), "the project " + parent},
		{"relative/dir", "absolute"},
		{filepath.Join(home, "proj"), ""},
		{parent, ""},
		{filepath.Join(parent, "src", "pkg"), ""},
		{filepath.Join(parent, "vendored"), ""},
		{"/usr/local/go/src", ""},
		{"/srv/git/app", ""},
	} {
		err := Check(c.dir, indexed)
		switch {
		case c.rule == "" && err != nil:
			t.Errorf("Check(%s) = %v, want accepted", c.dir, err)
		case c.rule != "" && (err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.rule)):
			t.Errorf("Check(%s) = %v, want a refusal naming %q", c.dir, err, c.rule)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("Check(%s): error on more than one line: %q", c.dir, err)
		}
	}
	// the super-user's own projects, when /root is the home directory
	t.Setenv("HOME", "/root")
	if err := Check("/root/proj", nil); err != nil {
		t.Errorf("Check(/root/proj) with HOME=/root: %v", err)
	}
	if err := Check("/root", nil); err == nil || !strings.Contains(err.Error(), "home directory") {
		t.Errorf("Check(/root) with HOME=/root = %v, want the home directory refused", err)
	}
}

// TestResolveAndEnclosing: a project's identity is its resolved path, so
// two spellings of one directory are one project; the enclosing project
// of a directory is the nearest indexed root at or above it, never a
// sibling whose name it shares a prefix with.
func TestResolveAndEnclosing(t *testing.T) {
	t.Parallel()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(tmp, "app")
	os.MkdirAll(filepath.Join(app, "pkg", "x"), 0o755)
	os.Symlink(app, filepath.Join(tmp, "link"))
	os.WriteFile(filepath.Join(tmp, "file"), []byte("x"), 0o644)
	if got, err := Resolve(filepath.Join(tmp, "link", "pkg")); err != nil || got != filepath.Join(app, "pkg") {
		t.Errorf("Resolve through a symlink: %q %v", got, err)
	}
	if _, err := Resolve(filepath.Join(tmp, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Resolve of a missing directory: %v", err)
	}
	if _, err := Resolve(filepath.Join(tmp, "file")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Resolve of a file: %v", err)
	}
	roots := []string{app, filepath.Join(app, "pkg"), filepath.Join(tmp, "ap")}
	for dir, want := range map[string]string{
		filepath.Join(app, "pkg", "x"): filepath.Join(app, "pkg"),
		app:                            app,
		filepath.Join(app, "other"):    app,
		filepath.Join(tmp, "apple"):    "",
		tmp:                            "",
	} {
		got, ok := Enclosing(dir, roots)
		if got != want || ok != (want != "") {
			t.Errorf("Enclosing(%s) = %q %v, want %q", dir, got, ok, want)
		}
	}
}
