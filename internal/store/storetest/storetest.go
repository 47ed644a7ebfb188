package storetest

// Package storetest is the contract suite of the store: every backend
// package (store/sqlite, store/postgres) runs it with Run over stores of
// its own, as litestream runs one suite over every replica client. The
// tests that compare the backends with each other (BM25) are
// store/postgres's.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/store"
)

// Run runs the contract suite against the backend whose new, empty
// stores open at the targets target returns (a file path, a database URL;
// see store.Open), each test in a parallel subtest on stores of its own.
// The few expectations that differ by backend (text PostgreSQL cannot
// hold, SQLite's file size, the DDL that rewinds a schema) follow
// store.IsPostgres of the store's path, the rule store.Open picks the
// backend by.
func Run(t *testing.T, target func(testing.TB) string) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, func(testing.TB) string)
	}{
		{"FilesAndChunks", testFilesAndChunks},
		{"TextIsKept", testTextIsKept},
		{"Relations", testRelations},
		{"SymbolsAndMeta", testSymbolsAndMeta},
		{"Vectors", testVectors},
		{"RunsAndRemoveProject", testRunsAndRemoveProject},
		{"MixedRun", testMixedRun},
		{"RetireVectors", testRetireVectors},
		{"CheckCountsVectors", testCheckCountsVectors},
		{"VectorMigration", testVectorMigration},
		{"Migrations", testMigrations},
		{"OpenTwice", testOpenTwice},
		{"LockProject", testLockProject},
		{"TreeListing", testTreeListing},
		{"MigrateToSchema7", testMigrateToSchema7},
		{"MigrateToSchema9", testMigrateToSchema9},
		{"VectorScan", testVectorScan},
		{"FilesRecords", testFilesRecords},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, target) })
	}
}

// withStore runs fn on a new, empty store at a new target.
func withStore(t *testing.T, target func(testing.TB) string, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	fn(t, Open(t, target(t)))
}

// withTarget runs fn with a new target, for tests that close and reopen
// the store.
func withTarget(t *testing.T, target func(testing.TB) string, fn func(t *testing.T, target string)) {
	t.Helper()
	fn(t, target(t))
}

// Open opens the store at target, closed when the test ends.
func Open(t testing.TB, target string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// onPostgres reports whether s runs on PostgreSQL (store.IsPostgres of
// its path, the URL without its password).
func onPostgres(s *store.Store) bool { return store.IsPostgres(s.Path()) }

func mustProject(t *testing.T, s *store.Store, p string) {
	t.Helper()
	if err := s.PutProject(context.Background(), store.Project{Path: p, Embedder: "local:test", Dim: 3}); err != nil {
		t.Fatal(err)
	}
}

func testFilesAndChunks(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withStore(t, target, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		a := File("a.go", "alpha", "beta")
		a.Record.SHA256, a.Record.Size, a.Record.MtimeNS, a.Record.Analysis = "abc", 12, 1<<62, 7
		a.Chunks[0].Content = "Mixed CASE text 100% done_now"
		a.Chunks[0].Doc, a.Chunks[0].Owner, a.Chunks[0].Signature = "doc of alpha", "T", "func alpha()"
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{a, File("b.go", "gamma")}, nil); err != nil {
			t.Fatal(err)
		}
		fs, err := s.Files(ctx, "/p")
		if err != nil {
			t.Fatal(err)
		}
		r := fs["a.go"]
		if len(fs) != 2 || r.SHA256 != "abc" || r.Size != 12 || r.MtimeNS != 1<<62 || r.Chunks != 2 || r.Analysis != 7 || r.Embedder != "local:test" {
			t.Fatalf("fingerprints %+v", fs)
		}
		if n, err := s.StaleFiles(ctx, "/p", 7); err != nil || n != 1 {
			t.Fatalf("StaleFiles = %d, %v; want 1 (b.go)", n, err)
		}
		r.Size, r.MtimeNS = 13, 5
		if err := s.TouchFiles(ctx, "/p", []store.FileRecord{r}); err != nil {
			t.Fatal(err)
		}
		fs, _ = s.Files(ctx, "/p")
		if fs["a.go"].Size != 13 || fs["a.go"].MtimeNS != 5 || fs["a.go"].SHA256 != "abc" {
			t.Fatalf("after touch %+v", fs["a.go"])
		}
		// LIKE is case-insensitive for ASCII and escapes wildcards
		got, err := s.LikeSearch(ctx, "/p", "mixed case", 10)
		if err != nil || len(got) != 1 || got[0].Name != "alpha" {
			t.Fatalf("LikeSearch(mixed case) = %+v, %v", got, err)
		}
		if got, _ := s.LikeSearch(ctx, "/p", "0% d", 10); len(got) != 1 {
			t.Fatalf("LikeSearch(0%% d) = %+v", got)
		}
		if got, _ := s.LikeSearch(ctx, "/p", "t_1", 10); len(got) != 0 {
			t.Fatalf("'_' matched as a wildcard: %+v", got)
		}
		byID, err := s.ChunksByID(ctx, []int64{got0(t, s, "/p", "alpha").ID})
		if err != nil || len(byID) != 1 {
			t.Fatalf("ChunksByID %v %v", byID, err)
		}
		for _, c := range byID {
			if c.Name != "alpha" || c.Owner != "T" || c.Doc != "doc of alpha" || c.Signature != "func alpha()" ||
				c.Path != "a.go" || c.StartLine != 1 || c.Language != "" || c.Embedder != "local:test" {
				t.Fatalf("chunk read back as %+v", c)
			}
		}
		c, err := s.Count(ctx, "/p")
		if err != nil || c.Files != 2 || c.Chunks != 3 || c.Embedded != 3 || c.Relations != 2 || c.ChunksByType["function"] != 3 {
			t.Fatalf("counts %+v %v", c, err)
		}
		if v, err := s.IntegrityCheck(ctx); v != "ok" || err != nil {
			t.Fatalf("integrity %q %v", v, err)
		}
		if err := s.Probe(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// got0 returns the first chunk of project named name.
func got0(t *testing.T, s *store.Store, project, name string) store.ChunkRow {
	t.Helper()
	cs, err := s.LikeSearch(context.Background(), project, name, 1)
	if err != nil || len(cs) == 0 {
		t.Fatalf("no chunk %s: %v", name, err)
	}
	return cs[0]
}

func testTextIsKept(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withStore(t, target, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		fd := File("ü/中文.go", "naïve")
		fd.Chunks[0].Content = "héllo 世界\tend"
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{fd}, nil); err != nil {
			t.Fatal(err)
		}
		c := got0(t, s, "/p", "naïve")
		if c.Content != "héllo 世界\tend" || c.Path != "ü/中文.go" {
			t.Fatalf("read back %q %q", c.Content, c.Path)
		}
		// bytes PostgreSQL text cannot hold are stored, as U+FFFD there
		bad := File("bad.go", "zeta")
		bad.Chunks[0].Content = "a\x00b\xffc"
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{bad}, nil); err != nil {
			t.Fatal(err)
		}
		want := "a\x00b\xffc"
		if onPostgres(s) {
			want = "a\uFFFDb\uFFFDc"
		}
		if c := got0(t, s, "/p", "zeta"); c.Content != want {
			t.Fatalf("content %q, want %q", c.Content, want)
		}
		// long texts (stored compressed on SQLite: store.EncodeContent)
		// read back whole on both read paths and match LIKE inside
		long := File("long.go", "omega", "marked")
		long.Chunks[0].Content = strings.Repeat("func omega() { return héllo 世界 }\n", 20) + "needle_in_the_text\n"
		long.Chunks[1].Content = "\x00" + strings.Repeat("starts with the mark ", 3)
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{long}, nil); err != nil {
			t.Fatal(err)
		}
		hits, err := s.LikeSearch(ctx, "/p", "NEEDLE_in", 10)
		if err != nil || len(hits) != 1 || hits[0].Content != long.Chunks[0].Content {
			t.Fatalf("LikeSearch in a long text = %+v, %v", hits, err)
		}
		wantMarked := long.Chunks[1].Content
		if onPostgres(s) {
			wantMarked = "\uFFFD" + wantMarked[1:]
		}
		m := got0(t, s, "/p", "marked")
		byID, err := s.ChunksByID(ctx, []int64{hits[0].ID, m.ID})
		if err != nil || m.Content != wantMarked || byID[m.ID].Content != wantMarked || byID[hits[0].ID].Content != long.Chunks[0].Content {
			t.Fatalf("long texts read back as %q / %+v, %v", m.Content, byID, err)
		}
	})
}

func testRelations(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withStore(t, target, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		fd := File("a.go", "Run", "helper")
		fd.Chunks[1].Type, fd.Chunks[1].Owner = "method", "T"
		fd.Relations = []store.RelationRow{
			{Path: "a.go", From: "Run", To: "helper", Kind: "calls", Line: 3, Form: lang.CallPlain, Args: lang.ArityOf(2)},
			{Path: "a.go", From: "Run", To: "T.helper", Kind: "calls", Line: 2, Form: lang.CallSelf},
			{Path: "a.go", From: "T", To: "Base", Kind: "extends", Line: 1},
			{Path: "a.go", From: "helper", To: "fmt.Println", Kind: "calls", Line: 4, Form: lang.CallValue},
		}
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{fd}, nil); err != nil {
			t.Fatal(err)
		}
		from, err := s.RelationsFrom(ctx, "/p", []string{"Run"}, []string{"calls"})
		if err != nil || len(from) != 2 || from[0].To != "T.helper" || from[0].Form != lang.CallSelf || from[1].To != "helper" || from[1].Form != lang.CallPlain {
			t.Fatalf("RelationsFrom = %+v, %v", from, err)
		}
		// the argument count travels with the form (lang.PackCall); an
		// uncounted call stays uncounted
		if n, ok := from[1].Args.Count(); !ok || n != 2 {
			t.Errorf("helper's arguments = %d, %v; want 2", n, ok)
		}
		if _, ok := from[0].Args.Count(); ok {
			t.Errorf("T.helper's arguments were not counted, but read back as %d", from[0].Args)
		}
		to, err := s.RelationsTo(ctx, "/p", []string{"Base", "fmt.Println"}, nil)
		if err != nil || len(to) != 2 || to[0].Kind != "extends" || to[1].Form != lang.CallValue {
			t.Fatalf("RelationsTo = %+v, %v", to, err)
		}
		if of, err := s.RelationsOfFile(ctx, "/p", "a.go", []string{"extends"}); err != nil || len(of) != 1 {
			t.Fatalf("RelationsOfFile = %+v, %v", of, err)
		}
		n := 0
		if err := s.CallRelations(ctx, "/p", func(store.RelationRow) bool { n++; return true }); err != nil || n != 3 {
			t.Fatalf("CallRelations saw %d, %v", n, err)
		}
		defs, err := s.Definitions(ctx, "/p")
		if err != nil || len(defs) != 2 || defs[0].Name != "Run" || defs[1].Type != "method" || defs[1].Owner != "T" {
			t.Fatalf("Definitions = %+v, %v", defs, err)
		}
		c, err := s.Count(ctx, "/p")
		if err != nil || c.RelationsByKind["calls"] != 3 || c.RelationsByKind["extends"] != 1 {
			t.Fatalf("relation counts = %v, %v", c.RelationsByKind, err)
		}
		// names of relations: both sides, distinct, case-insensitive, shortest first
		names, err := s.RelationNamesLike(ctx, "/p", "HELPER", 10)
		if err != nil || strings.Join(names, " ") != "helper T.helper" {
			t.Fatalf("RelationNamesLike = %q, %v", names, err)
		}
		if names, _ := s.RelationNamesLike(ctx, "/p", "%", 10); len(names) != 0 {
			t.Fatalf("'%%' matched %q", names)
		}
	})
}

func testSymbolsAndMeta(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withStore(t, target, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		v0, err := s.DataVersion(ctx, "/p")
		if err != nil {
			t.Fatal(err)
		}
		mustProject(t, s, "/p")
		fd := File("a.go", "Serve")
		fd.Chunks[0].Type, fd.Chunks[0].Name, fd.Chunks[0].Owner = "method", "Server.Serve(l net.Listener)", "Server"
		fd.Chunks[0].Symbol, fd.Chunks[0].Params = "Serve", "l net.Listener"
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{fd}, nil); err != nil {
			t.Fatal(err)
		}
		defs, err := s.Definitions(ctx, "/p")
		if err != nil || len(defs) != 1 || defs[0].Symbol != "Serve" || defs[0].Params != "l net.Listener" || defs[0].Owner != "Server" {
			t.Fatalf("Definitions = %+v, %v", defs, err)
		}
		if v1, _ := s.DataVersion(ctx, "/p"); v1 == v0 {
			t.Fatalf("DataVersion unchanged by a write: %q", v1)
		}
		if _, ok, err := s.LangStats(ctx, "/p"); ok || err != nil {
			t.Fatalf("LangStats before any: %v %v", ok, err)
		}
		if err := s.PutLangStats(ctx, "/p", `{"go":1}`); err != nil {
			t.Fatal(err)
		}
		if v, ok, err := s.LangStats(ctx, "/p"); !ok || err != nil || v != `{"go":1}` {
			t.Fatalf("LangStats = %q %v %v", v, ok, err)
		}
		if langs, err := s.FileLanguages(ctx, "/p"); err != nil || langs["a.go"] != "go" {
			t.Fatalf("FileLanguages = %v %v", langs, err)
		}
		// the directory states: one value per project, replaced, and
		// gone with the project
		if _, ok, err := s.DirStates(ctx, "/p"); ok || err != nil {
			t.Fatalf("DirStates before any: %v %v", ok, err)
		}
		for _, v := range []string{`{".":{"go":"ab"}}`, `{".":{"go":"cd","cpp":true}}`} {
			if err := s.PutDirStates(ctx, "/p", v); err != nil {
				t.Fatal(err)
			}
			if got, ok, err := s.DirStates(ctx, "/p"); !ok || err != nil || got != v {
				t.Fatalf("DirStates = %q %v %v, want %q", got, ok, err, v)
			}
		}
		// the retry list likewise
		if v, err := s.DirRetry(ctx, "/p"); v != "" || err != nil {
			t.Fatalf("DirRetry before any: %q %v", v, err)
		}
		for _, v := range []string{`["p"]`, `[]`} {
			if err := s.PutDirRetry(ctx, "/p", v); err != nil {
				t.Fatal(err)
			}
			if got, err := s.DirRetry(ctx, "/p"); err != nil || got != v {
				t.Fatalf("DirRetry = %q %v, want %q", got, err, v)
			}
		}
		if _, err := s.RemoveProject(ctx, "/p"); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.DirStates(ctx, "/p"); ok || err != nil {
			t.Fatalf("DirStates after RemoveProject: %v %v", ok, err)
		}
		if v, err := s.DirRetry(ctx, "/p"); v != "" || err != nil {
			t.Fatalf("DirRetry after RemoveProject: %q %v", v, err)
		}
	})
}

func testVectors(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withStore(t, target, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		// File() gives chunk i the unit vector e_(i mod 3)
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{File("a.go", "x0", "x1", "x2")}, nil); err != nil {
			t.Fatal(err)
		}
		ids := map[string]int64{}
		for _, n := range []string{"x0", "x1", "x2"} {
			ids[n] = got0(t, s, "/p", n).ID
		}
		q := []float32{0.6, 0.8, 0}
		for _, cache := range []bool{false, true} {
			s.CacheVectors(cache)
			top, err := s.TopKCosine(ctx, "/p", "local:test", q, 2)
			if err != nil || len(top) != 2 || top[0].ID != ids["x1"] || top[1].ID != ids["x0"] ||
				math.Abs(top[0].Score-0.8) > 1e-6 || math.Abs(top[1].Score-0.6) > 1e-6 {
				t.Fatalf("cache %v: TopKCosine = %+v, %v", cache, top, err)
			}
			by, err := s.CosineByID(ctx, "/p", "local:test", []int64{ids["x0"], ids["x2"]}, q)
			if err != nil || len(by) != 2 || by[0].ID != ids["x0"] || by[1].Score != 0 {
				t.Fatalf("cache %v: CosineByID = %+v, %v", cache, by, err)
			}
			if _, err := s.TopKCosine(ctx, "/p", "local:test", []float32{1, 0}, 2); err == nil {
				t.Fatalf("cache %v: a query of another dimension was scored", cache)
			}
		}
		// a write is seen by the cache
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{File("b.go", "y0", "y1")}, []string{"a.go"}); err != nil {
			t.Fatal(err)
		}
		top, err := s.TopKCosine(ctx, "/p", "local:test", q, 5)
		if err != nil || len(top) != 2 || top[0].ID != got0(t, s, "/p", "y1").ID {
			t.Fatalf("after a write TopKCosine = %+v, %v", top, err)
		}
	})
}

func testRunsAndRemoveProject(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withStore(t, target, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, p := range []string{"/p", "/q"} {
			mustProject(t, s, p)
			if err := s.BeginRun(ctx, p, 3, false); err != nil {
				t.Fatal(err)
			}
			if err := s.ReplaceFiles(ctx, p, []store.FileData{File("a.go", "alpha"), File("b.go", "beta")}, nil); err != nil {
				t.Fatal(err)
			}
		}
		if idx, total, ok, err := s.Incomplete(ctx, "/p"); err != nil || !ok || idx != 2 || total != 3 {
			t.Fatalf("Incomplete = %d %d %v %v", idx, total, ok, err)
		}
		began, _, err := s.LastRun(ctx, "/p")
		if err != nil || began.Done || began.Started == 0 || began.Report().Ended != "" {
			t.Fatalf("LastRun of a running run = %+v (%+v), %v", began, began.Report(), err)
		}
		if err := s.EndRun(ctx, "/p", 2, 0, true); err != nil {
			t.Fatal(err)
		}
		r, ok, err := s.LastRun(ctx, "/p")
		if err != nil || !ok || !r.Done || r.Total != 2 {
			t.Fatalf("LastRun = %+v %v %v", r, ok, err)
		}
		// the finished record counts the project's chunks; a run that
		// changed nothing keeps the count, one that did counts again
		cnt, err := s.Count(ctx, "/p")
		if err != nil || cnt.Chunks == 0 || r.Chunks != cnt.Chunks {
			t.Fatalf("LastRun.Chunks = %d, Count = %+v (%v)", r.Chunks, cnt, err)
		}
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{File("c.go", "gamma")}, nil); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			changed bool
			want    int
		}{{false, cnt.Chunks}, {true, cnt.Chunks + 1}} {
			if err := s.EndRun(ctx, "/p", 3, 0, tc.changed); err != nil {
				t.Fatal(err)
			}
			if got, _, err := s.LastRun(ctx, "/p"); err != nil || got.Chunks != tc.want {
				t.Fatalf("EndRun(changed=%v): Chunks = %d, want %d (%v)", tc.changed, got.Chunks, tc.want, err)
			}
		}
		// a run going on keeps the last count (searches size the vector
		// route by it), and so does its end when it changed nothing
		if err := s.BeginRun(ctx, "/p", 3, false); err != nil {
			t.Fatal(err)
		}
		for _, end := range []bool{false, true} {
			if end {
				if err := s.EndRun(ctx, "/p", 3, 0, false); err != nil {
					t.Fatal(err)
				}
			}
			if got, _, err := s.LastRun(ctx, "/p"); err != nil || got.Chunks != cnt.Chunks+1 || got.Done != end {
				t.Fatalf("after BeginRun (ended %v): %+v, want Chunks %d (%v)", end, got, cnt.Chunks+1, err)
			}
		}
		// the finished record keeps the start BeginRun wrote and adds the end;
		// its printed form has RFC 3339 times and the length in milliseconds
		if r.Started != began.Started || r.Ended < r.Started {
			t.Fatalf("finished run %+v does not keep the start of %+v", r, began)
		}
		rep := r.Report()
		st, err1 := time.Parse(time.RFC3339, rep.Started)
		en, err2 := time.Parse(time.RFC3339, rep.Ended)
		if err1 != nil || err2 != nil || st.Unix() != r.Started/1e9 || en.Unix() != r.Ended/1e9 || rep.DurationMS == nil || *rep.DurationMS != (r.Ended-r.Started)/1e6 {
			t.Fatalf("Report() = %+v of %+v (%v %v)", rep, r, err1, err2)
		}
		before, err := s.KeywordSearch(ctx, "/q", []string{"alpha", "bodi"}, store.FTSWeights{Name: 1, Owner: 1, Path: 1, Doc: 1, Body: 1}, 10)
		if err != nil || len(before) != 2 {
			t.Fatalf("KeywordSearch /q = %+v, %v", before, err)
		}
		n, err := s.RemoveProject(ctx, "/p")
		if err != nil || n != 3 {
			t.Fatalf("RemoveProject = %d, %v", n, err)
		}
		if _, err := s.RemoveProject(ctx, "/p"); !errors.Is(err, store.ErrNotIndexed) {
			t.Fatalf("second RemoveProject = %v", err)
		}
		c, _ := s.Count(ctx, "/p")
		if c.Files+c.Chunks+c.Embedded+c.Relations != 0 {
			t.Fatalf("rows left after remove: %+v", c)
		}
		if hits, err := s.KeywordSearch(ctx, "/p", []string{"alpha"}, store.FTSWeights{Name: 1, Owner: 1, Path: 1, Doc: 1, Body: 1}, 10); err != nil || len(hits) != 0 {
			t.Fatalf("full-text rows left: %v %v", hits, err)
		}
		if _, ok, _ := s.LastRun(ctx, "/p"); ok {
			t.Fatal("run record left after remove")
		}
		// the other project, and its BM25 statistics, are untouched
		after, err := s.KeywordSearch(ctx, "/q", []string{"alpha", "bodi"}, store.FTSWeights{Name: 1, Owner: 1, Path: 1, Doc: 1, Body: 1}, 10)
		if err != nil || fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("/q changed: %v -> %v (%v)", before, after, err)
		}
		if ps, _ := s.Projects(ctx); len(ps) != 1 || ps[0].Path != "/q" {
			t.Fatalf("projects %+v", ps)
		}
	})
}

// testVectorMigration: an index of schema 4, whose vectors are
// float32, opens at schema 5 with every vector rewritten as int8 codes
// (dim+4 bytes) in place, and searches give the float32 scores within
// 0.01 and the same order: nothing is lost and nothing needs re-embedding.
func testVectorMigration(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withTarget(t, target, func(t *testing.T, target string) {
		ctx := context.Background()
		s, err := store.Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		const dim = 768
		if err := s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: dim}); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(3, 4))
		vecs := map[string][]float32{}
		fd := store.FileData{Record: store.FileRecord{Path: "a.go", SHA256: "x", Embedder: "local:test", Size: 1, MtimeNS: 1}, Language: "go"}
		for i := range 40 {
			v := make([]float32, dim)
			var n float64
			for j := range v {
				v[j] = float32(rng.NormFloat64())
				n += float64(v[j]) * float64(v[j])
			}
			for j := range v {
				v[j] /= float32(math.Sqrt(n))
			}
			name := fmt.Sprintf("f%d", i)
			vecs[name] = v
			fd.Chunks = append(fd.Chunks, store.ChunkRow{Path: "a.go", Type: "function", Name: name, StartLine: i + 1, EndLine: i + 1,
				DeclEndLine: i + 1, Content: name, Vector: v, Embedder: "local:test", NameTerms: name})
		}
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{fd}, nil); err != nil {
			t.Fatal(err)
		}
		// make it a schema 4 index: float32 little-endian vectors, one row
		// per chunk
		ids := map[int64]string{}
		idOf := map[string]int64{}
		for name := range vecs {
			idOf[name] = got0(t, s, "/p", name).ID
		}
		ToSchema6(t, s)
		for name, v := range vecs {
			id := idOf[name]
			ids[id] = name
			old := make([]byte, 0, 4*dim)
			for _, x := range v {
				old = binary.LittleEndian.AppendUint32(old, math.Float32bits(x))
			}
			if _, err := s.DB().ExecContext(ctx, `UPDATE code_vectors SET vec = ? WHERE id = ?`, old, id); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.DB().ExecContext(ctx, `UPDATE meta SET value='4' WHERE key='schema_version'`); err != nil {
			t.Fatal(err)
		}
		if !onPostgres(s) {
			if _, err := s.DB().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				t.Fatal(err)
			}
		}
		before := s.Size()
		s.Close()
		if s, err = store.Open(ctx, target); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		// SQLite: the migration compacts the file, as each row kept its page
		if after := s.Size(); !onPostgres(s) && after >= before {
			t.Errorf("index file %d bytes before the migration, %d after", before, after)
		}
		var n, size int
		if err := s.DB().QueryRowContext(ctx, `SELECT n, length(vecs) / n FROM code_vectors`).Scan(&n, &size); err != nil || n != 40 || size != dim+4 {
			t.Fatalf("after migration %d vectors of %d bytes, want 40 of %d (%v)", n, size, dim+4, err)
		}
		q := vecs["f7"]
		want := map[string]float64{}
		for name, v := range vecs {
			var d float64
			for j := range v {
				d += float64(v[j]) * float64(q[j])
			}
			want[name] = d
		}
		for _, cache := range []bool{false, true} {
			s.CacheVectors(cache)
			top, err := s.TopKCosine(ctx, "/p", "local:test", q, 40)
			if err != nil || len(top) != 40 || ids[top[0].ID] != "f7" {
				t.Fatalf("cache %v: TopKCosine after migration = %v, %v", cache, top, err)
			}
			for _, sc := range top {
				if w := want[ids[sc.ID]]; math.Abs(sc.Score-w) > 0.01 {
					t.Errorf("cache %v: %s scored %.4f, float32 %.4f", cache, ids[sc.ID], sc.Score, w)
				}
			}
		}
	})
}

func testMigrations(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withTarget(t, target, func(t *testing.T, target string) {
		ctx := context.Background()
		s, err := store.Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		mustProject(t, s, "/p")
		if _, err := s.DB().ExecContext(ctx, `UPDATE meta SET value='99' WHERE key='schema_version'`); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if _, err := store.Open(ctx, target); !errors.Is(err, store.ErrNewerSchema) {
			t.Fatalf("Open of a newer schema = %v, want store.ErrNewerSchema", err)
		}
	})
}

// testOpenTwice opens a store a second time (schema creation is
// idempotent and keeps the rows).
func testOpenTwice(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withTarget(t, target, func(t *testing.T, target string) {
		ctx := context.Background()
		s, err := store.Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		mustProject(t, s, "/p")
		s.Close()
		s, err = store.Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if ps, err := s.Projects(ctx); err != nil || len(ps) != 1 {
			t.Fatalf("projects after reopen %+v %v", ps, err)
		}
	})
}

// testLockProject: a second LockProject of the same project waits, says
// so, and gets the lock when the first is released; another project is
// not blocked; a cancelled wait returns the context's error.
func testLockProject(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withStore(t, target, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		rel, err := s.LockProject(ctx, "/p", nil)
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.LockProject(ctx, "/q", func(m string) { t.Errorf("waited for another project: %s", m) })
		if err != nil {
			t.Fatal(err)
		}
		other()
		msgs := make(chan string, 1)
		got := make(chan func(), 1)
		go func() {
			r, err := s.LockProject(ctx, "/p", func(m string) { msgs <- m })
			if err != nil {
				t.Error(err)
			}
			got <- r
		}()
		m := <-msgs
		if !strings.Contains(m, "/p") || !strings.Contains(m, "waiting") {
			t.Fatalf("wait message %q", m)
		}
		select {
		case <-got:
			t.Fatal("second lock taken while the first is held")
		default:
		}
		rel()
		(<-got)()
		cctx, cancel := context.WithCancel(ctx)
		rel, err = s.LockProject(ctx, "/p", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer rel()
		go func() { time.Sleep(50 * time.Millisecond); cancel() }()
		if _, err := s.LockProject(cctx, "/p", nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("a cancelled wait gave %v", err)
		}
	})
}

// testTreeListing: a tree listing is stored and read back row for
// row (text with tabs, quotes and non-ASCII kept), replaced whole, kept
// apart per project and removed with its project.
func testTreeListing(t *testing.T, target func(testing.TB) string) {
	withStore(t, target, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		mustProject(t, s, "/q")
		if h, rows, err := s.TreeListing(ctx, "/p"); err != nil || h != "" || rows != nil {
			t.Fatalf("empty listing = %q, %v, %v", h, rows, err)
		}
		want := []store.DirRow{{Dir: "", Data: `{"e":[["f","a.go"]]}`}, {Dir: "src/ü", Data: "tab\there \"q\""}}
		if err := s.PutTreeListing(ctx, "/p", "v1", want); err != nil {
			t.Fatal(err)
		}
		if err := s.PutTreeListing(ctx, "/q", "vq", []store.DirRow{{Dir: "", Data: "q"}}); err != nil {
			t.Fatal(err)
		}
		h, rows, err := s.TreeListing(ctx, "/p")
		sort.Slice(rows, func(i, j int) bool { return rows[i].Dir < rows[j].Dir })
		if err != nil || h != "v1" || fmt.Sprint(rows) != fmt.Sprint(want) {
			t.Fatalf("listing = %q, %v, %v; want v1, %v", h, rows, err, want)
		}
		if err := s.PutTreeListing(ctx, "/p", "v2", want[:1]); err != nil {
			t.Fatal(err)
		}
		if h, rows, _ := s.TreeListing(ctx, "/p"); h != "v2" || len(rows) != 1 {
			t.Fatalf("replaced listing = %q, %v", h, rows)
		}
		if _, err := s.RemoveProject(ctx, "/p"); err != nil {
			t.Fatal(err)
		}
		if h, rows, _ := s.TreeListing(ctx, "/p"); h != "" || len(rows) != 0 {
			t.Fatalf("listing after RemoveProject = %q, %v", h, rows)
		}
		if h, rows, _ := s.TreeListing(ctx, "/q"); h != "vq" || len(rows) != 1 {
			t.Fatalf("other project's listing = %q, %v", h, rows)
		}
	})
}

// testRetireVectors: a model probe is kept per project; RetireVectors
// gives the project's fingerprints and vectors of an embedder its retired
// id (another project's stay), records the new probe, changes the data
// version and the fingerprint key; searches by the embedder then find
// none, a mixed run record counts the files, and RemoveProject drops the
// probe.
func testRetireVectors(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withStore(t, target, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, p := range []string{"/p", "/q"} {
			mustProject(t, s, p)
			if err := s.ReplaceFiles(ctx, p, []store.FileData{File("a.go", "alpha"), File("b.go", "beta")}, nil); err != nil {
				t.Fatal(err)
			}
		}
		if _, ok, err := s.ModelProbe(ctx, "/p"); ok || err != nil {
			t.Fatalf("a probe before any: %v %v", ok, err)
		}
		if err := s.PutModelProbe(ctx, "/p", `{"v":1}`); err != nil {
			t.Fatal(err)
		}
		if v, ok, err := s.ModelProbe(ctx, "/p"); v != `{"v":1}` || !ok || err != nil {
			t.Fatalf("ModelProbe = %q %v %v", v, ok, err)
		}
		version, _ := s.DataVersion(ctx, "/p")
		key, _ := s.EnsureFilesKey(ctx, "/p")
		if err := s.BeginRun(ctx, "/p", 2, true); err != nil {
			t.Fatal(err)
		}
		n, err := s.RetireVectors(ctx, "/p", "local:test", `{"v":2}`)
		if err != nil || n != 2 {
			t.Fatalf("RetireVectors = %d %v, want 2 files", n, err)
		}
		if v, _, _ := s.ModelProbe(ctx, "/p"); v != `{"v":2}` {
			t.Fatalf("probe after RetireVectors %q", v)
		}
		if v, _ := s.DataVersion(ctx, "/p"); v == version {
			t.Fatal("the data version did not change")
		}
		if k, _ := s.FilesKey(ctx, "/p"); k == key {
			t.Fatal("the fingerprint key did not change")
		}
		files, err := s.Files(ctx, "/p")
		if err != nil || files["a.go"].Embedder != store.RetiredID("local:test") {
			t.Fatalf("fingerprint %+v %v", files["a.go"], err)
		}
		if got, err := s.TopKCosine(ctx, "/p", "local:test", []float32{1, 0, 0}, 10); err != nil || len(got) != 0 {
			t.Fatalf("a search finds %d retired vectors (%v)", len(got), err)
		}
		want := store.MixedVectors{Embedder: "local:test", Other: store.RetiredID("local:test"), Files: 2, Total: 2}
		if m, ok, err := s.Mixed(ctx, "/p"); !ok || err != nil || m != want {
			t.Fatalf("Mixed = %+v %v %v, want %+v", m, ok, err, want)
		}
		if got, err := s.TopKCosine(ctx, "/q", "local:test", []float32{1, 0, 0}, 10); err != nil || len(got) != 2 {
			t.Fatalf("another project's vectors: %d found (%v), want 2", len(got), err)
		}
		// the files embedded again: the record ends unmixed
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{File("a.go", "alpha"), File("b.go", "beta")}, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.EndRun(ctx, "/p", 2, 0, true); err != nil {
			t.Fatal(err)
		}
		if m, ok, err := s.Mixed(ctx, "/p"); ok || err != nil {
			t.Fatalf("Mixed after the files are embedded again = %+v %v", m, err)
		}
		if _, err := s.RemoveProject(ctx, "/p"); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.ModelProbe(ctx, "/p"); ok || err != nil {
			t.Fatalf("a removed project's probe: %v %v", ok, err)
		}
	})
}

// testMixedRun: a run that switches embedders marks its record mixed
// (with every other embedder named when a second change was interrupted
// too);
// while files carry vectors of another embedder than the project's, Mixed
// counts them (also after the run ends, with failures, and through the
// next run's start), and the end of a run that leaves none clears it.
func testMixedRun(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withStore(t, target, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{File("a.go", "alpha"), File("b.go", "beta"), File("c.go", "gamma")}, nil); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.Mixed(ctx, "/p"); ok || err != nil {
			t.Fatalf("Mixed of a project without a switch = %v %v", ok, err)
		}
		other := func(path, name string) store.FileData {
			fd := File(path, name)
			fd.Record.Embedder = "local:new"
			for i := range fd.Chunks {
				fd.Chunks[i].Embedder = "local:new"
			}
			return fd
		}
		if err := s.BeginRun(ctx, "/p", 3, true); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{other("a.go", "alpha"), other("b.go", "beta")}, nil); err != nil {
			t.Fatal(err)
		}
		want := store.MixedVectors{Embedder: "local:test", Other: "local:new", Files: 2, Total: 3}
		for _, step := range []string{"interrupted", "ended with a failure", "begun again"} {
			switch step {
			case "ended with a failure":
				if err := s.EndRun(ctx, "/p", 3, 1, true); err != nil {
					t.Fatal(err)
				}
			case "begun again":
				if err := s.BeginRun(ctx, "/p", 3, false); err != nil {
					t.Fatal(err)
				}
			}
			m, ok, err := s.Mixed(ctx, "/p")
			if r, _, _ := s.LastRun(ctx, "/p"); err != nil || !ok || m != want || !r.Mixed {
				t.Fatalf("%s: Mixed = %+v %v %v (record %+v), want %+v", step, m, ok, err, r, want)
			}
			// both notes from one read: every file is indexed, so mixed only
			if rn, err := s.RunNotes(ctx, "/p"); err != nil || rn.Incomplete || rn.Mixed == nil || *rn.Mixed != want {
				t.Fatalf("%s: RunNotes = %+v %v, want mixed %+v and not incomplete", step, rn, err, want)
			}
		}
		// a second change, to a third embedder, interrupted after one
		// file: both others are named, the one with most files first
		third := File("c.go", "gamma")
		third.Record.Embedder, third.Chunks[0].Embedder = "local:third", "local:third"
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{third}, nil); err != nil {
			t.Fatal(err)
		}
		want = store.MixedVectors{Embedder: "local:test", Other: "local:new, local:third", Files: 3, Total: 3}
		if m, ok, err := s.Mixed(ctx, "/p"); err != nil || !ok || m != want {
			t.Fatalf("three embedders: Mixed = %+v %v %v, want %+v", m, ok, err, want)
		}
		// the run embeds the last file too and the project moves over
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{other("c.go", "gamma")}, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:new", Dim: 3}); err != nil {
			t.Fatal(err)
		}
		if err := s.EndRun(ctx, "/p", 3, 0, true); err != nil {
			t.Fatal(err)
		}
		m, ok, err := s.Mixed(ctx, "/p")
		if r, _, _ := s.LastRun(ctx, "/p"); err != nil || ok || r.Mixed {
			t.Fatalf("after the switch: Mixed = %+v %v %v (record %+v)", m, ok, err, r)
		}
	})
}

// testCheckCountsVectors: Check counts every project's vectors by
// embedder, so a mixed project is found without a run record saying a
// change of embedder began (an index an older coderag left), and a
// project of one embedder is not mixed.
func testCheckCountsVectors(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withTarget(t, target, func(t *testing.T, target string) {
		ctx := context.Background()
		s := Open(t, target)
		mustProject(t, s, "/p")
		mustProject(t, s, "/q")
		moved := File("b.go", "beta")
		moved.Record.Embedder, moved.Chunks[0].Embedder = "local:new", "local:new"
		if err := s.ReplaceFiles(ctx, "/p", []store.FileData{File("a.go", "alpha"), moved, File("c.go", "gamma")}, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceFiles(ctx, "/q", []store.FileData{File("a.go", "alpha")}, nil); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.Mixed(ctx, "/p"); ok || err != nil {
			t.Fatalf("Mixed without a run record = %v %v: the record is not what this test is about", ok, err)
		}
		s.Close()
		rep, err := store.Check(ctx, target, false)
		if err != nil {
			t.Fatal(err)
		}
		want := []store.ProjectVectors{
			{Root: "/p", Embedder: "local:test", Mixed: &store.MixedVectors{Embedder: "local:test", Other: "local:new", Files: 1, Total: 3}},
			{Root: "/q", Embedder: "local:test"},
		}
		if len(rep.Problems) > 0 || !reflect.DeepEqual(rep.Vectors, want) {
			t.Fatalf("Check: problems %q, vectors %s, want %s", rep.Problems, vectorsText(rep.Vectors), vectorsText(want))
		}
	})
}

// vectorsText renders vs for a test's message.
func vectorsText(vs []store.ProjectVectors) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "{%s %s", v.Root, v.Embedder)
		if v.Mixed != nil {
			fmt.Fprintf(&b, " mixed %+v", *v.Mixed)
		}
		b.WriteString("} ")
	}
	return b.String()
}

// File returns the rows of a file at path with one function chunk per
// name (a unit vector of dimension 3 each, embedder "local:test") and one
// call relation from the first name to "other".
func File(path string, names ...string) store.FileData {
	fd := store.FileData{Record: store.FileRecord{Path: path, SHA256: "x", Embedder: "local:test", Size: 1, MtimeNS: 1}, Language: "go"}
	for i, n := range names {
		v := []float32{0, 0, 0}
		v[i%3] = 1
		fd.Chunks = append(fd.Chunks, store.ChunkRow{Path: path, Type: "function", Name: n, StartLine: i + 1, EndLine: i + 1,
			DeclEndLine: i + 1, Content: "body of " + n, Vector: v, Embedder: "local:test", NameTerms: n, BodyTerms: "bodi " + n})
	}
	fd.Relations = []store.RelationRow{{Path: path, From: names[0], To: "other", Kind: "calls", Line: 1}}
	return fd
}

// testVectorScan: the vector route's scan (on SQLite read in place,
// through the aggregate coderag_each_row) scores every vector of the
// project and embedder once, as FileVectors stores them, and no other
// project's or embedder's; a pack whose parts disagree is ErrDamaged.
func testVectorScan(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withStore(t, target, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		mustProject(t, s, "/other")
		var names []string
		for i := 0; i < 40; i++ {
			names = append(names, fmt.Sprintf("f%d", i))
		}
		files := []store.FileData{File("a.go", names[:25]...), File("b.go", names[25:]...), File("c.go", "solo")}
		if err := s.ReplaceFiles(ctx, "/p", files, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceFiles(ctx, "/other", []store.FileData{File("a.go", "elsewhere")}, nil); err != nil {
			t.Fatal(err)
		}
		q := []float32{0.6, 0.8, 0}
		want := map[int64]float64{}
		for _, f := range []string{"a.go", "b.go", "c.go"} {
			vs, err := s.FileVectors(ctx, "/p", f)
			if err != nil {
				t.Fatal(err)
			}
			for id, b := range vs {
				v := store.DecodeVector(b)
				want[id] = float64(q[0]*v[0] + q[1]*v[1] + q[2]*v[2])
			}
		}
		s.CacheVectors(false)
		top, err := s.TopKCosine(ctx, "/p", "local:test", q, 100)
		if err != nil || len(top) != len(want) || len(want) != 41 {
			t.Fatalf("TopKCosine over every vector: %d results, %v; want the %d of FileVectors", len(top), err, len(want))
		}
		for _, r := range top {
			w, ok := want[r.ID]
			if !ok || math.Abs(r.Score-w) > 0.01 {
				t.Errorf("vector %d scored %.3f, want %.3f (%v)", r.ID, r.Score, w, ok)
			}
			delete(want, r.ID)
		}
		if top, err := s.TopKCosine(ctx, "/p", "local:other", q, 100); err != nil || len(top) != 0 {
			t.Errorf("another embedder's vectors: %+v, %v", top, err)
		}
		if _, err := s.DB().ExecContext(ctx, `UPDATE code_vectors SET n = n + 1 WHERE file_id =
			(SELECT id FROM indexed_files WHERE project_path = '/p' AND file_path = 'b.go')`); err != nil {
			t.Fatal(err)
		}
		if _, err := s.TopKCosine(ctx, "/p", "local:test", q, 100); !errors.Is(err, store.ErrDamaged) {
			t.Fatalf("a damaged pack: TopKCosine = %v, want ErrDamaged", err)
		}
	})
}

// testFilesRecords: every fingerprint field reads back as written (Files,
// on SQLite through the in-place scan EachFile), again after other reads
// have used the connections.
func testFilesRecords(t *testing.T, target func(testing.TB) string) {
	t.Parallel()
	withStore(t, target, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		var fds []store.FileData
		want := map[string]store.FileRecord{}
		for i, emb := range []string{"local:test", "local:other", "local:other", "local:test", "openai:x"} {
			fd := File(fmt.Sprintf("d%d/f%d.go", i%2, i), fmt.Sprintf("n%d", i))
			fd.Record.SHA256 = fmt.Sprintf("%064x", i+1)
			fd.Record.Embedder, fd.Record.Size, fd.Record.MtimeNS, fd.Record.Analysis = emb, int64(100+i), int64(i)<<40, i+1
			fds = append(fds, fd)
		}
		if err := s.ReplaceFiles(ctx, "/p", fds, nil); err != nil {
			t.Fatal(err)
		}
		for _, fd := range fds {
			r := fd.Record
			r.Chunks = 1
			want[r.Path] = r
		}
		check := func(when string) {
			t.Helper()
			got, err := s.Files(ctx, "/p")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %d records, want %d", when, len(got), len(want))
			}
			for p, w := range want {
				g := got[p]
				if g.IndexedAt <= 0 {
					t.Errorf("%s: %s indexed at %d", when, p, g.IndexedAt)
				}
				g.IndexedAt = w.IndexedAt
				if g != w {
					t.Errorf("%s: %s read back as %+v, want %+v", when, p, g, w)
				}
			}
		}
		check("first read")
		for i := 0; i < 3; i++ {
			if _, err := s.KeywordSearch(ctx, "/p", []string{"n1"}, store.FTSWeights{Name: 1, Owner: 1, Path: 1, Doc: 1, Body: 1}, 5); err != nil {
				t.Fatal(err)
			}
		}
		check("after more reads")
	})
}
