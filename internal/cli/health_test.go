package cli

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
)

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// bigFixture writes n Go files, each with a function named after it.
func bigFixture(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	for i := range n {
		src := fmt.Sprintf("package p\n\n// Handler%d serves request kind %d with retries and backoff.\nfunc Handler%d() int {\n\treturn %d\n}\n", i, i, i, i)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("h%03d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := index.ResolveRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestForeignIndexFileUntouched: an SQLite database of another program at
// $CODERAG_HOME/index.db is refused by every command, in one line, and not
// one byte of it changes.
func TestForeignIndexFileUntouched(t *testing.T) {
	home := setHome(t)
	root := bigFixture(t, 3)
	path := filepath.Join(home, "index.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE invoices(id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices(total) VALUES (9.5)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := fileSum(t, path)
	for _, args := range [][]string{
		{"search", "--project", root, "handler"},
		{"stats"},
		{"graph", "--project", root, "Handler1"},
		{"remove", root},
		{"index", "--quiet", root},
		{"doctor"},
		{"doctor", "--rebuild"},
	} {
		code, out, errs := run(t, args...)
		if code != 1 || !strings.Contains(errs, "not a coderag index") || strings.Count(strings.TrimSpace(errs), "\n") != 0 ||
			strings.Contains(errs, "doctor --rebuild` to rebuild") || !strings.Contains(errs, "CODERAG_HOME") {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errs)
		}
		if fileSum(t, path) != before {
			t.Fatalf("%v modified the foreign database", args)
		}
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Error("a WAL file was created beside the foreign database")
	}
}

// TestForeignStoreHint: a file given by CODERAG_STORE that is not an index
// is refused with advice about CODERAG_STORE, which CODERAG_HOME would not
// move, in one line.
func TestForeignStoreHint(t *testing.T) {
	setHome(t)
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE invoices(id INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	t.Setenv("CODERAG_STORE", path)
	for _, args := range [][]string{{"stats"}, {"doctor"}} {
		code, _, errs := run(t, args...)
		if code != 1 || !strings.Contains(errs, "point CODERAG_STORE (or --store) at another file") || strings.Contains(errs, "CODERAG_HOME") ||
			strings.Count(errs, "leaves it untouched")+strings.Count(errs, "left untouched") != 1 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestIndexPathIsADirectory: a directory at $CODERAG_HOME/index.db is
// refused by every command, in one line that says so (not SQLite's "disk
// I/O error"), and doctor --rebuild neither moves nor changes it.
func TestIndexPathIsADirectory(t *testing.T) {
	home := setHome(t)
	root := bigFixture(t, 3)
	path := filepath.Join(home, "index.db")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"search", "--project", root, "handler"},
		{"stats"},
		{"index", "--quiet", root},
		{"doctor"},
		{"doctor", "--rebuild"},
	} {
		code, out, errs := run(t, args...)
		// doctor says what it found on stdout ("problem: ..."), its verdict on stderr
		if code != 1 || !strings.Contains(out+errs, "index.db is a directory, not an index file") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errs)
		}
		if st, err := os.Stat(filepath.Join(path, "inside")); err != nil || !st.IsDir() {
			t.Fatalf("%v moved or changed the directory: %v", args, err)
		}
	}
}

// garbleFile overwrites every page after the first (which holds the
// schema) with random bytes, except the pages of the tables named in keep
// (and their indexes) and of the schema, found with the dbstat table.
func garbleFile(t *testing.T, path string, keep ...string) {
	t.Helper()
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		t.Fatalf("%s-wal holds %d bytes: the test must corrupt the main file", path, st.Size())
	}
	kept := map[int]bool{1: true}
	if len(keep) > 0 {
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		// every page of the schema itself (it outgrows page 1 once
		// per-project full-text tables exist), and of the kept tables
		for _, name := range append([]string{"sqlite_schema"}, keep...) {
			addPages(t, db, kept, `SELECT pageno FROM dbstat WHERE name = ? OR name IN (SELECT name FROM sqlite_master WHERE tbl_name = ?)`, name, name)
		}
		db.Close()
	}
	scrambleBytes(t, path, func(i int) bool { return !kept[i/4096+1] })
}

// addPages adds to pages the page numbers a dbstat query gives.
func addPages(t *testing.T, db *sql.DB, pages map[int]bool, query string, args ...any) {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var p int
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		pages[p] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// scrambleBytes overwrites each byte past the first page of the file at
// path for which garble(offset) holds with a seeded random byte.
func scrambleBytes(t *testing.T, path string, garble func(offset int) bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	for i := 4096; i < len(b); i++ {
		if garble(i) {
			b[i] = byte(r.UintN(256))
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptIndex: on an index.db whose pages are garbage, index does not
// report success, search fails in one line that says how to repair, doctor
// says it is damaged, and doctor --rebuild brings search back (index must
// not say "0 changed" while search fails for good).
func TestCorruptIndex(t *testing.T) {
	home := setHome(t)
	root := bigFixture(t, 40)
	if code, out, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	path := filepath.Join(home, "index.db")
	garbleFile(t, path, "meta", "projects") // what doctor needs to know the projects survives
	code, out, errs := run(t, "index", "--quiet", root)
	if code == 0 || strings.Contains(out, "0 changed") || !strings.Contains(errs, "coderag doctor --rebuild") {
		t.Errorf("index on a corrupt file: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	// one line, named by its command, saying "damaged" once
	if line := strings.TrimSpace(errs); !strings.HasPrefix(line, "coderag index: ") || strings.Count(line, "damaged") != 1 || strings.Contains(line, "\n") {
		t.Errorf("index on a corrupt file printed %q: want one line starting \"coderag index: \" that says damaged once", line)
	}
	code, out, errs = run(t, "search", "--project", root, "handler retries")
	if code != 1 || !strings.Contains(errs, "coderag doctor --rebuild") {
		t.Errorf("search on a corrupt file: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	code, out, errs = run(t, "doctor")
	if code != 1 || !strings.Contains(out, "problem:") || !strings.Contains(errs, "is damaged") {
		t.Errorf("doctor: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	code, out, errs = run(t, "doctor", "--rebuild")
	if code != 0 {
		t.Fatalf("doctor --rebuild: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if m, _ := filepath.Glob(path + ".damaged-*"); len(m) == 0 {
		t.Error("the damaged file was not kept aside")
	}
	if !strings.Contains(errs, "restart any coderag serve or index --watch") {
		t.Errorf("doctor --rebuild does not say a running server keeps the moved file: %s", errs)
	}
	code, out, errs = run(t, "search", "--project", root, "Handler7")
	if code != 0 || !strings.Contains(out, "h007.go") {
		t.Errorf("search after rebuild: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if code, out, _ := run(t, "doctor"); code != 0 || !strings.Contains(out, "ok") {
		t.Errorf("doctor after rebuild: %d %s", code, out)
	}
	// every page garbled: the projects are unknown, and doctor and
	// rebuild say so (what moving it aside loses)
	garbleFile(t, path)
	code, out, errs = run(t, "doctor")
	if code != 1 || !strings.Contains(errs, "is damaged and its list of projects cannot be read") ||
		!strings.Contains(errs, "every project it held must then be indexed again with `coderag index PATH`") {
		t.Errorf("doctor of an index without readable projects: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	code, out, errs = run(t, "doctor", "--rebuild")
	if code != 0 || !strings.Contains(errs, "run `coderag index PATH` for each") {
		t.Errorf("rebuild of an unreadable index: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

// garbleTable overwrites the pages of table in the index at path with
// random bytes, past the first 200 bytes of each (its page header stays),
// so that SQLite's checks find damage page by page.
func garbleTable(t *testing.T, path, table string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	pages := map[int]bool{}
	addPages(t, db, pages, `SELECT pageno FROM dbstat WHERE name = ?`, table)
	db.Close()
	if len(pages) < 2 {
		t.Fatalf("%s has %d pages: too few to garble", table, len(pages))
	}
	scrambleBytes(t, path, func(i int) bool { return pages[i/4096+1] && i%4096 >= 200 })
}

// TestDoctorCapsFindings: SQLite's quick_check gives its findings on a
// damaged table as the lines of one row; doctor's text output (and again
// under --rebuild) shows the first few of them on the problem's line and
// how many more there are, --json keeps them all (it printed them all on
// one line: some 8 KB).
func TestDoctorCapsFindings(t *testing.T) {
	home := setHome(t)
	root := bigFixture(t, 300)
	if code, out, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	garbleTable(t, filepath.Join(home, "index.db"), "code_chunks")
	_, js, _ := run(t, "doctor", "--json")
	var rep struct {
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, js)
	}
	most := 0
	for _, p := range rep.Problems {
		most = max(most, strings.Count(p, "\n")+1)
	}
	if most < 10 {
		t.Fatalf("doctor --json: no problem holds 10 findings or more (%q): the damage is not what this test needs", rep.Problems)
	}
	for _, args := range [][]string{{"doctor"}, {"doctor", "--rebuild"}} {
		code, out, errs := run(t, args...)
		if args[len(args)-1] == "doctor" && code != 1 {
			t.Errorf("%v: exit %d, want 1\nstderr: %s", args, code, errs)
		}
		capped := 0
		for _, l := range strings.Split(out, "\n") {
			if !strings.HasPrefix(l, "problem: ") {
				continue
			}
			if len(l) > 400 || strings.Contains(l, "*** in database") {
				t.Errorf("%v: a problem line of %d bytes: %s", args, len(l), l)
			}
			if strings.Contains(l, " more (`coderag doctor --json` lists them all)") {
				capped++
			}
		}
		if capped != 1 {
			t.Errorf("%v: %d problem lines say how many more findings there are, want 1:\n%s", args, capped, out)
		}
	}
}

// dropVectors damages the index in home: its code_vectors table is
// dropped, which doctor finds and --rebuild repairs.
func dropVectors(t *testing.T, home string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(home, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DROP TABLE code_vectors`); err != nil {
		t.Fatal(err)
	}
}

// TestDroppedTable: an index with a table dropped is damaged, not "up to
// date": index fails saying how to repair (before: "0 changed").
func TestDroppedTable(t *testing.T) {
	home := setHome(t)
	root := bigFixture(t, 5)
	if code, out, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	dropVectors(t, home)
	code, out, errs := run(t, "index", "--quiet", root)
	if code != 1 || !strings.Contains(errs, "code_vectors is missing") || !strings.Contains(errs, "coderag doctor --rebuild") {
		t.Errorf("index: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if code, out, errs := run(t, "doctor", "--rebuild"); code != 0 {
		t.Fatalf("rebuild: %d %s %s", code, out, errs)
	}
	if code, out, errs := run(t, "search", "--project", root, "Handler3"); code != 0 || !strings.Contains(out, "h003.go") {
		t.Errorf("search after rebuild: %d %s %s", code, out, errs)
	}
}

// TestRemoveShrinksIndex: `remove` gives the space back.
func TestRemoveShrinksIndex(t *testing.T) {
	home := setHome(t)
	big := bigFixture(t, 300)
	small := bigFixture(t, 2)
	for _, r := range []string{big, small} {
		if code, out, errs := run(t, "index", "--quiet", r); code != 0 {
			t.Fatalf("index: %d %s %s", code, out, errs)
		}
	}
	path := filepath.Join(home, "index.db")
	size := func() int64 {
		var n int64
		for _, suf := range []string{"", "-wal"} {
			if st, err := os.Stat(path + suf); err == nil {
				n += st.Size()
			}
		}
		return n
	}
	before := size()
	code, out, errs := run(t, "remove", big)
	if code != 0 || !strings.Contains(out, "MiB ->") {
		t.Fatalf("remove: %d %s %s", code, out, errs)
	}
	after := size()
	if after > before/3 {
		t.Fatalf("index %d bytes before remove, %d after: want the space back", before, after)
	}
	t.Logf("remove: %d -> %d bytes", before, after)
	if code, out, _ := run(t, "search", "--project", small, "Handler1"); code != 0 || !strings.Contains(out, "h001.go") {
		t.Fatalf("the other project after remove: %d %s", code, out)
	}
}

// TestSearchSaysIndexIncomplete: a first index interrupted after a few
// files, then a search that finds nothing for the missing files, says the
// project is incomplete and how to finish it.
func TestSearchSaysIndexIncomplete(t *testing.T) {
	home := setHome(t)
	root := bigFixture(t, 60) // more missing files than search refreshes before answering (freshMaxFiles)
	st, err := store.Open(context.Background(), filepath.Join(home, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	emb, err := provider.New(embed.Options{Provider: "local"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, err = index.Run(ctx, st, emb, root, index.Options{Threads: 1, BatchSize: 1, Progress: func(p index.Progress) {
		if p.Done == 5 {
			cancel() // as a kill would, after a few files were committed
		}
	}})
	st.Close()
	if err == nil {
		t.Fatal("the run was not interrupted")
	}
	code, out, errs := run(t, "search", "--project", root, "Handler29")
	if code != 0 || !strings.Contains(out, "note: index incomplete: ") || !strings.Contains(out, "of 60 files indexed") ||
		!strings.Contains(out, "run `coderag index "+root+"`") {
		t.Fatalf("search: %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	code, out, _ = run(t, "search", "--project", root, "--tool-format", "Handler29")
	if code != 0 || !strings.Contains(out, "Note: index incomplete: ") {
		t.Fatalf("tool format: %s", out)
	}
	if code, out, _ := run(t, "stats"); code != 0 || !strings.Contains(out, "last run:  unfinished") || !strings.Contains(out, "of 60 files indexed") {
		t.Fatalf("stats: %s", out)
	}
	if code, out, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	if code, out, _ := run(t, "search", "--project", root, "Handler29"); code != 0 || strings.Contains(out, "incomplete") || !strings.Contains(out, "h029.go") {
		t.Fatalf("after the index finished: %d %s", code, out)
	}
}

// TestDiskErrorLine: a full disk (SQLite's SQLITE_FULL from a real file,
// its I/O error marked store.ErrDiskFull, ENOSPC) is printed as such, once,
// with what to do; an I/O error says it is one; neither gets the repair
// hint of a damaged index.
func TestDiskErrorLine(t *testing.T) {
	setHome(t)
	cfg, err := config.FromLookup(testLookup(t))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{cfg: cfg}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "full.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // max_page_count holds for its connection
	_, full := db.Exec(`CREATE TABLE t(x); PRAGMA max_page_count = 3`)
	for i := 0; full == nil && i < 100; i++ {
		_, full = db.Exec(`INSERT INTO t VALUES (?)`, strings.Repeat(fmt.Sprint(i), 2000))
	}
	if full == nil {
		t.Fatal("max_page_count did not stop the inserts")
	}
	for err, want := range map[error]string{
		fmt.Errorf("index /p: %w", full): "index /p: database or disk is full (13); free some space on the disk and try again",
		fmt.Errorf("open index /h/index.db: %w: %w", store.ErrDiskFull, errors.New("disk I/O error (4874)")): "open index /h/index.db: the disk is full: disk I/O error (4874); free some space on the disk and try again",
		&os.PathError{Op: "write", Path: "/h/x", Err: syscall.ENOSPC}:                                        "write /h/x: no space left on device; free some space on the disk and try again",
		fmt.Errorf("open index /h/index.db: %w", errors.New("disk I/O error (4874)")):                        "open index /h/index.db: disk I/O error (4874): an I/O error of the disk or file system, not damage to the index",
	} {
		if got := e.errText(err); got != want {
			t.Errorf("errText(%v) =\n%q, want\n%q", err, got, want)
		}
	}
}

// cancelOn is a writer that cancels when what it has been written holds
// marker (an interrupt at a known point of a command's progress).
type cancelOn struct {
	buf    strings.Builder
	marker string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(p []byte) (int, error) {
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.marker) {
		w.cancel()
	}
	return len(p), nil
}

// TestInterruptedRebuildKeepsEveryProject: `doctor --rebuild` interrupted
// after the first of three projects is re-indexed leaves all three in the
// new index (the unreached ones as unfinished runs, which stats says),
// not the first alone; `index` then finishes one of them.
func TestInterruptedRebuildKeepsEveryProject(t *testing.T) {
	home := setHome(t)
	roots := []string{bigFixture(t, 3), bigFixture(t, 4), bigFixture(t, 5)}
	for _, r := range roots {
		if code, out, errs := run(t, "index", "--quiet", r); code != 0 {
			t.Fatalf("index %s: %d %s %s", r, code, out, errs)
		}
	}
	dropVectors(t, home)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errw := &cancelOn{marker: "re-indexed ", cancel: cancel}
	var out strings.Builder
	code := MainIO(ctx, []string{"doctor", "--rebuild"}, testLookup(t), strings.NewReader(""), &out, errw)
	if code == 0 || strings.Count(errw.buf.String(), "re-indexed ") != 1 {
		t.Fatalf("the interrupted rebuild: exit %d, stderr %s", code, errw.buf.String())
	}
	code, stats, errs := run(t, "stats", "--json")
	if code != 0 {
		t.Fatalf("stats: %d %s", code, errs)
	}
	for _, r := range roots {
		if !strings.Contains(stats, strconv.Quote(r)) {
			t.Errorf("%s is not in the index after the interrupted rebuild:\n%.2000s", r, stats)
		}
	}
	last := roots[len(roots)-1]
	if code, out, errs := run(t, "index", "--quiet", last); code != 0 {
		t.Fatalf("index after the interrupted rebuild: %d %s %s", code, out, errs)
	}
	if code, out, errs := run(t, "search", "--project", last, "Handler4"); code != 0 || !strings.Contains(out, "h004.go") {
		t.Errorf("search after index: %d %s %s", code, out, errs)
	}
}
