package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/embedtest"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/store"
	_ "github.com/coderag/coderag/internal/store/postgres" // TestReuseVectors on PostgreSQL
	"github.com/coderag/coderag/internal/testutil"
	"github.com/coderag/coderag/internal/walk"
)

func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func mustRun(t *testing.T, st *store.Store, emb embed.Embedder, root string) *Report {
	t.Helper()
	rep, err := Run(context.Background(), st, emb, root, Options{Threads: 2})
	if err != nil {
		t.Fatalf("index: %v", err)
	}
	return rep
}

// chunkLines returns "path name start-end" for every chunk of the project.
func chunkLines(t *testing.T, st *store.Store, root string) []string {
	t.Helper()
	rows, err := rawDB(t, st).Query(`SELECT f.file_path, c.name, c.start_line, c.end_line FROM code_chunks c
		JOIN indexed_files f ON f.id = c.file_id WHERE f.project_path=? ORDER BY f.file_path, c.start_line, c.name`, root)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p, n string
		var s, e int
		if err := rows.Scan(&p, &n, &s, &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %s %d-%d", p, n, s, e))
	}
	return out
}

const threeFuncs = `package demo

// Alpha returns one.
func Alpha() int { return 1 }

// Beta returns two.
func Beta() int {
	return 2
}

// Gamma returns three.
func Gamma() int {
	return 3
}
`

func resolved(t *testing.T, dir string) string {
	t.Helper()
	r, err := ResolveRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// touchLater moves a file's mtime forward so the stat fast path cannot hide
// an edit made within the same second (the racy case is tested separately).
func touchLater(t *testing.T, p string, d time.Duration) {
	t.Helper()
	ts := time.Now().Add(d)
	if err := os.Chtimes(p, ts, ts); err != nil {
		t.Fatal(err)
	}
}

func TestIncrementalEditsMatchFreshIndex(t *testing.T) {
	t.Parallel()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	writeFile(t, root, "demo/a.go", threeFuncs)
	writeFile(t, root, "demo/b.go", "package demo\n\nfunc Delta() {}\n")
	writeFile(t, root, "old/name.go", "package old\n\nfunc Renamed() {}\n")
	st := openStore(t)
	rep := mustRun(t, st, emb, root)
	if rep.Changed != 3 || rep.Failed != 0 {
		t.Fatalf("first run %+v", rep)
	}
	// insert three comment lines above the functions
	edited := strings.Replace(threeFuncs, "package demo\n", "package demo\n\n// one\n// two\n// three", 1)
	writeFile(t, root, "demo/a.go", edited)
	touchLater(t, filepath.Join(root, "demo/a.go"), 2*time.Second)
	// delete a function
	writeFile(t, root, "demo/b.go", "package demo\n")
	touchLater(t, filepath.Join(root, "demo/b.go"), 2*time.Second)
	// rename a file
	if err := os.Rename(filepath.Join(root, "old/name.go"), filepath.Join(root, "old/new.go")); err != nil {
		t.Fatal(err)
	}
	// the project's updated_at, put back to the epoch, says when its rows
	// last changed: a run that changes files moves it, one that changes
	// nothing does not
	if _, err := rawDB(t, st).Exec(`UPDATE projects SET updated_at=0 WHERE project_path=?`, root); err != nil {
		t.Fatal(err)
	}
	rep = mustRun(t, st, emb, root)
	if rep.Changed != 3 || rep.Removed != 1 {
		t.Fatalf("second run %+v", rep)
	}
	if p, err := st.GetProject(context.Background(), root); err != nil || p.UpdatedAt.Unix() == 0 {
		t.Fatalf("updated_at after a run that changed files: %+v %v", p, err)
	}
	if _, err := rawDB(t, st).Exec(`UPDATE projects SET updated_at=0 WHERE project_path=?`, root); err != nil {
		t.Fatal(err)
	}
	if rep := mustRun(t, st, emb, root); rep.Changed+rep.Removed != 0 {
		t.Fatalf("a run with nothing changed: %+v", rep)
	}
	if p, _ := st.GetProject(context.Background(), root); p.UpdatedAt.Unix() != 0 {
		t.Fatalf("updated_at moved on a run that changed nothing: %v", p.UpdatedAt)
	}
	got := chunkLines(t, st, root)
	fresh := openStore(t)
	mustRun(t, fresh, emb, root)
	want := chunkLines(t, fresh, root)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("incremental != fresh:\n got %v\nwant %v", got, want)
	}
	for _, l := range got {
		if strings.Contains(l, "Delta") || strings.HasPrefix(l, "old/name.go") {
			t.Fatalf("stale row %q", l)
		}
	}
	// delete a file: no rows remain
	os.Remove(filepath.Join(root, "demo/a.go"))
	mustRun(t, st, emb, root)
	var n int
	rawDB(t, st).QueryRow(`SELECT count(*) FROM indexed_files WHERE project_path=? AND file_path='demo/a.go'`, root).Scan(&n)
	if n != 0 {
		t.Fatalf("indexed_files still has %d rows of a deleted file", n)
	}
	for _, tbl := range []string{"code_chunks", "code_relations", "code_vectors"} {
		var orphans int
		rawDB(t, st).QueryRow(`SELECT count(*) FROM ` + tbl + ` r LEFT JOIN indexed_files f ON f.id=r.file_id WHERE f.id IS NULL`).Scan(&orphans)
		if orphans != 0 {
			t.Fatalf("%d orphan rows in %s", orphans, tbl)
		}
	}
}

// TestRacySameSizeEditIsCaught: an edit that keeps size and mtime, made
// within racyWindow of the run that indexed the file, is caught. The
// file's stored mtime is placed inside racyWindow of the stored indexing
// time (the store's own record), so a slow first run on a loaded machine
// cannot move it out.
func TestRacySameSizeEditIsCaught(t *testing.T) {
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	p := filepath.Join(root, "x.go")
	writeFile(t, root, "x.go", "package x\n\nfunc AAAA() {}\n")
	st := openStore(t)
	mustRun(t, st, emb, root)
	var indexedAt int64
	if err := rawDB(t, st).QueryRow(`SELECT indexed_at FROM indexed_files WHERE file_path='x.go'`).Scan(&indexedAt); err != nil {
		t.Fatal(err)
	}
	racy := time.Unix(0, indexedAt-racyWindow/2)
	testutil.RawWrite(t, st.Path(), `UPDATE indexed_files SET mtime_ns=? WHERE file_path='x.go'`, racy.UnixNano())
	// same size, the stored mtime: only the racy rule can notice this edit
	writeFile(t, root, "x.go", "package x\n\nfunc BBBB() {}\n")
	os.Chtimes(p, racy, racy)
	rep := mustRun(t, st, emb, root)
	if rep.Changed != 1 {
		t.Fatalf("racy edit missed: %+v", rep)
	}
	got := strings.Join(chunkLines(t, st, root), "\n")
	if !strings.Contains(got, "BBBB") || strings.Contains(got, "AAAA") {
		t.Fatalf("chunks %s", got)
	}
	// a third run, long after, hashes nothing
	rep = mustRun(t, st, emb, root)
	if rep.Changed != 0 || rep.Unchanged != 1 {
		t.Fatalf("third run %+v", rep)
	}
}

// failingEmbedder fails every batch that contains marker.
type failingEmbedder struct {
	embed.Embedder
	marker string
}

func (f failingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	for _, t := range texts {
		if strings.Contains(t, f.marker) {
			return nil, errors.New("server rejected the input")
		}
	}
	return f.Embedder.Embed(ctx, texts)
}

func TestEmbedderFailingForOneFile(t *testing.T) {
	t.Parallel()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	for i := 0; i < 6; i++ {
		writeFile(t, root, fmt.Sprintf("f%d.go", i), fmt.Sprintf("package x\n\nfunc F%d() {}\n", i))
	}
	st := openStore(t)
	mustRun(t, st, emb, root)
	before := chunkLines(t, st, root)
	// edit every file; one now contains the poison marker
	for i := 0; i < 6; i++ {
		body := fmt.Sprintf("package x\n\nfunc G%d() {}\n", i)
		if i == 3 {
			body = "package x\n\nfunc POISON() {}\n"
		}
		writeFile(t, root, fmt.Sprintf("f%d.go", i), body)
		touchLater(t, filepath.Join(root, fmt.Sprintf("f%d.go", i)), 2*time.Second)
	}
	rep, err := Run(context.Background(), st, failingEmbedder{emb, "POISON"}, root, Options{Threads: 2, BatchSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 1 || rep.Failures[0].Path != "f3.go" || rep.Changed != 5 {
		t.Fatalf("report %+v", rep)
	}
	got := chunkLines(t, st, root)
	var f3 []string
	for _, l := range got {
		if strings.HasPrefix(l, "f3.go") {
			f3 = append(f3, l)
		}
	}
	var f3before []string
	for _, l := range before {
		if strings.HasPrefix(l, "f3.go") {
			f3before = append(f3before, l)
		}
	}
	if !reflect.DeepEqual(f3, f3before) {
		t.Fatalf("f3.go should keep its old rows: %v vs %v", f3, f3before)
	}
	// next run with a working embedder retries it
	rep = mustRun(t, st, emb, root)
	if rep.Changed != 1 {
		t.Fatalf("retry run %+v", rep)
	}
}

func TestSearchWhileIndexing(t *testing.T) {
	t.Parallel()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	for i := 0; i < 200; i++ {
		writeFile(t, root, fmt.Sprintf("p%d/f.go", i), fmt.Sprintf("package p\n\n// Handler%d serves.\nfunc Handler%d() {}\n", i, i))
	}
	dbPath := filepath.Join(t.TempDir(), "index.db")
	w, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// seed one file so readers have a project
	writeFile(t, root, "seed.go", "package p\n\nfunc Seed() {}\n")
	q, _ := emb.EmbedQuery(context.Background(), "handler")
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		if _, err := Run(context.Background(), w, emb, root, Options{Threads: 2, BatchSize: 4}); err != nil {
			errs <- err
		}
	}()
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rd, err := store.Open(context.Background(), dbPath)
			if err != nil {
				errs <- err
				return
			}
			defer rd.Close()
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := rd.TopKCosine(context.Background(), root, emb.ID(), q, 5); err != nil {
					errs <- err
					return
				}
				if _, err := rd.KeywordSearch(context.Background(), root, []string{"handler"}, store.FTSWeights{Name: 1, Path: 1, Body: 1}, 5); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	var msgs []string
	for err := range errs {
		msgs = append(msgs, err.Error())
	}
	sort.Strings(msgs)
	if len(msgs) > 0 {
		t.Fatalf("errors during concurrent search/index: %v", msgs)
	}
}

// downEmbedder fails every call, as a server that is down does.
type downEmbedder struct{ id string }

func (d downEmbedder) ID() string { return d.id }
func (d downEmbedder) Dim() int   { return 0 }
func (d downEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("connection refused")
}
func (d downEmbedder) EmbedQuery(context.Context, string) ([]float32, error) {
	return nil, errors.New("connection refused")
}

func TestFailedEmbedderSwitchKeepsProject(t *testing.T) {
	t.Parallel()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	writeFile(t, root, "a.go", threeFuncs)
	writeFile(t, root, "b.go", "package demo\n\nfunc Delta() {}\n")
	st := openStore(t)
	mustRun(t, st, emb, root)
	before := chunkLines(t, st, root)
	_, err := Run(context.Background(), st, downEmbedder{"ollama:nomic-embed-text"}, root, Options{Threads: 2})
	if err == nil {
		t.Fatal("a run whose embedder is down must fail")
	}
	p, err := st.GetProject(context.Background(), root)
	if err != nil || p.Embedder != emb.ID() {
		t.Fatalf("project embedder changed by a failed run: %+v %v", p, err)
	}
	if got := chunkLines(t, st, root); !reflect.DeepEqual(got, before) {
		t.Fatalf("rows changed: %v", got)
	}
	q, _ := emb.EmbedQuery(context.Background(), "alpha")
	if top, err := st.TopKCosine(context.Background(), root, p.Embedder, q, 3); err != nil || len(top) == 0 {
		t.Fatalf("search after a failed switch: %v %v", top, err)
	}
}

func TestUnreadableDirectoryKeepsRows(t *testing.T) {
	t.Parallel()
	if testutil.RerunUnprivileged(t) {
		return
	}
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	writeFile(t, root, "locked/hidden.go", "package locked\n\nfunc Hidden() {}\n")
	writeFile(t, root, "build/b.go", "package build\n\nfunc B() {}\n") // a package named like an output dir
	writeFile(t, root, "secret.go", "package x\n\nfunc Secret() {}\n")
	st := openStore(t)
	mustRun(t, st, emb, root)
	for _, d := range []string{"locked", "build", "secret.go"} {
		lock := filepath.Join(root, d)
		os.Chmod(lock, 0)
		defer os.Chmod(lock, 0o755)
	}
	// the edit must be seen, then the file found unreadable
	touchLater(t, filepath.Join(root, "secret.go"), time.Minute)
	rep := mustRun(t, st, emb, root)
	if rep.Removed != 0 {
		t.Fatalf("unreadable directory or file removed from the index: %+v", rep)
	}
	if rep.Failed+rep.Skipped < 3 {
		t.Fatalf("unreadable paths not reported: %+v", rep)
	}
	got := strings.Join(chunkLines(t, st, root), "\n")
	for _, name := range []string{"Hidden", "B()", "Secret"} {
		if !strings.Contains(got, name) {
			t.Errorf("rows of %s lost:\n%s", name, got)
		}
	}
}

func TestOlderAnalysisIsReparsed(t *testing.T) {
	t.Parallel()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	writeFile(t, root, "x.go", "package x\n\n// Sniff reads the head.\nfunc Sniff() {}\n")
	touchLater(t, filepath.Join(root, "x.go"), -time.Minute)
	st := openStore(t)
	mustRun(t, st, emb, root)
	if rep := mustRun(t, st, emb, root); rep.Unchanged != 1 || rep.Changed != 0 {
		t.Fatalf("second run %+v", rep)
	}
	// rows made by an older chunker/analyser: same bytes, same embedder
	testutil.RawWrite(t, st.Path(), `UPDATE indexed_files SET analysis=1`)
	rep := mustRun(t, st, emb, root)
	if rep.Unchanged != 0 {
		t.Fatalf("rows of analysis 1 kept: %+v", rep)
	}
	recs, err := st.Files(context.Background(), root)
	if err != nil || recs["x.go"].Analysis != AnalysisVersion {
		t.Fatalf("analysis after re-parse: %+v %v", recs["x.go"], err)
	}
	if rep := mustRun(t, st, emb, root); rep.Unchanged != 1 {
		t.Fatalf("fourth run %+v", rep)
	}
}

// TestPathsFollowWalkRules: an update limited to some paths (what --watch
// sends) keeps the same file set as a full walk: no unindexable file types,
// no ignored or hidden paths, no output directories.
func TestPathsFollowWalkRules(t *testing.T) {
	t.Parallel()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	writeFile(t, root, ".gitignore", "*.gen.go\n")
	writeFile(t, root, "a.go", "package a\n\nfunc A() {}\n")
	st := openStore(t)
	mustRun(t, st, emb, root)
	for rel, c := range map[string]string{
		"watch.out": "log line", "x.gen.go": "package a", ".hid/h.go": "package h",
		"dist/app.js": "function f() {}", "lib/build/b.go": "package build\n\nfunc B() {}\n", "b.go": "package a\n\nfunc B() {}\n",
	} {
		writeFile(t, root, rel, c)
	}
	rep, err := Run(context.Background(), st, emb, root, Options{Threads: 2,
		Paths: []string{"watch.out", "x.gen.go", ".hid/h.go", "dist/app.js", "lib/build/b.go", "b.go"}})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.Files(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for p := range recs {
		got = append(got, p)
	}
	sort.Strings(got)
	if want := []string{"a.go", "b.go", "lib/build/b.go"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("indexed %v, want %v (report %+v)", got, want, rep)
	}
	// and a full run agrees: nothing to add or remove
	if rep := mustRun(t, st, emb, root); rep.Changed != 0 || rep.Removed != 0 {
		t.Fatalf("full run after the paths run: %+v", rep)
	}
}

// TestSilentEmbedderStopsTheRun: an embedding server that takes the
// connection and never answers stops the run at its first timeout, with
// the earlier work kept, instead of timing out once more per file.
func TestSilentEmbedderStopsTheRun(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	hc := &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: 200 * time.Millisecond}}
	emb, err := provider.New(embed.Options{Provider: "ollama", Model: "nomic-embed-text", BaseURL: srv.URL, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	root := resolved(t, t.TempDir())
	for i := 0; i < 6; i++ {
		writeFile(t, root, fmt.Sprintf("f%d.go", i), fmt.Sprintf("package x\n\nfunc F%d() {}\n", i))
	}
	st := openStore(t)
	mustRun(t, st, localEmbedder(t), root)
	before := chunkLines(t, st, root)
	_, err = Run(context.Background(), st, emb, root, Options{Threads: 2, BatchSize: 1})
	if !errors.Is(err, embed.ErrTimeout) || !strings.Contains(err.Error(), "files written before are kept") {
		t.Fatalf("want a timeout that stops the run, got %v", err)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d embedding requests after the first timeout, want 1", n)
	}
	if got := chunkLines(t, st, root); !reflect.DeepEqual(got, before) {
		t.Fatalf("rows changed by a failed run:\n%v\n%v", got, before)
	}
}

// TestOneBadChunkFailsOnlyItsFile: an Ollama that answers 500 (NaN) for
// one chunk, and 400 for an over-long one, fails only the file of the first
// (recorded with its reason) and embeds the second cut to fit; every other
// file is indexed (the first 500 does not stop the run and leave the
// files after it neither indexed nor reported).
func TestOneBadChunkFailsOnlyItsFile(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewOllama(t, 8)
	srv.Poison = "NaNMaker"
	srv.MaxRunes = 600
	emb, err := provider.New(embed.Options{Provider: "ollama", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	root := resolved(t, t.TempDir())
	for i := 0; i < 20; i++ {
		writeFile(t, root, fmt.Sprintf("f%02d.go", i), fmt.Sprintf("package x\n\n// F%d does a thing.\nfunc F%d() {}\n", i, i))
	}
	writeFile(t, root, "f07.go", "package x\n\n// NaNMaker makes the model emit NaN.\nfunc NaNMaker() {}\n")
	writeFile(t, root, "long.go", "package x\n\n// Long is long.\nfunc Long() {\n"+strings.Repeat("\tx := 1 + 2 + 3 + 4 + 5\n", 60)+"}\n")
	st := openStore(t)
	rep, err := Run(context.Background(), st, emb, root, Options{Threads: 2, BatchSize: 64})
	if err != nil {
		t.Fatalf("run stopped: %v", err)
	}
	if rep.Failed != 1 || rep.Failures[0].Path != "f07.go" || !strings.Contains(rep.Failures[0].Err, "unsupported value: NaN") {
		t.Fatalf("failures %+v", rep.Failures)
	}
	if rep.Changed != 20 {
		t.Fatalf("changed %d, want 20 (19 files and long.go)", rep.Changed)
	}
	if vs, err := st.FileVectors(context.Background(), root, "long.go"); err != nil || len(vs) == 0 {
		t.Fatalf("long.go has %d vectors (%v), want its chunk embedded after cutting", len(vs), err)
	}
}

// TestBadKeyStopsAtOnce: a 401 is not split or retried per file.
func TestBadKeyStopsAtOnce(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewOpenAI(t, 8, "sk-right-key-123")
	emb, err := provider.New(embed.Options{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "sk-wrong-key-456"})
	if err != nil {
		t.Fatal(err)
	}
	root := resolved(t, t.TempDir())
	for i := 0; i < 10; i++ {
		writeFile(t, root, fmt.Sprintf("f%d.go", i), fmt.Sprintf("package x\n\nfunc F%d() {}\n", i))
	}
	_, err = Run(context.Background(), openStore(t), emb, root, Options{Threads: 2, BatchSize: 4})
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("err = %v, want the 401", err)
	}
	if n := srv.Requests(); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

// TestEmbedderFailingEveryFileStops: a server that answers 500 for every
// input, one input per request (too few to tell the server from the
// input), still stops the run after maxFailedStart files instead of
// failing them all one by one.
func TestEmbedderFailingEveryFileStops(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewOllama(t, 8)
	srv.Poison = "package" // in every chunk's text
	emb, err := provider.New(embed.Options{Provider: "ollama", BaseURL: srv.URL, BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	root := resolved(t, t.TempDir())
	for i := 0; i < 40; i++ {
		writeFile(t, root, fmt.Sprintf("f%02d.txt", i), fmt.Sprintf("package note %d\n", i))
	}
	_, err = Run(context.Background(), openStore(t), emb, root, Options{Threads: 1, BatchSize: 1})
	if !errors.Is(err, errEmbedderFailing) || !strings.Contains(err.Error(), "unsupported value: NaN") {
		t.Fatalf("err = %v, want errEmbedderFailing", err)
	}
	if n := srv.Requests(); n > maxFailedStart+2 {
		t.Fatalf("%d requests, want about %d", n, maxFailedStart)
	}
}

// TestUnreadableFileIsASkip: a file this user may not read is a skip with
// its reason, not a failure retried forever, and Diff (the freshness check
// before a search) does not count it as changed; a readable new file is.
func TestUnreadableFileIsASkip(t *testing.T) {
	t.Parallel()
	if testutil.RerunUnprivileged(t) {
		return
	}
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	writeFile(t, root, "a.go", "package a\n\nfunc A() {}\n")
	writeFile(t, root, "locked.go", "package a\n\nfunc Locked() {}\n")
	os.Chmod(filepath.Join(root, "locked.go"), 0)
	defer os.Chmod(filepath.Join(root, "locked.go"), 0o644)
	st := openStore(t)
	for i := 0; i < 2; i++ {
		rep := mustRun(t, st, emb, root)
		if rep.Failed != 0 || rep.Skipped != 1 || rep.Skips[0].Path != "locked.go" ||
			rep.Skips[0].Reason != walk.ReasonUnreadable || !strings.Contains(rep.Skips[0].Err, "permission denied") {
			t.Fatalf("run %d: %+v", i+1, rep)
		}
	}
	ch, err := Diff(context.Background(), st, root, emb, false)
	if err != nil || ch.Len() != 0 {
		t.Fatalf("diff counts the unreadable file: %+v %v", ch, err)
	}
	writeFile(t, root, "b.go", "package a\n\nfunc B() {}\n")
	if ch, err := Diff(context.Background(), st, root, emb, false); err != nil || strings.Join(ch.Changed, ",") != "b.go" {
		t.Fatalf("diff after a new file: %+v %v", ch, err)
	}
}

// TestReuseVectors: with a remote embedder, a changed file's chunks whose
// text did not change keep their stored vectors and are not sent again:
// an edit of one function sends that function, and a new file of a Go
// package sends only its own chunk though its siblings are parsed again.
// On SQLite and on PostgreSQL.
func TestReuseVectors(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		testReuseVectors(t, openStore(t))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		st, err := store.Open(context.Background(), testutil.Postgres(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		testReuseVectors(t, st)
	})
}

func testReuseVectors(t *testing.T, st *store.Store) {
	ctx := context.Background()
	srv := embedtest.NewOpenAI(t, 8, "k")
	emb, err := provider.New(embed.Options{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	root := resolved(t, t.TempDir())
	var src strings.Builder
	src.WriteString("package calc\n")
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&src, "\n// Add%d adds %d to x.\nfunc Add%d(x int) int { return x + %d }\n", i, i, i, i)
	}
	writeFile(t, root, "calc.go", src.String())
	if _, err := Run(ctx, st, emb, root, Options{}); err != nil {
		t.Fatal(err)
	}
	before, err := st.FileVectors(ctx, root, "calc.go")
	if err != nil || len(before) != 6 {
		t.Fatalf("%d vectors (%v), want 6", len(before), err)
	}
	sent := len(srv.Texts())

	// one function edited: only it is sent
	writeFile(t, root, "calc.go", strings.Replace(src.String(), "return x + 3 }", "return 3 + x }", 1))
	rep, err := Run(ctx, st, emb, root, Options{})
	if err != nil || rep.Changed != 1 || rep.Reused != 5 {
		t.Fatalf("an edit: %+v %v, want 1 file changed and 5 chunks reused", rep, err)
	}
	if texts := notProbe(srv.Texts()[sent:]); len(texts) != 1 || !strings.Contains(texts[0], "return 3 + x") {
		t.Fatalf("sent %q, want the edited function alone", texts)
	}
	after, _ := st.FileVectors(ctx, root, "calc.go")
	same := 0
	for _, a := range after {
		for _, b := range before {
			if bytes.Equal(a, b) {
				same++
				break
			}
		}
	}
	if same != 5 {
		t.Errorf("%d of the 6 stored vectors are the ones stored before, want the 5 unchanged chunks'", same)
	}
	sent = len(srv.Texts())

	// a new file of the package: calc.go is parsed again (its package
	// changed), and only the new file's chunk is sent
	writeFile(t, root, "mul.go", "package calc\n\n// Mul multiplies x by y.\nfunc Mul(x, y int) int { return x * y }\n")
	rep, err = Run(ctx, st, emb, root, Options{})
	if err != nil || rep.Reread != 1 || rep.Reused != 6 {
		t.Fatalf("a new sibling: %+v %v, want calc.go parsed again with its 6 chunks reused", rep, err)
	}
	if texts := notProbe(srv.Texts()[sent:]); len(texts) != 1 || !strings.Contains(texts[0], "Mul multiplies") {
		t.Fatalf("sent %q, want mul.go's chunk alone", texts)
	}
	sent = len(srv.Texts())

	// the model behind the name now answers 16 values: the probe tells
	// (probe.go), and every file is embedded again, none of an edited
	// file's unchanged chunks kept at 8 beside the new one (a new
	// process: its embedder has seen no vector yet)
	srv.SetDim(16)
	emb16, err := provider.New(embed.Options{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "calc.go", strings.Replace(src.String(), "return x + 4 }", "return 4 + x }", 1))
	rep, err = Run(ctx, st, emb16, root, Options{})
	if err != nil || rep.Changed != 2 || rep.Failed != 0 || rep.Reused != 0 || !rep.ModelChanged {
		t.Fatalf("another dimension: %+v %v, want calc.go and mul.go written whole with no chunk reused", rep, err)
	}
	if n := len(notProbe(srv.Texts()[sent:])); n != 7 {
		t.Errorf("sent %d texts, want calc.go's 6 and mul.go's 1", n)
	}
	vs, err := st.FileVectors(ctx, root, "calc.go")
	if err != nil || len(vs) != 6 {
		t.Fatalf("%d vectors (%v), want 6", len(vs), err)
	}
	for _, b := range vs {
		if v := store.DecodeVector(b); len(v) != 16 {
			t.Errorf("a vector of %d values, want 16", len(v))
		}
	}
}

// TestTouchedFileIsCounted: a file whose time changed and whose content
// did not is read again (the progress counts it among the files to
// index) and reported unchanged and touched, not changed.
func TestTouchedFileIsCounted(t *testing.T) {
	t.Parallel()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	writeFile(t, root, "demo/a.go", threeFuncs)
	writeFile(t, root, "demo/b.go", "package demo\n\nfunc Delta() {}\n")
	// times well in the past: a time within racyWindow of the run is
	// never trusted, and such a file is read again at every run
	for _, f := range []string{"demo/a.go", "demo/b.go"} {
		touchLater(t, filepath.Join(root, f), -2*time.Hour)
	}
	st := openStore(t)
	if rep := mustRun(t, st, emb, root); rep.Changed != 2 || rep.Touched != 0 {
		t.Fatalf("first run %+v", rep)
	}
	touchLater(t, filepath.Join(root, "demo/a.go"), -time.Hour)
	rep := mustRun(t, st, emb, root)
	if rep.Changed != 0 || rep.Unchanged != 2 || rep.Touched != 1 {
		t.Errorf("after a touch: changed %d, unchanged %d, touched %d; want 0, 2, 1", rep.Changed, rep.Unchanged, rep.Touched)
	}
	if rep := mustRun(t, st, emb, root); rep.Touched != 0 || rep.Unchanged != 2 {
		t.Errorf("a run after that: touched %d, unchanged %d; want 0, 2 (the new time is recorded)", rep.Touched, rep.Unchanged)
	}
}
