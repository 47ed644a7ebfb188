package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/coderag/coderag/internal/vec"
)

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "sub", "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func file(path string, names ...string) FileData {
	fd := FileData{Record: FileRecord{Path: path, SHA256: "x", Embedder: "local:test", Size: 1, MtimeNS: 1}, Language: "go"}
	for i, n := range names {
		v := []float32{0, 0, 0}
		v[i%3] = 1
		fd.Chunks = append(fd.Chunks, ChunkRow{Path: path, Type: "function", Name: n, StartLine: i + 1, EndLine: i + 1,
			DeclEndLine: i + 1, Content: "body of " + n, Vector: v, Embedder: "local:test", NameTerms: n, BodyTerms: "bodi " + n})
	}
	fd.Relations = []RelationRow{{Path: path, From: names[0], To: "other", Kind: "calls", Line: 1}}
	return fd
}

func TestReplaceCountDelete(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if err := s.PutProject(ctx, Project{Path: "/p", Embedder: "local:test", Dim: 3}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceFiles(ctx, "/p", []FileData{file("a.go", "alpha", "beta"), file("b.go", "gamma")}, nil); err != nil {
		t.Fatal(err)
	}
	c, err := s.Count(ctx, "/p")
	if err != nil || c.Files != 2 || c.Chunks != 3 || c.Embedded != 3 || c.Relations != 2 {
		t.Fatalf("counts %+v %v", c, err)
	}
	// replace a.go with one chunk, remove b.go
	if err := s.ReplaceFiles(ctx, "/p", []FileData{file("a.go", "delta")}, []string{"b.go"}); err != nil {
		t.Fatal(err)
	}
	c, _ = s.Count(ctx, "/p")
	if c.Files != 1 || c.Chunks != 1 || c.Embedded != 1 || c.Relations != 1 {
		t.Fatalf("after replace %+v", c)
	}
	hits, err := s.KeywordSearch(ctx, "/p", []string{"alpha"}, FTSWeights{1, 1, 1, 1, 1}, 10)
	if err != nil || len(hits) != 0 {
		t.Fatalf("stale full-text row: %v %v", hits, err)
	}
	hits, _ = s.KeywordSearch(ctx, "/p", []string{"delta"}, FTSWeights{1, 1, 1, 1, 1}, 10)
	if len(hits) != 1 {
		t.Fatalf("delta not found: %v", hits)
	}
	// projects are isolated
	if _, err := s.GetProject(ctx, "/q"); err != ErrNotIndexed {
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
	fd := file("a.go", "x")
	fd.Chunks[0].Content = "100% done_now"
	fd2 := file("b.go", "y")
	fd2.Chunks[0].Content = "1000 doneXnow"
	s.PutProject(ctx, Project{Path: "/p", Embedder: "local:test", Dim: 3})
	if err := s.ReplaceFiles(ctx, "/p", []FileData{fd, fd2}, nil); err != nil {
		t.Fatal(err)
	}
	for kw, want := range map[string]int{"100%": 1, "done_now": 1, "DONE": 2, `\`: 0} {
		rows, err := s.LikeSearch(ctx, "/p", kw, 10)
		if err != nil || len(rows) != want {
			t.Errorf("LikeSearch(%q) = %d rows, %v; want %d", kw, len(rows), err, want)
		}
	}
}

func TestTopKCosineCacheReloads(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	s.CacheVectors(true)
	s.PutProject(ctx, Project{Path: "/p", Embedder: "local:test", Dim: 3})
	if err := s.ReplaceFiles(ctx, "/p", []FileData{file("a.go", "alpha", "beta")}, nil); err != nil {
		t.Fatal(err)
	}
	q := []float32{0, 1, 0}
	top, err := s.TopKCosine(ctx, "/p", "local:test", q, 1)
	if err != nil || len(top) != 1 || top[0].Score != 1 {
		t.Fatalf("top %v %v", top, err)
	}
	// after a write the cache must see the new vectors, not the old ids
	if err := s.ReplaceFiles(ctx, "/p", []FileData{file("a.go", "gamma")}, nil); err != nil {
		t.Fatal(err)
	}
	top, _ = s.TopKCosine(ctx, "/p", "local:test", q, 5)
	if len(top) != 1 || top[0].Score != 0 {
		t.Fatalf("cache not reloaded: %v", top)
	}
	if _, err := s.TopKCosine(ctx, "/p", "local:test", []float32{1, 0}, 1); err == nil {
		t.Fatal("dimension mismatch not reported")
	}
	s.CacheVectors(false)
	if _, err := s.TopKCosine(ctx, "/p", "local:test", []float32{1, 0}, 1); err == nil {
		t.Fatal("dimension mismatch not reported (streaming)")
	}
}

// TestVectorFormat pins the stored layout (vector.go): a float32 scale,
// then one int8 code per value, the codes round(v·127/max|v|) and the
// scale keeping the vector's length.
func TestVectorFormat(t *testing.T) {
	b := EncodeVector([]float32{1, -0.5})
	scale := float32(math.Sqrt(1.25) / math.Sqrt(127*127+64*64))
	want := binary.LittleEndian.AppendUint32(nil, math.Float32bits(scale))
	want = append(want, 127, byte(0x100-64))
	if !slices.Equal(b, want) {
		t.Fatalf("EncodeVector = % x, want % x", b, want)
	}
	if got := DecodeVector(b); len(got) != 2 || math.Abs(float64(got[0])-1) > 0.01 || math.Abs(float64(got[1])+0.5) > 0.01 {
		t.Errorf("DecodeVector = %v", got)
	}
	if z := EncodeVector([]float32{0, 0, 0}); !slices.Equal(z, make([]byte, 7)) {
		t.Errorf("zero vector = % x", z)
	}
	if DecodeVector([]byte{1, 2, 3, 4}) != nil || DecodeVector(nil) != nil || EncodeVector(nil) != nil {
		t.Error("malformed BLOB decoded")
	}
}

// TestQuantisedCosine: a stored vector keeps its float32 original's
// direction (cosine > 0.999) and its length, for dense (model-like) and
// sparse (feature-hashing-like) unit vectors of every usual dimension, and
// the score read from the codes (dotBlob, vec.DotCodes) is the cosine of the
// query to the stored vector; the cosine of two stored vectors is within
// 0.01 of their originals' cosine, so rankings hold.
func TestQuantisedCosine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	unit := func(dim int, sparse bool) []float32 {
		v := make([]float32, dim)
		for i := range v {
			if !sparse || rng.IntN(20) == 0 || i == 0 {
				v[i] = float32(rng.NormFloat64() * (1 + 3*rng.Float64()))
			}
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		for i := range v {
			v[i] = float32(float64(v[i]) / math.Sqrt(n))
		}
		return v
	}
	dot := func(a, b []float32) (s float64) {
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	worst, worstPair := 1.0, 0.0
	for _, dim := range []int{64, 256, 768, 1024, 4096} {
		for _, sparse := range []bool{false, true} {
			for range 50 {
				v, q := unit(dim, sparse), unit(dim, sparse)
				// q is mixed with v so pairs span high and low cosines
				for i := range q {
					q[i] = 0.5*q[i] + 0.5*v[i]
				}
				b := EncodeVector(v)
				if len(b) != dim+4 {
					t.Fatalf("dim %d: %d bytes", dim, len(b))
				}
				d := DecodeVector(b)
				worst = min(worst, dot(v, d)/math.Sqrt(dot(d, d)))
				if n := dot(d, d); math.Abs(n-1) > 1e-4 {
					t.Fatalf("dim %d: stored length² %v, want 1", dim, n)
				}
				if got, want := float64(dotBlob(q, b)), dot(q, d); math.Abs(got-want) > 1e-4 {
					t.Fatalf("dim %d: dotBlob %v, want %v", dim, got, want)
				}
				if got, want := float64(blobScale(b)*vec.DotCodes(q, appendCodes(nil, b))), dot(q, d); math.Abs(got-want) > 1e-4 {
					t.Fatalf("dim %d: DotCodes %v, want %v", dim, got, want)
				}
				dq := DecodeVector(EncodeVector(q))
				cq := dot(q, q)
				pair := math.Abs(dot(v, q)/math.Sqrt(cq) - dot(d, dq)/math.Sqrt(dot(dq, dq)))
				worstPair = max(worstPair, pair)
			}
		}
	}
	if !(worst > 0.999) {
		t.Errorf("worst cosine of a stored vector to its original %.5f, want > 0.999", worst)
	}
	if !(worstPair < 0.01) {
		t.Errorf("worst change of a pair's cosine %.5f, want < 0.01", worstPair)
	}
	t.Logf("worst cosine to the original %.6f; worst pair change %.6f", worst, worstPair)
}

func TestMigrateFromSchema1(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "index.db")
	s, err := Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	// make it a schema-1 file: no plain, analysis, symbol or params column, version 1
	toSchema6(t, s)
	s = downgrade(t, s, p,
		`ALTER TABLE code_chunks DROP COLUMN symbol`,
		`ALTER TABLE code_chunks DROP COLUMN params`,
		`ALTER TABLE code_relations DROP COLUMN plain`,
		`ALTER TABLE indexed_files DROP COLUMN analysis`,
		`UPDATE meta SET value='1' WHERE key='schema_version'`,
	)
	defer s.Close()
	s.PutProject(ctx, Project{Path: "/p", Embedder: "local:test", Dim: 3})
	if err := s.ReplaceFiles(ctx, "/p", []FileData{file("a.go", "x")}, nil); err != nil {
		t.Fatalf("write after migration: %v", err)
	}
	var v string
	s.db.QueryRow(`SELECT value FROM meta WHERE key='schema_version'`).Scan(&v)
	if v != strconv.Itoa(SchemaVersion) {
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
		if err := s.PutProject(ctx, Project{Path: p, Embedder: "local:test", Dim: 3}); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceFiles(ctx, p, []FileData{file("a.go", "alpha", "beta"), file("b.go", "gamma")}, nil); err != nil {
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
	s.db.QueryRow(`SELECT count(*) FROM ` + ftsTable("/q") + ` WHERE ` + ftsTable("/q") + ` MATCH 'bodi'`).Scan(&fts)
	if fts != 3 {
		t.Fatalf("full-text rows after remove: %d, want the other project's 3", fts)
	}
	if ok, err := hasTable(ctx, s.db, ftsTable("/p")); err != nil || ok {
		t.Fatalf("the removed project's full-text table is still there (%v, %v)", ok, err)
	}
	if c, _ := s.Count(ctx, "/q"); c.Files != 2 || c.Chunks != 3 || c.Embedded != 3 {
		t.Fatalf("other project touched: %+v", c)
	}
	if _, err := s.GetProject(ctx, "/p"); !errors.Is(err, ErrNotIndexed) {
		t.Fatalf("project row left: %v", err)
	}
	// names only a removed project used go with it
	if err := s.PutProject(ctx, Project{Path: "/r", Embedder: "local:test", Dim: 3}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceFiles(ctx, "/r", []FileData{file("r.go", "onlyr")}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RemoveProject(ctx, "/r"); err != nil {
		t.Fatal(err)
	}
	var names []string
	rows, _ := s.db.Query(`SELECT name FROM code_names ORDER BY name`)
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	rows.Close()
	if fmt.Sprint(names) != "[alpha gamma other]" {
		t.Fatalf("names after removing /r: %v, want /q's [alpha gamma other]", names)
	}
	if _, err := s.RemoveProject(ctx, "/p"); !errors.Is(err, ErrNotIndexed) {
		t.Fatalf("second remove: %v", err)
	}
	// an index run still going writes no orphan rows for the removed project
	if err := s.ReplaceFiles(ctx, "/p", []FileData{file("c.go", "late")}, nil); !errors.Is(err, ErrNotIndexed) {
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
	doc := func(path, body string) FileData {
		return FileData{Record: FileRecord{Path: path, SHA256: path, Embedder: "e"}, Language: "go",
			Chunks: []ChunkRow{{Type: "function", Name: path, Content: body, BodyTerms: body, StartLine: 1, EndLine: 1}}}
	}
	for _, p := range []string{"/a", "/b"} {
		if err := s.PutProject(ctx, Project{Path: p, Embedder: "e"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.ReplaceFiles(ctx, "/a", []FileData{doc("x.go", "parse flags"), doc("y.go", "run command")}, nil); err != nil {
		t.Fatal(err)
	}
	w := FTSWeights{Name: 1, Owner: 1, Path: 1, Doc: 1, Body: 1}
	before, err := s.KeywordSearch(ctx, "/a", []string{"parse", "flags"}, w, 10)
	if err != nil || len(before) != 1 {
		t.Fatalf("search /a: %v %v", before, err)
	}
	// /b makes "parse" and "flags" common words, and its chunks long
	var many []FileData
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
func downgrade(t *testing.T, s *Store, path string, stmts ...string) *Store {
	t.Helper()
	for _, q := range stmts {
		if _, err := s.db.Exec(q); err != nil {
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
