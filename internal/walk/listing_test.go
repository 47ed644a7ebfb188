package walk

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// listingTree is a tree with every kind of verdict a walk gives: nested
// ignore files with negation, a hidden and a default-skipped directory,
// build-output directories with and without a source package, a file
// over the size cap, a symlink, a secret, unindexed files.
func listingTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for rel, content := range map[string]string{
		".gitignore":          "*.log\ngen/\n",
		"main.go":             "package main",
		"README.md":           "# r",
		"notes.log":           "x",
		"big.go":              strings.Repeat("x", 200),
		".env":                "SECRET=1",
		"data.bin":            "\x00",
		"a/a.go":              "package a",
		"a/b/b.go":            "package b",
		"a/b/.gitignore":      "*.tmp.go\n!keep.tmp.go\n",
		"a/b/x.tmp.go":        "package b",
		"a/b/keep.tmp.go":     "package b",
		"a/b/c/c.py":          "x = 1",
		"gen/g.go":            "package gen",
		".hidden/h.go":        "package h",
		"node_modules/m/m.js": "x",
		"build/out.txt":       "o",
		"tools/build/b.go":    "package build",
		"tools/build/x.py":    "x = 1",
		"z/z.go":              "package z",
		"z/tab\there.go":      "package z",
		"z/new\nline.go":      "package z",
		"z/back\\slash.go":    "package z",
	} {
		write(t, root, rel, content)
	}
	if err := os.Symlink("main.go", filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	return root
}

// age sets the mtime of everything under root an hour back, so that what
// a test changes next gets a new one whatever the clock's tick.
func age(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// listAndCompare runs List with prev and checks it gives what Collect
// gives (files, skips in order, unindexed counts); it returns the
// listing, passed through Encode and DecodeListing, and the stats.
func listAndCompare(t *testing.T, root string, opts Options, prev *Listing) (*Listing, ListStats) {
	t.Helper()
	ctx := context.Background()
	wantUn, gotUn := map[string]int{}, map[string]int{}
	o := opts
	o.Unindexed = wantUn
	wantFiles, wantSkips, err := Collect(ctx, root, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Unindexed = gotUn
	files, skips, l, st, err := List(ctx, root, o, "t1", prev)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pathsOf(files), pathsOf(wantFiles)) {
		t.Fatalf("List files:\n%v\nwant (Collect):\n%v", pathsOf(files), pathsOf(wantFiles))
	}
	for i := range files {
		if files[i].Size != wantFiles[i].Size || !files[i].ModTime.Equal(wantFiles[i].ModTime) || files[i].Abs != wantFiles[i].Abs {
			t.Fatalf("List file %+v, Collect %+v", files[i], wantFiles[i])
		}
	}
	if !reflect.DeepEqual(skips, wantSkips) {
		t.Fatalf("List skips:\n%v\nwant (Collect):\n%v", skips, wantSkips)
	}
	if !reflect.DeepEqual(gotUn, wantUn) {
		t.Fatalf("List unindexed %v, Collect %v", gotUn, wantUn)
	}
	h, rows := l.Encode()
	d := DecodeListing(h, rows)
	d.changed = l.Changed()
	return d, st
}

func pathsOf(fs []File) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Path
	}
	return out
}

// TestListMatchesWalkAfterEachChange: after each kind of change, List
// given the listing from before finds exactly what a full walk finds,
// reading only the directories the change touched; a further List with
// no change reads none.
func TestListMatchesWalkAfterEachChange(t *testing.T) {
	defer func(f func() time.Time) { nowFunc = f }(nowFunc)
	nowFunc = func() time.Time { return time.Now().Add(time.Minute) } // no stamp is racy
	mv := func(t *testing.T, root, a, b string) {
		if err := os.Rename(filepath.Join(root, a), filepath.Join(root, b)); err != nil {
			t.Fatal(err)
		}
	}
	rm := func(t *testing.T, root, a string) {
		if err := os.RemoveAll(filepath.Join(root, a)); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name     string
		change   func(t *testing.T, root string)
		relisted int // directories List reads again, at most
	}{
		{"no change", func(*testing.T, string) {}, 0},
		{"file edited", func(t *testing.T, root string) { write(t, root, "a/b/b.go", "package b // more") }, 0},
		{"file grows past the cap", func(t *testing.T, root string) { write(t, root, "a/a.go", strings.Repeat("y", 300)) }, 0},
		{"file shrinks under the cap", func(t *testing.T, root string) { write(t, root, "big.go", "package main") }, 0},
		{"file added in an old dir", func(t *testing.T, root string) { write(t, root, "a/b/c/new.py", "y = 2") }, 1},
		{"new subdirectory", func(t *testing.T, root string) { write(t, root, "a/n/m/deep.go", "package m") }, 3},
		{"file deleted", func(t *testing.T, root string) { rm(t, root, "a/b/keep.tmp.go") }, 1},
		{"directory deleted", func(t *testing.T, root string) { rm(t, root, "a/b") }, 1},
		{"directory renamed", func(t *testing.T, root string) { mv(t, root, "a/b", "a/r") }, 3},
		{"directory moved up", func(t *testing.T, root string) { mv(t, root, "a/b/c", "c2") }, 3},
		{".gitignore edited", func(t *testing.T, root string) { write(t, root, ".gitignore", "*.log\n*.py\n") }, 99},
		{"nested .gitignore edited", func(t *testing.T, root string) { write(t, root, "a/b/.gitignore", "*.tmp.go\n") }, 2},
		{".gitignore added", func(t *testing.T, root string) { write(t, root, "a/.gitignore", "b/c/\n") }, 3},
		{".gitignore deleted", func(t *testing.T, root string) { rm(t, root, "a/b/.gitignore") }, 2},
		{".coderagignore added", func(t *testing.T, root string) { write(t, root, "a/b/c/.coderagignore", "*.py\n") }, 1},
		{"ignored dir gains a file", func(t *testing.T, root string) { write(t, root, "gen/h.go", "package gen") }, 0},
		{"build dir gains a Go file", func(t *testing.T, root string) { write(t, root, "build/b.go", "package build") }, 1},
		{"build package loses its Go file", func(t *testing.T, root string) { rm(t, root, "tools/build/b.go") }, 1},
		{"file becomes a symlink", func(t *testing.T, root string) {
			rm(t, root, "z/z.go")
			if err := os.Symlink("../main.go", filepath.Join(root, "z/z.go")); err != nil {
				t.Fatal(err)
			}
		}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := listingTree(t)
			opts := Options{MaxFileBytes: 100}
			age(t, root)
			l0, st0 := listAndCompare(t, root, opts, nil)
			if !st0.Full || st0.Relisted != st0.Dirs {
				t.Fatalf("first List: %+v, want every directory read", st0)
			}
			tc.change(t, root)
			l1, st1 := listAndCompare(t, root, opts, l0)
			if st1.Full || st1.Relisted > tc.relisted {
				t.Fatalf("List after the change: %+v, want at most %d directories read", st1, tc.relisted)
			}
			if tc.name == "no change" && l1.Changed() {
				t.Fatal("listing of an unchanged tree reported as changed")
			}
			// of a directory whose stamp is unchanged, only the ignore
			// files it had are checked: the tree's two .gitignore files
			if tc.name == "no change" && st1.IgnoreChecks != 2 {
				t.Fatalf("unchanged tree: %d ignore files lstat'ed, want the 2 there are", st1.IgnoreChecks)
			}
			if _, st2 := listAndCompare(t, root, opts, l1); st2.Relisted != 0 {
				t.Fatalf("List with no further change: %+v, want no directory read", st2)
			}
		})
	}
}

// TestListRacyStampsRelist: stamps taken within racyWindow of the listing
// are not trusted, so a tree just written is read again in full.
func TestListRacyStampsRelist(t *testing.T) {
	root := listingTree(t)
	l0, _ := listAndCompare(t, root, Options{}, nil)
	_, st := listAndCompare(t, root, Options{}, l0)
	if st.Relisted != st.Dirs {
		t.Fatalf("List of a tree written just now: %+v, want every directory read", st)
	}
}

// TestListOtherKey: a listing made with other options or another tag is
// not used.
func TestListOtherKey(t *testing.T) {
	root := listingTree(t)
	age(t, root)
	l0, _ := listAndCompare(t, root, Options{}, nil)
	_, st := listAndCompare(t, root, Options{AllowSecrets: true}, l0)
	if !st.Full {
		t.Fatalf("List with other options used the listing: %+v", st)
	}
}

// decodeDirRecSplit is decodeDirRec as it was written with strings.Split,
// the reference TestDecodeDirRec holds the allocation-free one to.
func decodeDirRecSplit(data string) (*dirRec, bool) {
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	rec := &dirRec{}
	for i, ln := range lines {
		fs := strings.Split(ln, "\t")
		if strings.Contains(ln, "\\") {
			for j := range fs {
				fs[j] = fieldUnesc.Replace(fs[j])
			}
		}
		if !rec.decodeLine(i, fs) {
			return nil, false
		}
	}
	return rec, true
}

// TestDecodeDirRec: a directory's row decodes as the strings.Split
// decoder read it, for rows of every kind of line, escaped fields, and
// lines of too few or too many fields (refused).
func TestDecodeDirRec(t *testing.T) {
	rec := &dirRec{Stamp: "1:2:3", Ignores: "a\tb", Entries: []entry{{K: 'f', N: "x.go"}, {K: 'd', N: "sub"},
		{K: 's', N: "big.bin", R: ReasonTooLarge, E: "e\nrr\\"}, {K: 'o', N: "build", T: "9:9"}},
		Unindexed: map[string]int{".syso": 3}, Problems: []Skip{{Path: ".gitignore", Reason: ReasonUnreadable, Err: "denied"}}}
	rows := []string{rec.encode(), "", "\n", "s1\ti1\n", "s1\ti1\nf\ta\n", "s1\ti1\tx\n", "s1\ti1\nf\ta\tb\tc\td\te\tf\n",
		"s1\ti1\nf\ta\tb\tc\td\te\n", "s1\ti1\nu\t.x\tnotanumber\n", "s1\ti1\nu\t.x\t3\np\ta\tb\tc\n", "a\tb\tc\td\te\tx\ty\n", "s1\ti1\nq\tz\n", "s1\ti1\nf\ta"}
	for _, row := range rows {
		got, gok := decodeDirRec(row)
		want, wok := decodeDirRecSplit(row)
		if gok != wok || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeDirRec(%q) = %+v, %v; want %+v, %v", row, got, gok, want, wok)
		}
	}
	if got, ok := decodeDirRec(rec.encode()); !ok || !reflect.DeepEqual(got, rec) {
		t.Errorf("round trip: %+v, %v; want %+v", got, ok, rec)
	}
}

// TestChildPaths: the paths a replayed listing gives a file are those of
// path.Join and filepath.Join, for any form of the root (the root
// directory, a trailing or doubled separator).
func TestChildPaths(t *testing.T) {
	for _, root := range []string{"/", "/r", "/r/", "/a//b", "/a/./b/"} {
		l := &lister{root: root, prefix: rootPrefix(root)}
		for _, rel := range []string{"", "d", "d/e"} {
			child, abs := l.childPaths(rel, "f.go")
			wantChild := path.Join(rel, "f.go")
			if child != wantChild || abs != filepath.Join(root, filepath.FromSlash(wantChild)) {
				t.Errorf("root %q, dir %q: %q %q", root, rel, child, abs)
			}
		}
	}
}
