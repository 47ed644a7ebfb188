package index

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/testutil"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/local"
	"github.com/coderag/coderag/internal/embed/static"
)

// ageTree sets every mtime under root an hour back and waits out the racy
// window, so the tree listing a run stores holds stamps it can trust.
func ageTree(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // change times (set by Chtimes) leave racyWindow
}

// dropListing removes root's stored tree listing, from the store and from
// its file beside the index, so that the next check walks the whole tree.
func dropListing(t *testing.T, st Store, root string) {
	t.Helper()
	if err := st.PutTreeListing(context.Background(), root, "", nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(st.SidePath(root, "tree")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// TestDiffFromListingMatchesFullWalk: after each kind of change, the
// check that reads only changed directories (the stored tree listing) and
// the fingerprint snapshot finds exactly what a check that walks the
// whole tree finds, and a run after it leaves the same rows as a fresh
// index.
func TestDiffFromListingMatchesFullWalk(t *testing.T) {
	t.Parallel()
	emb := localEmbedder(t)
	cases := []struct {
		name   string
		change func(t *testing.T, root string)
	}{
		{"file edited", func(t *testing.T, root string) { writeFile(t, root, "a/b/b.go", "package b\n\nfunc B2() {}\n") }},
		{"file added in an old dir", func(t *testing.T, root string) { writeFile(t, root, "a/new.go", "package a\n\nfunc N() {}\n") }},
		{"new subdirectory", func(t *testing.T, root string) { writeFile(t, root, "a/n/m/m.go", "package m\n\nfunc M() {}\n") }},
		{"file deleted", func(t *testing.T, root string) { os.Remove(filepath.Join(root, "a/a.go")) }},
		{"directory renamed", func(t *testing.T, root string) {
			if err := os.Rename(filepath.Join(root, "a/b"), filepath.Join(root, "a/r")); err != nil {
				t.Fatal(err)
			}
		}},
		{".gitignore edited", func(t *testing.T, root string) { writeFile(t, root, ".gitignore", "*.py\n") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			root := resolved(t, t.TempDir())
			writeFile(t, root, ".gitignore", "gen/\n")
			writeFile(t, root, "main.go", "package main\n\nfunc main() {}\n")
			writeFile(t, root, "a/a.go", "package a\n\nfunc A() {}\n")
			writeFile(t, root, "a/b/b.go", "package b\n\nfunc B() {}\n")
			writeFile(t, root, "a/b/c/c.py", "def c():\n    pass\n")
			writeFile(t, root, "gen/g.go", "package gen\n")
			writeFile(t, root, "z/z.go", "package z\n\nfunc Z() {}\n")
			ageTree(t, root)
			st := openStore(t)
			mustRun(t, st, emb, root)
			if ch, err := Diff(ctx, st, root, emb, false); err != nil || ch.Len() != 0 || ch.Listing.Full || ch.Listing.Relisted != 0 {
				t.Fatalf("Diff of the unchanged tree = %+v, %v; want no change and no directory read", ch, err)
			}
			// the checks below read the fingerprints from the snapshot
			// that check kept, and the listing from its file
			if from, same := snapshotState(t, st, root); !from || !same {
				t.Fatalf("after a no-change check: snapshot current %v, equal to the store %v", from, same)
			}
			if _, err := os.Stat(st.SidePath(root, "tree")); err != nil {
				t.Fatalf("no listing file: %v", err)
			}
			tc.change(t, root)
			cheap, err := Diff(ctx, st, root, emb, false)
			if err != nil {
				t.Fatal(err)
			}
			max := 3 // the changed directory, and new ones below it
			if tc.name == ".gitignore edited" {
				max = cheap.Listing.Dirs // the root's: every directory below it
			}
			if cheap.Listing.Full || cheap.Listing.Relisted > max {
				t.Fatalf("Diff after the change read %+v; want the changed directories only", cheap.Listing)
			}
			dropListing(t, st, root)
			full, err := Diff(ctx, st, root, emb, false)
			if err != nil {
				t.Fatal(err)
			}
			if !full.Listing.Full {
				t.Fatalf("Diff without a listing: %+v, want a full walk", full.Listing)
			}
			if cheap.Len() == 0 || !reflect.DeepEqual(cheap.Changed, full.Changed) || !reflect.DeepEqual(cheap.Removed, full.Removed) || !reflect.DeepEqual(cheap.New, full.New) {
				t.Fatalf("Diff from the listing = %v -%v (new %v)\nfull walk = %v -%v (new %v)",
					cheap.Changed, cheap.Removed, cheap.New, full.Changed, full.Removed, full.New)
			}
			mustRun(t, st, emb, root)
			fresh := openStore(t)
			mustRun(t, fresh, emb, root)
			if got, want := chunkLines(t, st, root), chunkLines(t, fresh, root); !reflect.DeepEqual(got, want) {
				t.Fatalf("after the change, index != fresh index:\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestOtherAnalysisOf: Diff's per-file test gives OtherAnalysis's verdict
// for every kind of fingerprint, with an embedder that translates Han text
// (its id then carries the analysis) and with one that does not.
func TestOtherAnalysisOf(t *testing.T) {
	hashing, err := local.New(local.Options{Analyzer: analyze.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	learned, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, emb := range []embed.Embedder{hashing, learned, nil} {
		id, now := "", ""
		if emb != nil {
			id, now = emb.ID(), embed.Analysis(emb)
		}
		for _, rec := range []string{"", id, id + "+" + now, id + "+zh:other", id + "+", "other:model+zh:x", id + "x+" + now} {
			if got, want := otherAnalysisOf(emb)(rec), OtherAnalysis(rec, emb); got != want {
				t.Errorf("%v, fingerprint %q: %v, OtherAnalysis says %v", emb, rec, got, want)
			}
		}
	}
}

// TestManyRacyFilesSettle: 300 files whose stored mtimes are all within
// racyWindow of their indexing (written just before the run) are settled
// by their content, not counted as changed: a bound of 256 racy reads
// left 44 "changed since the last index" in every check after the run.
func TestManyRacyFilesSettle(t *testing.T) {
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	for i := range 300 {
		writeFile(t, root, fmt.Sprintf("p/f%03d.go", i), fmt.Sprintf("package p\n\nfunc F%d() {}\n", i))
	}
	st := openStore(t)
	mustRun(t, st, emb, root)
	// every stored mtime inside racyWindow of its row's indexing time, as
	// a run that starts within a second of the writes leaves them (set
	// from the store's own record: a slow run cannot move them out)
	testutil.RawWrite(t, st.Path(), `UPDATE indexed_files SET mtime_ns = indexed_at - ?`, int64(racyWindow/2))
	rows, err := rawDB(t, st).Query(`SELECT file_path, mtime_ns FROM indexed_files`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p string
		var m int64
		if err := rows.Scan(&p, &m); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(filepath.Join(root, p), time.Unix(0, m), time.Unix(0, m))
	}
	rows.Close()
	dropListing(t, st, root)
	ch, err := Diff(context.Background(), st, root, emb, false)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Len() != 0 {
		t.Errorf("%d of 300 unchanged racy files counted as changed", ch.Len())
	}
}
