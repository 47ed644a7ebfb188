package postgres

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/store"
	_ "github.com/coderag/coderag/internal/store/sqlite" // the BM25 tests compare with SQLite's FTS5
	"github.com/coderag/coderag/internal/store/storetest"
	"github.com/coderag/coderag/internal/testutil"
)

// TestContract runs the store's contract suite on throwaway databases of
// the server CODERAG_TEST_POSTGRES names (testutil.Postgres): skipped
// without it, failed when it is set and the server cannot be reached.
func TestContract(t *testing.T) {
	t.Parallel()
	storetest.Run(t, testutil.Postgres)
}

// mustProject records project p in s.
func mustProject(t *testing.T, s *store.Store, p string) {
	t.Helper()
	if err := s.PutProject(context.Background(), store.Project{Path: p, Embedder: "local:test", Dim: 3}); err != nil {
		t.Fatal(err)
	}
}

// bm25Corpus is a deterministic corpus with repeated terms, empty columns,
// diacritics and CJK bigrams, and chunks of very different lengths.
func bm25Corpus(project string, n int) []store.FileData {
	words := []string{"pars", "http", "request", "line", "server", "handl", "read", "write", "buffer", "close",
		"error", "conn", "timeout", "retri", "cach", "stor", "index", "search", "rank", "vector", "naïv", "résumé",
		"缓存", "存储", "索引", "parsehttprequest", "x1", "2024"}
	var out []store.FileData
	for f := 0; f < n; f++ {
		fd := store.FileData{Record: store.FileRecord{Path: fmt.Sprintf("pkg%d/f%d.go", f%4, f), SHA256: "x", Embedder: "local:test", Size: 1, MtimeNS: 1}}
		for c := 0; c < 1+f%3; c++ {
			var body []string
			for k := 0; k < 3+(f*7+c*11)%40; k++ {
				body = append(body, words[(f*13+c*5+k*k)%len(words)])
			}
			name := words[(f+c)%len(words)]
			doc := ""
			if f%2 == 0 {
				doc = words[(f*3+c)%len(words)] + " " + words[(f+5)%len(words)]
			}
			fd.Chunks = append(fd.Chunks, store.ChunkRow{Path: fd.Record.Path, Type: "function", Name: fmt.Sprintf("fn%d_%d", f, c),
				StartLine: c + 1, EndLine: c + 1, DeclEndLine: c + 1, Content: strings.Join(body, " "),
				NameTerms: name, OwnerTerms: words[f%5], PathTerms: fmt.Sprintf("pkg%d f%d go", f%4, f), DocTerms: doc,
				BodyTerms: strings.Join(body, " ")})
		}
		out = append(out, fd)
	}
	return out
}

// named maps KeywordSearch hits to chunk names, with scores.
func named(t *testing.T, s *store.Store, hits []store.Scored) []string {
	t.Helper()
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	cs, err := s.ChunksByID(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = fmt.Sprintf("%s=%.9f", cs[h.ID].Name, h.Score)
	}
	return out
}

// TestBM25MatchesFTS5 indexes the same corpus in both stores and
// checks that PostgreSQL's BM25 gives FTS5's scores and order, for several
// queries and column weights, after inserts, replacements and deletions,
// with a second project beside it (statistics are per project).
func TestBM25MatchesFTS5(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lite := storetest.Open(t, filepath.Join(t.TempDir(), "index.db"))
	pg := storetest.Open(t, testutil.Postgres(t))
	queries := [][]string{{"http", "request"}, {"parsehttprequest"}, {"缓存", "索引", "search"}, {"naive", "resume"},
		{"x1", "2024", "pkg1"}, {"error", "error", "timeout"}, {"absent"}, {"f7", "go"},
		// terms are text, never syntax: quotes, OR, NOT, *, NUL and blanks
		{`say "hi"`, "OR", "NOT", "go*"}, {"a\x00b", " ", ""}}
	weights := []store.FTSWeights{{Name: 1, Owner: 1, Path: 1, Doc: 1, Body: 1}, {Name: 10, Owner: 4, Path: 2, Doc: 1.5, Body: 1},
		{Name: 0, Owner: 0, Path: 0, Doc: 0, Body: 1}}
	compare := func(stage string) {
		t.Helper()
		for _, q := range queries {
			for _, w := range weights {
				a, err := lite.KeywordSearch(ctx, "/p", q, w, 25)
				if err != nil {
					t.Fatal(err)
				}
				b, err := pg.KeywordSearch(ctx, "/p", q, w, 25)
				if err != nil {
					t.Fatal(err)
				}
				na, nb := named(t, lite, a), named(t, pg, b)
				if strings.Join(na, " ") != strings.Join(nb, " ") {
					t.Errorf("%s: %s %v:\nsqlite   %v\npostgres %v", stage, q, w, na, nb)
				}
			}
		}
	}
	for _, s := range []*store.Store{lite, pg} {
		for _, p := range []string{"/p", "/other"} {
			mustProject(t, s, p)
		}
		if err := s.ReplaceFiles(ctx, "/p", bm25Corpus("/p", 60), nil); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceFiles(ctx, "/other", bm25Corpus("/other", 15), nil); err != nil {
			t.Fatal(err)
		}
	}
	compare("indexed")
	if hits, _ := pg.KeywordSearch(ctx, "/p", []string{"http"}, weights[0], 5); len(hits) == 0 {
		t.Fatal("no hits for http: the comparison compared nothing")
	}
	later := bm25Corpus("/p", 80)[40:]
	for _, s := range []*store.Store{lite, pg} {
		if err := s.ReplaceFiles(ctx, "/p", later[:20], []string{"pkg0/f0.go", "pkg1/f5.go", "pkg3/f11.go"}); err != nil {
			t.Fatal(err)
		}
	}
	compare("replaced")
	for _, s := range []*store.Store{lite, pg} {
		if _, err := s.RemoveProject(ctx, "/other"); err != nil {
			t.Fatal(err)
		}
	}
	compare("other project removed")
}

// TestFTSTokensLikeUnicode61 checks ftsTokens against FTS5's own
// tokenizer: the tokens it makes of a text are the ones FTS5 matches.
func TestFTSTokensLikeUnicode61(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.Open(t, filepath.Join(t.TempDir(), "index.db"))
	for _, q := range []string{`CREATE VIRTUAL TABLE tokfts USING fts5(x, tokenize='unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE tok USING fts5vocab(tokfts, 'row')`} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	text := "Naïve résumé_x1 Ünïcode ÅNGSTRÖM 缓存存储 a-b.c 2024 çà œ ß ПРИВЕТ x\u0301y"
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO tokfts(x) VALUES(?)`, text); err != nil {
		t.Fatal(err)
	}
	rows, err := s.DB().QueryContext(ctx, `SELECT term FROM tok`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var want []string
	for rows.Next() {
		var term string
		if err := rows.Scan(&term); err != nil {
			t.Fatal(err)
		}
		want = append(want, term)
	}
	got := ftsTokens(nil, text)
	sort.Strings(got)
	got = uniq(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("ftsTokens:\ngot  %q\nfts5 %q", got, want)
	}
}

func uniq(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// TestMigrateFromSchema3 turns a database into the first
// PostgreSQL schema (3: no symbol and params columns) with rows in it and
// checks that Open migrates it, backfilling the symbols as on SQLite.
func TestMigrateFromSchema3(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := testutil.Postgres(t)
	s, err := Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	mustProject(t, s, "/p")
	fd := storetest.File("a.go", "x")
	fd.Chunks = append(fd.Chunks,
		store.ChunkRow{Path: "a.go", Type: "method", Name: "Server.Serve(l net.Listener)", Owner: "Server", StartLine: 5, EndLine: 6, DeclEndLine: 6},
		store.ChunkRow{Path: "a.go", Type: "class", Name: "pkg.Server", StartLine: 1, EndLine: 2, DeclEndLine: 2})
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{fd}, nil); err != nil {
		t.Fatal(err)
	}
	storetest.ToSchema6(t, s)
	for _, q := range []string{`ALTER TABLE code_chunks DROP COLUMN symbol`, `ALTER TABLE code_chunks DROP COLUMN params`,
		`UPDATE meta SET value='3' WHERE key='schema_version'`} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s, err = Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defs, err := s.Definitions(ctx, "/p")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range defs {
		got = append(got, d.Type+" "+d.Symbol+"|"+d.Owner+"|"+d.Params)
	}
	want := "function x|| class Server|| method Serve|Server|l net.Listener"
	if strings.Join(got, " ") != want {
		t.Fatalf("after migration %q, want %q", strings.Join(got, " "), want)
	}
	var v string
	if err := s.DB().QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v); err != nil || v != fmt.Sprint(store.SchemaVersion) {
		t.Fatalf("schema_version %q %v", v, err)
	}
}

// TestOpenErrorsHoldNoPassword: a location pgx cannot parse, or a server
// it cannot reach, gives an error without the password written in it.
func TestOpenErrorsHoldNoPassword(t *testing.T) {
	const pw = "S3cret-zz81"
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no connection is made: parse and dial errors only
	for _, target := range []string{
		"postgres://crt@127.0.0.1:1/db?password=" + pw + "&connect_timeout=notanumber",
		"host=127.0.0.1 port=1 user=crt password=" + pw + " connect_timeout=notanumber",
		"host=127.0.0.1 port=1 user=crt password=" + pw + " dbname=db",
		"postgres://crt:" + pw + "@127.0.0.1:1/db?sslpassword=" + pw,
	} {
		st, err := Open(ctx, target)
		if err == nil {
			st.Close()
			t.Errorf("Open(%q): no error", target)
			continue
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("Open error holds the password: %v", err)
		}
	}
}

// TestOpenCurrentSchemaTakesNoLock: opening a database whose schema is
// current reads its version without the migration lock (migratePG's one
// statement), so an Open made while another session holds that lock (a
// migration going on elsewhere, here held by the test) does not wait for
// it; a database that needs the schema still does.
func TestOpenCurrentSchemaTakesNoLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := testutil.Postgres(t)
	s, err := Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(?)`, int64(migrateLockKey)); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, `SELECT pg_advisory_unlock(?)`, int64(migrateLockKey))
	tctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	s2, err := Open(tctx, target)
	if err != nil {
		t.Fatalf("Open of a current database waited for the migration lock: %v", err)
	}
	s2.Close()
	if _, err := s.DB().ExecContext(ctx, `UPDATE meta SET value=? WHERE key='schema_version'`, fmt.Sprint(store.SchemaVersion-1)); err != nil {
		t.Fatal(err)
	}
	sctx, cancel2 := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel2()
	if s3, err := Open(sctx, target); err == nil {
		s3.Close()
		t.Fatal("Open of an older schema did not take the migration lock")
	}
}
