package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
)

// TestInterruptedFirstIndexNotes: after a first index run cancelled a few
// files in, search gives one accurate note (index incomplete: N of 120),
// not "files changed" for the files the run never reached; stats says the
// same; a later edit of an indexed file is the one change noted.
func TestInterruptedFirstIndexNotes(t *testing.T) {
	home := setHome(t)
	dir := shopTree(t, stoppedTree)
	root, err := index.ResolveRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = runStopped(t, home, root, "")
	if err == nil {
		t.Fatal("the run was not interrupted")
	}
	incomplete := regexp.MustCompile(fmt.Sprintf(`index incomplete: (\d+) of %d files indexed`, stoppedTree))
	code, out, errs := run(t, "search", "--project", dir, "handler serves request")
	if code != 0 || !strings.Contains(out, "Handler") || strings.Contains(out+errs, "changed since the last index") || !incomplete.MatchString(out) {
		t.Fatalf("search after an interrupted first index: exit %d\n%s\n%s", code, out, errs)
	}
	n := incomplete.FindStringSubmatch(out)[1]
	code, out, _ = run(t, "stats")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("index incomplete: %s of %d files indexed", n, stoppedTree)) {
		t.Errorf("stats after an interrupted first index: exit %d\n%s", code, out)
	}
	// an indexed file edited: a change, noted as one

	s := searchJSONOut(t, "--project", dir, "Handler0")
	if len(s.Results) == 0 {
		t.Fatal("nothing indexed")
	}
	writeFile(t, filepath.Join(dir, s.Results[0].Path), "package shop\n\n// Edited is new.\nfunc Edited() {}\n")
	code, out, errs = run(t, "search", "--project", dir, "handler serves request")
	if code != 0 || !strings.Contains(errs, "note: 1 file changed since the last index (not refreshed while the index is incomplete); results from it are marked stale") || !incomplete.MatchString(out) {
		t.Errorf("search after an edit of an indexed file: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestCancelledAfterLastFileStats: a run that began (its record says not
// done) and was stopped after its last file was written leaves every file
// indexed: stats says the index is complete, not "index incomplete: 5 of
// 5", and gives no advice to index again; search adds no note.
func TestCancelledAfterLastFileStats(t *testing.T) {
	home := setHome(t)
	dir, root := indexedShop(t, 5)
	st, err := store.Open(context.Background(), filepath.Join(home, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	// the record a run leaves when it is stopped after its last file
	if err := st.BeginRun(context.Background(), root, 5, false); err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, out, _ := run(t, "stats")
	if code != 0 || strings.Contains(out, "incomplete") || strings.Contains(out, "run `coderag index") || !strings.Contains(out, "all 5 of its files are indexed: the index is complete") {
		t.Errorf("stats after a run stopped after its last file: exit %d\n%s", code, out)
	}
	code, out, errs := run(t, "search", "--project", dir, "handler serves request")
	if code != 0 || strings.Contains(out+errs, "incomplete") {
		t.Errorf("search: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestInterruptedSwitchNotes: a change of embedder interrupted a few files
// in leaves files with vectors of the new embedder, which searches by the
// project's embedder do not read. stats and search say the index is mixed
// (not complete) with the count and the remedy, in the JSON field of the
// incomplete note too; the next `coderag index`, with the default
// embedder, embeds those files again and the notes are gone.
func TestInterruptedSwitchNotes(t *testing.T) {
	home := setHome(t)
	dir, root := indexedShop(t, stoppedTree)
	rep, err := runStopped(t, home, root, "hashing-768-v1")
	if err == nil || rep == nil || rep.Changed == 0 || rep.Changed == stoppedTree {
		t.Fatalf("the switch was not interrupted partway: %+v %v", rep, err)
	}
	note := fmt.Sprintf("index mixed: %d of %d files carry vectors of local:hashing-768-v1, not of the project's %s", rep.Changed, stoppedTree, defaultEmbedderID(t))
	code, out, errs := run(t, "stats")
	if code != 0 || !strings.Contains(out, "vectors:   "+note) || !strings.Contains(out, "to finish the change run `EMBEDDING_MODEL=hashing-768-v1 coderag index "+root+"`; to keep "+defaultEmbedderID(t)) ||
		strings.Contains(out, "the index is complete") {
		t.Fatalf("stats after an interrupted switch: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run(t, "search", "--project", dir, "handler serves request")
	if code != 0 || !strings.Contains(out, "note: "+note) || !strings.Contains(out, "run `EMBEDDING_MODEL=hashing-768-v1 coderag index "+root+"`") {
		t.Fatalf("search after an interrupted switch: exit %d\n%s\n%s", code, out, errs)
	}
	if s := searchJSONOut(t, "--project", dir, "handler serves request"); !strings.HasPrefix(s.Incomplete, note) {
		t.Fatalf("search --json after an interrupted switch: incomplete %q", s.Incomplete)
	}
	code, out, errs = run(t, "index", "--json", dir)
	if code != 0 || !strings.Contains(out, fmt.Sprintf(`"changed": %d,`, rep.Changed)) {
		t.Fatalf("index after an interrupted switch: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = run(t, "stats")
	if code != 0 || strings.Contains(out, "mixed") {
		t.Errorf("stats after the switch was finished: exit %d\n%s", code, out)
	}
	code, out, errs = run(t, "search", "--project", dir, "handler serves request")
	if code != 0 || strings.Contains(out+errs, "note:") || !strings.Contains(out, "Handler") {
		t.Errorf("search after the switch was finished: exit %d\n%s\n%s", code, out, errs)
	}
}

// shopTree returns a new directory of n Go files, f00.go..., each
// declaring one documented function HandlerI.
func shopTree(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i < n; i++ {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("f%02d.go", i)), fmt.Sprintf("package shop\n\n// Handler%d serves request kind %d.\nfunc Handler%d() {}\n", i, i, i))
	}
	return dir
}

// indexedShop is shopTree(t, n) indexed by `coderag index`, and its
// resolved root.
func indexedShop(t *testing.T, n int) (dir, root string) {
	t.Helper()
	dir = shopTree(t, n)
	if code, _, errs := run(t, "index", dir); code != 0 {
		t.Fatalf("index: %d %s", code, errs)
	}
	root, err := index.ResolveRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, root
}

// stoppedTree is the file count of the trees runStopped interrupts: far
// more than it lets through before the cancel takes hold (3 done, and up
// to 13 read and parsed by its one worker, which the writer still writes),
// so the run is always cut partway.
const stoppedTree = 120

// runStopped runs an index of root into home's index.db with the
// built-in embedder model ("" the default), one file at a time, and
// cancels it (a Ctrl-C) once 3 files are done: the run's report and error.
func runStopped(t *testing.T, home, root, model string) (*index.Report, error) {
	t.Helper()
	emb, err := provider.New(embed.Options{Provider: "local", Model: model})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(home, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	return index.Run(ctx, st, emb, root, index.Options{Threads: 1, BatchSize: 1, Progress: func(p index.Progress) {
		if p.Done >= 3 {
			cancel()
		}
	}})
}

// defaultEmbedderID is the id of the embedder `coderag index` uses by
// default.
func defaultEmbedderID(t *testing.T) string {
	t.Helper()
	emb, err := provider.New(embed.Options{Provider: "local"})
	if err != nil {
		t.Fatal(err)
	}
	return emb.ID()
}

// TestMixedRemedy: the remedy of a mixed index names the settings that
// finish the change (the new embedder's) and says how to keep the
// project's; the built-in default needs no setting.
func TestMixedRemedy(t *testing.T) {
	for id, want := range map[string]string{
		"local:hashing-768-v1":          "EMBEDDING_MODEL=hashing-768-v1 ",
		"local:" + static.ModelName:     "",
		"openai:text-embedding-3-small": "EMBEDDING_PROVIDER=openai EMBEDDING_MODEL=text-embedding-3-small ",
		"ollama":                        "",
	} {
		if got := search.EmbedderEnv(id); got != want {
			t.Errorf("EmbedderEnv(%q) = %q, want %q", id, got, want)
		}
	}
	m := store.MixedVectors{Embedder: "local:" + static.ModelName, Other: "local:hashing-768-v1, local:hashing-512-v1", Files: 3, Total: 9}
	got := mixedRemedy(m, "/p")
	if !strings.Contains(got, "to finish the change run `EMBEDDING_MODEL=hashing-768-v1 coderag index /p`") || !strings.Contains(got, "to keep local:"+static.ModelName) {
		t.Errorf("mixedRemedy = %q", got)
	}
	// the vectors of a model replaced behind the project's embedder's
	// name: running again with it finishes
	m = store.MixedVectors{Embedder: "ollama:nomic-embed-text", Other: store.RetiredID("ollama:nomic-embed-text"), Files: 3, Total: 9}
	got = mixedRemedy(m, "/p")
	if !strings.Contains(got, "replaced; run `EMBEDDING_PROVIDER=ollama EMBEDDING_MODEL=nomic-embed-text coderag index /p`") {
		t.Errorf("mixedRemedy of retired vectors = %q", got)
	}
}

// TestDoctorReportsMixedIndex: doctor does not call a mixed index "ok".
// After a change of embedder interrupted a few files in, and with the
// run record gone (an index left by a coderag that kept none), doctor
// counts the vectors and reports the project as mixed, with the remedy
// `stats` gives, in text and in --json; the exit status stays 0 (the
// file is sound). Its embedder line names a project recorded with
// another embedder, and says when that is a built-in model this binary
// does not ship.
func TestDoctorReportsMixedIndex(t *testing.T) {
	home := setHome(t)
	_, root := indexedShop(t, stoppedTree)
	rep, err := runStopped(t, home, root, "hashing-768-v1")
	if err == nil || rep == nil || rep.Changed == 0 || rep.Changed == stoppedTree {
		t.Fatalf("the switch was not interrupted partway: %+v %v", rep, err)
	}
	_, other := indexedShop(t, 2)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(home, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	// no run records, as an older coderag left them; other's embedder a
	// built-in model of an earlier version
	if _, err := st.DB().ExecContext(ctx, `DELETE FROM meta WHERE key LIKE 'run:%'`); err != nil {
		t.Fatal(err)
	}
	if err := st.PutProject(ctx, store.Project{Path: other, Embedder: "local:coderag-code-v1", Dim: 256}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().ExecContext(ctx, `UPDATE code_vectors SET embedder = 'local:coderag-code-v1'
		WHERE file_id IN (SELECT id FROM indexed_files WHERE project_path = ?)`, other); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := st.Mixed(ctx, root); ok || err != nil {
		t.Fatalf("the run record still says mixed: %v %v", ok, err)
	}
	st.Close()

	m := store.MixedVectors{Embedder: defaultEmbedderID(t), Other: "local:hashing-768-v1", Files: rep.Changed, Total: stoppedTree}
	note := root + ": " + search.MixedNote(m) + "; to finish the change run `EMBEDDING_MODEL=hashing-768-v1 coderag index " + root + "`; to keep " + defaultEmbedderID(t)
	notShipped := other + " is indexed with local:coderag-code-v1, a built-in model this coderag does not ship: its searches fail until `coderag index " + other + "` embeds it again with " + defaultEmbedderID(t)
	code, out, errs := run(t, "doctor")
	if code != 0 || strings.Contains(out, ": ok (") || !strings.Contains(out, ": no damage, but 1 project's index is mixed (schema ") ||
		!strings.Contains(out, "\nmixed: "+note) || !strings.Contains(out, "\n          "+notShipped+"\n") {
		t.Fatalf("doctor on a mixed index: exit %d\n%s\n%s\nwant the note %q\nand %q", code, out, errs, note, notShipped)
	}
	if strings.Contains(out, root+" is indexed with") {
		t.Errorf("doctor names the embedder of a project indexed with the configured one:\n%s", out)
	}
	code, out, errs = run(t, "doctor", "--json")
	var got struct {
		Healthy bool                   `json:"healthy"`
		Vectors []store.ProjectVectors `json:"project_vectors"`
		Notes   []string               `json:"notes"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("doctor --json: exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	var mixed *store.MixedVectors
	for _, v := range got.Vectors {
		if v.Root == root {
			mixed = v.Mixed
		}
	}
	if !got.Healthy || mixed == nil || *mixed != m || len(got.Notes) != 2 || !strings.HasPrefix(got.Notes[0], note) || got.Notes[1] != notShipped {
		t.Errorf("doctor --json on a mixed index: %s", out)
	}
	// the change undone by an index run with the default embedder: no note of it
	if code, _, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	if code, out, _ := run(t, "doctor"); code != 0 || !strings.Contains(out, ": ok (schema ") || strings.Contains(out, "mixed") {
		t.Errorf("doctor after the change was undone: exit %d\n%s", code, out)
	}
}
