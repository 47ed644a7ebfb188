package sqlite

import (
	"context"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/store/storetest"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/lang"
)

// graphFixture writes one project with definitions and relations of every
// kind across two files.
func graphFixture(t *testing.T) (*store.Store, string) {
	t.Helper()
	ctx := context.Background()
	s := openTemp(t)
	if err := s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3}); err != nil {
		t.Fatal(err)
	}
	a := store.FileData{Record: store.FileRecord{Path: "a.go", SHA256: "x", Embedder: "local:test"}, Language: "go",
		Chunks: []store.ChunkRow{
			{Path: "a.go", Type: "class", Name: "Server", Symbol: "Server", StartLine: 1, EndLine: 3, DeclEndLine: 9, Language: "go", Content: "type Server"},
			{Path: "a.go", Type: "method", Name: "Server.Serve(l net.Listener)", Owner: "Server", Symbol: "Serve", Params: "l net.Listener",
				StartLine: 11, EndLine: 14, DeclEndLine: 14, Language: "go", Content: "func (s *Server) Serve"},
			{Path: "a.go", Type: "text", Name: "a.go#1", StartLine: 20, EndLine: 22, DeclEndLine: 22, Content: "var x"},
		},
		Relations: []store.RelationRow{
			{Path: "a.go", From: "Server.Serve", To: "handle", Kind: "calls", Line: 12, Form: lang.CallSelf},
			{Path: "a.go", From: "Server.Serve", To: "net.Listener.Accept", Kind: "calls", Line: 13, Form: lang.CallValue},
			{Path: "a.go", From: "Server", To: "Server.Serve(l net.Listener)", Kind: "contains", Line: 11},
			{Path: "a.go", From: "a.go", To: "net", Kind: "imports", Line: 3},
		}}
	b := store.FileData{Record: store.FileRecord{Path: "b.go", SHA256: "y", Embedder: "local:test"}, Language: "go",
		Chunks: []store.ChunkRow{
			{Path: "b.go", Type: "function", Name: "handle(c net.Conn)", Symbol: "handle", Params: "c net.Conn",
				StartLine: 1, EndLine: 5, DeclEndLine: 5, Language: "go", Content: "func handle"},
		},
		Relations: []store.RelationRow{{Path: "b.go", From: "handle", To: "serveConn", Kind: "calls", Line: 2, Form: lang.CallPlain}}}
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{a, b}, nil); err != nil {
		t.Fatal(err)
	}
	return s, "/p"
}

func TestDefinitions(t *testing.T) {
	s, p := graphFixture(t)
	defs, err := s.Definitions(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range defs {
		got = append(got, d.Path+" "+d.Type+" "+d.Symbol+"|"+d.Owner+"|"+d.Params)
	}
	// text chunks are not definitions; rows come by path and line
	want := []string{"a.go class Server||", "a.go method Serve|Server|l net.Listener", "b.go function handle||c net.Conn"}
	if !slices.Equal(got, want) {
		t.Fatalf("definitions %q, want %q", got, want)
	}
	if defs[0].EndLine != 9 {
		t.Errorf("a class's EndLine is its declaration's end: %d", defs[0].EndLine)
	}
	if other, err := s.Definitions(context.Background(), "/other"); err != nil || len(other) != 0 {
		t.Errorf("another project's definitions: %v %v", other, err)
	}
}

func TestRelationQueries(t *testing.T) {
	ctx := context.Background()
	s, p := graphFixture(t)
	show := func(rows []store.RelationRow, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Path+" "+r.Kind+" "+r.From+" -> "+r.To)
		}
		return out
	}
	if got, want := show(s.RelationsFrom(ctx, p, []string{"Server.Serve", "handle"}, []string{"calls"})),
		[]string{"a.go calls Server.Serve -> handle", "a.go calls Server.Serve -> net.Listener.Accept", "b.go calls handle -> serveConn"}; !slices.Equal(got, want) {
		t.Errorf("RelationsFrom %q, want %q", got, want)
	}
	if got, want := show(s.RelationsTo(ctx, p, []string{"handle", "Server.Serve(l net.Listener)"}, nil)),
		[]string{"a.go contains Server -> Server.Serve(l net.Listener)", "a.go calls Server.Serve -> handle"}; !slices.Equal(got, want) {
		t.Errorf("RelationsTo %q, want %q", got, want)
	}
	if got, want := show(s.RelationsOfFile(ctx, p, "a.go", []string{"imports"})), []string{"a.go imports a.go -> net"}; !slices.Equal(got, want) {
		t.Errorf("RelationsOfFile %q, want %q", got, want)
	}
	if got := show(s.RelationsFrom(ctx, p, nil, nil)); got != nil {
		t.Errorf("no names gives no rows: %q", got)
	}
	// the call forms come back as written
	rows, _ := s.RelationsFrom(ctx, p, []string{"Server.Serve", "handle"}, []string{"calls"})
	if rows[0].Form != lang.CallSelf || rows[1].Form != lang.CallValue || rows[2].Form != lang.CallPlain {
		t.Errorf("call forms %+v", rows)
	}
	var calls []string
	if err := s.CallRelations(ctx, p, func(r store.RelationRow) bool { calls = append(calls, r.From+"->"+r.To); return true }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(calls)
	if want := []string{"Server.Serve->handle", "Server.Serve->net.Listener.Accept", "handle->serveConn"}; !slices.Equal(calls, want) {
		t.Errorf("CallRelations %q, want %q", calls, want)
	}
	n := 0
	if err := s.CallRelations(ctx, p, func(store.RelationRow) bool { n++; return false }); err != nil || n != 1 {
		t.Errorf("CallRelations does not stop when fn says so: %d %v", n, err)
	}
}

func TestRelationNamesLike(t *testing.T) {
	ctx := context.Background()
	s, p := graphFixture(t)
	got, err := s.RelationNamesLike(ctx, p, "SERVE", 10)
	if err != nil {
		t.Fatal(err)
	}
	// both sides, distinct, shortest first, case-insensitive
	want := []string{"Server", "serveConn", "Server.Serve", "Server.Serve(l net.Listener)"}
	if !slices.Equal(got, want) {
		t.Fatalf("names %q, want %q", got, want)
	}
	if got, _ := s.RelationNamesLike(ctx, p, "serve", 1); len(got) != 1 {
		t.Errorf("limit 1 gave %q", got)
	}
	// LIKE wildcards in the text are literal
	if got, _ := s.RelationNamesLike(ctx, p, "%", 10); len(got) != 0 {
		t.Errorf("'%%' matched %q", got)
	}
}

func TestDataVersion(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	v0, err := s.DataVersion(ctx, "/p")
	if err != nil || v0 != "" {
		t.Fatalf("new index version %q %v", v0, err)
	}
	s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3})
	s.PutProject(ctx, store.Project{Path: "/q", Embedder: "local:test", Dim: 3})
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("a.go", "alpha")}, nil); err != nil {
		t.Fatal(err)
	}
	v1, _ := s.DataVersion(ctx, "/p")
	// a write to another project leaves /p's version, and so its caches, alone
	if err := s.ReplaceFiles(ctx, "/q", []store.FileData{storetest.File("b.go", "beta")}, nil); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.DataVersion(ctx, "/p"); v != v1 {
		t.Fatalf("a write to /q changed /p's version %q -> %q", v1, v)
	}
	if q, _ := s.DataVersion(ctx, "/q"); q == "" {
		t.Fatal("/q's version not set by its write")
	}
	if _, err := s.RemoveProject(ctx, "/p"); err != nil {
		t.Fatal(err)
	}
	v2, _ := s.DataVersion(ctx, "/p")
	// a project indexed again after removal must not reuse a version a
	// cache may still hold
	s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3})
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{storetest.File("a.go", "alpha")}, nil); err != nil {
		t.Fatal(err)
	}
	v3, _ := s.DataVersion(ctx, "/p")
	if v1 == v0 || v2 == v1 || v3 == v2 || v3 == v1 {
		t.Fatalf("versions %q %q %q %q: every write of /p must change it", v0, v1, v2, v3)
	}
}

func TestLangStatsAndFileLanguages(t *testing.T) {
	ctx := context.Background()
	s, p := graphFixture(t)
	if _, ok, err := s.LangStats(ctx, p); ok || err != nil {
		t.Fatalf("stats before any were saved: %v %v", ok, err)
	}
	for _, v := range []string{`{"a":1}`, `{"b":2}`} {
		if err := s.PutLangStats(ctx, p, v); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := s.LangStats(ctx, p); !ok || err != nil || got != v {
			t.Fatalf("LangStats = %q %v %v, want %q", got, ok, err, v)
		}
	}
	if _, ok, _ := s.LangStats(ctx, "/other"); ok {
		t.Error("stats leak to another project")
	}
	langs, err := s.FileLanguages(ctx, p)
	if err != nil || len(langs) != 2 || langs["a.go"] != "go" || langs["b.go"] != "go" {
		t.Fatalf("FileLanguages %v %v", langs, err)
	}
}

// An index written before the symbol and params columns gets them from the
// chunk names when it is opened, by the same rules as chunk.ParseSymbol.
func TestMigrateBackfillsSymbols(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "index.db")
	s, err := Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3})
	type named struct{ kind, name, owner string }
	cases := []named{
		{"method", "Server.Serve(l net.Listener)", "Server"},
		{"function", "ParseConfig(data []byte, strict bool)", ""},
		{"function", "res.send(body)", ""},
		{"method", "Layer.prototype.match(path)", "Layer"},
		{"method", "Other.m(x)", "Mismatch"},
		{"function", "noParens", ""},
		{"function", "f(a, b…)", ""},
		{"function", "(weird)", ""},
		{"class", "Outer.Mid.Inner", "Mid"},
		{"class", "Pretty (Queue a)", ""},
		{"class", "Plain", ""},
		{"text", "a.go#1", ""},
		{"method", "Ünï.cödé(ß)", "Ünï"},
	}
	fd := store.FileData{Record: store.FileRecord{Path: "a.go", SHA256: "x", Embedder: "local:test"}, Language: "go"}
	for i, c := range cases {
		fd.Chunks = append(fd.Chunks, store.ChunkRow{Path: "a.go", Type: c.kind, Name: c.name, Owner: c.owner,
			StartLine: i + 1, EndLine: i + 1, DeclEndLine: i + 1, Content: c.name})
	}
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{fd}, nil); err != nil {
		t.Fatal(err)
	}
	// make it a schema-3 file: no symbol or params column
	storetest.ToSchema6(t, s)
	s = downgrade(t, s, p,
		`ALTER TABLE code_chunks DROP COLUMN symbol`,
		`ALTER TABLE code_chunks DROP COLUMN params`,
		`UPDATE meta SET value='3' WHERE key='schema_version'`,
	)
	defer s.Close()
	ids := make([]int64, len(cases))
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	rows, err := s.ChunksByID(ctx, ids)
	if err != nil || len(rows) != len(cases) {
		t.Fatalf("read back %d rows: %v", len(rows), err)
	}
	for _, r := range rows {
		want := chunk.ParseSymbol(r.Type, r.Name, r.Owner)
		if r.Symbol != want.Name || r.Params != want.Params {
			t.Errorf("%s %q owner %q: backfilled (%q, %q), ParseSymbol (%q, %q)", r.Type, r.Name, r.Owner, r.Symbol, r.Params, want.Name, want.Params)
		}
	}
}
