package store

// The contract suite: every test here runs against SQLite and PostgreSQL
// (a throwaway database on the server CODERAG_TEST_POSTGRES names; see
// testutil.Postgres), and the BM25 tests compare the two stores' scores.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/testutil"
)

// eachStore runs fn once per store kind, each on a new, empty store.
func eachStore(t *testing.T, fn func(t *testing.T, s *Store)) {
	t.Helper()
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			fn(t, openKind(t, kind))
		})
	}
}

// newTarget returns where a new, empty store of kind "sqlite" or
// "postgres" opens: a file in a temporary directory, or a throwaway
// database's URL.
func newTarget(t *testing.T, kind string) string {
	t.Helper()
	if kind == "postgres" {
		return testutil.Postgres(t)
	}
	return filepath.Join(t.TempDir(), "index.db")
}

// eachTarget runs fn on both kinds of store, in parallel subtests, with
// the target to open (for tests that close and reopen it).
func eachTarget(t *testing.T, fn func(t *testing.T, target string)) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			fn(t, newTarget(t, kind))
		})
	}
}

// openKind opens a new, empty store of kind "sqlite" or "postgres".
func openKind(t *testing.T, kind string) *Store {
	t.Helper()
	s, err := Open(context.Background(), newTarget(t, kind))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.Postgres() != (kind == "postgres") {
		t.Fatalf("Open(%s) gave Postgres() = %v", kind, s.Postgres())
	}
	return s
}

func mustProject(t *testing.T, s *Store, p string) {
	t.Helper()
	if err := s.PutProject(context.Background(), Project{Path: p, Embedder: "local:test", Dim: 3}); err != nil {
		t.Fatal(err)
	}
}

func TestContractFilesAndChunks(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		a := file("a.go", "alpha", "beta")
		a.Record.SHA256, a.Record.Size, a.Record.MtimeNS, a.Record.Analysis = "abc", 12, 1<<62, 7
		a.Chunks[0].Content = "Mixed CASE text 100% done_now"
		a.Chunks[0].Doc, a.Chunks[0].Owner, a.Chunks[0].Signature = "doc of alpha", "T", "func alpha()"
		if err := s.ReplaceFiles(ctx, "/p", []FileData{a, file("b.go", "gamma")}, nil); err != nil {
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
		if err := s.TouchFiles(ctx, "/p", []FileRecord{r}); err != nil {
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
func got0(t *testing.T, s *Store, project, name string) ChunkRow {
	t.Helper()
	cs, err := s.LikeSearch(context.Background(), project, name, 1)
	if err != nil || len(cs) == 0 {
		t.Fatalf("no chunk %s: %v", name, err)
	}
	return cs[0]
}

func TestContractTextIsKept(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		fd := file("ü/中文.go", "naïve")
		fd.Chunks[0].Content = "héllo 世界\tend"
		if err := s.ReplaceFiles(ctx, "/p", []FileData{fd}, nil); err != nil {
			t.Fatal(err)
		}
		c := got0(t, s, "/p", "naïve")
		if c.Content != "héllo 世界\tend" || c.Path != "ü/中文.go" {
			t.Fatalf("read back %q %q", c.Content, c.Path)
		}
		// bytes PostgreSQL text cannot hold are stored, as U+FFFD there
		bad := file("bad.go", "zeta")
		bad.Chunks[0].Content = "a\x00b\xffc"
		if err := s.ReplaceFiles(ctx, "/p", []FileData{bad}, nil); err != nil {
			t.Fatal(err)
		}
		want := "a\x00b\xffc"
		if s.Postgres() {
			want = "a\uFFFDb\uFFFDc"
		}
		if c := got0(t, s, "/p", "zeta"); c.Content != want {
			t.Fatalf("content %q, want %q", c.Content, want)
		}
	})
}

func TestContractRelations(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		fd := file("a.go", "Run", "helper")
		fd.Chunks[1].Type, fd.Chunks[1].Owner = "method", "T"
		fd.Relations = []RelationRow{
			{Path: "a.go", From: "Run", To: "helper", Kind: "calls", Line: 3, Form: lang.CallPlain},
			{Path: "a.go", From: "Run", To: "T.helper", Kind: "calls", Line: 2, Form: lang.CallSelf},
			{Path: "a.go", From: "T", To: "Base", Kind: "extends", Line: 1},
			{Path: "a.go", From: "helper", To: "fmt.Println", Kind: "calls", Line: 4, Form: lang.CallValue},
		}
		if err := s.ReplaceFiles(ctx, "/p", []FileData{fd}, nil); err != nil {
			t.Fatal(err)
		}
		from, err := s.RelationsFrom(ctx, "/p", []string{"Run"}, []string{"calls"})
		if err != nil || len(from) != 2 || from[0].To != "T.helper" || from[0].Form != lang.CallSelf || from[1].To != "helper" || from[1].Form != lang.CallPlain {
			t.Fatalf("RelationsFrom = %+v, %v", from, err)
		}
		to, err := s.RelationsTo(ctx, "/p", []string{"Base", "fmt.Println"}, nil)
		if err != nil || len(to) != 2 || to[0].Kind != "extends" || to[1].Form != lang.CallValue {
			t.Fatalf("RelationsTo = %+v, %v", to, err)
		}
		if of, err := s.RelationsOfFile(ctx, "/p", "a.go", []string{"extends"}); err != nil || len(of) != 1 {
			t.Fatalf("RelationsOfFile = %+v, %v", of, err)
		}
		n := 0
		if err := s.CallRelations(ctx, "/p", func(RelationRow) bool { n++; return true }); err != nil || n != 3 {
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

func TestContractSymbolsAndMeta(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		v0, err := s.DataVersion(ctx, "/p")
		if err != nil {
			t.Fatal(err)
		}
		mustProject(t, s, "/p")
		fd := file("a.go", "Serve")
		fd.Chunks[0].Type, fd.Chunks[0].Name, fd.Chunks[0].Owner = "method", "Server.Serve(l net.Listener)", "Server"
		fd.Chunks[0].Symbol, fd.Chunks[0].Params = "Serve", "l net.Listener"
		if err := s.ReplaceFiles(ctx, "/p", []FileData{fd}, nil); err != nil {
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
	})
}

func TestContractVectors(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		// file() gives chunk i the unit vector e_(i mod 3)
		if err := s.ReplaceFiles(ctx, "/p", []FileData{file("a.go", "x0", "x1", "x2")}, nil); err != nil {
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
		if err := s.ReplaceFiles(ctx, "/p", []FileData{file("b.go", "y0", "y1")}, []string{"a.go"}); err != nil {
			t.Fatal(err)
		}
		top, err := s.TopKCosine(ctx, "/p", "local:test", q, 5)
		if err != nil || len(top) != 2 || top[0].ID != got0(t, s, "/p", "y1").ID {
			t.Fatalf("after a write TopKCosine = %+v, %v", top, err)
		}
	})
}

func TestContractRunsAndRemoveProject(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for _, p := range []string{"/p", "/q"} {
			mustProject(t, s, p)
			if err := s.BeginRun(ctx, p, 3); err != nil {
				t.Fatal(err)
			}
			if err := s.ReplaceFiles(ctx, p, []FileData{file("a.go", "alpha"), file("b.go", "beta")}, nil); err != nil {
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
		if err := s.ReplaceFiles(ctx, "/p", []FileData{file("c.go", "gamma")}, nil); err != nil {
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
		before, err := s.KeywordSearch(ctx, "/q", []string{"alpha", "bodi"}, FTSWeights{1, 1, 1, 1, 1}, 10)
		if err != nil || len(before) != 2 {
			t.Fatalf("KeywordSearch /q = %+v, %v", before, err)
		}
		n, err := s.RemoveProject(ctx, "/p")
		if err != nil || n != 3 {
			t.Fatalf("RemoveProject = %d, %v", n, err)
		}
		if _, err := s.RemoveProject(ctx, "/p"); !errors.Is(err, ErrNotIndexed) {
			t.Fatalf("second RemoveProject = %v", err)
		}
		c, _ := s.Count(ctx, "/p")
		if c.Files+c.Chunks+c.Embedded+c.Relations != 0 {
			t.Fatalf("rows left after remove: %+v", c)
		}
		if hits, err := s.KeywordSearch(ctx, "/p", []string{"alpha"}, FTSWeights{1, 1, 1, 1, 1}, 10); err != nil || len(hits) != 0 {
			t.Fatalf("full-text rows left: %v %v", hits, err)
		}
		if _, ok, _ := s.LastRun(ctx, "/p"); ok {
			t.Fatal("run record left after remove")
		}
		// the other project, and its BM25 statistics, are untouched
		after, err := s.KeywordSearch(ctx, "/q", []string{"alpha", "bodi"}, FTSWeights{1, 1, 1, 1, 1}, 10)
		if err != nil || fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("/q changed: %v -> %v (%v)", before, after, err)
		}
		if ps, _ := s.Projects(ctx); len(ps) != 1 || ps[0].Path != "/q" {
			t.Fatalf("projects %+v", ps)
		}
	})
}

// TestContractVectorMigration: an index of schema 4, whose vectors are
// float32, opens at schema 5 with every vector rewritten as int8 codes
// (dim+4 bytes) in place, and searches give the float32 scores within
// 0.01 and the same order: nothing is lost and nothing needs re-embedding.
func TestContractVectorMigration(t *testing.T) {
	t.Parallel()
	eachTarget(t, func(t *testing.T, target string) {
		ctx := context.Background()
		s, err := Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		const dim = 768
		if err := s.PutProject(ctx, Project{Path: "/p", Embedder: "local:test", Dim: dim}); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(3, 4))
		vecs := map[string][]float32{}
		fd := FileData{Record: FileRecord{Path: "a.go", SHA256: "x", Embedder: "local:test", Size: 1, MtimeNS: 1}, Language: "go"}
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
			fd.Chunks = append(fd.Chunks, ChunkRow{Path: "a.go", Type: "function", Name: name, StartLine: i + 1, EndLine: i + 1,
				DeclEndLine: i + 1, Content: name, Vector: v, Embedder: "local:test", NameTerms: name})
		}
		if err := s.ReplaceFiles(ctx, "/p", []FileData{fd}, nil); err != nil {
			t.Fatal(err)
		}
		// make it a schema 4 index: float32 little-endian vectors, one row
		// per chunk
		ids := map[int64]string{}
		idOf := map[string]int64{}
		for name := range vecs {
			idOf[name] = got0(t, s, "/p", name).ID
		}
		toSchema6(t, s)
		for name, v := range vecs {
			id := idOf[name]
			ids[id] = name
			old := make([]byte, 0, 4*dim)
			for _, x := range v {
				old = binary.LittleEndian.AppendUint32(old, math.Float32bits(x))
			}
			if _, err := s.db.ExecContext(ctx, `UPDATE code_vectors SET vec = ? WHERE id = ?`, old, id); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.db.ExecContext(ctx, `UPDATE meta SET value='4' WHERE key='schema_version'`); err != nil {
			t.Fatal(err)
		}
		if !s.Postgres() {
			if _, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				t.Fatal(err)
			}
		}
		before := s.Size()
		s.Close()
		if s, err = Open(ctx, target); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		// SQLite: the migration compacts the file, as each row kept its page
		if after := s.Size(); !s.Postgres() && after >= before {
			t.Errorf("index file %d bytes before the migration, %d after", before, after)
		}
		var n, size int
		if err := s.db.QueryRowContext(ctx, `SELECT n, length(vecs) / n FROM code_vectors`).Scan(&n, &size); err != nil || n != 40 || size != dim+4 {
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

func TestContractMigrations(t *testing.T) {
	t.Parallel()
	eachTarget(t, func(t *testing.T, target string) {
		ctx := context.Background()
		s, err := Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		mustProject(t, s, "/p")
		if _, err := s.db.ExecContext(ctx, `UPDATE meta SET value='99' WHERE key='schema_version'`); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if _, err := Open(ctx, target); !errors.Is(err, ErrNewerSchema) {
			t.Fatalf("Open of a newer schema = %v, want ErrNewerSchema", err)
		}
	})
}

// TestContractOpenTwice opens a store a second time (schema creation is
// idempotent and keeps the rows).
func TestContractOpenTwice(t *testing.T) {
	t.Parallel()
	eachTarget(t, func(t *testing.T, target string) {
		ctx := context.Background()
		s, err := Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		mustProject(t, s, "/p")
		s.Close()
		s, err = Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if ps, err := s.Projects(ctx); err != nil || len(ps) != 1 {
			t.Fatalf("projects after reopen %+v %v", ps, err)
		}
	})
}

// bm25Corpus is a deterministic corpus with repeated terms, empty columns,
// diacritics and CJK bigrams, and chunks of very different lengths.
func bm25Corpus(project string, n int) []FileData {
	words := []string{"pars", "http", "request", "line", "server", "handl", "read", "write", "buffer", "close",
		"error", "conn", "timeout", "retri", "cach", "stor", "index", "search", "rank", "vector", "naïv", "résumé",
		"缓存", "存储", "索引", "parsehttprequest", "x1", "2024"}
	var out []FileData
	for f := 0; f < n; f++ {
		fd := FileData{Record: FileRecord{Path: fmt.Sprintf("pkg%d/f%d.go", f%4, f), SHA256: "x", Embedder: "local:test", Size: 1, MtimeNS: 1}}
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
			fd.Chunks = append(fd.Chunks, ChunkRow{Path: fd.Record.Path, Type: "function", Name: fmt.Sprintf("fn%d_%d", f, c),
				StartLine: c + 1, EndLine: c + 1, DeclEndLine: c + 1, Content: strings.Join(body, " "),
				NameTerms: name, OwnerTerms: words[f%5], PathTerms: fmt.Sprintf("pkg%d f%d go", f%4, f), DocTerms: doc,
				BodyTerms: strings.Join(body, " ")})
		}
		out = append(out, fd)
	}
	return out
}

// named maps KeywordSearch hits to chunk names, with scores.
func named(t *testing.T, s *Store, hits []Scored) []string {
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

// TestContractBM25MatchesFTS5 indexes the same corpus in both stores and
// checks that PostgreSQL's BM25 gives FTS5's scores and order, for several
// queries and column weights, after inserts, replacements and deletions,
// with a second project beside it (statistics are per project).
func TestContractBM25MatchesFTS5(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lite, pg := openKind(t, "sqlite"), openKind(t, "postgres")
	queries := [][]string{{"http", "request"}, {"parsehttprequest"}, {"缓存", "索引", "search"}, {"naive", "resume"},
		{"x1", "2024", "pkg1"}, {"error", "error", "timeout"}, {"absent"}, {"f7", "go"},
		// terms are text, never syntax: quotes, OR, NOT, *, NUL and blanks
		{`say "hi"`, "OR", "NOT", "go*"}, {"a\x00b", " ", ""}}
	weights := []FTSWeights{{1, 1, 1, 1, 1}, {10, 4, 2, 1.5, 1}, {0, 0, 0, 0, 1}}
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
	for _, s := range []*Store{lite, pg} {
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
	for _, s := range []*Store{lite, pg} {
		if err := s.ReplaceFiles(ctx, "/p", later[:20], []string{"pkg0/f0.go", "pkg1/f5.go", "pkg3/f11.go"}); err != nil {
			t.Fatal(err)
		}
	}
	compare("replaced")
	for _, s := range []*Store{lite, pg} {
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
	s := openKind(t, "sqlite")
	for _, q := range []string{`CREATE VIRTUAL TABLE tokfts USING fts5(x, tokenize='unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE tok USING fts5vocab(tokfts, 'row')`} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	text := "Naïve résumé_x1 Ünïcode ÅNGSTRÖM 缓存存储 a-b.c 2024 çà œ ß ПРИВЕТ x\u0301y"
	if _, err := s.db.ExecContext(ctx, `INSERT INTO tokfts(x) VALUES(?)`, text); err != nil {
		t.Fatal(err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT term FROM tok`)
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

// TestContractLockProject: on PostgreSQL a second LockProject of the same
// project waits, says so, and gets the lock when the first is released;
// another project is not blocked. On SQLite it is a no-op.
func TestContractLockProject(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, s *Store) {
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
		if !s.Postgres() {
			rel()
			return
		}
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
		if !strings.Contains(m, "project /p is being indexed by another process; waiting") {
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

// TestPostgresMigrateFromSchema3 turns a database into the first
// PostgreSQL schema (3: no symbol and params columns) with rows in it and
// checks that Open migrates it, backfilling the symbols as on SQLite.
func TestPostgresMigrateFromSchema3(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := testutil.Postgres(t)
	s, err := Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	mustProject(t, s, "/p")
	fd := file("a.go", "x")
	fd.Chunks = append(fd.Chunks,
		ChunkRow{Path: "a.go", Type: "method", Name: "Server.Serve(l net.Listener)", Owner: "Server", StartLine: 5, EndLine: 6, DeclEndLine: 6},
		ChunkRow{Path: "a.go", Type: "class", Name: "pkg.Server", StartLine: 1, EndLine: 2, DeclEndLine: 2})
	if err := s.ReplaceFiles(ctx, "/p", []FileData{fd}, nil); err != nil {
		t.Fatal(err)
	}
	toSchema6(t, s)
	for _, q := range []string{`ALTER TABLE code_chunks DROP COLUMN symbol`, `ALTER TABLE code_chunks DROP COLUMN params`,
		`UPDATE meta SET value='3' WHERE key='schema_version'`} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
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
	if err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v); err != nil || v != fmt.Sprint(SchemaVersion) {
		t.Fatalf("schema_version %q %v", v, err)
	}
}

// TestContractTreeListing: a tree listing is stored and read back row for
// row (text with tabs, quotes and non-ASCII kept), replaced whole, kept
// apart per project and removed with its project.
func TestContractTreeListing(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		mustProject(t, s, "/q")
		if h, rows, err := s.TreeListing(ctx, "/p"); err != nil || h != "" || rows != nil {
			t.Fatalf("empty listing = %q, %v, %v", h, rows, err)
		}
		want := []DirRow{{Dir: "", Data: `{"e":[["f","a.go"]]}`}, {Dir: "src/ü", Data: "tab\there \"q\""}}
		if err := s.PutTreeListing(ctx, "/p", "v1", want); err != nil {
			t.Fatal(err)
		}
		if err := s.PutTreeListing(ctx, "/q", "vq", []DirRow{{Dir: "", Data: "q"}}); err != nil {
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

// TestContractEachVector: the vector scan (on SQLite the aggregate
// coderag_each_row, reading SQLite's memory in place) hands over every
// vector of the project and embedder, each as FileVectors reads it; an
// error of the callback ends the scan and is returned as it is; a row whose
// parts disagree is ErrDamaged; no scan stays registered after its query.
func TestContractEachVector(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		mustProject(t, s, "/other")
		var names []string
		for i := 0; i < 40; i++ {
			names = append(names, fmt.Sprintf("f%d", i))
		}
		files := []FileData{file("a.go", names[:25]...), file("b.go", names[25:]...), file("c.go", "solo")}
		if err := s.ReplaceFiles(ctx, "/p", files, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceFiles(ctx, "/other", []FileData{file("a.go", "elsewhere")}, nil); err != nil {
			t.Fatal(err)
		}
		want := map[int64]string{}
		for _, f := range []string{"a.go", "b.go", "c.go"} {
			vs, err := s.FileVectors(ctx, "/p", f)
			if err != nil {
				t.Fatal(err)
			}
			for id, b := range vs {
				want[id] = string(b)
			}
		}
		got := map[int64]string{}
		err := s.eachVector(ctx, "/p", "local:test", func(id int64, blob []byte) error {
			if _, dup := got[id]; dup {
				t.Errorf("vector %d handed over twice", id)
			}
			got[id] = string(blob) // a copy: blob is valid during the call only
			return nil
		})
		if err != nil || len(want) != 41 || !reflect.DeepEqual(got, want) {
			t.Fatalf("eachVector: %d vectors, %v; want the %d of FileVectors", len(got), err, len(want))
		}
		if err := s.eachVector(ctx, "/p", "local:other", func(int64, []byte) error {
			t.Error("a vector of another embedder")
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		stop := errors.New("enough")
		calls := 0
		err = s.eachVector(ctx, "/p", "local:test", func(int64, []byte) error {
			if calls++; calls == 3 {
				return stop
			}
			return nil
		})
		if err != stop || calls != 3 {
			t.Fatalf("a callback error: eachVector = %v after %d calls, want it as it is after 3", err, calls)
		}
		if _, err := s.db.ExecContext(ctx, `UPDATE code_vectors SET n = n + 1 WHERE file_id =
			(SELECT id FROM indexed_files WHERE project_path = '/p' AND file_path = 'b.go')`); err != nil {
			t.Fatal(err)
		}
		err = s.eachVector(ctx, "/p", "local:test", func(int64, []byte) error { return nil })
		if !errors.Is(err, ErrDamaged) {
			t.Fatalf("a damaged row: eachVector = %v, want ErrDamaged", err)
		}
		rowScans.Range(func(k, _ any) bool {
			t.Errorf("scan %v still registered", k)
			return true
		})
	})
}

// TestContractFilesRecords: Files gives every field of each fingerprint as
// written, files of several embedders among each other included (SQLite
// reads the rows in place and shares one string per embedder), and what
// it returned stays as it was through later reads of the index.
func TestContractFilesRecords(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		mustProject(t, s, "/p")
		var fds []FileData
		want := map[string]FileRecord{}
		for i, emb := range []string{"local:test", "local:other", "local:other", "local:test", "openai:x"} {
			fd := file(fmt.Sprintf("d%d/f%d.go", i%2, i), fmt.Sprintf("n%d", i))
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
		got, err := s.Files(ctx, "/p")
		if err != nil {
			t.Fatal(err)
		}
		check := func(when string) {
			t.Helper()
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
			if _, err := s.Files(ctx, "/p"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.KeywordSearch(ctx, "/p", []string{"n1"}, FTSWeights{1, 1, 1, 1, 1}, 5); err != nil {
				t.Fatal(err)
			}
		}
		check("after more reads")
	})
}
