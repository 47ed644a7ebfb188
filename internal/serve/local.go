package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/mcp"
	"github.com/coderag/coderag/internal/relate"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/tools"
)

// LocalConfig configures Local. Engine is required.
type LocalConfig struct {
	// Engine is the index at run time that every request, index run and
	// MCP session works over: one job per project root, shared by the
	// API, the page and MCP. Local does not close it; give it
	// Config.LongLived so queries share the vector cache.
	Engine *engine.Engine
	// Version is reported to MCP clients.
	Version string
	// Log receives diagnostics of the MCP servers; nil discards them.
	Log io.Writer
	// Redact rewrites MCP tool error messages and index run errors
	// (secrets masked); nil keeps them.
	Redact func(string) string
	// MaxSearches caps the searches Search runs at once (budget.go); the
	// others wait. 0 means DefaultMaxSearches().
	MaxSearches int
}

// Local is the Backend over an engine.Engine: searches through its
// searchers, graphs through its resolver cache, index runs as its jobs,
// and MCP servers of internal/mcp over the same engine. Safe for
// concurrent use. Close closes its MCP servers; the engine's Close stops
// index runs.
type Local struct {
	cfg LocalConfig
	eng *engine.Engine
	// opened is the index file the engine opened (nil for a store that is
	// not a file), for Replaced.
	opened os.FileInfo

	mu   sync.Mutex
	runs map[string]*engine.Run // the last run Index started or joined, by root
	mcps map[mcpKey]*mcp.Server
	// searches holds one token per search running (budget.go)
	searches chan struct{}
}

type mcpKey struct {
	root  string
	write bool
}

var _ Backend = (*Local)(nil)

// NewLocal returns a Local over cfg.Engine, or an error when there is none.
func NewLocal(cfg LocalConfig) (*Local, error) {
	if cfg.Engine == nil {
		return nil, errors.New("serve: local backend needs an engine")
	}
	if cfg.MaxSearches <= 0 {
		cfg.MaxSearches = DefaultMaxSearches()
	}
	l := &Local{cfg: cfg, eng: cfg.Engine, runs: map[string]*engine.Run{}, mcps: map[mcpKey]*mcp.Server{},
		searches: make(chan struct{}, cfg.MaxSearches)}
	if fi, err := os.Stat(cfg.Engine.StorePath()); err == nil && fi.Mode().IsRegular() {
		l.opened = fi
	}
	return l, nil
}

// Replaced returns an error when the file at the index's path is no longer
// the one the engine opened: `coderag doctor --rebuild` moved a damaged
// index aside and made a new one, or another tool replaced it, and the
// engine still reads the old file, so every answer would come from it.
// nil otherwise, and for a store that is not a file (PostgreSQL). One
// stat(2).
func (l *Local) Replaced() error {
	if l.opened == nil {
		return nil
	}
	path := l.eng.StorePath()
	if fi, err := os.Stat(path); err == nil && os.SameFile(fi, l.opened) {
		return nil
	}
	return fmt.Errorf("the index file %s is no longer the one this server opened (`coderag doctor --rebuild` moves a damaged index aside and makes a new one): restart coderag serve to read it", path)
}

// Close closes the MCP servers. Index runs belong to the engine: they
// go on until it is closed.
func (l *Local) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, s := range l.mcps {
		s.Close()
		delete(l.mcps, k)
	}
	return nil
}

// StorePath returns the index file path.
func (l *Local) StorePath() string { return l.eng.StorePath() }

// Projects lists every indexed project, and projects whose first run,
// started here, has not written the project row yet.
func (l *Local) Projects(ctx context.Context) ([]ProjectStatus, error) {
	ps, err := l.eng.Projects(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ProjectStatus, 0, len(ps))
	seen := map[string]bool{}
	for _, p := range ps {
		s, err := l.status(ctx, p.Path)
		if err != nil {
			return nil, err
		}
		seen[p.Path] = true
		out = append(out, *s)
	}
	l.mu.Lock()
	var fresh []string
	for root := range l.runs {
		if !seen[root] {
			fresh = append(fresh, root)
		}
	}
	l.mu.Unlock()
	for _, root := range fresh {
		out = append(out, ProjectStatus{Project: root, Name: filepath.Base(root), Indexing: l.indexing(l.eng.Job(root))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Project < out[j].Project })
	nameProjects(out)
	return out, nil
}

// Roots lists the root of every indexed project, and of projects whose
// first run, started here, has not written the project row yet: one query
// of the project rows.
func (l *Local) Roots(ctx context.Context) ([]string, error) {
	ps, err := l.eng.Projects(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(ps))
	seen := map[string]bool{}
	for _, p := range ps {
		seen[p.Path] = true
		out = append(out, p.Path)
	}
	l.mu.Lock()
	for root := range l.runs {
		if !seen[root] {
			out = append(out, root)
		}
	}
	l.mu.Unlock()
	sort.Strings(out)
	return out, nil
}

// status is root's engine.Status as the API shows it; a root whose first
// run has not written the project yet is Indexed false.
func (l *Local) status(ctx context.Context, root string) (*ProjectStatus, error) {
	st, err := l.eng.Status(ctx, root)
	if err != nil {
		return nil, err
	}
	s := &ProjectStatus{Project: root, Name: filepath.Base(root), Indexing: l.indexing(st.Job)}
	if !st.Indexed {
		return s, nil
	}
	c := st.Counts
	s.Indexed, s.Embedder, s.UpdatedAt = true, st.Embedder, st.UpdatedAt.Format(time.RFC3339)
	s.Files, s.Chunks, s.Embedded, s.Relations = c.Files, c.Chunks, c.Embedded, c.Relations
	s.LastRun = st.LastRun
	if st.Incomplete {
		s.IndexedFiles, s.TotalFiles = st.IndexedFiles, st.TotalFiles
	}
	if st.Mixed != nil {
		s.Mixed, s.Note = st.Mixed, search.MixedNote(*st.Mixed)
	}
	return s, nil
}

// indexing is a root's engine job as an IndexRun: the run going on,
// else the last one that ended in this process (whoever started it: the
// API, an MCP session); nil when none ran.
func (l *Local) indexing(js engine.JobState) *IndexRun {
	switch {
	case js.Running:
		p := js.Progress
		phase := p.Phase
		if phase == "" {
			phase = "scan"
		}
		return &IndexRun{Running: true, Phase: phase, Done: p.Done, Total: p.Total, Scanned: p.Scanned,
			ElapsedMS: time.Since(js.Started).Milliseconds(), State: "running"}
	case js.Last != nil:
		o := js.Last
		p := js.Progress // the last progress of that run
		r := &IndexRun{Phase: "done", Done: p.Done, Total: p.Total, Scanned: p.Scanned,
			ElapsedMS: o.Ended.Sub(o.Started).Milliseconds(), Report: o.Report, Cancelled: o.Cancelled}
		if o.Cancelled {
			r.Done = o.Done // the files written, as State says
		}
		if o.Err != nil && !o.Cancelled {
			r.Error = o.Err.Error()
			if l.cfg.Redact != nil {
				r.Error = l.cfg.Redact(r.Error)
			}
		}
		r.State = o.State()
		if r.Error != "" {
			r.State = "failed: " + r.Error // redacted
		}
		return r
	}
	return nil
}

// Search answers from the index as it is: reads never re-index (an index
// run is started by Index, by `coderag index` or by an MCP client with
// the token). Each project is searched with the embedder it was indexed
// with, through the engine. At most MaxSearches run at once; the others
// wait their turn (budget.go).
func (l *Local) Search(ctx context.Context, projects []string, query string, opts search.Options) (*search.MultiResponse, error) {
	done, err := l.searchTurn(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	// the server's freshness policy: answer from the index as it is
	opts0 := engine.OpenOptions{Policy: engine.AsIs, Served: true}
	var ps []*engine.Project
	if len(projects) == 0 {
		// every project: the rows listed once, each root checked once
		// against them; a root rootrule refuses is left out here (and
		// refused by l.project when named)
		ps, _, err = l.eng.OpenAll(ctx, opts0)
		if errors.Is(err, engine.ErrNotIndexed) {
			return nil, mark(ErrUnknownProject, "nothing is indexed yet")
		}
		if err != nil {
			return nil, err
		}
	}
	for _, root := range projects {
		p, err := l.project(ctx, root)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return l.eng.SearchMany(ctx, ps, query, opts)
}

// project opens the indexed project at root (its exact root) as the
// server does: from the index as it is, and refused when rootrule refuses
// the root, whoever indexed it, so nothing of it is searched, read or
// drawn. ErrUnknownProject when root is not an indexed project.
func (l *Local) project(ctx context.Context, root string) (*engine.Project, error) {
	p, err := l.eng.Open(ctx, root, engine.OpenOptions{Policy: engine.AsIs, Served: true})
	if errors.Is(err, engine.ErrNotIndexed) {
		return nil, fmt.Errorf("%s: %w", root, ErrUnknownProject)
	}
	return p, err
}

// File reads with tools.ReadIndexed under the project's root (os.Root
// confinement; only files the index takes; secret-looking names withheld
// unless the engine allows them).
func (l *Local) File(ctx context.Context, project, path string, offset, limit int) (*tools.ReadResult, error) {
	p, err := l.project(ctx, project)
	if err != nil {
		return nil, err
	}
	defer p.Release()
	return tools.ReadIndexed(ctx, p.Root, tools.ReadParams{Path: path, Offset: offset, Limit: limit, AllowSecrets: l.eng.AllowSecrets()})
}

// Graph walks depth levels of callers and of callees (at least 1) through
// the engine's resolver of the project (loaded once, reloaded when the
// index changes).
func (l *Local) Graph(ctx context.Context, project, name string, depth int) (*Graph, error) {
	depth = max(depth, 1)
	p, err := l.project(ctx, project)
	if err != nil {
		return nil, err
	}
	defer p.Release()
	g := &Graph{Root: p.Root, Query: name, Depth: depth}
	err = p.Graph(ctx, func(r *relate.Resolver) error {
		var err error
		if g.Callers, err = r.Callers(name, depth); err != nil {
			return err
		}
		if g.Callees, err = r.Callees(name, depth); err != nil {
			return err
		}
		g.Names = selectors(r, g.Callers, g.Callees)
		return nil
	})
	if err != nil {
		return nil, err
	}
	g.Start = g.Callers.Root
	return g, nil
}

// selectors maps "path:line" to the name that selects the function or
// method there, for those of the walks whose own name selects several
// (Graph.Names).
func selectors(r *relate.Resolver, walks ...*relate.Walk) map[string]string {
	names := map[string]string{}
	done := map[*relate.Def]bool{}
	add := func(d *relate.Def) {
		if d == nil || done[d] || d.Type != "function" && d.Type != "method" {
			return
		}
		done[d] = true
		if s := r.Selector(d); s != "" && s != d.Name {
			names[d.Loc()] = s
		}
	}
	for _, w := range walks {
		if w == nil {
			continue
		}
		add(w.Root)
		for _, e := range w.Edges {
			add(e.Caller)
			add(e.Target)
		}
	}
	if len(names) == 0 {
		return nil
	}
	return names
}

// Index starts the engine's job of root in the background with the
// configured embedder (engine.NewEmbedder: the rule of `coderag index`
// and index_project), or joins the run going on, whoever started it. A
// directory rootrule refuses is refused here, indexed or not
// (rootrule.ErrRefused).
func (l *Local) Index(ctx context.Context, dir string) (*ProjectStatus, error) {
	root, err := rootrule.Resolve(dir)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", dir, err)
	}
	checked := root
	if filepath.IsAbs(dir) {
		checked = dir // Check resolves it too: both forms are checked
	}
	if err := l.eng.CheckRoot(ctx, checked); err != nil {
		return nil, fmt.Errorf("index %s: %w", dir, err)
	}
	run, err := l.eng.Start(root, engine.IndexRequest{})
	if err != nil {
		return nil, err // "index ROOT: ..." already (engine.Start)
	}
	l.mu.Lock()
	l.runs[root] = run
	l.mu.Unlock()
	st, err := l.status(ctx, root)
	if err != nil {
		return nil, err
	}
	if roots, err := l.Roots(ctx); err == nil {
		for i, n := range suffixNames(roots) {
			if roots[i] == root {
				st.Name = n
			}
		}
	}
	return st, nil
}

// Cancel cancels the engine's run of root (engine.Cancel) and waits for
// it to end, or for ctx.
func (l *Local) Cancel(ctx context.Context, root string) (bool, error) {
	r := l.eng.Cancel(root)
	if r == nil {
		return false, nil
	}
	select {
	case <-r.Done():
		return true, nil
	case <-ctx.Done():
		return true, fmt.Errorf("cancel %s: %w", root, ctx.Err())
	}
}

// run returns the last run Index started or joined for root, or nil.
func (l *Local) run(root string) *engine.Run {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.runs[root]
}

// Remove drops the project at root and compacts the index file, through
// engine.Remove: the root's job slot and its cross-process lock are held
// from the busy check to the delete, so an index run started meanwhile (the
// API, an MCP session, `coderag index`) is refused or refuses, never
// interleaved. ErrBusy while a run of root is going on, here or in another
// process; engine.ErrRemoving while another Remove of it is.
func (l *Local) Remove(ctx context.Context, dir string) (*Removed, error) {
	var root string
	if filepath.IsAbs(dir) {
		// a recorded root is removed by its name, before any symlink in
		// it is followed; a deleted directory by its path
		// (engine.RemoveTarget)
		root, _ = l.eng.RemoveTarget(ctx, dir)
	} else {
		r, err := rootrule.Resolve(dir)
		if err != nil {
			return nil, mark(ErrUnknownProject, "remove %s: not an indexed project: give its root, or its name as the status lists it", dir)
		}
		root = r
	}
	rm, err := l.eng.Remove(ctx, root, nil)
	if errors.Is(err, store.ErrNotIndexed) {
		return nil, mark(ErrUnknownProject, "remove %s: not an indexed project (give the indexed root)", root)
	}
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	delete(l.runs, root)
	for _, w := range []bool{false, true} {
		if s := l.mcps[mcpKey{root, w}]; s != nil {
			s.Close()
			delete(l.mcps, mcpKey{root, w})
		}
	}
	l.mu.Unlock()
	out := &Removed{Removed: root, Files: rm.Files, BytesBefore: rm.BytesBefore, BytesAfter: rm.BytesAfter}
	if rm.CompactErr != nil {
		out.CompactError = rm.CompactErr.Error()
	}
	return out, nil
}

// MCP returns the cached MCP server of project, rooted there, over the
// engine: its index runs are the engine's jobs, shared with the API.
// Without write the server is read-only (mcp.Config.ReadOnly): no
// index_project, and search_code and code_graph answer from the index as
// it is instead of refreshing it.
func (l *Local) MCP(project string, write bool) (*sdk.Server, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := mcpKey{project, write}
	if s := l.mcps[k]; s != nil {
		return s.SDKServer(), nil
	}
	s, err := mcp.NewServer(mcp.Config{
		Engine:   l.eng,
		Root:     project,
		WorkDir:  project,
		ReadOnly: !write,
		// files never indexed (dot-env files, ignored keys, .git/) are
		// not shown to the team
		IndexedReads: true,
		Log:          l.cfg.Log,
		Version:      l.cfg.Version,
		Redact:       l.cfg.Redact,
	})
	if err != nil {
		return nil, err
	}
	l.mcps[k] = s
	return s.SDKServer(), nil
}
