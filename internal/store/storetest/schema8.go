package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/store"
)

// ToSchema8 rewrites a schema 9 store as schema 8 wrote it and records
// schema 8, on either backend, so that the next Open migrates it. On
// SQLite every chunk row gets its doc comment back in the doc column, its
// text compressed alone (store.EncodeContent) and its symbol, params and
// signature as text, and code_names its UNIQUE name and no hash; on
// PostgreSQL, whose tables schema 9 left as they were, only the version
// changes.
func ToSchema8(t testing.TB, s *store.Store) {
	t.Helper()
	ctx := context.Background()
	if !onPostgres(s) {
		type row struct {
			id                             int64
			symbol, params, signature, doc string
			content                        any
		}
		rs, err := s.DB().QueryContext(ctx, `SELECT id, name, symbol, params, signature, doc, content FROM code_chunks`)
		if err != nil {
			t.Fatal(err)
		}
		var rows []row
		for rs.Next() {
			var r row
			var name, doc, content string
			var symbol, params, signature any
			if err := rs.Scan(&r.id, &name, &symbol, &params, &signature, &doc, &content); err != nil {
				t.Fatal(err)
			}
			parts := []*string{&r.symbol, &r.params, &r.signature}
			for i, v := range []any{symbol, params, signature} {
				if *parts[i], err = store.DecodeNamePart(name, v); err != nil {
					t.Fatal(err)
				}
			}
			var text string
			if text, r.doc, err = store.DecodeChunkText(content, doc); err != nil {
				t.Fatal(err)
			}
			if r.content, err = store.EncodeContent(text); err != nil {
				t.Fatal(err)
			}
			rows = append(rows, r)
		}
		rs.Close()
		for _, r := range rows {
			if _, err := s.DB().ExecContext(ctx, `UPDATE code_chunks SET symbol=?, params=?, signature=?, doc=?, content=? WHERE id=?`,
				r.symbol, r.params, r.signature, r.doc, r.content, r.id); err != nil {
				t.Fatal(err)
			}
		}
		for _, q := range []string{
			`CREATE TABLE code_names8 (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)`,
			`INSERT INTO code_names8(id, name) SELECT id, name FROM code_names`,
			`DROP TABLE code_names`,
			`ALTER TABLE code_names8 RENAME TO code_names`,
		} {
			if _, err := s.DB().ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	if _, err := s.DB().ExecContext(ctx, `UPDATE meta SET value='8' WHERE key='schema_version'`); err != nil {
		t.Fatal(err)
	}
}

// docFile is a file whose chunks have doc comments (one the text's own
// comment, one found nowhere in the text), names whose symbol, params and
// signature are parts of them (and one whose signature is not), and
// relations.
func docFile(path string) store.FileData {
	fd := File(path, "Server.Serve(l net.Listener)", "parseConfig(data []byte, strict bool)", "tiny")
	body := strings.Repeat("\tif err := s.accept(l); err != nil {\n\t\treturn fmt.Errorf(\"serve: %w\", err)\n\t}\n", 4)
	fd.Chunks[0].Type, fd.Chunks[0].Owner, fd.Chunks[0].Symbol, fd.Chunks[0].Params = "method", "Server", "Serve", "l net.Listener"
	fd.Chunks[0].Signature = "Serve(l net.Listener)"
	fd.Chunks[0].Doc = "Serve accepts connections on l\nand serves each."
	fd.Chunks[0].Content = "// Serve accepts connections on l\n// and serves each.\nfunc (s *Server) Serve(l net.Listener) error {\n" + body + "}\n"
	fd.Chunks[1].Symbol, fd.Chunks[1].Params = "parseConfig", "data []byte, strict bool"
	fd.Chunks[1].Signature = "func parseConfig(data []byte, strict bool) (*Config, error)" // not a part of the name
	fd.Chunks[1].Doc = strings.Repeat("A doc comment found nowhere in the text. ", 4)
	fd.Chunks[1].Content = "func parseConfig(data []byte, strict bool) (*Config, error) {\n" + body + "}\n"
	fd.Chunks[2].Symbol, fd.Chunks[2].Doc = "tiny", "Tiny."
	fd.Relations = append(fd.Relations, store.RelationRow{Path: path, From: "Server.Serve", To: "Server.accept", Kind: "calls", Line: 4})
	return fd
}

// testMigrateToSchema9: an index of schema 8 (doc comments in their
// column, symbol, params and signature as text; on SQLite names found by
// a UNIQUE index) opens at schema 9 with every row read as before: the
// old rows stay as they were written and are read as they are, their
// relations are found by name, and the index goes on being written,
// with new rows in schema 9's form beside the old.
func testMigrateToSchema9(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withTarget(t, target, func(t *testing.T, target string) {
		ctx := context.Background()
		s, err := store.Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		mustProject(t, s, "/p")
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{docFile("a.go"), File("b.go", "gamma")}, nil); err != nil {
			t.Fatal(err)
		}
		read := func(s *store.Store) string {
			var out []any
			var ids []int64
			for _, n := range []string{"Serve", "parseConfig", "tiny", "gamma"} {
				c := got0(t, s, "/p", n)
				c.Encoded, c.Vector = nil, nil
				ids = append(ids, c.ID)
				out = append(out, fmt.Sprintf("%+v", c))
			}
			by, err := s.ChunksByID(ctx, ids)
			out = append(out, fmt.Sprintf("%+v", by), err)
			defs, err := s.Definitions(ctx, "/p")
			out = append(out, defs, err)
			rs, err := s.RelationsFrom(ctx, "/p", []string{"Server.Serve", "gamma", "Server.Serve(l net.Listener)"}, nil)
			out = append(out, rs, err)
			rs, err = s.RelationsTo(ctx, "/p", []string{"Server.accept", "other"}, nil)
			out = append(out, rs, err)
			names, err := s.RelationNamesLike(ctx, "/p", "serve", 10)
			out = append(out, names, err)
			return fmt.Sprint(out...)
		}
		before := read(s)
		if !strings.Contains(before, "Doc:Serve accepts connections on l\nand serves each.") ||
			!strings.Contains(before, "Signature:func parseConfig(data []byte, strict bool) (*Config, error)") {
			t.Fatalf("read before the migration: %s", before)
		}
		ToSchema8(t, s)
		s.Close()
		if s, err = store.Open(ctx, target); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if after := read(s); after != before {
			t.Fatalf("after the migration:\n%s\nbefore:\n%s", after, before)
		}
		var v string
		if err := s.DB().QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v); err != nil || v != fmt.Sprint(store.SchemaVersion) {
			t.Fatalf("schema_version %q %v", v, err)
		}
		var oldDocs int
		if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM code_chunks WHERE doc <> ''`).Scan(&oldDocs); err != nil || oldDocs != 3 {
			t.Fatalf("%d of the old rows' docs in their column, want 3 (%v)", oldDocs, err)
		}
		// written at schema 9, beside the old rows; old names found for
		// new relations
		c := docFile("c.go")
		c.Relations = append(c.Relations, store.RelationRow{Path: "c.go", From: "gamma", To: "Server.accept", Kind: "calls", Line: 9})
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{c}, []string{"b.go"}); err != nil {
			t.Fatal(err)
		}
		rs, err := s.RelationsTo(ctx, "/p", []string{"Server.accept"}, nil)
		if err != nil || len(rs) != 3 {
			t.Fatalf("relations after a write: %+v %v", rs, err)
		}
		var names, distinct int
		if err := s.DB().QueryRowContext(ctx, `SELECT count(*), count(DISTINCT name) FROM code_names`).Scan(&names, &distinct); err != nil || names != distinct {
			t.Fatalf("%d names, %d distinct (%v)", names, distinct, err)
		}
		by, err := s.ChunksByID(ctx, []int64{got0(t, s, "/p", "Serve").ID})
		for _, ch := range by {
			want := docFile("c.go").Chunks[0]
			if err != nil || ch.Doc != want.Doc || ch.Content != want.Content || ch.Symbol != want.Symbol || ch.Params != want.Params ||
				ch.Signature != want.Signature {
				t.Fatalf("old chunk after a write %+v %v", ch, err)
			}
		}
		defs, err := s.Definitions(ctx, "/p")
		if err != nil || len(defs) != 6 {
			t.Fatalf("definitions after a write %+v %v", defs, err)
		}
		for i := range 3 {
			o, n := defs[i], defs[i+3]
			if o.Path != "a.go" || n.Path != "c.go" || o.Name != n.Name || o.Symbol != n.Symbol || o.Params != n.Params || o.Owner != n.Owner {
				t.Fatalf("an old definition %+v, a new one %+v", o, n)
			}
		}
		if !onPostgres(s) {
			// the new rows in schema 9's form
			var doc, symbol string
			if err := s.DB().QueryRowContext(ctx, `SELECT c.doc, typeof(c.symbol) FROM code_chunks c JOIN indexed_files f ON f.id = c.file_id
				WHERE f.file_path = 'c.go' AND c.symbol <> '' ORDER BY c.id LIMIT 1`).Scan(&doc, &symbol); err != nil || doc != "" || symbol != "blob" {
				t.Fatalf("a new row's doc %q and symbol's type %s (%v)", doc, symbol, err)
			}
		}
	})
}
