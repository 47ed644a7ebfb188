package sqlite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/store/storetest"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modernc.org/sqlite"
)

// filled returns a closed index at a temp path holding project /p with n
// files of 4 chunks each.
// noise is n bytes of hex text (a SHA-256 chain from seed), which the
// chunk text's compression (store.EncodeContent, LZ4) cannot shrink, so
// tests that fill pages fill as many as they write.
func noise(seed string, n int) string {
	var b strings.Builder
	h := sha256.Sum256([]byte(seed))
	for b.Len() < n {
		b.WriteString(hex.EncodeToString(h[:]))
		h = sha256.Sum256(h[:])
	}
	return b.String()[:n]
}

func filled(t *testing.T, n int) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3}); err != nil {
		t.Fatal(err)
	}
	var fs []store.FileData
	for i := range n {
		f := storetest.File(fmt.Sprintf("f%03d.go", i), "alpha", "beta", "gamma", "delta")
		for j := range f.Chunks {
			f.Chunks[j].Content = noise(fmt.Sprint(i, j), 600)
		}
		fs = append(fs, f)
	}
	if err := s.ReplaceFiles(ctx, "/p", fs, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Compact(ctx); err != nil { // checkpoint: everything in the main file
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func sum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestForeignDatabaseRefused: an SQLite file of another program at the
// index path is refused, and not one byte of it changes (no command, not
// even a read, writes coderag's tables into it).
func TestForeignDatabaseRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users(name) VALUES('ann')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := sum(t, path)
	_, err = Open(ctx, path)
	if !errors.Is(err, store.ErrForeign) || !strings.Contains(err.Error(), "tables users") {
		t.Fatalf("Open = %v, want store.ErrForeign naming the tables", err)
	}
	if sum(t, path) != before {
		t.Fatal("the foreign database was modified")
	}
	rep, err := Check(ctx, path, false)
	if err != nil || !rep.Foreign || len(rep.Problems) == 0 {
		t.Fatalf("Check = %+v, %v", rep, err)
	}
	if sum(t, path) != before {
		t.Fatal("Check modified the foreign database")
	}
	// not SQLite at all
	junk := filepath.Join(t.TempDir(), "index.db")
	if err := os.WriteFile(junk, bytes.Repeat([]byte("not a database "), 500), 0o644); err != nil {
		t.Fatal(err)
	}
	jb := sum(t, junk)
	if _, err := Open(ctx, junk); !errors.Is(err, store.ErrForeign) || !strings.Contains(err.Error(), "not an SQLite database") {
		t.Fatalf("junk: %v", err)
	}
	if sum(t, junk) != jb {
		t.Fatal("the junk file was modified")
	}
	// an empty file is a new index
	empty := filepath.Join(t.TempDir(), "index.db")
	os.WriteFile(empty, nil, 0o644)
	s, err := Open(ctx, empty)
	if err != nil {
		t.Fatalf("empty file: %v", err)
	}
	s.Close()
}

// TestDroppedTableIsDamage: a table dropped from an index at the current
// schema is reported with the repair hint, not taken as up to date
// (before: migrate stopped at the version number and index said "0
// changed").
func TestDroppedTableIsDamage(t *testing.T) {
	ctx := context.Background()
	path := filled(t, 3)
	db, _ := sql.Open("sqlite", "file:"+path)
	if _, err := db.Exec(`DROP TABLE code_chunks`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := Open(ctx, path)
	if !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), "code_chunks is missing") || strings.Contains(err.Error(), "coderag") {
		t.Fatalf("Open = %v", err)
	}
	rep, err := Check(ctx, path, false)
	if err != nil || len(rep.Problems) == 0 || rep.Foreign {
		t.Fatalf("Check = %+v, %v", rep, err)
	}
}

// garble overwrites every page after the first with random bytes, from
// page `from` on (1-based), as a disk or a stray write would.
func garble(t *testing.T, path string, from int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	r := rand.New(rand.NewPCG(1, 2))
	for off := (from - 1) * page; off < len(b); off++ {
		b[off] = byte(r.UintN(256))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptPagesAreDamage: on a file whose pages (all but the first, which
// holds the schema) are garbage, Probe, Check and the queries search runs
// all report damage that store.Damaged recognises.
func TestCorruptPagesAreDamage(t *testing.T) {
	ctx := context.Background()
	path := filled(t, 40)
	garble(t, path, 2)
	s, err := Open(ctx, path)
	if err == nil {
		defer s.Close()
		if err := s.Probe(ctx); !errors.Is(err, store.ErrDamaged) {
			t.Errorf("Probe = %v, want store.ErrDamaged", err)
		}
		if _, err := s.KeywordSearch(ctx, "/p", []string{"alpha"}, store.FTSWeights{Name: 1, Owner: 1, Path: 1, Doc: 1, Body: 1}, 10); err == nil || !store.Damaged(err) {
			t.Errorf("KeywordSearch = %v, want damage", err)
		}
	} else if !store.Damaged(err) {
		t.Fatalf("Open = %v, want damage", err)
	}
	rep, err := Check(ctx, path, false)
	if err != nil || len(rep.Problems) == 0 {
		t.Fatalf("Check = %+v, %v", rep, err)
	}
	// a healthy file checks clean
	rep, err = Check(ctx, filled(t, 3), true)
	if err != nil || len(rep.Problems) != 0 || len(rep.Projects) != 1 {
		t.Fatalf("healthy Check = %+v, %v", rep, err)
	}
}

// TestRemoveGivesSpaceBack: removing a project shrinks the file (the freed
// pages do not stay in index.db).
func TestRemoveGivesSpaceBack(t *testing.T) {
	ctx := context.Background()
	path := filled(t, 200)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mode int
	if err := s.DB().QueryRow(`PRAGMA auto_vacuum`).Scan(&mode); err != nil || mode != 2 {
		t.Fatalf("auto_vacuum = %d, %v; want 2 (incremental) on a new index", mode, err)
	}
	if _, err := s.RemoveProject(ctx, "/p"); err != nil {
		t.Fatal(err)
	}
	before, after, err := s.Compact(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if after > before/4 || st.Size() > before/4 {
		t.Fatalf("index %d bytes before remove, %d after (file %d): want it to shrink", before, after, st.Size())
	}
	t.Logf("remove: %d -> %d bytes", before, after)
}

// TestCompactConvertsOldFile: an index made without auto_vacuum (every
// index before this change) is vacuumed once and switched.
func TestCompactConvertsOldFile(t *testing.T) {
	ctx := context.Background()
	path := filled(t, 100)
	db, _ := sql.Open("sqlite", "file:"+path)
	if _, err := db.Exec(`PRAGMA auto_vacuum = NONE; VACUUM`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.RemoveProject(ctx, "/p"); err != nil {
		t.Fatal(err)
	}
	before, after, err := s.Compact(ctx)
	if err != nil || after > before/4 {
		t.Fatalf("compact %d -> %d, %v", before, after, err)
	}
	var mode int
	s.DB().QueryRow(`PRAGMA auto_vacuum`).Scan(&mode)
	if mode != 2 {
		t.Fatalf("auto_vacuum = %d after compact, want 2", mode)
	}
}

func TestRunState(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if _, _, ok, err := s.Incomplete(ctx, "/p"); ok || err != nil {
		t.Fatalf("no record: incomplete %v, %v", ok, err)
	}
	if err := s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3}); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginRun(ctx, "/p", 5, false); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("a.go", "alpha"), storetest.File("b.go", "beta")}, nil); err != nil {
		t.Fatal(err)
	}
	n, total, ok, err := s.Incomplete(ctx, "/p")
	if !ok || n != 2 || total != 5 || err != nil {
		t.Fatalf("during a run: %d of %d, %v, %v", n, total, ok, err)
	}
	if err := s.EndRun(ctx, "/p", 5, 3, true); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := s.Incomplete(ctx, "/p"); ok {
		t.Fatal("a finished run is not incomplete")
	}
	if _, err := s.RemoveProject(ctx, "/p"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.LastRun(ctx, "/p"); ok {
		t.Fatal("the run record outlived its project")
	}
}

// TestDiskFullLeavesNoBloat: a write that fails with SQLITE_FULL (here
// forced by max_page_count, as a full disk would) leaves neither the file
// nor its WAL larger than before.
func TestDiskFullLeavesNoBloat(t *testing.T) {
	ctx := context.Background()
	path := filled(t, 5)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := s.Backend().(*backend).w // ReplaceFiles' pool: one connection, which the pragmas below hold for
	w.SetMaxOpenConns(1)
	var pages int
	if err := w.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(fmt.Sprintf(`PRAGMA cache_size = 20; PRAGMA max_page_count = %d`, pages+300)); err != nil {
		t.Fatal(err)
	}
	before := s.Size()
	var fs []store.FileData
	for i := range 400 {
		f := storetest.File(fmt.Sprintf("big%03d.go", i), "alpha", "beta", "gamma")
		for j := range f.Chunks {
			f.Chunks[j].Content = noise(fmt.Sprint(i, j), 2400)
		}
		fs = append(fs, f)
	}
	err = s.ReplaceFiles(ctx, "/p", fs, nil)
	if err == nil || !strings.Contains(err.Error(), "full") {
		t.Fatalf("ReplaceFiles = %v, want a disk-full error", err)
	}
	if after := s.Size(); after > before+64<<10 {
		t.Fatalf("index %d bytes before the failed write, %d after", before, after)
	}
	c, err := s.Count(ctx, "/p")
	if err != nil || c.Files != 5 {
		t.Fatalf("after the failed write: %+v, %v", c, err)
	}
}

// TestDroppedIndexRestored: an index (not a table) dropped from the file is
// re-created by Open: it holds nothing that cannot be rebuilt.
func TestDroppedIndexRestored(t *testing.T) {
	ctx := context.Background()
	path := filled(t, 3)
	db, _ := sql.Open("sqlite", "file:"+path)
	if _, err := db.Exec(`DROP INDEX code_chunks_file`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.DB().QueryRow(`SELECT count(*) FROM sqlite_master WHERE type='index' AND name='code_chunks_file'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("index restored: %d, %v", n, err)
	}
}

// TestDriverErrorsClassified: the driver's own errors, from real files:
// SQLITE_FULL (max_page_count reached, as on a full disk) is a full disk
// and no damage, even wrapped in store.ErrDamaged; SQLITE_CORRUPT (garbage
// pages) and SQLITE_NOTADB (a file of random bytes) are damage and no
// failure of the disk.
func TestDriverErrorsClassified(t *testing.T) {
	ctx := context.Background()
	code := func(err error) int {
		var e *sqlite.Error
		if !errors.As(err, &e) {
			t.Fatalf("%v (%T) is not the driver's error", err, err)
		}
		return e.Code() & 0xff
	}

	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "full.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // the pragma holds for its connection
	_, err = db.Exec(`CREATE TABLE t(x); PRAGMA max_page_count = 3`)
	for i := 0; err == nil && i < 100; i++ {
		_, err = db.Exec(`INSERT INTO t VALUES (?)`, noise(fmt.Sprint(i), 2000))
	}
	if code(err) != 13 {
		t.Fatalf("insert past max_page_count = %v, want SQLITE_FULL", err)
	}
	if p := store.DiskProblem(err); p != store.DiskFull {
		t.Errorf("DiskProblem(%v) = %q, want %q", err, p, store.DiskFull)
	}
	if wrapped := fmt.Errorf("%w: %w", store.ErrDamaged, err); store.Damaged(err) || store.Damaged(wrapped) {
		t.Errorf("SQLITE_FULL (%v) taken for damage", err)
	}

	path := filled(t, 40)
	garble(t, path, 2)
	db2, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	err = store.Drain(ctx, db2, `SELECT * FROM code_chunks`)
	if c := code(err); c != 11 && c != 26 {
		t.Fatalf("reading garbage pages = %v, want SQLITE_CORRUPT", err)
	}
	if !store.Damaged(err) || store.DiskProblem(err) != "" {
		t.Errorf("%v: Damaged %v, DiskProblem %q; want damage, no disk problem", err, store.Damaged(err), store.DiskProblem(err))
	}

	junk := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(junk, []byte(noise("junk", 8192)), 0o644); err != nil {
		t.Fatal(err)
	}
	db3, err := sql.Open("sqlite", "file:"+junk+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db3.Close()
	err = store.Drain(ctx, db3, `SELECT name FROM sqlite_master`)
	if code(err) != 26 || !store.Damaged(err) || store.DiskProblem(err) != "" {
		t.Errorf("a file of random bytes: %v, Damaged %v, DiskProblem %q; want SQLITE_NOTADB, damage", err, store.Damaged(err), store.DiskProblem(err))
	}
}
