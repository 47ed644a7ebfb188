package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/walk"
)

// snapshotRecs returns a few records of every shape: two embedders,
// negative and large numbers, names with a tab, a newline and non-ASCII.
func snapshotRecs() []store.FileRecord {
	var recs []store.FileRecord
	for i, p := range []string{"a.go", "dir/b c.go", "tab\there.py", "new\nline.rs", "中文/x.md", ""} {
		recs = append(recs, store.FileRecord{
			Path: p, SHA256: fmt.Sprintf("%064x", i*7919), Embedder: []string{"local:x", "ollama:y+zh:1"}[i%2],
			Size: int64(i) << 33, MtimeNS: -int64(i) * 1e9, IndexedAt: time.Now().UnixNano(), Chunks: i * 3, Analysis: i,
		})
	}
	return recs
}

// TestSnapshotRoundTrip: a snapshot decodes to the records it was made
// of, and only for its own root and key; any cut or changed byte makes it
// unusable (read as none), never records that differ.
func TestSnapshotRoundTrip(t *testing.T) {
	recs := snapshotRecs()
	data := encodeSnapshot("/r", "3/abc", recs)
	got, ok := decodeSnapshot(append([]byte(nil), data...), "/r", "3/abc")
	if !ok || !reflect.DeepEqual(got, recs) {
		t.Fatalf("decode = %v, %+v\nwant %+v", ok, got, recs)
	}
	if _, ok := decodeSnapshot(data, "/r", "4/abc"); ok {
		t.Error("a snapshot of another key was used")
	}
	if _, ok := decodeSnapshot(data, "/other", "3/abc"); ok {
		t.Error("a snapshot of another root was used")
	}
	if got, ok := decodeSnapshot(encodeSnapshot("/r", "k", nil), "/r", "k"); !ok || len(got) != 0 {
		t.Errorf("empty snapshot: %v %v", got, ok)
	}
	for i := range data {
		if _, ok := decodeSnapshot(data[:i], "/r", "3/abc"); ok {
			t.Fatalf("snapshot cut at %d of %d bytes was used", i, len(data))
		}
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x10
		if _, ok := decodeSnapshot(bad, "/r", "3/abc"); ok {
			t.Fatalf("snapshot with byte %d changed was used", i)
		}
	}
}

// TestListingFileRoundTrip: the listing file gives back the header and
// rows it was made of, for its root only, and nothing when damaged.
func TestListingFileRoundTrip(t *testing.T) {
	rows := []walk.DirData{{Dir: "", Data: "s 1 2\nf a.go\n"}, {Dir: "a/b\tc", Data: ""}, {Dir: "中", Data: "x"}}
	data := encodeListingFile("/r", "listing 1 analysis 9", rows)
	h, got, ok := decodeListingFile(data, "/r")
	if !ok || h != "listing 1 analysis 9" || !reflect.DeepEqual(got, rows) {
		t.Fatalf("decode = %v %q %+v", ok, h, got)
	}
	if _, _, ok := decodeListingFile(data, "/s"); ok {
		t.Error("a listing of another root was used")
	}
	for i := range data {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x01
		if _, _, ok := decodeListingFile(bad, "/r"); ok {
			t.Fatalf("listing with byte %d changed was used", i)
		}
		if _, _, ok := decodeListingFile(data[:i], "/r"); ok {
			t.Fatalf("listing cut at %d bytes was used", i)
		}
	}
}

// storeRecs returns root's fingerprints as the store holds them, sorted
// by path.
func storeRecs(t *testing.T, st *store.Store, root string) []store.FileRecord {
	t.Helper()
	m, err := st.Files(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.FileRecord
	for _, r := range m {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// snapshotState reads root's fingerprints as a run would and reports
// whether they came from a current snapshot, and whether they equal the
// store's.
func snapshotState(t *testing.T, st *store.Store, root string) (fromSnapshot, same bool) {
	t.Helper()
	fp, err := loadFingerprints(context.Background(), st, root, false)
	if err != nil {
		t.Fatal(err)
	}
	got := append([]store.FileRecord(nil), fp.recs...)
	sort.Slice(got, func(i, j int) bool { return got[i].Path < got[j].Path })
	want := storeRecs(t, st, root)
	return fp.fromSnapshot, reflect.DeepEqual(got, want) || len(got) == 0 && len(want) == 0
}

// TestNoChangeRunKeepsSnapshot: a run that writes no fingerprint leaves a
// snapshot equal to the store's rows, which the next run reads, and does
// not change the store's fingerprint key; each write of the fingerprints
// (a changed file, a touched one, a removed project) makes the snapshot
// stale, and a stale snapshot is not read.
func TestNoChangeRunKeepsSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	writeFile(t, root, "a.go", "package a\n\nfunc A() {}\n")
	writeFile(t, root, "b/b.go", "package b\n\nfunc B() {}\n")
	ageTree(t, root)
	st := openStore(t)
	mustRun(t, st, emb, root)
	if from, _ := snapshotState(t, st, root); from {
		t.Fatal("a snapshot is current after the run that wrote every row")
	}
	mustRun(t, st, emb, root) // no change: reads the store, keeps a snapshot
	key, err := st.FilesKey(ctx, root)
	if err != nil || key == "" {
		t.Fatalf("key %q, %v", key, err)
	}
	if from, same := snapshotState(t, st, root); !from || !same {
		t.Fatalf("after a no-change run: snapshot current %v, equal to the store %v", from, same)
	}
	// it names every file of the project: its owner's alone, as the index
	for _, ext := range []string{"fp", "tree"} {
		if fi, err := os.Stat(st.SidePath(root, ext)); err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s file is %04o, want 0600", ext, fi.Mode().Perm())
		}
	}
	if rep := mustRun(t, st, emb, root); rep.Unchanged != 2 || rep.Changed+rep.Removed != 0 {
		t.Fatalf("run from the snapshot: %+v", rep)
	}
	if k, _ := st.FilesKey(ctx, root); k != key {
		t.Fatalf("a no-change run changed the fingerprint key: %q -> %q", key, k)
	}

	// each write of the fingerprints makes the snapshot stale
	rec := storeRecs(t, st, root)[0]
	if err := st.TouchFiles(ctx, root, []store.FileRecord{rec}); err != nil {
		t.Fatal(err)
	}
	if from, same := snapshotState(t, st, root); from || !same {
		t.Fatalf("after TouchFiles: snapshot used %v, records equal to the store %v", from, same)
	}
	mustRun(t, st, emb, root)
	writeFile(t, root, "c.go", "package a\n\nfunc C() {}\n")
	touchLater(t, filepath.Join(root, "c.go"), -time.Minute)
	if rep := mustRun(t, st, emb, root); rep.Changed != 1 {
		t.Fatalf("added file: %+v", rep)
	}
	if from, _ := snapshotState(t, st, root); from {
		t.Fatal("the snapshot is current after a run that wrote a file")
	}
	mustRun(t, st, emb, root)
	if from, _ := snapshotState(t, st, root); !from {
		t.Fatal("no snapshot after a no-change run")
	}
	// a removed project's files are all indexed again, though unchanged;
	// its files beside the index are gone
	if _, err := st.RemoveProject(ctx, root); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{"fp", "tree"} {
		if _, err := os.Stat(st.SidePath(root, ext)); !os.IsNotExist(err) {
			t.Errorf("%s file after RemoveProject: %v", ext, err)
		}
	}
	if rep := mustRun(t, st, emb, root); rep.Changed != 3 || rep.Unchanged != 0 {
		t.Fatalf("run after the project was removed: %+v", rep)
	}
}

// TestSnapshotOfAnotherDatabase: a database made anew where one was (the
// snapshot files beside it left) does not take the old snapshot: every
// file is indexed, and a no-change run after finds nothing to do.
func TestSnapshotOfAnotherDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	writeFile(t, root, "a.go", "package a\n\nfunc A() {}\n")
	ageTree(t, root)
	db := filepath.Join(t.TempDir(), "index.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, st, emb, root)
	mustRun(t, st, emb, root)
	if from, _ := snapshotState(t, st, root); !from {
		t.Fatal("no snapshot after a no-change run")
	}
	st.Close()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	st, err = store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	writeFile(t, root, "b.go", "package a\n\nfunc B() {}\n")
	touchLater(t, filepath.Join(root, "b.go"), -time.Minute)
	if rep := mustRun(t, st, emb, root); rep.Changed != 2 || rep.Unchanged != 0 {
		t.Fatalf("first run into a new database: %+v", rep)
	}
	// the new database's data version is now the old one's (1): only the
	// token tells the old snapshot (no b.go) from the new rows
	if rep := mustRun(t, st, emb, root); rep.Changed != 0 || rep.Unchanged != 2 {
		t.Fatalf("second run into the new database: %+v", rep)
	}
}

// TestDamagedSnapshotIsNotUsed: a snapshot file that does not decode is
// as none: the run reads the store, finds nothing changed, and writes the
// snapshot anew.
func TestDamagedSnapshotIsNotUsed(t *testing.T) {
	t.Parallel()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	writeFile(t, root, "a.go", "package a\n\nfunc A() {}\n")
	ageTree(t, root)
	st := openStore(t)
	mustRun(t, st, emb, root)
	mustRun(t, st, emb, root)
	file := st.SidePath(root, "fp")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if from, same := snapshotState(t, st, root); from || !same {
		t.Fatalf("damaged snapshot: used %v, records equal to the store %v", from, same)
	}
	if rep := mustRun(t, st, emb, root); rep.Unchanged != 1 || rep.Changed != 0 {
		t.Fatalf("run beside a damaged snapshot: %+v", rep)
	}
	if from, _ := snapshotState(t, st, root); !from {
		t.Fatal("the snapshot was not written anew")
	}
}

// TestRacyEditSeenThroughSnapshot: a search's check (Diff) of a file
// indexed within the racy window keeps a snapshot with that file's
// record; an edit of the same size with the same mtime after it is still
// found from the snapshot, by the content hash.
func TestRacyEditSeenThroughSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	writeFile(t, root, "x.go", "package x\n\nfunc AAAA() {}\n")
	p := filepath.Join(root, "x.go")
	// an mtime a minute ahead: the run indexes the file within the racy
	// window however long it takes
	ahead := time.Now().Add(time.Minute)
	if err := os.Chtimes(p, ahead, ahead); err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	mustRun(t, st, emb, root)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if rec := storeRecs(t, st, root)[0]; rec.IndexedAt > fi.ModTime().UnixNano()+racyWindow {
		t.Fatalf("indexed at %d, mtime %d: the file is not racy", rec.IndexedAt, fi.ModTime().UnixNano())
	}
	if ch, err := Diff(ctx, st, root, emb, false); err != nil || ch.Len() != 0 {
		t.Fatalf("Diff of the racy, unchanged file: %+v, %v", ch, err)
	}
	if from, same := snapshotState(t, st, root); !from || !same {
		t.Fatalf("after Diff: snapshot current %v, equal to the store %v", from, same)
	}
	writeFile(t, root, "x.go", "package x\n\nfunc BBBB() {}\n")
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	ch, err := Diff(ctx, st, root, emb, false)
	if err != nil || !reflect.DeepEqual(ch.Changed, []string{"x.go"}) {
		t.Fatalf("Diff after a same-size edit with the same mtime: %+v, %v; want x.go changed", ch, err)
	}
	if rep := mustRun(t, st, emb, root); rep.Changed != 1 {
		t.Fatalf("run after the racy edit: %+v", rep)
	}
}
