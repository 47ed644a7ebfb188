package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexRefusesRoots: `coderag index` refuses the file-system root,
// system trees, /root when HOME is elsewhere, the home directory, hidden
// directories and the ignored directories of an indexed project, with one
// line naming the rule and nothing indexed; grep and glob refuse them
// alike as a project (a sub-directory of an indexed project is searched as
// part of it, as asked). A source sub-directory becomes a project.
func TestIndexRefusesRoots(t *testing.T) {
	setHome(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	proj := filepath.Join(home, "app")
	for _, d := range []string{filepath.Join(home, ".docker"), filepath.Join(proj, "build"), filepath.Join(proj, ".hidden"), filepath.Join(proj, "pkg")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, body := range map[string]string{
		filepath.Join(home, ".docker", "config.json"): `{"auths": {}}`,
		filepath.Join(proj, "main.go"):                "package main\n\nfunc main() {}\n",
		filepath.Join(proj, "pkg", "pkg.go"):          "package pkg\n\n// Hello says hello.\nfunc Hello() {}\n",
		filepath.Join(proj, "build", "out.js"):        "var x = 1;\n",
		filepath.Join(proj, ".hidden", "h.json"):      "{}\n",
	} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errs := run(t, "index", "--quiet", proj); code != 0 {
		t.Fatalf("index the project: %d %s %s", code, out, errs)
	}
	for _, c := range []struct{ dir, rule string }{
		{"/", "file-system root"},
		{"/etc", "system directory /etc"},
		{"/proc", "system directory /proc"},
		{"/root", "system directory /root"},
		{"/var/log", "system directory /var/log"},
		{home, "is the home directory"},
		{filepath.Join(home, ".docker"), "hidden directory .docker"},
		{filepath.Join(proj, ".hidden"), "hidden directory .hidden"},
		{filepath.Join(proj, "build"), "is not indexed by the project " + proj},
	} {
		if _, err := os.Stat(c.dir); err != nil {
			continue // not on this machine
		}
		code, out, errs := run(t, "index", "--quiet", c.dir)
		if code == 0 || !strings.Contains(errs, "not a project root") || !strings.Contains(errs, c.rule) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("index %s: exit %d, stderr %q, want one line naming %q", c.dir, code, errs, c.rule)
		}
		if strings.TrimSpace(out) != "" {
			t.Errorf("index %s printed a report: %s", c.dir, out)
		}
		if strings.HasPrefix(c.dir, proj+"/") {
			continue // grep and glob there search a sub-directory of the project, asked for by name
		}
		for _, args := range [][]string{{"grep", "--project", c.dir, "x"}, {"glob", "--project", c.dir, "**"}} {
			if code, out, errs := run(t, args...); code == 0 || !strings.Contains(errs, "not a project root") {
				t.Errorf("%v: exit %d %s %s, want the rule", args, code, out, errs)
			}
		}
	}
	_, out, _ := run(t, "stats", "--json")
	if strings.Count(out, `"root"`) != 1 {
		t.Errorf("stats after the refusals lists other projects:\n%s", out)
	}
	if code, out, errs := run(t, "index", "--quiet", filepath.Join(proj, "pkg")); code != 0 {
		t.Errorf("index a source sub-directory: %d %s %s", code, out, errs)
	}
}

// TestMCPRefusesRoot: `coderag mcp --root` with a directory the project
// rule refuses exits with one line naming the rule.
func TestMCPRefusesRoot(t *testing.T) {
	setHome(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, dir := range []string{"/etc", home} {
		code, _, errs := run(t, "mcp", "--root", dir)
		if code == 0 || !strings.Contains(errs, "not a project root") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("mcp --root %s: exit %d, stderr %q", dir, code, errs)
		}
	}
}
