package walk

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestRulesTable pins the candidate rule, path by path, for the default
// options (the index), AllFiles (grep and glob) and a start directory, and
// checks that Walk, Stat and Rules.Candidate give the same answer for every
// file of the tree.
func TestRulesTable(t *testing.T) {
	root := t.TempDir()
	tree := map[string]string{
		"main.go":                   "package main",
		".hiddenfile.go":            "package main", // hidden files are candidates
		".hidden/a.go":              "x",            // hidden directories are not
		"src/.cache/c.go":           "x",
		"node_modules/m/index.js":   "x",
		"vendor/v.go":               "x",
		".git/config.go":            "x",
		"build/out.js":              "x", // output directory without a package
		"go/build/build.go":         "package build",
		"dist/app.js":               "x",
		"lib/target/__init__.py":    "x", // output name holding a Python package
		"lib/target/t.py":           "x",
		".gitignore":                "*.gen.go\nignored/\n!keep.gen.go\nlinkignored/\n",
		"nm/keep.md":                "# n",
		"a.gen.go":                  "x",
		"keep.gen.go":               "x",
		"ignored/i.go":              "x",
		"ignored/deeper/j.go":       "x",
		"docs/notes.unknownext":     "x", // no language: unindexed, yet listed with AllFiles
		"docs/README.md":            "# r",
		"big.go":                    strings.Repeat("a", MaxFileBytes+1),
		"exact.go":                  strings.Repeat("a", MaxFileBytes),
		"bin.go":                    "a\x00b", // binary is a content rule: a candidate by path
		"sub/.coderagignore":        "private.py\n",
		"sub/private.py":            "x",
		"sub/public.py":             "x",
		".github/workflows/ci.yaml": "on: push",
	}
	for rel, c := range tree {
		write(t, root, rel, c)
	}
	if err := os.Symlink(filepath.Join(root, "main.go"), filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "main.go"), filepath.Join(root, "link.unknownext")); err != nil {
		t.Fatal(err)
	}
	// symlinked directories: one the walk would enter is a reported skip;
	// a linked node_modules, a hidden name, a name ignored as a directory
	// and a dangling link are as silent as their real counterparts
	for link, target := range map[string]string{"linkdir": "sub", "nm/node_modules": "sub",
		".hiddenlink": "sub", "linkignored": "sub", "dangling": "gone"} {
		if err := os.Symlink(filepath.Join(root, target), filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	type want struct {
		ok        bool
		skip      Reason
		unindexed bool
	}
	cases := []struct {
		opts Options
		want map[string]want
	}{
		{Options{}, map[string]want{
			"main.go": {ok: true}, ".hiddenfile.go": {ok: true}, ".hidden/a.go": {},
			"src/.cache/c.go": {}, "node_modules/m/index.js": {}, "vendor/v.go": {}, ".git/config.go": {},
			"build/out.js": {}, "go/build/build.go": {ok: true}, "dist/app.js": {},
			"lib/target/__init__.py": {ok: true}, "lib/target/t.py": {ok: true},
			".gitignore": {unindexed: true}, "a.gen.go": {}, "keep.gen.go": {ok: true},
			"ignored/i.go": {}, "ignored/deeper/j.go": {},
			"docs/notes.unknownext": {unindexed: true}, "docs/README.md": {ok: true},
			"big.go": {skip: ReasonTooLarge}, "exact.go": {ok: true}, "bin.go": {ok: true},
			"sub/.coderagignore": {unindexed: true}, "sub/private.py": {}, "sub/public.py": {ok: true},
			".github/workflows/ci.yaml": {},
			"link.go":                   {skip: ReasonSymlink}, "link.unknownext": {},
			"linkdir": {skip: ReasonSymlinkDir}, "nm/node_modules": {}, ".hiddenlink": {},
			"linkignored": {}, "dangling": {},
		}},
		{Options{AllFiles: true, MaxFileBytes: -1}, map[string]want{
			"docs/notes.unknownext": {ok: true}, ".gitignore": {ok: true}, "big.go": {ok: true},
			"link.unknownext": {skip: ReasonSymlink}, "ignored/i.go": {}, ".hidden/a.go": {},
			"a.gen.go": {}, "sub/private.py": {},
		}},
		// a start directory that is hidden is searched when asked for
		{Options{Dir: ".github"}, map[string]want{".github/workflows/ci.yaml": {ok: true}}},
		{Options{Dir: "ignored"}, map[string]want{"ignored/i.go": {}, "ignored/deeper/j.go": {}}},
	}
	for _, c := range cases {
		r := NewRules(root, c.opts)
		for p, w := range c.want {
			st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
			if err != nil {
				t.Fatal(err)
			}
			v := r.Candidate(p, fs.FileInfoToDirEntry(st))
			if v.OK != w.ok || v.Skip != w.skip || v.Unindexed != w.unindexed {
				t.Errorf("%+v: Candidate(%s) = ok %v skip %q unindexed %v, want %+v", c.opts, p, v.OK, v.Skip, v.Unindexed, w)
			}
		}

		// Walk lists exactly the files Candidate accepts, and skips
		// exactly those it reports as skips.
		var all []string
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				all = append(all, filepath.ToSlash(rel))
			}
			return nil
		})
		sort.Strings(all)
		files, skips, err := Collect(context.Background(), root, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		walked := map[string]string{}
		for _, f := range files {
			walked[f.Path] = "ok"
		}
		for _, s := range skips {
			walked[s.Path] = string(s.Reason)
		}
		fresh := NewRules(root, c.opts)
		for _, p := range all {
			st, _ := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
			v := fresh.Candidate(p, fs.FileInfoToDirEntry(st))
			got := string(v.Skip)
			if v.OK {
				got = "ok"
			}
			if got != walked[p] {
				t.Errorf("%+v: %s: Candidate says %q, Walk says %q", c.opts, p, got, walked[p])
			}
		}
		if c.opts.Dir != "" {
			continue
		}
		// Stat (the index given paths by --watch) agrees with the walk.
		sf, ss := Stat(root, all, c.opts)
		stated := map[string]string{}
		for _, f := range sf {
			stated[f.Path] = "ok"
		}
		for _, s := range ss {
			stated[s.Path] = string(s.Reason)
		}
		for _, p := range all {
			if stated[p] != walked[p] {
				t.Errorf("%+v: %s: Stat says %q, Walk says %q", c.opts, p, stated[p], walked[p])
			}
		}
	}
}

// TestRulesBinaryIsContent: a file with a NUL byte is a candidate by path
// and is recognised as binary when read (IsBinary on its head).
func TestRulesBinaryIsContent(t *testing.T) {
	root := t.TempDir()
	write(t, root, "bin.go", "ab\x00cd")
	write(t, root, "text.go", "package a")
	for p, want := range map[string]bool{"bin.go": true, "text.go": false} {
		st, err := os.Lstat(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		if v := NewRules(root, Options{}).Candidate(p, fs.FileInfoToDirEntry(st)); !v.OK {
			t.Errorf("%s: not a candidate", p)
		}
		if got, err := SniffBinary(filepath.Join(root, p)); err != nil || got != want {
			t.Errorf("SniffBinary(%s) = %v, %v; want %v", p, got, err, want)
		}
	}
}
