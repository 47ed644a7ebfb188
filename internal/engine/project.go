package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/relate"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
)

// Policy is how a project's index is brought up to date before a question
// about it is answered. Each front end declares one: the CLI Freshen, an
// MCP session that may write Refresh, the server's API and page, read-only
// MCP sessions and the agent AsIs.
type Policy int

const (
	// AsIs answers from the index as it is: nothing is walked or indexed,
	// and nothing is marked stale.
	AsIs Policy = iota
	// Freshen looks for files changed since the last index (Engine.Freshen:
	// a walk and a stat), re-indexes up to FreshMaxFiles of them in place
	// within FreshBudget and marks results from the others stale
	// (search.Result.Stale). The check runs beside the first query.
	Freshen
	// Refresh indexes a project without an index with the configured
	// embedder, or runs an incremental index run of an indexed one unless
	// one ended within Config.Freshness, waiting up to Config.IndexBudget
	// (Engine.Refresh) before Open returns; the run goes on in the
	// background after that.
	Refresh
)

// String names the policy: "as-is", "freshen" or "refresh".
func (p Policy) String() string {
	switch p {
	case Freshen:
		return "freshen"
	case Refresh:
		return "refresh"
	}
	return "as-is"
}

// OpenOptions says how Open finds a project and how fresh it makes it.
type OpenOptions struct {
	// Policy is the freshness policy of every question asked through the
	// handle (default AsIs).
	Policy Policy
	// Enclosing takes the indexed project holding dir, dir itself or its
	// nearest indexed ancestor (the CLI's --project); false: dir must be
	// a project root itself (a root a server lists, an MCP session's root
	// already resolved with Enclosing).
	Enclosing bool
	// Served refuses a root rootrule refuses, whoever indexed it: nothing
	// of such a root is searched or drawn by a server or an MCP session.
	Served bool
	// Tick is called about every second while Refresh waits for an index
	// run (MCP progress notifications); nil: not called.
	Tick func(JobState)
	// Dir is the directory a relative dir is resolved against (a resident
	// client's working directory); "" is this process's. Errors still
	// name dir as given.
	Dir string
}

// Project is a handle on one indexed project, as gopls has a snapshot of a
// view: its root, the embedder it was indexed with and the freshness
// policy of the front end that opened it. Get one from Open or OpenAll;
// it holds no resource beyond the Engine's, and Release ends its use. A
// Project is used by one goroutine at a time.
type Project struct {
	// Root is the project's absolute, symlink-resolved root.
	Root string
	// Embedder is the id ("provider:model") of the embedder the project
	// was indexed with; queries are embedded by it.
	Embedder string
	// Refreshed is what the Refresh policy did before Open returned (the
	// zero value under the other policies).
	Refreshed Refreshed

	eng      *Engine
	row      *store.Project
	searcher *search.Searcher
	opts     OpenOptions
	fresh    *Freshness // what Freshen found; nil before the first check
	freshErr error
	checked  bool // Freshen ran

	other     map[string]bool // files embedded with another text analysis (otherAnalysis)
	otherNote string
	otherDone bool
}

// ErrNotIndexed is store.ErrNotIndexed: no indexed project holds the
// directory (Open), or it has no index yet (Status reports it instead).
var ErrNotIndexed = store.ErrNotIndexed

// Open returns the project of dir. With opts.Enclosing it is dir,
// resolved (rootrule.Resolve), or its nearest indexed ancestor; else dir
// itself, an absolute root as the index stores it (a relative one is
// resolved), which need not exist any more. Under the Refresh policy the
// project is indexed or refreshed first (Engine.Refresh). Errors:
// "project DIR: ..." when dir cannot be resolved, an error wrapping
// rootrule.ErrRefused when opts.Served and the rule refuses the root,
// ErrNotIndexed when no indexed project holds dir (under Refresh: its
// first run has not written the project yet), "read index: ...", or a
// Refresh error (the project cannot be indexed at all). An unavailable
// embedder is Search's error (ErrEmbedderUnavailable), not Open's: the
// graph and the status need none.
func (e *Engine) Open(ctx context.Context, dir string, opts OpenOptions) (*Project, error) {
	at := dir
	if opts.Dir != "" && !filepath.IsAbs(dir) {
		at = filepath.Join(opts.Dir, dir)
	}
	root := filepath.Clean(at)
	if opts.Enclosing || !filepath.IsAbs(at) {
		var err error
		if root, err = rootrule.Resolve(at); err != nil {
			return nil, fmt.Errorf("project %s: %w", dir, err)
		}
	}
	var refreshed Refreshed
	var err error
	if opts.Policy == Refresh {
		if opts.Enclosing {
			root = e.Enclosing(ctx, root)
		}
		if opts.Served {
			if err := e.CheckRoot(ctx, root); err != nil {
				return nil, err
			}
		}
		if refreshed, err = e.Refresh(ctx, root, opts.Tick); err != nil {
			return nil, err
		}
	}
	row, err := e.Find(ctx, root, opts.Enclosing)
	if err != nil {
		return nil, err
	}
	if opts.Served && opts.Policy != Refresh {
		if err := e.CheckRoot(ctx, row.Path); err != nil {
			return nil, err
		}
	}
	p := e.handle(row, opts)
	p.Refreshed = refreshed
	return p, nil
}

// OpenAll returns a handle on every indexed project, in the index's order
// (the index is listed once). With opts.Served the projects rootrule
// refuses are left out and counted in refused. Errors: the index cannot
// be listed, ErrNotIndexed when nothing is indexed, or an error wrapping
// rootrule.ErrRefused when every project is refused. The Refresh policy
// is not applied here: every project listed is indexed already.
func (e *Engine) OpenAll(ctx context.Context, opts OpenOptions) (ps []*Project, refused int, err error) {
	rows, err := e.Projects(ctx)
	if err != nil {
		return nil, 0, err
	}
	if len(rows) == 0 {
		return nil, 0, ErrNotIndexed
	}
	indexed := make([]string, len(rows))
	for i, r := range rows {
		indexed[i] = r.Path
	}
	for i := range rows {
		if opts.Served && rootrule.Check(rows[i].Path, indexed) != nil {
			refused++
			continue
		}
		ps = append(ps, e.handle(&rows[i], opts))
	}
	if len(ps) == 0 {
		return nil, refused, fmt.Errorf("%w: every indexed root (%d) is one the project-root rule refuses", rootrule.ErrRefused, len(rows))
	}
	return ps, refused, nil
}

// handle is the Project of row. Its searcher, with the embedder row was
// indexed with, is built at the first question that needs it.
func (e *Engine) handle(row *store.Project, opts OpenOptions) *Project {
	return &Project{Root: row.Path, Embedder: row.Embedder, eng: e, row: row, opts: opts}
}

// Searcher is the project's searcher, with the embedder it was indexed
// with, for evaluations that override its ranking parameters; the
// freshness policy does not apply to it. Errors: ErrEmbedderUnavailable.
func (p *Project) Searcher() (*search.Searcher, error) {
	if p.searcher != nil {
		return p.searcher, nil
	}
	emb, err := p.eng.ProjectEmbedder(p.Embedder)
	if err != nil {
		return nil, err
	}
	p.searcher = &search.Searcher{Store: p.eng.st, Embedder: emb, Project: p.Root, Analyzer: p.eng.cfg.Analyzer,
		HideSecrets: !p.eng.AllowSecrets(), Warm: p.eng.warm, QueryTimeout: p.eng.cfg.QueryTimeout}
	return p.searcher, nil
}

// Policy is the freshness policy the handle was opened with.
func (p *Project) Policy() Policy { return p.opts.Policy }

// Release ends the use of the handle. The Engine stays open; Release is
// safe to call more than once.
func (p *Project) Release() {}

// Freshness returns what the Freshen policy found and did (nil before the
// first Search, and under the other policies) and the error of that
// check, which Search returned.
func (p *Project) Freshness() (*Freshness, error) { return p.fresh, p.freshErr }

// Search answers query over the project with the embedder it was indexed
// with. Under Freshen the first call checks the tree beside the query
// (both read the index; when files were re-indexed the query runs again,
// with the query's embedding of the first run: search.Options.Vector)
// and marks results from changed files Stale; on an index on a database
// server (store.Store.Remote) the check comes first and the query after
// it, on the one connection, as overlapping them would open a second.
// Under the other policies,
// results from files whose Chinese text was embedded with another text
// analysis than the engine's (a dictionary installed or removed since;
// index.OtherAnalysis) are marked Stale too, and Response.Note says so:
// their vectors and the query's are not comparable until they are indexed
// again. Errors: the freshness check's (the tree cannot be walked) and
// the search's own.
func (p *Project) Search(ctx context.Context, query string, opts search.Options) (*search.Response, error) {
	s, err := p.Searcher()
	if err != nil {
		return nil, err
	}
	if p.opts.Policy == Freshen && !p.checked && p.eng.st.Remote() {
		p.freshen(ctx, s)
		if p.freshErr != nil {
			return nil, p.freshErr
		}
	}
	if p.opts.Policy != Freshen || p.checked {
		resp, err := s.Search(ctx, query, opts)
		if err == nil {
			markStale(resp.Results, p.fresh)
			err = p.markOtherAnalysis(ctx, s, resp)
		}
		return resp, err
	}
	type answer struct {
		resp *search.Response
		err  error
	}
	// the search run again after a refresh reads the query's embedding
	// the first one made (or its failure) instead of embedding it again;
	// it starts after the first returned
	if opts.Vector == nil {
		opts.Vector = &search.QueryVector{}
	}
	early := make(chan answer, 1)
	go func() {
		resp, err := s.Search(ctx, query, opts)
		early <- answer{resp, err}
	}()
	p.freshen(ctx, s)
	a := <-early
	if p.freshErr != nil {
		return nil, p.freshErr
	}
	if p.fresh.Refreshed > 0 {
		a.resp, a.err = s.Search(ctx, query, opts)
	}
	if a.err != nil {
		return nil, a.err
	}
	markStale(a.resp.Results, p.fresh)
	return a.resp, nil
}

// freshen runs the Freshen check once and keeps its outcome.
func (p *Project) freshen(ctx context.Context, s *search.Searcher) {
	if p.checked {
		return
	}
	p.checked = true
	p.fresh, p.freshErr = p.eng.Freshen(ctx, p.row, s.Embedder)
}

// markOtherAnalysis marks the results of resp from files embedded with
// another text analysis than the searcher's embedder's (otherAnalysis)
// Stale and adds a note saying so. Under Freshen it does nothing: Diff
// counts those files as changed, so they are refreshed or marked already.
func (p *Project) markOtherAnalysis(ctx context.Context, s *search.Searcher, resp *search.Response) error {
	if p.opts.Policy == Freshen {
		return nil
	}
	other, note, err := p.otherAnalysis(ctx, s.Embedder)
	if err != nil || len(other) == 0 {
		return err
	}
	marked := false
	for i := range resp.Results {
		if other[resp.Results[i].Path] {
			resp.Results[i].Stale = true
			marked = true
		}
	}
	if marked {
		resp.Note = strings.TrimPrefix(resp.Note+"; "+note, "; ")
	}
	return nil
}

// otherAnalysis returns, read once per handle, the root-relative paths of
// the project's files whose vectors of Chinese text were made with
// another text analysis than emb's (index.OtherAnalysis) and a note
// naming both analyses; nil when emb's vectors depend on none (the
// learned model, remote embedders). Errors: the index cannot be read.
func (p *Project) otherAnalysis(ctx context.Context, emb embed.Embedder) (map[string]bool, string, error) {
	if p.otherDone {
		return p.other, p.otherNote, nil
	}
	now := embed.Analysis(emb)
	if now == "" {
		p.otherDone = true
		return nil, "", nil
	}
	files, err := p.eng.st.Files(ctx, p.Root)
	if err != nil {
		return nil, "", fmt.Errorf("read index: %w", err)
	}
	then := ""
	for path, rec := range files {
		if index.OtherAnalysis(rec.Embedder, emb) {
			if p.other == nil {
				p.other = map[string]bool{}
				then = strings.TrimPrefix(rec.Embedder, emb.ID()+"+")
			}
			p.other[path] = true
		}
	}
	if len(p.other) > 0 {
		files := "files"
		if len(p.other) == 1 {
			files = "file"
		}
		p.otherNote = fmt.Sprintf("%d %s with Chinese text embedded with other text analysis (%s) than this search's (%s): results from them are marked stale until the project is indexed again",
			len(p.other), files, analyze.DescribeIdentity(then), analyze.DescribeIdentity(now))
	}
	p.otherDone = true
	return p.other, p.otherNote, nil
}

// markStale sets Stale on the results whose file f found changed.
func markStale(rs []search.Result, f *Freshness) {
	if f == nil || len(f.Stale) == 0 {
		return
	}
	for i := range rs {
		rs[i].Stale = f.Stale[rs[i].Path]
	}
}

// SearchMany answers query over several projects, each with the embedder
// it was indexed with and under its own policy, merged by relevance by
// search.SearchProjects. Under Freshen each project is checked first (on
// a database server search.MultiParallel at once, on connections opened
// together, Store.Preconnect; on SQLite one after the other); a
// project whose check fails is searched as indexed (its Freshness error
// says why), and results from changed files are marked Stale as Search
// marks them; under the other policies results from files embedded with
// another text analysis are marked Stale, with a note in the project's
// ProjectAnswer, as Search marks them. Errors: no project, or SearchProjects' (every project
// failed, a bad query, ctx).
func (e *Engine) SearchMany(ctx context.Context, ps []*Project, query string, opts search.Options) (*search.MultiResponse, error) {
	ss := make([]*search.Searcher, len(ps))
	byRoot := make(map[string]*Freshness, len(ps))
	for i, p := range ps {
		s, err := p.Searcher()
		if err != nil {
			return nil, fmt.Errorf("project %s: %w", p.Root, err)
		}
		ss[i] = s
	}
	// On a server the checks run MultiParallel at once, on the
	// connections the searches will use after them (opened together
	// here); on SQLite one after the other.
	parallel := 1
	if e.st.Remote() && len(ps) > 1 {
		parallel = min(len(ps), search.MultiParallel)
		e.st.Preconnect(parallel)
	}
	var g errgroup.Group
	g.SetLimit(parallel)
	for i, p := range ps {
		if p.opts.Policy == Freshen {
			g.Go(func() error {
				p.freshen(ctx, ss[i])
				return nil
			})
		}
	}
	g.Wait()
	for _, p := range ps {
		if p.opts.Policy == Freshen {
			byRoot[p.Root] = p.fresh
		}
	}
	resp, err := search.SearchProjects(ctx, ss, query, opts)
	if err != nil {
		return nil, err
	}
	for i := range resp.Results {
		r := &resp.Results[i]
		if f := byRoot[r.Project]; f != nil {
			r.Stale = f.Stale[r.Path]
		}
	}
	for i, p := range ps {
		if p.opts.Policy == Freshen {
			continue
		}
		other, note, err := p.otherAnalysis(ctx, ss[i].Embedder)
		if err != nil {
			return nil, fmt.Errorf("project %s: %w", p.Root, err)
		}
		marked := false
		for j := range resp.Results {
			if r := &resp.Results[j]; r.Project == p.Root && other[r.Path] {
				r.Stale, marked = true, true
			}
		}
		for j := range resp.Projects {
			if a := &resp.Projects[j]; marked && a.Project == p.Root {
				a.Note = strings.TrimPrefix(a.Note+"; "+note, "; ")
			}
		}
	}
	return resp, nil
}

// Graph runs fn with the project's relation resolver (Engine.Graph).
func (p *Project) Graph(ctx context.Context, fn func(*relate.Resolver) error) error {
	return p.eng.Graph(ctx, p.Root, fn)
}

// Describe returns the direct relations of name as a text tree
// (Engine.Describe). Errors: relate.ErrNotFound, relate.ErrAmbiguous, or
// the index's.
func (p *Project) Describe(ctx context.Context, name string) (string, error) {
	return p.eng.Describe(ctx, p.Root, name)
}

// NamesLike returns up to n indexed relation names containing sub, for a
// "did you mean" after relate.ErrNotFound.
func (p *Project) NamesLike(ctx context.Context, sub string, n int) ([]string, error) {
	return p.eng.st.RelationNamesLike(ctx, p.Root, sub, n)
}

// Status is the project's state (Engine.Status).
func (p *Project) Status(ctx context.Context) (*Status, error) {
	return p.eng.Status(ctx, p.Root)
}

// Files returns the project's indexed files by root-relative path.
func (p *Project) Files(ctx context.Context) (map[string]store.FileRecord, error) {
	return p.eng.st.Files(ctx, p.Root)
}

// OlderFiles counts the project's files indexed by an older analysis
// (index.AnalysisVersion), which only a full index run re-analyses.
func (p *Project) OlderFiles(ctx context.Context) (int, error) {
	return p.eng.st.StaleFiles(ctx, p.Root, index.AnalysisVersion)
}

// Find returns the stored project at root (absolute, symlink-resolved)
// or, with enclosing, the one holding it (root or its nearest indexed
// ancestor, rootrule.Enclosing). Errors: ErrNotIndexed when there is
// none, else "read index: ...".
func (e *Engine) Find(ctx context.Context, root string, enclosing bool) (*store.Project, error) {
	if !enclosing {
		p, err := e.st.GetProject(ctx, root)
		if err != nil && !errors.Is(err, ErrNotIndexed) {
			return nil, fmt.Errorf("read index: %w", err)
		}
		return p, err
	}
	rows, err := e.st.Projects(ctx)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	rows = validRoots(rows)
	roots := make([]string, len(rows))
	for i, r := range rows {
		roots[i] = r.Path
	}
	r, ok := rootrule.Enclosing(filepath.Clean(root), roots)
	if !ok {
		return nil, ErrNotIndexed
	}
	for i := range rows {
		if rows[i].Path == r {
			return &rows[i], nil
		}
	}
	return nil, ErrNotIndexed
}

// RemoveTarget returns the project root that a remove of dir means: dir
// itself, made absolute and clean, when the index records a project at
// exactly that path, before any symlink is followed (a checkout replaced
// by a link to another indexed tree is still removed by the name `stats`
// lists, not the link's target); otherwise dir resolved as an index run
// resolves it (rootrule.Resolve), or, for a directory that is gone, its
// path with its parent resolved. ok is false when dir names nothing
// (resolve's error; a relative path that cannot be made absolute).
func (e *Engine) RemoveTarget(ctx context.Context, dir string) (root string, ok bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	abs = filepath.Clean(abs)
	if p, err := e.Find(ctx, abs, false); err == nil && p.Path == abs {
		return abs, true
	}
	if r, err := rootrule.Resolve(dir); err == nil {
		return r, true
	}
	// a deleted directory can still be forgotten by its path, its parent
	// resolved as the index stored it (symlinks followed)
	if parent, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(parent, filepath.Base(abs)), true
	}
	return abs, true
}
