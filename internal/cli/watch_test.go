package cli

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/walk"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestIndexWatch saves, creates and deletes files under a watched tree and
// checks that search sees each change shortly after, and that ignored files
// stay out.
func TestIndexWatch(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("ignored/\n"), 0o644)
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\n// Alpha does a.\nfunc Alpha() {}\n"), 0o644)
	out, errb, stop := startWatch(t, root)
	waitFor := func(what string, cond func() bool) { waitUntil(t, what, cond, out, errb) }
	found := func(q, name string) bool {
		code, o, _ := run(t, "search", "--json", "--project", root, q)
		return code == 0 && strings.Contains(o, name)
	}
	// a save
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\n// Zebra grazes.\nfunc Zebra() {}\n"), 0o644)
	waitFor("saved file re-indexed", func() bool { return found("zebra", "Zebra()") })
	// a new file in a new directory
	os.MkdirAll(filepath.Join(root, "pkg", "sub"), 0o755)
	time.Sleep(200 * time.Millisecond) // let the watcher add the new directory
	os.WriteFile(filepath.Join(root, "pkg", "sub", "b.go"), []byte("package sub\n\n// Giraffe eats leaves.\nfunc Giraffe() {}\n"), 0o644)
	waitFor("new file indexed", func() bool { return found("giraffe", "Giraffe()") })
	// an ignored file never lands
	os.MkdirAll(filepath.Join(root, "ignored"), 0o755)
	os.WriteFile(filepath.Join(root, "ignored", "c.go"), []byte("package c\n\nfunc Okapi() {}\n"), 0o644)
	// a deleted file leaves
	os.Remove(filepath.Join(root, "pkg", "sub", "b.go"))
	waitFor("deleted file removed", func() bool { return !found("giraffe", "Giraffe()") })
	if found("okapi", "Okapi()") {
		t.Fatal("ignored file was indexed")
	}
	stop()
}

// startWatch runs `index --watch --quiet root` in the background until it
// says it is watching, and returns its output and the function that stops
// it and fails the test unless it exits 0 within 10 s.
func startWatch(t *testing.T, root string) (out, errb *syncBuffer, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, errb = &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- MainIO(ctx, []string{"index", "--watch", "--quiet", root}, testLookup(t), strings.NewReader(""), out, errb)
	}()
	stopped := false
	stop = func() {
		t.Helper()
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Fatalf("watch exit %d: %s", code, errb.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("watch did not stop on cancel")
		}
	}
	t.Cleanup(stop)
	waitUntil(t, "watching", func() bool { return strings.Contains(errb.String(), "watching") }, out, errb)
	return out, errb, stop
}

// recordingWatcher passes Add to the real watcher, records the directories
// added, and makes Add fail with ENOSPC (what inotify_add_watch returns at
// max_user_watches) for directories at or under one of fail.
type recordingWatcher struct {
	mu    sync.Mutex
	w     dirWatcher
	root  string
	fail  []string // root-relative directories
	added map[string]bool
	tries map[string]int
}

func (r *recordingWatcher) Add(dir string) error {
	rel, _ := filepath.Rel(r.root, dir)
	rel = filepath.ToSlash(rel)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tries[rel]++
	for _, f := range r.fail {
		if rel == f || strings.HasPrefix(rel, f+"/") {
			return syscall.ENOSPC
		}
	}
	r.added[rel] = true
	return r.w.Add(dir)
}

func (r *recordingWatcher) has(rel string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.added[rel]
}

// TestWatchAndIndexAgree builds a tree with every kind of excluded
// directory and file and checks that the directories --watch watches are
// exactly the directories holding the files the index takes (walk.Collect
// for a full run, walk.Stat for the paths --watch reports), plus the
// directories the walk enters that hold none (their new files must be seen).
func TestWatchAndIndexAgree(t *testing.T) {
	root := t.TempDir()
	tree := map[string]string{
		".gitignore":           "ignored/\n*.gen.go\n",
		"a.go":                 "package a",
		"a.gen.go":             "package a",
		"pkg/b.go":             "package pkg",
		"pkg/empty/.keep":      "",
		"ignored/c.go":         "package c",
		".hidden/d.go":         "package d",
		"node_modules/x/e.js":  "x",
		"build/out.js":         "x",
		"go/build/build.go":    "package build",
		"sub/.coderagignore":   "private/\n",
		"sub/private/f.go":     "package f",
		"sub/public/g.go":      "package g",
		"vendor/v/v.go":        "package v",
		"docs/notes.unknownxt": "x",
	}
	for rel, c := range tree {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rec := &recordingWatcher{w: w, root: root, added: map[string]bool{}, tries: map[string]int{}}
	ws := &watchSet{root: root, w: rec, unwatched: map[string]error{}}
	ws.addTree(root)

	var all []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			all = append(all, filepath.ToSlash(rel))
		}
		return nil
	})
	collected, _, err := walk.Collect(context.Background(), root, walk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stated, _ := walk.Stat(root, all, walk.Options{})
	if len(collected) != len(stated) {
		t.Fatalf("full walk takes %d files, the paths of a watch event %d", len(collected), len(stated))
	}
	for i := range collected {
		if collected[i].Path != stated[i].Path {
			t.Fatalf("full walk takes %s, the paths of a watch event %s", collected[i].Path, stated[i].Path)
		}
		if dir := path.Dir(collected[i].Path); !rec.has(dir) {
			t.Errorf("%s is indexed but its directory %s is not watched", collected[i].Path, dir)
		}
	}
	want := []string{".", "docs", "go", "go/build", "pkg", "pkg/empty", "sub", "sub/public"}
	var got []string
	for d := range rec.added {
		got = append(got, d)
	}
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("watched %v, want %v", got, want)
	}
}

// TestWatchAddFails makes Add fail with ENOSPC for one subtree, as inotify
// does at max_user_watches: the watch says how many directories are not
// watched and names the limit, and a file saved in an unwatched directory
// is still indexed, by the rescan.
func TestWatchAddFails(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	for _, d := range []string{"ok", "deep/er"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "ok", "a.go"), []byte("package ok\n\nfunc Alpha() {}\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	e, eng, emb := indexedForWatch(t, ctx, root, &out, &errb)
	var rec *recordingWatcher
	wrap := func(w dirWatcher) dirWatcher {
		rec = &recordingWatcher{w: w, root: root, fail: []string{"deep"}, added: map[string]bool{}, tries: map[string]int{}}
		return rec
	}
	done := make(chan error, 1)
	go func() {
		done <- watchTree(e, eng, root, engine.IndexRequest{Embedder: emb}, watchConfig{rescan: 100 * time.Millisecond, wrap: wrap})
	}()
	waitFor := func(what string, cond func() bool) { waitUntil(t, what, cond, &out, &errb) }
	waitFor("the unwatched report", func() bool { return strings.Contains(errb.String(), "not watched") })
	msg := errb.String()
	for _, want := range []string{"2 of 4 directories are not watched", inotifyLimitFile, "rescan every 100ms", "sysctl fs.inotify.max_user_watches"} {
		if !strings.Contains(msg, want) {
			t.Errorf("report lacks %q: %s", want, msg)
		}
	}
	indexed := indexedIn(ctx, eng, root)
	os.WriteFile(filepath.Join(root, "deep", "er", "new.go"), []byte("package er\n\nfunc Beta() {}\n"), 0o644)
	waitFor("a file in an unwatched directory indexed by the rescan", func() bool { return indexed("deep/er/new.go") })
	os.Remove(filepath.Join(root, "deep", "er", "new.go"))
	waitFor("a file deleted in an unwatched directory removed by the rescan", func() bool { return !indexed("deep/er/new.go") })
	// a watched directory still works by events
	os.WriteFile(filepath.Join(root, "ok", "b.go"), []byte("package ok\n\nfunc Gamma() {}\n"), 0o644)
	waitFor("a file in a watched directory indexed", func() bool { return indexed("ok/b.go") })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if rec.tries["deep"] < 2 {
		t.Errorf("Add of the unwatched directory was not retried: %d tries", rec.tries["deep"])
	}
}

// flakyEmbedder is emb failing every batch with a text that holds marker
// while down is set (a server refusing a file, then well again). Its
// batches take the remote path of an index run (collector.build).
type flakyEmbedder struct {
	embed.Embedder
	marker string
	down   *atomic.Bool
}

func (f flakyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	for _, t := range texts {
		if f.down.Load() && strings.Contains(t, f.marker) {
			return nil, errors.New("server error: the model crashed")
		}
	}
	return f.Embedder.Embed(ctx, texts)
}

// TestWatchRetriesFailedFiles: a file whose embedding failed is tried
// again at the rescans, with no further event, and is indexed once the
// server is well; the failing retries print nothing.
func TestWatchRetriesFailedFiles(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package p\n\nfunc Alpha() {}\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	e, eng, emb := indexedForWatch(t, ctx, root, &out, &errb)
	down := &atomic.Bool{}
	down.Store(true)
	flaky := flakyEmbedder{Embedder: emb, marker: "Gamma", down: down}
	done := make(chan error, 1)
	go func() {
		done <- watchTree(e, eng, root, engine.IndexRequest{Embedder: flaky}, watchConfig{rescan: 100 * time.Millisecond})
	}()
	waitFor := func(what string, cond func() bool) { waitUntil(t, what, cond, &out, &errb) }
	waitFor("watching", func() bool { return strings.Contains(errb.String(), "watching") })
	indexed := indexedIn(ctx, eng, root)
	os.WriteFile(filepath.Join(root, "b.go"), []byte("package p\n\n// Gamma is new.\nfunc Gamma() {}\n"), 0o644)
	waitFor("the failed run reported", func() bool { return strings.Contains(out.String(), "1 failed") })
	time.Sleep(500 * time.Millisecond) // a few rescans while the server still fails
	if n := strings.Count(out.String(), "failed"); n != 1 || indexed("b.go") {
		t.Fatalf("while failing: %d lines say failed (want 1: retries are quiet), b.go indexed %v\n%s", n, indexed("b.go"), out.String())
	}
	down.Store(false)
	waitFor("b.go indexed by a retry once the server is well", func() bool { return indexed("b.go") })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// indexedIn returns whether a root-relative path of root has a
// fingerprint in eng's index (indexed, with its content hash).
func indexedIn(ctx context.Context, eng *engine.Engine, root string) func(p string) bool {
	return func(p string) bool {
		h, err := eng.Open(ctx, root, engine.OpenOptions{})
		if err != nil {
			return false
		}
		files, err := h.Files(ctx)
		return err == nil && files[p].SHA256 != ""
	}
}

// indexedForWatch indexes root with the test's configuration and returns
// the env (writing to out and errb), the engine (closed at the test's end)
// and the embedder a watchTree of root runs with.
func indexedForWatch(t *testing.T, ctx context.Context, root string, out, errb *syncBuffer) (*env, *engine.Engine, embed.Embedder) {
	t.Helper()
	cfg, err := config.FromLookup(testLookup(t))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{ctx: ctx, cfg: cfg, stdout: out, stderr: errb, stdin: strings.NewReader("")}
	emb, err := e.newEmbedder()
	if err != nil {
		t.Fatal(err)
	}
	eng, release, err := openEngine(e)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	if _, err := indexNow(e, eng, root, engine.IndexRequest{Embedder: emb}); err != nil {
		t.Fatal(err)
	}
	return e, eng, emb
}

// waitUntil polls cond every 50 ms for up to 20 s (a bound for a stuck
// watcher, not a timing assertion) and fails the test with what and the
// output so far when it never holds.
func waitUntil(t *testing.T, what string, cond func() bool, out, errb *syncBuffer) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s; stdout %q stderr %q", what, out.String(), errb.String())
}

// watchIndexed indexes root (indexedForWatch) and watches it in a
// goroutine with a rescan every 100 ms; done receives watchTree's result.
func watchIndexed(t *testing.T, ctx context.Context, root string, out, errb *syncBuffer) (*engine.Engine, chan error) {
	t.Helper()
	e, eng, emb := indexedForWatch(t, ctx, root, out, errb)
	done := make(chan error, 1)
	go func() {
		done <- watchTree(e, eng, root, engine.IndexRequest{Embedder: emb}, watchConfig{rescan: 100 * time.Millisecond})
	}()
	return eng, done
}

// watched is a project being watched (watchedProject).
type watched struct {
	root    string
	errb    *syncBuffer
	waitFor func(what string, cond func() bool)
	indexed func(p string) bool
	cancel  context.CancelFunc
	done    chan error
}

// watchedProject writes files (root-relative path -> content) under a new
// root "proj" in a new CODERAG_HOME, indexes it and watches it
// (watchIndexed) until the watcher says it is watching. cancel stops the
// watch (also at the test's end); done gives its error.
func watchedProject(t *testing.T, files map[string]string) *watched {
	t.Helper()
	setHome(t)
	root := filepath.Join(t.TempDir(), "proj")
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var out, errb syncBuffer
	eng, done := watchIndexed(t, ctx, root, &out, &errb)
	waitFor := func(what string, cond func() bool) { waitUntil(t, what, cond, &out, &errb) }
	waitFor("watching", func() bool { return strings.Contains(errb.String(), "watching") })
	return &watched{root: root, errb: &errb, waitFor: waitFor, indexed: indexedIn(ctx, eng, root), cancel: cancel, done: done}
}

// TestWatchReplacedRoot removes the watched root and makes it again (a
// fresh checkout, `rm -rf` and a copy): its watches went with the old
// directory, so the watcher must notice at its next rescan, index the new
// tree whole and watch it, so that a later save is seen by its events.
func TestWatchReplacedRoot(t *testing.T) {
	w := watchedProject(t, map[string]string{"pkg/a.go": "package pkg\n\nfunc Alpha() {}\n"})
	root, errb, waitFor, indexed, cancel, done := w.root, w.errb, w.waitFor, w.indexed, w.cancel, w.done
	os.RemoveAll(root)
	os.MkdirAll(filepath.Join(root, "pkg"), 0o755)
	os.WriteFile(filepath.Join(root, "pkg", "b.go"), []byte("package pkg\n\nfunc Beta() {}\n"), 0o644)
	waitFor("the new tree indexed", func() bool { return indexed("pkg/b.go") && !indexed("pkg/a.go") })
	if !strings.Contains(errb.String(), "was replaced") {
		t.Errorf("the watcher did not say the root was replaced: %s", errb.String())
	}
	os.WriteFile(filepath.Join(root, "pkg", "c.go"), []byte("package pkg\n\nfunc Gamma() {}\n"), 0o644)
	waitFor("a save in the new tree indexed", func() bool { return indexed("pkg/c.go") })
	// moved away rather than removed: the old tree's watches live on
	// under the old name, and a save there changes nothing here
	os.Rename(root, root+".old")
	os.MkdirAll(filepath.Join(root, "pkg"), 0o755)
	os.WriteFile(filepath.Join(root, "pkg", "d.go"), []byte("package pkg\n\nfunc Delta() {}\n"), 0o644)
	waitFor("the tree moved in indexed", func() bool { return indexed("pkg/d.go") && !indexed("pkg/c.go") })
	os.WriteFile(filepath.Join(root+".old", "pkg", "x.go"), []byte("package pkg\n\nfunc Old() {}\n"), 0o644)
	os.WriteFile(filepath.Join(root, "pkg", "e.go"), []byte("package pkg\n\nfunc Epsilon() {}\n"), 0o644)
	waitFor("a save in the tree moved in indexed", func() bool { return indexed("pkg/e.go") })
	if indexed("pkg/x.go") {
		t.Error("a save in the tree moved away was indexed as the root's")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestWatchKeepsAnEmptiedProject: the watched root replaced by an empty
// directory (a disk unmounted from it, a checkout half made) does not
// drop the project's rows at the next rescan; the watcher says so, and a
// file that comes back is indexed again.
func TestWatchKeepsAnEmptiedProject(t *testing.T) {
	w := watchedProject(t, map[string]string{"pkg/a.go": "package pkg\n\nfunc Alpha() {}\n", "b.go": "package proj\n\nfunc Beta() {}\n"})
	root, errb, waitFor, indexed, cancel, done := w.root, w.errb, w.waitFor, w.indexed, w.cancel, w.done
	os.RemoveAll(root)
	os.MkdirAll(root, 0o755)
	waitFor("the note", func() bool { return strings.Contains(errb.String(), "holds none of its 2 indexed files now") })
	if !indexed("pkg/a.go") || !indexed("b.go") {
		t.Fatal("the watcher dropped the rows of a project whose directory was emptied")
	}
	os.WriteFile(filepath.Join(root, "b.go"), []byte("package proj\n\nfunc Beta2() {}\n"), 0o644)
	waitFor("a file back indexed, the gone one dropped", func() bool { return indexed("b.go") && !indexed("pkg/a.go") })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestWatchStopsWhenTheRootMoves: the watched root replaced by a symlink
// to another tree (what a watcher's index run refuses, rootrule.ErrMoved)
// ends the watch with that error, and nothing of the other tree is
// indexed under the project's name.
func TestWatchStopsWhenTheRootMoves(t *testing.T) {
	setHome(t)
	base := t.TempDir()
	root, other := filepath.Join(base, "proj"), filepath.Join(base, "other")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package p\n\nfunc Alpha() {}\n"), 0o644)
	os.WriteFile(filepath.Join(other, "secret.go"), []byte("package p\n\nfunc OtherTree() {}\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	eng, done := watchIndexed(t, ctx, root, &out, &errb)
	waitUntil(t, "watching", func() bool { return strings.Contains(errb.String(), "watching") }, &out, &errb)
	indexed := indexedIn(ctx, eng, root)
	if err := os.Rename(root, root+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, root); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, rootrule.ErrMoved) {
			t.Errorf("the watch ended with %v, want ErrMoved", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the watch goes on after its root moved:\n%s", errb.String())
	}
	if indexed("secret.go") {
		t.Error("the other tree's file was indexed under the project's name")
	}
}

// TestSavedNames: a watch line names the saved files and, as removed,
// the indexable ones that are gone, not an editor's temporary file that
// came and went (sed's sedXXXXXX).
func TestSavedNames(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644)
	got := savedNames(root, []string{"a.go", "gone.go", "sedAb12Cd"}, false)
	if got != ": a.go, gone.go (removed)" {
		t.Errorf("savedNames = %q, want \": a.go, gone.go (removed)\"", got)
	}
}

// TestWatchRenamedDirectory: a directory moved within the tree (mv a b)
// is watched under its new name, so that a file saved in it afterwards is
// indexed there; and a new directory whose name holds glob characters
// (g[1]) is watched too.
func TestWatchRenamedDirectory(t *testing.T) {
	w := watchedProject(t, map[string]string{"a/x.go": "package a\n\nfunc Alpha() {}\n", "main.go": "package main\n"})
	root, waitFor, indexed := w.root, w.waitFor, w.indexed
	if err := os.Rename(filepath.Join(root, "a"), filepath.Join(root, "b")); err != nil {
		t.Fatal(err)
	}
	waitFor("the moved file indexed under its new name", func() bool { return indexed("b/x.go") && !indexed("a/x.go") })
	os.WriteFile(filepath.Join(root, "b", "y.go"), []byte("package a\n\nfunc Beta() {}\n"), 0o644)
	waitFor("a file saved in the moved directory indexed", func() bool { return indexed("b/y.go") })
	if indexed("a/y.go") {
		t.Error("a file saved in the moved directory was indexed under its old name")
	}
	os.Mkdir(filepath.Join(root, "g[1]"), 0o755)
	time.Sleep(200 * time.Millisecond) // let the watcher add the new directory
	os.WriteFile(filepath.Join(root, "g[1]", "z.go"), []byte("package g\n\nfunc Gamma() {}\n"), 0o644)
	waitFor("a file in a directory named with glob characters indexed", func() bool { return indexed("g[1]/z.go") })
}

// TestWatchKeepsADeletedTree: the watched tree deleted (rm -rf) does not
// drop the project's rows through the removal events, as a rescan of an
// emptied root does not; the watcher says so.
func TestWatchKeepsADeletedTree(t *testing.T) {
	w := watchedProject(t, map[string]string{"pkg/a.go": "package pkg\n\nfunc Alpha() {}\n", "b.go": "package proj\n\nfunc Beta() {}\n"})
	root, errb, waitFor, indexed := w.root, w.errb, w.waitFor, w.indexed
	os.RemoveAll(root)
	waitFor("the note", func() bool {
		s := errb.String()
		return strings.Contains(s, "is gone: its indexed files are kept") || strings.Contains(s, "holds none of its 2 indexed files now")
	})
	time.Sleep(500 * time.Millisecond) // a rescan or two
	if !indexed("pkg/a.go") || !indexed("b.go") {
		t.Fatalf("the watcher dropped the rows of a deleted tree:\n%s", errb.String())
	}
}

// TestWatchStopsWhenRemoved: `coderag remove` of the watched project, or
// the index file deleted under the watcher, ends the watch with an error
// saying so at its next run, instead of writing a project back that no
// search lists or into a file no search reads.
func TestWatchStopsWhenRemoved(t *testing.T) {
	w := watchedProject(t, map[string]string{"a.go": "package p\n\nfunc Alpha() {}\n"})
	if code, _, errs := run(t, "remove", w.root); code != 0 {
		t.Fatalf("remove: exit %d: %s", code, errs)
	}
	os.WriteFile(filepath.Join(w.root, "b.go"), []byte("package p\n\nfunc Beta() {}\n"), 0o644)
	select {
	case err := <-w.done:
		if err == nil || !strings.Contains(err.Error(), "was removed from the index") {
			t.Errorf("the watch ended with %v, want the project's removal", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the watch goes on after its project was removed:\n%s", w.errb.String())
	}
	if code, out, _ := run(t, "stats", "--json"); code == 0 && strings.Contains(out, w.root) {
		t.Errorf("the removed project is back in the index: %s", out)
	}

	w2 := watchedProject(t, map[string]string{"a.go": "package p\n\nfunc Alpha() {}\n"})
	home, ok := testLookup(t)("CODERAG_HOME")
	if !ok || home == "" {
		t.Fatal("no CODERAG_HOME")
	}
	if err := os.RemoveAll(home); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(w2.root, "b.go"), []byte("package p\n\nfunc Beta() {}\n"), 0o644)
	select {
	case err := <-w2.done:
		if err == nil || !strings.Contains(err.Error(), "was deleted or replaced while watching") {
			t.Errorf("the watch ended with %v, want the index file's deletion", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the watch goes on after its index file was deleted:\n%s", w2.errb.String())
	}
}
