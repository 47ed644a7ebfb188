package walk

import (
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWalkIgnoreRules(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"main.go":                     "package main",
		"README.md":                   "# hi",
		"notes.bin":                   "x", // unknown extension: not indexed
		"node_modules/a/index.js":     "x",
		"target/generated/A.java":     "x", // output dirs: no source file directly inside
		"build/gen/gen.go":            "x",
		"build/out.js":                "x",
		"dist/app.js":                 "x",
		"go/build/build.go":           "package build", // source packages named like output dirs
		"go/build/sub/x.go":           "x",
		"cmd/dist/main.go":            "package main",
		"lib/target/__init__.py":      "x",
		"lib/target/t.py":             "x",
		"vendor/v.go":                 "x",
		".idea/x.xml":                 "x",
		".hidden/secret.go":           "x",
		"src/.cache/c.go":             "x",
		".gitignore":                  "*.log\ngen/\n/rootonly.go\n!keep.log\n",
		"app.log":                     "x",
		"keep.log":                    "x", // .log not indexable anyway
		"gen/g.go":                    "x",
		"rootonly.go":                 "x",
		"src/rootonly.go":             "x",
		"src/pkg/.gitignore":          "*.py\n!important.py\n",
		"src/pkg/a.py":                "x",
		"src/pkg/important.py":        "x",
		"src/pkg/sub/b.py":            "x",
		"src/pkg/sub/.gitignore":      "!b.py\n",
		"src/other/c.py":              "x",
		".coderagignore":              "secret/\n",
		"secret/s.go":                 "x",
		"src/deep/secret/inner.go":    "x",
		"src/Foo.java":                "class Foo {}",
		"docs/guide.md":               "# guide",
		"config/app.yaml":             "a: 1",
		"src/pkg/sub/ignored_too.txt": "x",
	}
	for rel, c := range files {
		write(t, root, rel, c)
	}
	got, skips, err := Collect(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range got {
		paths = append(paths, f.Path)
	}
	want := []string{
		"README.md", "cmd/dist/main.go", "config/app.yaml", "docs/guide.md", "go/build/build.go", "go/build/sub/x.go",
		"lib/target/__init__.py", "lib/target/t.py", "main.go", "src/Foo.java",
		"src/other/c.py", "src/pkg/important.py", "src/pkg/sub/b.py", "src/pkg/sub/ignored_too.txt",
		"src/rootonly.go",
	}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths:\n got %v\nwant %v", paths, want)
	}
	if len(skips) != 0 {
		t.Fatalf("unexpected skips %v", skips)
	}
}

func TestWalkSizeCapAndSymlink(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "small.go", "package a")
	write(t, root, "big.go", strings.Repeat("a", MaxFileBytes+1))
	write(t, root, "exact.go", strings.Repeat("a", MaxFileBytes))
	if err := os.Symlink(filepath.Join(root, "small.go"), filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(root, "loop")); err != nil {
		t.Fatal(err)
	}
	got, skips, err := Collect(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Path != "exact.go" || got[1].Path != "small.go" {
		t.Fatalf("files %v", got)
	}
	reasons := map[string]Reason{}
	for _, s := range skips {
		reasons[s.Path] = s.Reason
	}
	if reasons["big.go"] != ReasonTooLarge || reasons["link.go"] != ReasonSymlink {
		t.Fatalf("skips %v", skips)
	}
}

func TestIsBinary(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   []byte
		want bool
	}{
		{[]byte("hello\nworld"), false},
		{[]byte("ab\x00cd"), true},
		{append([]byte(strings.Repeat("a", BinarySniffBytes)), 0), false}, // NUL after the sniff window
		{[]byte("caf\xe9"), false},                                        // invalid UTF-8 is not binary
		{nil, false},
	}
	for i, c := range cases {
		if got := IsBinary(c.in); got != c.want {
			t.Errorf("case %d: IsBinary = %v, want %v", i, got, c.want)
		}
	}
}

func TestWalkDirOption(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, ".gitignore", "*.gen.go\n")
	write(t, root, "a/x.go", "x")
	write(t, root, "a/y.gen.go", "x")
	write(t, root, "b/z.go", "x")
	got, _, err := Collect(context.Background(), root, Options{Dir: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != "a/x.go" {
		t.Fatalf("got %v", got)
	}
}

// A build/dist/target directory that cannot be listed is entered (and then
// reported unreadable), never taken for build output: its indexed rows must
// not be dropped.
func TestSkipDirUnlistableOutputDir(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "gone", "build")
	if SkipDir(missing, "build") {
		t.Fatal("an unlistable build/ is skipped as build output")
	}
	out := filepath.Join(t.TempDir(), "dist")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "app.js"), []byte("x"), 0o644)
	if !SkipDir(out, "dist") || !SkipDir(out, ".cache") || SkipDir(out, "src") {
		t.Fatal("SkipDir rules")
	}
}

// TestIgnoreAgreesWithGit checks the ignore rules against git itself on a
// tree of tricky patterns: the files the walk keeps are exactly the
// untracked, not-ignored files `git ls-files -o --exclude-standard` lists.
func TestIgnoreAgreesWithGit(t *testing.T) {
	t.Parallel()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	files := map[string]string{
		".gitignore": "tmpd/*\n!tmpd/ok.py\ndoc?/*.md\n*.log\n!keep.log\n/anchored.txt\nbuildx/\n**/deep/*.tmp\nname[0-9].txt\n" +
			"# comment\n\\#hash.txt\nspace\\ end.txt\n",
		"tmpd/ok.py": "x", "tmpd/no.py": "x", "tmpd/sub/z.py": "x",
		"docs/README.md": "x", "docs/sub/x.md": "x", "doc/a.md": "x",
		"a.log": "x", "keep.log": "x", "sub/b.log": "x",
		"anchored.txt": "x", "sub/anchored.txt": "x",
		"buildx/f.txt": "x", "sub/buildx/g.txt": "x",
		"a/deep/x.tmp": "x", "a/b/deep/y.tmp": "x", "deep/z.tmp": "x",
		"name1.txt": "x", "nameA.txt": "x", "#hash.txt": "x", "space end.txt": "x",
		"nested/.gitignore": "*.py\n!important.py\n/local.txt\n",
		"nested/a.py":       "x", "nested/important.py": "x", "nested/local.txt": "x", "nested/inner/local.txt": "x",
		"nested/inner/.gitignore": "!a2.py\n",
		"nested/inner/a2.py":      "x", "nested/inner/b2.py": "x",
		"keep.txt": "x",
	}
	for rel, c := range files {
		write(t, root, rel, c)
	}
	cmd := exec.Command(gitBin, "init", "-q", ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	cmd = exec.Command(gitBin, "ls-files", "-o", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" && !strings.HasSuffix(l, ".gitignore") {
			want = append(want, strings.Trim(l, `"`))
		}
	}
	got, _, err := Collect(context.Background(), root, Options{AllFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range got {
		if !strings.HasSuffix(f.Path, ".gitignore") {
			paths = append(paths, f.Path)
		}
	}
	sort.Strings(want)
	sort.Strings(paths)
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("walk and git disagree:\n walk %q\n git  %q", paths, want)
	}
}

// A tree deeper than MaxDirDepth is walked down to that depth, and the
// directory below is named as skipped; files above it are candidates.
func TestWalkDepthCap(t *testing.T) {
	root := t.TempDir()
	deep := strings.Repeat("d/", MaxDirDepth+5)
	write(t, root, "top.go", "package top\n")
	write(t, root, strings.Repeat("d/", MaxDirDepth-1)+"ok.go", "package ok\n")
	write(t, root, deep+"leaf.go", "package leaf\n")
	files, skips, err := Collect(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, path.Base(f.Path))
	}
	if !reflect.DeepEqual(got, []string{"ok.go", "top.go"}) {
		t.Errorf("files %v, want ok.go and top.go", got)
	}
	n := 0
	for _, s := range skips {
		if s.Reason == ReasonTooDeep {
			n++
			if strings.Count(s.Path, "/") != MaxDirDepth {
				t.Errorf("skipped %d levels down, want %d", strings.Count(s.Path, "/"), MaxDirDepth)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d too-deep skips, want 1: %v", n, skips)
	}
}

// Repeated "**/" parts merge, and a pattern left with more than
// MaxIgnoreStars of them is dropped and reported; the others still apply.
func TestIgnorePatternBound(t *testing.T) {
	for in, want := range map[string]string{
		"**/**/**/x.go": "**/x.go", "a/**/**/b": "a/**/b", "*.log": "*.log", "build/**/**": "build/**",
	} {
		if got, ok := boundIgnorePattern(in); !ok || got != want {
			t.Errorf("boundIgnorePattern(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	root := t.TempDir()
	hostile := strings.Repeat("a*/**/", MaxIgnoreStars+1) + "x"
	write(t, root, ".gitignore", hostile+"\n"+strings.Repeat("**/", 200)+"gen_*.go\n")
	write(t, root, "src/gen_a.go", "package src\n")
	write(t, root, "src/main.go", "package src\n")
	files, skips, err := Collect(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "src/main.go" {
		t.Errorf("files %v: the merged **/gen_*.go pattern should still ignore src/gen_a.go", files)
	}
	found := false
	for _, s := range skips {
		found = found || s.Reason == ReasonIgnorePatterns && s.Path == ".gitignore" && s.Err == "1 skipped"
	}
	if !found {
		t.Errorf("the dropped pattern is not reported: %v", skips)
	}
}
