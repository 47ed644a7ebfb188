package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/testutil"
)

// indexedRoot indexes root with the configured embedder and returns it.
func indexedRoot(t *testing.T, e *engine.Engine, root string) string {
	t.Helper()
	if out, err := e.Index(context.Background(), root, engine.IndexRequest{}); err != nil || out.Err != nil {
		t.Fatalf("index %s: %v %+v", root, err, out)
	}
	return root
}

// TestOpen: Open finds the project of a directory (exactly, or the
// enclosing one), refuses what rootrule refuses when serving, and under
// Refresh indexes a project that has none.
func TestOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := open(t, engine.Config{})
	root := indexedRoot(t, e, project(t))
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := e.Open(ctx, sub, engine.OpenOptions{Enclosing: true})
	if err != nil || p.Root != root || p.Embedder == "" {
		t.Fatalf("enclosing of %s: %+v %v", sub, p, err)
	}
	p.Release()
	if _, err := e.Open(ctx, sub, engine.OpenOptions{}); !errors.Is(err, engine.ErrNotIndexed) {
		t.Errorf("exact open of a subdirectory: %v, want ErrNotIndexed", err)
	}
	if _, err := e.Open(ctx, filepath.Join(root, "missing"), engine.OpenOptions{Enclosing: true}); err == nil {
		t.Error("a directory that does not exist was opened")
	}
	// a hidden directory indexed by someone is not served
	hidden := filepath.Join(filepath.Dir(root), ".hidden")
	os.Mkdir(hidden, 0o755)
	os.WriteFile(filepath.Join(hidden, "a.go"), []byte("package a\n\nfunc Hidden() {}\n"), 0o644)
	if _, err := e.Open(ctx, hidden, engine.OpenOptions{Policy: engine.Refresh, Served: true}); !errors.Is(err, rootrule.ErrRefused) {
		t.Errorf("served open of %s: %v, want rootrule.ErrRefused", hidden, err)
	}
	// Refresh indexes a project without an index before answering
	fresh := project(t)
	p, err = e.Open(ctx, fresh, engine.OpenOptions{Policy: engine.Refresh})
	if err != nil || !p.Refreshed.Finished || p.Refreshed.Indexed {
		t.Fatalf("refresh of an unindexed project: %+v %v", p, err)
	}
	if resp, err := p.Search(ctx, "WriteString appends to the builder", search.Options{TopK: 3}); err != nil || len(resp.Results) == 0 {
		t.Errorf("search after refresh: %+v %v", resp, err)
	}
}

// TestStatus: one Status for every front end: counts, the run record and
// the job of an indexed root; Indexed false, not an error, for another.
func TestStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := open(t, engine.Config{})
	root := indexedRoot(t, e, project(t))
	st, err := e.Status(ctx, root)
	if err != nil || !st.Indexed || st.Counts.Files != projectFiles || st.Counts.Chunks == 0 || st.LastRun == nil || !st.LastRun.Done ||
		st.Incomplete || st.Job.Running || st.Job.Last == nil || st.Embedder == "" || st.Described == "" {
		t.Fatalf("status: %+v %v", st, err)
	}
	other := project(t)
	if st, err := e.Status(ctx, other); err != nil || st.Indexed || st.Root != other {
		t.Errorf("status of an unindexed root: %+v %v", st, err)
	}
}

// TestFreshenMarksStale: under the Freshen policy results from changed
// files left pending are marked stale, by Search and by SearchMany alike;
// under AsIs nothing is checked or marked.
func TestFreshenMarksStale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := open(t, engine.Config{})
	a := indexedRoot(t, e, project(t))
	b := indexedRoot(t, e, project(t))
	for i := 0; i <= engine.FreshMaxFiles; i++ {
		os.WriteFile(filepath.Join(a, fmt.Sprintf("gen%02d.go", i)), []byte("package strings\n\nfunc g() {}\n"), 0o644)
	}
	body, _ := os.ReadFile(filepath.Join(a, "builder.go"))
	os.WriteFile(filepath.Join(a, "builder.go"), append([]byte("// changed\n"), body...), 0o644)
	const q = "WriteString appends to the builder"
	pa, err := e.Open(ctx, a, engine.OpenOptions{Policy: engine.AsIs})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := pa.Search(ctx, q, search.Options{TopK: 3})
	if f, _ := pa.Freshness(); err != nil || f != nil || len(resp.Results) == 0 || resp.Results[0].Stale {
		t.Fatalf("as-is: %+v %v", resp, err)
	}
	pa, _ = e.Open(ctx, a, engine.OpenOptions{Policy: engine.Freshen})
	resp, err = pa.Search(ctx, q, search.Options{TopK: 3})
	if f, _ := pa.Freshness(); err != nil || f == nil || f.Pending == nil || len(resp.Results) == 0 || resp.Results[0].Path != "builder.go" || !resp.Results[0].Stale {
		t.Fatalf("freshen: %+v %v", resp, err)
	}
	pa, _ = e.Open(ctx, a, engine.OpenOptions{Policy: engine.Freshen})
	pb, _ := e.Open(ctx, b, engine.OpenOptions{Policy: engine.Freshen})
	many, err := e.SearchMany(ctx, []*engine.Project{pa, pb}, q, search.Options{TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	marked := map[string]bool{}
	for _, r := range many.Results {
		if want := r.Project == a && r.Path == "builder.go"; r.Stale != want {
			t.Errorf("%s %s: stale %v, want %v", r.Project, r.Path, r.Stale, want)
		}
		marked[r.Project] = marked[r.Project] || r.Stale
	}
	if !marked[a] || marked[b] {
		t.Errorf("stale marks by project: %v", marked)
	}
}

// TestFreshenOneConnectionOnServer: on a PostgreSQL index a search under
// Freshen runs its freshness check and then its query on one connection
// (the pool never opens a second, a new server process), and answers as
// the same search without the check does.
func TestFreshenOneConnectionOnServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := testutil.Postgres(t)
	root := indexedRoot(t, open(t, engine.Config{DBPath: target}), project(t))
	const q = "WriteString appends to the builder"
	e := open(t, engine.Config{DBPath: target})
	p, err := e.Open(ctx, root, engine.OpenOptions{Policy: engine.AsIs})
	if err != nil {
		t.Fatal(err)
	}
	want, err := p.Search(ctx, q, search.Options{TopK: 5})
	if err != nil || len(want.Results) == 0 {
		t.Fatalf("as-is: %+v %v", want, err)
	}
	for i := 0; i < 5; i++ { // each on a new engine: a new pool, as a CLI process has
		st, err := store.Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		e := open(t, engine.Config{Store: st})
		p, err := e.Open(ctx, root, engine.OpenOptions{Policy: engine.Freshen})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Search(ctx, q, search.Options{TopK: 5})
		if f, _ := p.Freshness(); err != nil || f == nil || f.Pending != nil {
			t.Fatalf("freshen: %+v %+v %v", got, f, err)
		}
		if n := st.DB().Stats().OpenConnections; n != 1 {
			t.Fatalf("search %d under Freshen opened %d connections, want 1", i, n)
		}
		if fmt.Sprint(got.Results) != fmt.Sprint(want.Results) {
			t.Fatalf("freshen results %v, want %v", got.Results, want.Results)
		}
		st.Close()
	}
}

// TestSearchManyOnServer: on a PostgreSQL index SearchMany checks its
// projects' freshness MultiParallel at once, each refreshing its own
// project's changed file, and answers as the same search over the
// refreshed index; with nothing to refresh the checks and the searches run
// on the min(projects, search.MultiParallel) connections opened together
// (Store.Preconnect), and no more are opened.
func TestSearchManyOnServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := testutil.Postgres(t)
	setup := open(t, engine.Config{DBPath: target})
	roots := []string{indexedRoot(t, setup, project(t)), indexedRoot(t, setup, project(t)), indexedRoot(t, setup, project(t))}
	changed := map[string]bool{roots[0]: true, roots[2]: true}
	for r := range changed {
		body, err := os.ReadFile(filepath.Join(r, "builder.go"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r, "builder.go"), append([]byte("// changed\n"), body...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const q = "WriteString appends to the builder"
	many := func(policy engine.Policy) (*search.MultiResponse, []*engine.Project, *store.Store) {
		t.Helper()
		st, err := store.Open(ctx, target) // a new pool, as a CLI process has
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		e := open(t, engine.Config{Store: st})
		ps, _, err := e.OpenAll(ctx, engine.OpenOptions{Policy: policy})
		if err != nil || len(ps) != len(roots) {
			t.Fatalf("open all: %d projects, %v", len(ps), err)
		}
		resp, err := e.SearchMany(ctx, ps, q, search.Options{TopK: 10})
		if err != nil || len(resp.Results) == 0 {
			t.Fatalf("search many: %+v %v", resp, err)
		}
		return resp, ps, st
	}
	got, ps, _ := many(engine.Freshen)
	for _, p := range ps {
		f, err := p.Freshness()
		if err != nil || f == nil || f.Pending != nil {
			t.Fatalf("%s: freshness %+v %v", p.Root, f, err)
		}
		if want := map[bool]int{true: 1, false: 0}[changed[p.Root]]; f.Refreshed != want {
			t.Errorf("%s: refreshed %d files, want %d", p.Root, f.Refreshed, want)
		}
	}
	// checked again, nothing to refresh: the checks and the searches ran
	// on the connections opened together (a refresh takes one more, for
	// its project's lock)
	again, _, st := many(engine.Freshen)
	if n, want := st.DB().Stats().OpenConnections, min(len(roots), search.MultiParallel); n != want {
		t.Errorf("%d connections open after the search, want %d", n, want)
	}
	want, _, _ := many(engine.AsIs)
	for _, r := range []*search.MultiResponse{got, again} {
		if fmt.Sprint(r.Results) != fmt.Sprint(want.Results) {
			t.Fatalf("results after the parallel checks %v, want %v", r.Results, want.Results)
		}
	}
}
