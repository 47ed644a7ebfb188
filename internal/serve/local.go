package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/mcp"
	"github.com/coderag/coderag/internal/relate"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/tools"
)

// LocalConfig configures Local. Store and NewEmbedder are required.
type LocalConfig struct {
	// Store is the open index; Local does not close it.
	Store *store.Store
	// NewEmbedder builds the configured embedder, for a project indexed
	// for the first time.
	NewEmbedder func() (embed.Embedder, error)
	// ProjectEmbedder rebuilds the embedder a project was indexed with from
	// its stored id; nil means NewEmbedder.
	ProjectEmbedder func(id string) (embed.Embedder, error)
	// Index holds Threads and BatchSize of index runs.
	Index index.Options
	// Version is reported to MCP clients.
	Version string
	// Log receives diagnostics of the MCP servers; nil discards them.
	Log io.Writer
	// Redact rewrites MCP tool error messages (secrets masked); nil keeps them.
	Redact func(string) string
}

// Local is the Backend over one open store and today's packages: search,
// relate, index, tools and the MCP server of internal/mcp. Safe for
// concurrent use. Close stops its index runs and MCP servers.
type Local struct {
	cfg    LocalConfig
	graphs relate.Cache

	life context.Context // index runs live until Close
	stop context.CancelFunc
	bg   sync.WaitGroup

	mu   sync.Mutex
	embs map[string]embed.Embedder // query embedders by id
	jobs map[string]*IndexRun      // runs started here, by root
	mcps map[mcpKey]*mcp.Server
}

type mcpKey struct {
	root  string
	write bool
}

var _ Backend = (*Local)(nil)

// NewLocal returns a Local over cfg.Store, or an error when cfg lacks the
// store or the embedder constructor. It turns on the store's vector cache:
// a server answers many queries over the same vectors.
func NewLocal(cfg LocalConfig) (*Local, error) {
	if cfg.Store == nil || cfg.NewEmbedder == nil {
		return nil, errors.New("serve: local backend needs a store and an embedder constructor")
	}
	if cfg.ProjectEmbedder == nil {
		cfg.ProjectEmbedder = func(string) (embed.Embedder, error) { return cfg.NewEmbedder() }
	}
	cfg.Store.CacheVectors(true)
	l := &Local{cfg: cfg, embs: map[string]embed.Embedder{}, jobs: map[string]*IndexRun{}, mcps: map[mcpKey]*mcp.Server{}}
	l.life, l.stop = context.WithCancel(context.Background())
	return l, nil
}

// Close cancels running index runs (each committed batch stays), waits for
// them and closes the MCP servers.
func (l *Local) Close() error {
	l.stop()
	l.bg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, s := range l.mcps {
		s.Close()
		delete(l.mcps, k)
	}
	return nil
}

// StorePath returns the index file path.
func (l *Local) StorePath() string { return l.cfg.Store.Path() }

// Projects lists every indexed project, and projects whose first run,
// started here, has not written the project row yet.
func (l *Local) Projects(ctx context.Context) ([]ProjectStatus, error) {
	ps, err := l.cfg.Store.Projects(ctx)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	out := make([]ProjectStatus, 0, len(ps))
	seen := map[string]bool{}
	for _, p := range ps {
		s, err := l.status(ctx, &p)
		if err != nil {
			return nil, err
		}
		seen[p.Path] = true
		out = append(out, *s)
	}
	l.mu.Lock()
	for root, run := range l.jobs {
		if !seen[root] {
			r := *run
			out = append(out, ProjectStatus{Project: root, Name: filepath.Base(root), Indexing: &r})
		}
	}
	l.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Project < out[j].Project })
	return out, nil
}

// status reads one project's counts and runs.
func (l *Local) status(ctx context.Context, p *store.Project) (*ProjectStatus, error) {
	st := l.cfg.Store
	c, err := st.Count(ctx, p.Path)
	if err != nil {
		return nil, fmt.Errorf("count %s: %w", p.Path, err)
	}
	s := &ProjectStatus{Project: p.Path, Name: filepath.Base(p.Path), Indexed: true, Embedder: p.Embedder,
		Files: c.Files, Chunks: c.Chunks, Embedded: c.Embedded, Relations: c.Relations, UpdatedAt: p.UpdatedAt.Format(time.RFC3339)}
	if r, ok, err := st.LastRun(ctx, p.Path); err == nil && ok {
		s.LastRun = &r
	}
	if n, total, partial, err := st.Incomplete(ctx, p.Path); err == nil && partial {
		s.IndexedFiles, s.TotalFiles = n, total
	}
	l.mu.Lock()
	if run := l.jobs[p.Path]; run != nil {
		r := *run
		s.Indexing = &r
	}
	l.mu.Unlock()
	return s, nil
}

// embedder returns the (cached) embedder with id.
func (l *Local) embedder(id string) (embed.Embedder, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.embs[id]; ok {
		return e, nil
	}
	e, err := l.cfg.ProjectEmbedder(id)
	if err != nil {
		return nil, fmt.Errorf("embedder %s: %w", id, err)
	}
	l.embs[id] = e
	return e, nil
}

// Search answers from the index as it is: reads never re-index (an index
// run is started by Index, by `coderag index` or by an MCP client).
func (l *Local) Search(ctx context.Context, projects []string, query string, opts search.Options) (*search.MultiResponse, error) {
	if len(projects) == 0 {
		ps, err := l.cfg.Store.Projects(ctx)
		if err != nil {
			return nil, fmt.Errorf("list projects: %w", err)
		}
		for _, p := range ps {
			projects = append(projects, p.Path)
		}
		if len(projects) == 0 {
			return nil, fmt.Errorf("search: nothing is indexed yet: %w", ErrUnknownProject)
		}
	}
	ss := make([]*search.Searcher, 0, len(projects))
	for _, root := range projects {
		p, err := l.project(ctx, root)
		if err != nil {
			return nil, err
		}
		emb, err := l.embedder(p.Embedder)
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", root, err)
		}
		ss = append(ss, &search.Searcher{Store: l.cfg.Store, Embedder: emb, Project: p.Path})
	}
	return search.SearchProjects(ctx, ss, query, opts)
}

// project returns the indexed project at root, or ErrUnknownProject.
func (l *Local) project(ctx context.Context, root string) (*store.Project, error) {
	p, err := l.cfg.Store.GetProject(ctx, root)
	if errors.Is(err, store.ErrNotIndexed) {
		return nil, fmt.Errorf("%s: %w", root, ErrUnknownProject)
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	return p, nil
}

// File reads with tools.Read under the project's root (os.Root confinement).
func (l *Local) File(ctx context.Context, project, path string, offset, limit int) (*tools.ReadResult, error) {
	p, err := l.project(ctx, project)
	if err != nil {
		return nil, err
	}
	return tools.Read(ctx, p.Path, tools.ReadParams{Path: path, Offset: offset, Limit: limit})
}

// Graph walks one level of callers and one of callees through the cached
// resolver of the project.
func (l *Local) Graph(ctx context.Context, project, name string) (*Graph, error) {
	p, err := l.project(ctx, project)
	if err != nil {
		return nil, err
	}
	g := &Graph{Root: p.Path, Query: name}
	err = l.graphs.Use(ctx, l.cfg.Store, p.Path, func(r *relate.Resolver) error {
		if g.Callers, err = r.Callers(name, 1); err != nil {
			return err
		}
		g.Callees, err = r.Callees(name, 1)
		return err
	})
	if err != nil {
		return nil, err
	}
	g.Start = g.Callers.Root
	return g, nil
}

// Index starts a run of root in the background unless one runs already.
func (l *Local) Index(ctx context.Context, dir string) (*ProjectStatus, error) {
	root, err := index.ResolveRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", dir, err)
	}
	var emb embed.Embedder
	p, err := l.cfg.Store.GetProject(ctx, root)
	switch {
	case errors.Is(err, store.ErrNotIndexed):
		if emb, err = l.cfg.NewEmbedder(); err != nil {
			return nil, fmt.Errorf("index %s: embedder: %w", root, err)
		}
	case err != nil:
		return nil, fmt.Errorf("read index: %w", err)
	default:
		if emb, err = l.embedder(p.Embedder); err != nil {
			return nil, fmt.Errorf("index %s: %w", root, err)
		}
	}
	l.mu.Lock()
	if run := l.jobs[root]; run == nil || !run.Running {
		run = &IndexRun{Running: true, Phase: "scan"}
		l.jobs[root] = run
		l.bg.Add(1)
		go l.run(root, emb, run)
	}
	l.mu.Unlock()
	if p == nil {
		l.mu.Lock()
		r := *l.jobs[root]
		l.mu.Unlock()
		return &ProjectStatus{Project: root, Name: filepath.Base(root), Indexing: &r}, nil
	}
	return l.status(ctx, p)
}

// run indexes root, recording progress and the outcome in run.
func (l *Local) run(root string, emb embed.Embedder, run *IndexRun) {
	defer l.bg.Done()
	start := time.Now()
	opts := l.cfg.Index
	opts.Paths = nil
	opts.Progress = func(p index.Progress) {
		l.mu.Lock()
		run.Phase, run.Done, run.Total, run.Scanned, run.ElapsedMS = p.Phase, p.Done, p.Total, p.Scanned, p.Elapsed.Milliseconds()
		l.mu.Unlock()
	}
	rep, err := index.Run(l.life, l.cfg.Store, emb, root, opts)
	l.mu.Lock()
	defer l.mu.Unlock()
	run.Running, run.Phase, run.ElapsedMS, run.Report = false, "done", time.Since(start).Milliseconds(), rep
	if err != nil {
		run.Error = err.Error()
		if l.cfg.Redact != nil {
			run.Error = l.cfg.Redact(run.Error)
		}
	}
}

// Remove drops the project at root and compacts the index file.
func (l *Local) Remove(ctx context.Context, dir string) (*Removed, error) {
	root, err := index.ResolveRoot(dir)
	if err != nil { // a deleted directory is still removed by its path
		if !filepath.IsAbs(dir) {
			return nil, fmt.Errorf("remove %s: give the absolute root: %w", dir, ErrUnknownProject)
		}
		root = filepath.Clean(dir)
	}
	l.mu.Lock()
	if run := l.jobs[root]; run != nil && run.Running {
		l.mu.Unlock()
		return nil, fmt.Errorf("remove %s: %w", root, ErrBusy)
	}
	delete(l.jobs, root)
	for _, w := range []bool{false, true} {
		if s := l.mcps[mcpKey{root, w}]; s != nil {
			s.Close()
			delete(l.mcps, mcpKey{root, w})
		}
	}
	l.mu.Unlock()
	files, err := l.cfg.Store.RemoveProject(ctx, root)
	if errors.Is(err, store.ErrNotIndexed) {
		return nil, fmt.Errorf("remove %s: %w (give the indexed root)", root, ErrUnknownProject)
	}
	if err != nil {
		return nil, fmt.Errorf("remove %s: %w", root, err)
	}
	out := &Removed{Removed: root, Files: files}
	var cerr error
	if out.BytesBefore, out.BytesAfter, cerr = l.cfg.Store.Compact(ctx); cerr != nil {
		out.CompactError = cerr.Error()
	}
	return out, nil
}

// MCP returns the cached MCP server of project, rooted there.
func (l *Local) MCP(project string, write bool) (*sdk.Server, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := mcpKey{project, write}
	if s := l.mcps[k]; s != nil {
		return s.SDKServer(), nil
	}
	s, err := mcp.NewServer(mcp.Config{
		Root:            project,
		WorkDir:         project,
		Store:           l.cfg.Store,
		NewEmbedder:     l.cfg.NewEmbedder,
		ProjectEmbedder: l.cfg.ProjectEmbedder,
		Index:           l.cfg.Index,
		Log:             l.cfg.Log,
		Version:         l.cfg.Version,
		Redact:          l.cfg.Redact,
	})
	if err != nil {
		return nil, err
	}
	if !write {
		s.SDKServer().RemoveTools("index_project")
	}
	l.mcps[k] = s
	return s.SDKServer(), nil
}
