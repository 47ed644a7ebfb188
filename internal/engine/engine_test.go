package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/embedtest"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/relate"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
)

// projectFiles is how many files project writes (go.mod among them).
const projectFiles = 5

// project copies a few files of the Go standard library's strings package
// into a temporary project and returns its root (absolute, resolved).
func project(t *testing.T) string {
	t.Helper()
	src := filepath.Join(runtime.GOROOT(), "src", "strings")
	root := filepath.Join(t.TempDir(), "strs")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module strs\n\ngo 1.22\n"), 0o644)
	for _, f := range []string{"builder.go", "reader.go", "replace.go", "compare.go"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatalf("GOROOT source: %v", err)
		}
		if err := os.WriteFile(filepath.Join(root, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := index.ResolveRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// open returns an engine over cfg.DBPath, or a throwaway index database
// when it is empty; the engine is closed when the test ends.
func open(t *testing.T, cfg engine.Config) *engine.Engine {
	t.Helper()
	if cfg.DBPath == "" {
		cfg.DBPath = filepath.Join(t.TempDir(), "index.db")
	}
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// gate is the local embedder made to wait, in its first Embed call, until
// released or its run is cancelled: a run that is known to be in
// progress. A cancelled run's Embed fails with the context's error.
type gate struct {
	embed.Embedder
	once    sync.Once
	entered chan struct{}
	release chan struct{}

	mu    sync.Mutex
	texts map[string]int // times each text was embedded
}

func newGate(t *testing.T) *gate {
	t.Helper()
	e, err := provider.New(embed.Options{Provider: "local"})
	if err != nil {
		t.Fatal(err)
	}
	return &gate{Embedder: e, entered: make(chan struct{}), release: make(chan struct{}), texts: map[string]int{}}
}

func (g *gate) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	g.once.Do(func() {
		close(g.entered)
		select {
		case <-g.release:
		case <-ctx.Done(): // the run was cancelled while held
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g.mu.Lock()
	for _, s := range texts {
		g.texts[s]++
	}
	g.mu.Unlock()
	return g.Embedder.Embed(ctx, texts)
}

// TestOneJobPerRoot: an index request for a root that is being indexed
// joins the running run: one run, each chunk embedded once, and every
// caller gets the same outcome.
func TestOneJobPerRoot(t *testing.T) {
	t.Parallel()
	root := project(t)
	e := open(t, engine.Config{})
	g := newGate(t)
	ctx := context.Background()

	type result struct {
		out *engine.Outcome
		err error
	}
	first := make(chan result, 1)
	go func() {
		out, err := e.Index(ctx, root, engine.IndexRequest{Embedder: g})
		first <- result{out, err}
	}()
	<-g.entered // the first run is embedding its first batch
	if st := e.Job(root); !st.Running || st.Scope != "" {
		t.Fatalf("status during the run: %+v", st)
	}
	joined, err := e.Start(root, engine.IndexRequest{Embedder: g})
	if err != nil {
		t.Fatal(err)
	}
	if !joined.Joined {
		t.Fatal("a second request during a run started another run")
	}
	close(g.release)
	<-joined.Done()
	r := <-first
	if r.err != nil || r.out == nil || r.out.Err != nil {
		t.Fatalf("first run: %+v %v", r.out, r.err)
	}
	if joined.Outcome() != r.out {
		t.Errorf("the joiner saw another outcome: %+v, want %+v", joined.Outcome(), r.out)
	}
	if last := e.Job(root).Last; last != r.out {
		t.Errorf("last run %+v is not the one run", last)
	}
	rep := r.out.Report
	if rep.Changed != projectFiles || rep.Chunks == 0 {
		t.Fatalf("report %+v", rep)
	}
	for s, n := range g.texts {
		if n != 1 {
			t.Errorf("text embedded %d times: %.60q", n, s)
		}
	}
	// the index is there and searchable through the engine
	res, err := search1(ctx, e, root, "WriteString appends to the builder", search.Options{TopK: 3})
	if err != nil || len(res.Results) == 0 || !strings.HasPrefix(res.Results[0].Path, "builder.go") {
		t.Fatalf("search: %+v %v", res, err)
	}
}

// TestIndexCancelled: a caller whose context ends cancels the run it
// started and gets what was committed with the context's error.
func TestIndexCancelled(t *testing.T) {
	t.Parallel()
	root := project(t)
	e := open(t, engine.Config{})
	g := newGate(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var out *engine.Outcome
	go func() {
		var err error
		out, err = e.Index(ctx, root, engine.IndexRequest{Embedder: g})
		done <- err
	}()
	<-g.entered
	cancel() // the held Embed returns when the run's context ends
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if out == nil || !errors.Is(out.Err, context.Canceled) {
		t.Fatalf("outcome %+v", out)
	}
	// "cancelled at D/T" counts the files written (or failed), not those
	// handed to the writer when the cancel came
	if out.Report != nil && out.Done != out.Report.Changed+len(out.Report.Failures) {
		t.Errorf("cancelled at %d/%d, but the run wrote %d and failed %d files", out.Done, out.Total, out.Report.Changed, len(out.Report.Failures))
	}
	if st := e.Job(root); st.Running {
		t.Error("the cancelled run is still running")
	}
}

// earlierModel is the built-in learned model under the id of a version
// this build does not carry, as an index made by an earlier coderag
// records it.
type earlierModel struct{ embed.Embedder }

func (earlierModel) ID() string { return "local:coderag-code-v1" }

// TestRefreshReembedsAnEarlierBuiltinModel: after an upgrade, a project
// indexed with a built-in model this version no longer carries cannot
// embed its queries. Refresh (the policy of MCP sessions and the server)
// then embeds every file again with the configured embedder, says so in
// Reembedded, and the project is searchable by meaning again; the CLI's
// policy (Freshen) leaves the index alone and its search names the remedy.
func TestRefreshReembedsAnEarlierBuiltinModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := project(t)
	e := open(t, engine.Config{})
	cur, err := e.NewEmbedder()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(ctx, root, engine.IndexRequest{Embedder: earlierModel{cur}}); err != nil {
		t.Fatal(err)
	}
	if !engine.OutdatedBuiltin("local:coderag-code-v1") || engine.OutdatedBuiltin(cur.ID()) ||
		engine.OutdatedBuiltin("local:hashing-768-v1") || engine.OutdatedBuiltin("ollama:coderag-code-v1") {
		t.Fatal("OutdatedBuiltin: wrong verdict")
	}
	if _, err := search1(ctx, e, root, "build a string efficiently", search.Options{TopK: 3}); !errors.Is(err, engine.ErrEmbedderUnavailable) ||
		!strings.Contains(err.Error(), "index it again") {
		t.Fatalf("Freshen search of the earlier model's index: %v", err)
	}
	r, err := e.Refresh(ctx, root, nil)
	if err != nil || !r.Finished || r.Err != nil || r.Reembedded != "local:coderag-code-v1" {
		t.Fatalf("refresh: %+v %v", r, err)
	}
	if last := e.Job(root).Last; last == nil || last.Report.Changed != projectFiles {
		t.Fatalf("the refresh did not embed every file again: %+v", last)
	}
	p, err := e.Open(ctx, root, engine.OpenOptions{Policy: engine.Refresh})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if p.Embedder != cur.ID() || p.Refreshed.Reembedded != "" {
		t.Fatalf("after the refresh: embedder %s, reembedded %q", p.Embedder, p.Refreshed.Reembedded)
	}
	res, err := p.Search(ctx, "build a string efficiently", search.Options{TopK: 3})
	if err != nil || len(res.Results) == 0 {
		t.Fatalf("search after the refresh: %+v %v", res, err)
	}
}

// TestRefreshFreshness: Refresh indexes a new project with the configured
// embedder, and within Config.Freshness trusts the finished run instead of
// starting another; with no freshness window every Refresh runs.
func TestRefreshFreshness(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		freshness int // hours
		wantRun   bool
	}{{"trusted", 1, false}, {"always", 0, true}} {
		t.Run(tc.name, func(t *testing.T) {
			root := project(t)
			e := open(t, engine.Config{Freshness: hours(tc.freshness)})
			r, err := e.Refresh(ctx, root, nil)
			if err != nil || r.Indexed || !r.Finished || r.Err != nil {
				t.Fatalf("first refresh: %+v %v", r, err)
			}
			first := e.Job(root).Last
			if first == nil || first.Report.Changed != projectFiles {
				t.Fatalf("first run %+v", first)
			}
			r, err = e.Refresh(ctx, root, nil)
			if err != nil || !r.Indexed || !r.Finished {
				t.Fatalf("second refresh: %+v %v", r, err)
			}
			second := e.Job(root).Last
			if ran := second != first; ran != tc.wantRun {
				t.Errorf("second refresh ran: %v, want %v", ran, tc.wantRun)
			}
			if tc.wantRun && (second.Report.Changed != 0 || second.Report.Unchanged != projectFiles) {
				t.Errorf("no-change refresh: %+v", second.Report)
			}
		})
	}
}

// indexedProject returns a new project (see project), indexed by a new
// engine with its default embedder, and the project's record.
func indexedProject(t *testing.T) (string, *engine.Engine, embed.Embedder, *store.Project) {
	t.Helper()
	ctx := context.Background()
	root := project(t)
	e := open(t, engine.Config{})
	emb, err := e.NewEmbedder()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := e.Index(ctx, root, engine.IndexRequest{Embedder: emb}); err != nil || out.Err != nil {
		t.Fatalf("index: %v %+v", err, out)
	}
	p, err := e.Find(ctx, root, true)
	if err != nil {
		t.Fatal(err)
	}
	return root, e, emb, p
}

// TestFreshen: a one-shot query re-indexes a small change set first, and
// leaves a large one pending with its files marked stale.
func TestFreshen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, e, emb, p := indexedProject(t)
	os.WriteFile(filepath.Join(root, "extra.go"), []byte("package strings\n\n// Shout returns s in capitals with an exclamation mark.\nfunc Shout(s string) string { return s + \"!\" }\n"), 0o644)
	f, err := e.Freshen(ctx, p, emb)
	if err != nil || f.Refreshed != 1 || f.Pending != nil {
		t.Fatalf("small change: %+v %v", f, err)
	}
	res, err := search1(ctx, e, root, "Shout", search.Options{TopK: 1})
	if err != nil || len(res.Results) == 0 || res.Results[0].Path != "extra.go" {
		t.Fatalf("the refreshed file is not searchable: %+v %v", res, err)
	}
	for i := 0; i <= engine.FreshMaxFiles; i++ {
		os.WriteFile(filepath.Join(root, "gen"+strings.Repeat("x", i)+".go"), []byte("package strings\n\nfunc g() {}\n"), 0o644)
	}
	f, err = e.Freshen(ctx, p, emb)
	if err != nil || f.Refreshed != 0 || f.Pending == nil || f.Pending.Len() != engine.FreshMaxFiles+1 || !f.Stale["gen.go"] || f.Why == "" {
		t.Fatalf("large change: %+v %v", f, err)
	}
}

// TestFreshenKeepsAnEmptiedProject: a project directory that holds none of
// its indexed files (an unmounted disk, a checkout under way) is not
// emptied by a search's refresh: the files stay indexed and pending,
// with the reason; moved back, the project searches as before, and an
// index run still drops files that are really gone.
func TestFreshenKeepsAnEmptiedProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, e, emb, p := indexedProject(t)
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	away := t.TempDir()
	for _, en := range ents {
		if err := os.Rename(filepath.Join(root, en.Name()), filepath.Join(away, en.Name())); err != nil {
			t.Fatal(err)
		}
	}
	f, err := e.Freshen(ctx, p, emb)
	if err != nil || f.Refreshed != 0 || f.Pending == nil || len(f.Pending.Removed) == 0 || !strings.Contains(f.Why, "none of its") {
		t.Fatalf("emptied project: %+v %v", f, err)
	}
	for _, en := range ents {
		if err := os.Rename(filepath.Join(away, en.Name()), filepath.Join(root, en.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if f, err := e.Freshen(ctx, p, emb); err != nil || f.Pending != nil || f.Refreshed != 0 {
		t.Errorf("moved back: %+v %v, want nothing to do", f, err)
	}
	res, err := search1(ctx, e, root, "Builder Grow", search.Options{TopK: 1})
	if err != nil || len(res.Results) == 0 || res.Results[0].Path != "builder.go" {
		t.Errorf("the project after its files came back: %+v %v", res, err)
	}
}

// TestFreshenRefusesAMovedRoot: a project whose parent directory was
// swapped for a symlink to another tree is not diffed or refreshed
// against that tree: Freshen says the root moved (rootrule.ErrMoved).
func TestFreshenRefusesAMovedRoot(t *testing.T) {
	t.Parallel()
	root, e, emb, p := indexedProject(t)
	parent, other := filepath.Dir(root), t.TempDir()
	if err := os.Mkdir(filepath.Join(other, filepath.Base(root)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(parent, parent+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, parent); err != nil {
		t.Fatal(err)
	}
	if f, err := e.Freshen(context.Background(), p, emb); !errors.Is(err, rootrule.ErrMoved) {
		t.Errorf("Freshen of a moved root: %+v %v, want ErrMoved", f, err)
	}
}

// openAIProject returns an OpenAI-compatible fake server, a new project
// and an engine whose embedder is that server's, the project indexed.
func openAIProject(t *testing.T) (*embedtest.OpenAI, string, *engine.Engine, embed.Embedder) {
	t.Helper()
	srv := embedtest.NewOpenAI(t, 8, "k")
	root := project(t)
	e := open(t, engine.Config{Embedders: engine.FromOptions(embed.Options{Provider: "openai", Model: "text-embedding-3-small",
		BaseURL: srv.URL + "/v1", APIKey: "k", HTTPClient: srv.Client()}, nil)})
	emb, err := e.NewEmbedder()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := e.Index(context.Background(), root, engine.IndexRequest{Embedder: emb}); err != nil || out.Err != nil || out.Report.Failed != 0 {
		t.Fatalf("index: %v %+v", err, out)
	}
	return srv, root, e, emb
}

// TestFreshenSendsOnce: a search's refresh sends each embedding request
// once. An OpenAI-compatible server answering 500 (retried up to 5 times
// over 15 s by an index run) fails the refresh at its first answer, the
// file is left stale with the reason, and the next refresh, the server
// well again, brings it in.
func TestFreshenSendsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, root, e, emb := openAIProject(t)
	p, err := e.Find(ctx, root, true)
	if err != nil {
		t.Fatal(err)
	}
	// a package of its own: no file of the project's is parsed again
	os.MkdirAll(filepath.Join(root, "shout"), 0o755)
	os.WriteFile(filepath.Join(root, "shout", "shout.go"), []byte("package shout\n\n// Shout returns s with an exclamation mark.\nfunc Shout(s string) string { return s + \"!\" }\n"), 0o644)
	// one 500: an index run would try again a second later and succeed
	srv.Inject(embedtest.Reply{Status: 500, Body: embedtest.OpenAIServerError})
	before := srv.Requests()
	f, err := e.Freshen(ctx, p, emb)
	if err != nil || f.Refreshed != 0 || f.Pending == nil || !f.Stale["shout/shout.go"] ||
		!strings.Contains(f.Why, "the refresh did not finish: shout/shout.go: ") || !strings.Contains(f.Why, "The server had an error") {
		t.Fatalf("a failing server: %+v %v (the reason names the file and the server's message)", f, err)
	}
	if n := srv.Requests() - before; n != 1 {
		t.Errorf("the refresh sent %d requests for one text, want 1 (no retry)", n)
	}
	f, err = e.Freshen(ctx, p, emb)
	if err != nil || f.Refreshed != 1 || f.Pending != nil {
		t.Fatalf("the server well again: %+v %v", f, err)
	}
}

// TestFreshenSearchEmbedsQueryOnce: a search under the Freshen policy
// that re-indexes an edited file before answering (and so runs its query
// again after the refresh) asks the embedding server for the query's
// vector once; the refresh's chunk texts are requests of their own.
func TestFreshenSearchEmbedsQueryOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, root, e, emb := openAIProject(t)
	// a file of its own package, edited: the search refreshes it first
	os.MkdirAll(filepath.Join(root, "shout"), 0o755)
	shout := filepath.Join(root, "shout", "shout.go")
	os.WriteFile(shout, []byte("package shout\n\n// Shout returns s.\nfunc Shout(s string) string { return s }\n"), 0o644)
	if _, err := e.Index(ctx, root, engine.IndexRequest{Embedder: emb, Paths: []string{"shout/shout.go"}}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(shout, []byte("package shout\n\n// Shout returns s with an exclamation mark.\nfunc Shout(s string) string { return s + \"!\" }\n"), 0o644)
	p, err := e.Open(ctx, root, engine.OpenOptions{Policy: engine.Freshen})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	const query = "which function appends an exclamation mark"
	sent := len(srv.Texts())
	resp, err := p.Search(ctx, query, search.Options{TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := p.Freshness(); f == nil || f.Refreshed != 1 {
		t.Fatalf("freshness %+v, want the edited file refreshed", f)
	}
	if len(resp.Results) == 0 || resp.Results[0].Path != "shout/shout.go" || resp.Results[0].Stale {
		t.Errorf("results %+v, want the refreshed shout/shout.go first, not stale", resp.Results[:min(1, len(resp.Results))])
	}
	queries, chunks := 0, 0
	for _, text := range srv.Texts()[sent:] {
		if strings.Contains(text, query) {
			queries++
		} else {
			chunks++
		}
	}
	if queries != 1 || chunks == 0 {
		t.Errorf("the server embedded the query %d times (want 1) and %d other texts (the refresh's, want some)", queries, chunks)
	}
}

// TestProjectEmbedder: a project's embedder is rebuilt from its stored id
// once and cached; an id whose provider cannot be built says the project's
// embedder is unavailable.
func TestProjectEmbedder(t *testing.T) {
	t.Parallel()
	e := open(t, engine.Config{Embedders: engine.FromOptions(embed.Options{Provider: "openai", Model: "text-embedding-3-small", BaseURL: "http://127.0.0.1:1/v1", APIKey: "k"}, nil)})
	a, err := e.ProjectEmbedder("local:hashing-256-v1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := e.ProjectEmbedder("local:hashing-256-v1")
	if a != b || a.ID() != "local:hashing-256-v1" {
		t.Errorf("not cached or wrong embedder: %s %s", a.ID(), b.ID())
	}
	if _, err := e.ProjectEmbedder("nosuch:model"); err == nil || !strings.Contains(err.Error(), "this project was indexed with nosuch:model, which is unavailable") {
		t.Errorf("unknown provider: %v", err)
	}
	// an index of a built-in model this version no longer carries (v1)
	// says the remedy: index again, with the model it would get
	if _, err := e.ProjectEmbedder("local:coderag-code-v1"); !errors.Is(err, engine.ErrEmbedderUnavailable) ||
		!strings.Contains(err.Error(), "index it again to embed it with local:"+static.ModelName) {
		t.Errorf("an older built-in model: %v", err)
	}
	// the configured embedder stays the configured one
	if emb, err := e.NewEmbedder(); err != nil || emb.ID() != "openai:text-embedding-3-small" {
		t.Errorf("configured embedder: %v %v", emb, err)
	}
}

// TestGraphCached: graph queries go through one resolver per project,
// which sees the index again after it changes.
func TestGraphCached(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := project(t)
	e := open(t, engine.Config{})
	emb, _ := e.NewEmbedder()
	if _, err := e.Index(ctx, root, engine.IndexRequest{Embedder: emb}); err != nil {
		t.Fatal(err)
	}
	text, err := e.Describe(ctx, root, "Builder.WriteString")
	if err != nil || !strings.Contains(text, "Builder") {
		t.Fatalf("describe: %q %v", text, err)
	}
	if _, err := e.Describe(ctx, root, "Shout"); !errors.Is(err, relate.ErrNotFound) {
		t.Fatalf("unknown name: %v", err)
	}
	os.WriteFile(filepath.Join(root, "extra.go"), []byte("package strings\n\nfunc Shout(s string) string { return s }\n"), 0o644)
	if _, err := e.Index(ctx, root, engine.IndexRequest{Embedder: emb, Paths: []string{"extra.go"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Describe(ctx, root, "Shout"); err != nil {
		t.Errorf("after indexing extra.go: %v", err)
	}
	os.Mkdir(filepath.Join(root, "nope"), 0o755)
	if _, err := search1(ctx, e, filepath.Join(root, "nope"), "x", search.Options{}); !errors.Is(err, store.ErrNotIndexed) {
		t.Errorf("search of an unindexed root: %v", err)
	}
}

// search1 answers query over the project at root (exactly) through a
// handle, as the front ends do.
func search1(ctx context.Context, e *engine.Engine, root, query string, opts search.Options) (*search.Response, error) {
	p, err := e.Open(ctx, root, engine.OpenOptions{})
	if err != nil {
		return nil, err
	}
	defer p.Release()
	return p.Search(ctx, query, opts)
}

func hours(n int) time.Duration { return time.Duration(n) * time.Hour }

// TestCancelledAfterLastFile: a run cancelled once every changed file was
// written reads as complete, not "cancelled at 383/383"; one cancelled
// before reads as before.
func TestCancelledAfterLastFile(t *testing.T) {
	t.Parallel()
	all := &engine.Outcome{Cancelled: true, Err: context.Canceled, Done: 383, Total: 383, Report: &index.Report{Changed: 381, Failures: make([]index.Failure, 2)}}
	if s := all.State(); strings.Contains(s, "cancelled at") || strings.Contains(s, "incomplete") || !strings.Contains(s, "the index is complete") {
		t.Errorf("cancelled at 383 of 383: %q", s)
	}
	if s := (&engine.Outcome{Cancelled: true, Err: context.Canceled, Done: 101, Total: 383}).State(); s != "cancelled at 101/383" {
		t.Errorf("cancelled at 101 of 383: %q", s)
	}
	if (&engine.Outcome{Cancelled: true, Err: context.Canceled}).CancelledComplete() {
		t.Errorf("a run cancelled while scanning (0/0) reads as complete")
	}
	// every file handed to the writer, not all written: not complete
	if s := (&engine.Outcome{Cancelled: true, Err: context.Canceled, Done: 3, Total: 3, Report: &index.Report{Changed: 1}}).State(); s != "cancelled at 3/3" {
		t.Errorf("cancelled with 1 of 3 written: %q", s)
	}
}

// cancelAt is an embedder that cancels its run's context at its n-th
// Embed call (the batches before it are written whole).
type cancelAt struct {
	embed.Embedder
	mu     sync.Mutex
	calls  int
	n      int
	cancel context.CancelFunc
}

func (c *cancelAt) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	if c.calls++; c.calls == c.n {
		c.cancel()
	}
	c.mu.Unlock()
	return c.Embedder.Embed(ctx, texts)
}

// TestInterruptedSwitchStatus: a change of embedder cancelled partway
// leaves a mixed index; Status (stats, index_status, /api/status) and a
// search's note (the CLI's, search_code's) say how many files carry
// vectors of the other embedder, until an index run with the configured
// embedder embeds them again.
func TestInterruptedSwitchStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	for i := range 40 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", i)), []byte(fmt.Sprintf("package shop\n\n// Handler%d serves request kind %d.\nfunc Handler%d() {}\n", i, i, i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := index.ResolveRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := open(t, engine.Config{})
	indexedRoot(t, e, root)
	hashing, err := provider.New(embed.Options{Provider: "local", Model: "hashing-768-v1"})
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out, err := e.Index(rctx, root, engine.IndexRequest{Embedder: &cancelAt{Embedder: hashing, n: 3, cancel: cancel}, Threads: 1, BatchSize: 4})
	if !errors.Is(err, context.Canceled) || out == nil || out.Report == nil || out.Report.Changed == 0 || out.Report.Changed == 40 {
		t.Fatalf("the switch was not cancelled partway: %+v %v", out, err)
	}
	converted := out.Report.Changed
	st, err := e.Status(ctx, root)
	if err != nil || st.Mixed == nil || st.Mixed.Files != converted || st.Mixed.Total != 40 || st.Mixed.Other != hashing.ID() ||
		st.Mixed.Embedder != st.Embedder || st.Embedder == hashing.ID() {
		t.Fatalf("status after the cancelled switch: %+v (mixed %+v) %v", st, st.Mixed, err)
	}
	resp, err := search1(ctx, e, root, "handler serves request", search.Options{TopK: 3})
	if err != nil || !strings.HasPrefix(resp.Incomplete, fmt.Sprintf("index mixed: %d of 40 files carry vectors of %s", converted, hashing.ID())) ||
		len(resp.Hints) == 0 || resp.Hints[0].Do != search.HintIndex {
		t.Fatalf("search after the cancelled switch: %+v %v", resp, err)
	}
	if s := search.FormatForTool(resp); !strings.Contains(s, "index_project embeds those files again") {
		t.Errorf("the tool's answer after the cancelled switch:\n%s", s)
	}
	// `coderag index` with the configured embedder finishes it
	if out, err := e.Index(ctx, root, engine.IndexRequest{}); err != nil || out.Err != nil || out.Report.Changed != converted {
		t.Fatalf("the next run: %+v %v", out, err)
	}
	if st, err := e.Status(ctx, root); err != nil || st.Mixed != nil || st.Incomplete {
		t.Fatalf("status after the next run: %+v %v", st, err)
	}
	if resp, err := search1(ctx, e, root, "handler serves request", search.Options{TopK: 3}); err != nil || resp.Incomplete != "" || len(resp.Results) == 0 {
		t.Fatalf("search after the next run: %+v %v", resp, err)
	}
}

// A project row whose root is not an absolute, clean path (written into a
// shared database by other means) is no project: it would be read
// against the lister's working directory (serve's file view).
func TestProjectsSkipsRelativeRoots(t *testing.T) {
	db := filepath.Join(t.TempDir(), "index.db")
	e := open(t, engine.Config{DBPath: db})
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	abs := filepath.Join(t.TempDir(), "proj")
	for _, p := range []string{abs, "p/normal", "etc", abs + "/../other", "/tmp/x/"} {
		if _, err := raw.Exec(`INSERT INTO projects(project_path, embedder, dim, created_at, updated_at) VALUES (?, 'local:x', 256, 0, 0)`, p); err != nil {
			t.Fatal(err)
		}
	}
	ps, err := e.Projects(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Path != abs {
		t.Errorf("Projects = %+v, want %s alone", ps, abs)
	}
}
