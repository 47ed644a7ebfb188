package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/store/storetest"
)

func openTemp(t *testing.T) *store.Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "sub", "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestReplaceCountDelete(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if err := s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("a.go", "alpha", "beta"), storetest.File("b.go", "gamma")}, nil); err != nil {
		t.Fatal(err)
	}
	c, err := s.Count(ctx, "/p")
	if err != nil || c.Files != 2 || c.Chunks != 3 || c.Embedded != 3 || c.Relations != 2 {
		t.Fatalf("counts %+v %v", c, err)
	}
	// replace a.go with one chunk, remove b.go
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("a.go", "delta")}, []string{"b.go"}); err != nil {
		t.Fatal(err)
	}
	c, _ = s.Count(ctx, "/p")
	if c.Files != 1 || c.Chunks != 1 || c.Embedded != 1 || c.Relations != 1 {
		t.Fatalf("after replace %+v", c)
	}
	hits, err := s.KeywordSearch(ctx, "/p", []string{"alpha"}, store.FTSWeights{Name: 1, Owner: 1, Path: 1, Doc: 1, Body: 1}, 10)
	if err != nil || len(hits) != 0 {
		t.Fatalf("stale full-text row: %v %v", hits, err)
	}
	hits, _ = s.KeywordSearch(ctx, "/p", []string{"delta"}, store.FTSWeights{Name: 1, Owner: 1, Path: 1, Doc: 1, Body: 1}, 10)
	if len(hits) != 1 {
		t.Fatalf("delta not found: %v", hits)
	}
	// projects are isolated
	if _, err := s.GetProject(ctx, "/q"); err != store.ErrNotIndexed {
		t.Fatalf("GetProject(/q) = %v", err)
	}
	p, err := s.FindProject(ctx, "/p/sub/dir")
	if err != nil || p.Path != "/p" {
		t.Fatalf("FindProject = %v %v", p, err)
	}
	if v, err := s.IntegrityCheck(ctx); v != "ok" || err != nil {
		t.Fatalf("integrity %q %v", v, err)
	}
}

func TestLikeSearchEscapesWildcards(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	fd := storetest.File("a.go", "x")
	fd.Chunks[0].Content = "100% done_now"
	fd2 := storetest.File("b.go", "y")
	fd2.Chunks[0].Content = "1000 doneXnow"
	s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3})
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{fd, fd2}, nil); err != nil {
		t.Fatal(err)
	}
	for kw, want := range map[string]int{"100%": 1, "done_now": 1, "DONE": 2, `\`: 0} {
		rows, err := s.LikeSearch(ctx, "/p", kw, 10)
		if err != nil || len(rows) != want {
			t.Errorf("LikeSearch(%q) = %d rows, %v; want %d", kw, len(rows), err, want)
		}
	}
}

func TestMigrateFromSchema1(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "index.db")
	s, err := Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	// make it a schema-1 file: no plain, analysis, symbol or params column, version 1
	storetest.ToSchema6(t, s)
	s = downgrade(t, s, p,
		`ALTER TABLE code_chunks DROP COLUMN symbol`,
		`ALTER TABLE code_chunks DROP COLUMN params`,
		`ALTER TABLE code_relations DROP COLUMN plain`,
		`ALTER TABLE indexed_files DROP COLUMN analysis`,
		`UPDATE meta SET value='1' WHERE key='schema_version'`,
	)
	defer s.Close()
	s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3})
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("a.go", "x")}, nil); err != nil {
		t.Fatalf("write after migration: %v", err)
	}
	var v string
	s.DB().QueryRow(`SELECT value FROM meta WHERE key='schema_version'`).Scan(&v)
	if v != strconv.Itoa(store.SchemaVersion) {
		t.Fatalf("schema_version %s", v)
	}
	recs, err := s.Files(ctx, "/p")
	if err != nil || recs["a.go"].Analysis != 1 {
		t.Fatalf("analysis after migration: %+v %v", recs["a.go"], err)
	}
}

func TestRemoveProject(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	for _, p := range []string{"/p", "/q"} {
		if err := s.PutProject(ctx, store.Project{Path: p, Embedder: "local:test", Dim: 3}); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceFiles(ctx, p, []store.FileData{storetest.File("a.go", "alpha", "beta"), storetest.File("b.go", "gamma")}, nil); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.RemoveProject(ctx, "/p")
	if err != nil || n != 2 {
		t.Fatalf("RemoveProject = %d, %v", n, err)
	}
	if c, _ := s.Count(ctx, "/p"); c.Files+c.Chunks+c.Embedded+c.Relations != 0 {
		t.Fatalf("rows left: %+v", c)
	}
	var fts int
	s.DB().QueryRow(`SELECT count(*) FROM ` + ftsTable("/q") + ` WHERE ` + ftsTable("/q") + ` MATCH 'bodi'`).Scan(&fts)
	if fts != 3 {
		t.Fatalf("full-text rows after remove: %d, want the other project's 3", fts)
	}
	if ok, err := hasTable(ctx, s.DB(), ftsTable("/p")); err != nil || ok {
		t.Fatalf("the removed project's full-text table is still there (%v, %v)", ok, err)
	}
	if c, _ := s.Count(ctx, "/q"); c.Files != 2 || c.Chunks != 3 || c.Embedded != 3 {
		t.Fatalf("other project touched: %+v", c)
	}
	if _, err := s.GetProject(ctx, "/p"); !errors.Is(err, store.ErrNotIndexed) {
		t.Fatalf("project row left: %v", err)
	}
	// names only a removed project used go with it
	if err := s.PutProject(ctx, store.Project{Path: "/r", Embedder: "local:test", Dim: 3}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceFiles(ctx, "/r", []store.FileData{storetest.File("r.go", "onlyr")}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RemoveProject(ctx, "/r"); err != nil {
		t.Fatal(err)
	}
	var names []string
	rows, _ := s.DB().Query(`SELECT name FROM code_names ORDER BY name`)
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	rows.Close()
	if fmt.Sprint(names) != "[alpha gamma other]" {
		t.Fatalf("names after removing /r: %v, want /q's [alpha gamma other]", names)
	}
	if _, err := s.RemoveProject(ctx, "/p"); !errors.Is(err, store.ErrNotIndexed) {
		t.Fatalf("second remove: %v", err)
	}
	// an index run still going writes no orphan rows for the removed project
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("c.go", "late")}, nil); !errors.Is(err, store.ErrNotIndexed) {
		t.Fatalf("write after remove: %v", err)
	}
	if c, _ := s.Count(ctx, "/p"); c.Files+c.Chunks != 0 {
		t.Fatalf("orphan rows: %+v", c)
	}
}

// BM25 statistics are the project's own: a project's scores do not change
// when another project that uses the same words is indexed beside it.
func TestFTSStatisticsPerProject(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	doc := func(path, body string) store.FileData {
		return store.FileData{Record: store.FileRecord{Path: path, SHA256: path, Embedder: "e"}, Language: "go",
			Chunks: []store.ChunkRow{{Type: "function", Name: path, Content: body, BodyTerms: body, StartLine: 1, EndLine: 1}}}
	}
	for _, p := range []string{"/a", "/b"} {
		if err := s.PutProject(ctx, store.Project{Path: p, Embedder: "e"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.ReplaceFiles(ctx, "/a", []store.FileData{doc("x.go", "parse flags"), doc("y.go", "run command")}, nil); err != nil {
		t.Fatal(err)
	}
	w := store.FTSWeights{Name: 1, Owner: 1, Path: 1, Doc: 1, Body: 1}
	before, err := s.KeywordSearch(ctx, "/a", []string{"parse", "flags"}, w, 10)
	if err != nil || len(before) != 1 {
		t.Fatalf("search /a: %v %v", before, err)
	}
	// /b makes "parse" and "flags" common words, and its chunks long
	var many []store.FileData
	for i := range 50 {
		many = append(many, doc(fmt.Sprintf("f%d.go", i), "parse flags parse flags and more words in a long body of text"))
	}
	if err := s.ReplaceFiles(ctx, "/b", many, nil); err != nil {
		t.Fatal(err)
	}
	after, err := s.KeywordSearch(ctx, "/a", []string{"parse", "flags"}, w, 10)
	if err != nil || len(after) != 1 {
		t.Fatalf("search /a after /b: %v %v", after, err)
	}
	if after[0].Score != before[0].Score {
		t.Errorf("BM25 of /a's chunk changed from %v to %v when /b was indexed", before[0].Score, after[0].Score)
	}
}

// downgrade runs stmts (ALTER TABLEs and a schema_version) on s, the store
// at path, closes it and returns it opened again, so that Open migrates
// it.
func downgrade(t *testing.T, s *store.Store, path string, stmts ...string) *store.Store {
	t.Helper()
	for _, q := range stmts {
		if _, err := s.DB().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return s
}

// TestFTSMatchQuotesTerms: the FTS5 expression of KeywordSearch's terms
// quotes each (doubling its quotes), joins them by OR, reads a NUL as a
// space and drops blank terms.
func TestFTSMatchQuotesTerms(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		terms []string
		want  string
	}{
		{[]string{`a"b`, "c"}, `"a""b" OR "c"`},
		{[]string{"x\x00y", " ", "", "OR"}, `"x y" OR "OR"`},
		{nil, ""},
	} {
		if got := ftsMatch(c.terms); got != c.want {
			t.Errorf("ftsMatch(%q) = %s, want %s", c.terms, got, c.want)
		}
	}
}

// TestChunkTextCompressed: on SQLite a chunk of code is stored compressed
// (a BLOB about a third of its text here) and a short one as text, and
// both read back whole; chunks carry no embedder of their own (the
// file's is read).
func TestChunkTextCompressed(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if err := s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3}); err != nil {
		t.Fatal(err)
	}
	f := storetest.File("a.go", "long", "short")
	long := strings.Repeat("if err := w.Flush(); err != nil {\n\treturn fmt.Errorf(\"flush: %w\", err)\n}\n", 12)
	f.Chunks[0].Content = long
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{f}, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := s.DB().Query(`SELECT name, typeof(content), length(CAST(content AS BLOB)), embedding_model FROM code_chunks ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var name, typ, emb string
		var n int
		if err := rows.Scan(&name, &typ, &n, &emb); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s %v %q", name, typ, n < len(long)/3, emb))
	}
	if want := []string{`long blob true ""`, `short text true ""`}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("stored rows %q, want %q", got, want)
	}
	c, err := s.ChunksByID(ctx, []int64{1})
	if err != nil || c[1].Content != long || c[1].Embedder != "local:test" {
		t.Fatalf("read back %+v, %v", c[1], err)
	}
}

// TestCloseCheckpoints: closing a store after writes through the bulk
// writer leaves no write-ahead log, and the database file alone (read
// immutable, the log ignored) holds every row; with another connection
// keeping the file open, so that the log cannot be deleted, the close
// still copies the log into the file (store.Store.Close's checkpoint).
func TestCloseCheckpoints(t *testing.T) {
	ctx := context.Background()
	rows := func(t *testing.T, path string) int {
		t.Helper()
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM code_chunks`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, other := range []bool{false, true} {
		t.Run(fmt.Sprintf("other=%v", other), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "index.db")
			s, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if other {
				o, err := Open(ctx, path)
				if err != nil {
					t.Fatal(err)
				}
				defer o.Close()
				if _, err := o.Projects(ctx); err != nil { // holds a connection
					t.Fatal(err)
				}
			}
			if err := s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3}); err != nil {
				t.Fatal(err)
			}
			if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("a.go", "alpha", "beta"), storetest.File("b.go", "gamma")}, nil); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			_, werr := os.Stat(path + "-wal")
			if logLeft := werr == nil; logLeft != other {
				t.Errorf("write-ahead log left: %v, want %v", logLeft, other)
			}
			if n := rows(t, path); n != 3 {
				t.Errorf("the database file alone holds %d chunks, want 3", n)
			}
		})
	}
}
