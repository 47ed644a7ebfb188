package walk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExcludedSaysWhy: Excluded names the rule that leaves a path out of
// the index's walk, the first on the path from the root down: a hidden
// directory, the built-in rule (also when an ignore file lists the
// directory too), or the ignore file whose pattern decides (a nested
// one, a negation that takes a path back); a file ignored, withheld or
// of no language; and says nothing of a path the walk takes, which
// Collect confirms.
func TestExcludedSaysWhy(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, body := range map[string]string{
		".gitignore":          "gen/\nnode_modules/\n*.gen.go\nlogs/*\n!logs/keep/\n",
		"a.go":                "package a\n",
		"gen/g.go":            "package gen\n",
		"x.gen.go":            "package a\n",
		"sub/.coderagignore":  "skipme/\n",
		"sub/ok.go":           "package sub\n",
		"sub/skipme/s.go":     "package s\n",
		"build/out.js":        "x()\n",
		"pkg/build/b.go":      "package build\n",
		"node_modules/m/i.js": "m()\n",
		".cache/c.go":         "package c\n",
		"logs/old/l.go":       "package l\n",
		"logs/keep/k.go":      "package k\n",
		".env":                "K=v\n",
		"image.png":           "\x89PNG\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		rel   string
		isDir bool
		want  string // "" the walk takes it
	}{
		{"gen", true, "gen/ is ignored by .gitignore"},
		{"gen/g.go", false, "gen/ is ignored by .gitignore"},
		{"x.gen.go", false, "x.gen.go is ignored by .gitignore"},
		{"sub/skipme", true, "sub/skipme/ is ignored by sub/.coderagignore"},
		{"sub/skipme/s.go", false, "sub/skipme/ is ignored by sub/.coderagignore"},
		{"build", true, "build/ is left out by the built-in rule (build, dist, node_modules, target, vendor;"},
		{"node_modules/m", true, "node_modules/ is left out by the built-in rule"},
		{".cache", true, ".cache/ is a hidden directory"},
		{"logs/old", true, "logs/old/ is ignored by .gitignore"},
		{".env", false, ".env is withheld: its name looks like a secret file's"},
		{"image.png", false, "image.png is of no language coderag indexes"},
		{"sub", true, ""},
		{"sub/ok.go", false, ""},
		{"pkg/build", true, ""}, // a Go package named build
		{"logs/keep", true, ""},
		{"logs/keep/k.go", false, ""},
		{".", true, ""},
	} {
		got := Excluded(root, tc.rel, tc.isDir, Options{})
		if tc.want == "" && got != "" || tc.want != "" && !strings.HasPrefix(got, tc.want) {
			t.Errorf("Excluded(%q) = %q, want %q", tc.rel, got, tc.want)
		}
	}
	// the paths said to be taken are those the walk takes
	files, _, err := Collect(t.Context(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	taken := map[string]bool{}
	for _, f := range files {
		taken[f.Path] = true
		if why := Excluded(root, f.Path, false, Options{}); why != "" {
			t.Errorf("the walk takes %s, but Excluded says %q", f.Path, why)
		}
	}
	for _, p := range []string{"gen/g.go", "x.gen.go", "sub/skipme/s.go", "logs/old/l.go", "pkg/build/b.go"} {
		if taken[p] == (Excluded(root, p, false, Options{}) != "") {
			t.Errorf("%s: taken %v, Excluded %q", p, taken[p], Excluded(root, p, false, Options{}))
		}
	}
}
