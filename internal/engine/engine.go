// Package engine owns a project's index at run time: the open store, the
// embedders (the configured one, and the one each project was indexed
// with), one index job per project root with its progress and freshness,
// the relation-graph resolver cache and the store's vector cache.
//
// Every front end is an adapter over an Engine: the CLI subcommands, the
// REPL, `ask`, `index --watch`, the MCP server and the tool registry
// (internal/toolset). The engine sits below them and above index, search,
// relate, store and embed; it imports none of cli, mcp, agent or toolset.
//
// A short-lived command opens an Engine, makes one query and closes it; a
// long-lived front end (MCP, REPL, a server) sets Config.LongLived so the
// store keeps each project's vectors in memory between queries.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/relate"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
)

// DefaultIndexBudget is how long Engine.Refresh and a tool call wait for an
// index run before answering and leaving the run in the background.
const DefaultIndexBudget = 20 * time.Second

// Config configures an Engine. Either DBPath or Store is required.
type Config struct {
	// UnmappedReads opens DBPath for a process that indexes and does not
	// search (`coderag index`): its SQLite readers do not memory-map the
	// file (store.WithUnmappedReads).
	UnmappedReads bool
	// DBPath is the index database Open opens (creating it); the Engine
	// closes it. Ignored when Store is set.
	DBPath string
	// Store is an index database opened by the caller, who closes it after
	// the Engine.
	Store *store.Store
	// Embedders builds the engine's embedders: the configured one and
	// the one each project was indexed with (FromOptions, Fixed in
	// tests). Nil: FromOptions of the built-in local embedder.
	Embedders Embedders
	// Analyzer is the engine's text analysis (the glossary and, when
	// installed, CC-CEDICT), built once by the front end: every query is
	// analysed by it, and an embedder of FromOptions whose options carry
	// no Analyzer is given it, so index runs and queries translate Chinese
	// text alike. Embedders built by Fixed must be given the same one.
	// nil: the glossary only.
	Analyzer *analyze.Analyzer
	// Index holds Threads and BatchSize for index runs; Progress, Paths
	// and OnWait are set per run.
	Index index.Options
	// IndexBudget bounds how long Refresh waits for a run (default
	// DefaultIndexBudget); the run goes on in the background after it.
	IndexBudget time.Duration
	// Freshness is how long a finished whole-project run is trusted by
	// Refresh without another incremental run (0: always refresh; a
	// no-change run costs one walk and stat of the tree).
	Freshness time.Duration
	// LongLived turns the store's in-memory vector cache on, and gives
	// every searcher the engine's search.Warm (in-memory keyword index,
	// chunk rows and relations, keyed by each project's data version): set
	// it in processes that answer many queries (MCP, REPL, a server).
	LongLived bool
	// WarmBytes bounds what the search.Warm of LongLived holds over all
	// projects, in bytes (search.Warm.MaxBytes); 0 = search.DefaultWarmBytes.
	WarmBytes int64
	// Log receives diagnostics of index runs; nil discards them.
	Log *slog.Logger
	// QueryTimeout bounds the embedding of each search's query
	// (search.Searcher.QueryTimeout, config.Embedding.QueryTimeout); 0 =
	// config.DefaultQueryTimeout. Index runs are not bounded by it.
	QueryTimeout time.Duration
}

// Engine is the run-time state of one index database and the projects in
// it. It is safe for concurrent use. Create it with Open or New and end it
// with Close.
type Engine struct {
	cfg     Config
	st      *store.Store
	ownsSt  bool
	log     *slog.Logger
	life    context.Context // background index runs use it; cancelled by Close
	stop    context.CancelFunc
	bg      sync.WaitGroup
	closeMu sync.Once

	jobMu sync.Mutex
	jobs  map[string]*job // by project root

	embMu sync.Mutex
	embs  map[string]embed.Embedder // project embedders by id

	graphs relate.Cache

	// warm is the searchers' in-memory caches under Config.LongLived;
	// nil otherwise.
	warm *search.Warm
}

// Open opens cfg.DBPath (creating the database) and returns an Engine that
// closes it on Close. Errors: no path, or the store's open error.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Store != nil {
		return New(cfg)
	}
	if cfg.DBPath == "" {
		return nil, errors.New("open engine: no index database path")
	}
	if cfg.UnmappedReads {
		ctx = store.WithUnmappedReads(ctx)
	}
	st, err := store.Open(ctx, cfg.DBPath)
	if err != nil {
		return nil, err
	}
	cfg.Store = st
	e, err := New(cfg)
	if err != nil {
		st.Close()
		return nil, err
	}
	e.ownsSt = true
	return e, nil
}

// New returns an Engine over cfg.Store, which the caller keeps and closes
// after the Engine. Errors: no store.
func New(cfg Config) (*Engine, error) {
	if cfg.Store == nil {
		return nil, errors.New("new engine: no store")
	}
	if cfg.IndexBudget <= 0 {
		cfg.IndexBudget = DefaultIndexBudget
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Embedders == nil {
		cfg.Embedders = FromOptions(embed.Options{Provider: "local"}, nil)
	}
	if o, ok := cfg.Embedders.(optionsEmbedders); ok && o.o.Analyzer == nil && cfg.Analyzer != nil {
		o.o.Analyzer = cfg.Analyzer
		cfg.Embedders = o
	}
	e := &Engine{cfg: cfg, st: cfg.Store, log: cfg.Log, jobs: map[string]*job{}, embs: map[string]embed.Embedder{}}
	e.life, e.stop = context.WithCancel(context.Background())
	if cfg.LongLived {
		e.st.CacheVectors(true)
		e.warm = search.NewWarm()
		e.warm.MaxBytes = cfg.WarmBytes
	}
	return e, nil
}

// Close cancels background index runs (each committed batch stays), waits
// for them to end, and closes the store when Open opened it. It is safe to
// call more than once.
func (e *Engine) Close() error {
	var err error
	e.closeMu.Do(func() {
		e.stop()
		e.bg.Wait()
		if e.warm != nil {
			e.warm.Close()
		}
		if e.ownsSt {
			err = e.st.Close()
		}
	})
	return err
}

// Warm returns the searchers' in-memory caches under Config.LongLived
// (their sizes per project: search.Warm.Stats, over all projects:
// search.Warm.Bytes), nil otherwise.
func (e *Engine) Warm() *search.Warm { return e.warm }

// AllowSecrets reports whether files whose names look like secrets are
// indexed, read, searched and listed (Config.Index.AllowSecrets): the
// tools of every front end over the engine follow it.
func (e *Engine) AllowSecrets() bool { return e.cfg.Index.AllowSecrets }

// CheckRoot reports whether root may be a project (index.CheckRoot over
// the engine's store): nil, or an error wrapping rootrule.ErrRefused that
// names the rule. Front ends call it before starting an index run (which
// checks again) and before serving anything of a project.
func (e *Engine) CheckRoot(ctx context.Context, root string) error {
	return index.CheckRoot(ctx, e.st, root)
}

// IndexBudget is how long a caller waits for an index run before leaving
// it in the background (Config.IndexBudget).
func (e *Engine) IndexBudget() time.Duration { return e.cfg.IndexBudget }

// Analyzer is the engine's text analysis (Config.Analyzer; nil: the
// glossary only), for front ends that report it (stats, doctor, the
// dictionary note of a Chinese query).
func (e *Engine) Analyzer() *analyze.Analyzer { return e.cfg.Analyzer }

// NewEmbedder builds the configured embedder (Config.Embedders). It is
// the embedder of every index run asked for (Start with no
// IndexRequest.Embedder: `coderag index`, index_project, POST /api/index)
// and of a project's first run under Refresh; queries and refreshes of an
// indexed project use the embedder it was indexed with (ProjectEmbedder).
func (e *Engine) NewEmbedder() (embed.Embedder, error) { return e.cfg.Embedders.Configured() }

// ProjectEmbedder returns the embedder a project was indexed with, rebuilt
// from its stored id "provider:model" once and cached: queries are always
// embedded by it. Errors say the project's embedder is unavailable.
func (e *Engine) ProjectEmbedder(id string) (embed.Embedder, error) {
	e.embMu.Lock()
	defer e.embMu.Unlock()
	if emb, ok := e.embs[id]; ok {
		return emb, nil
	}
	emb, err := e.cfg.Embedders.ForID(id)
	if err != nil {
		if !errors.Is(err, ErrEmbedderUnavailable) {
			err = unavailable{fmt.Errorf("embedder %s: %w", id, err)}
		}
		return nil, err
	}
	e.embs[id] = emb
	return emb, nil
}

// ProjectEmbedder rebuilds the embedder of stored id "provider:model" with
// provider.FromID: URL and key come from configured only when it names the
// same provider. The error says the project's embedder is unavailable.
func ProjectEmbedder(id string, configured embed.Options) (embed.Embedder, error) {
	emb, err := provider.FromID(id, configured)
	if err != nil {
		if OutdatedBuiltin(id) {
			// a built-in model of another version: nothing to install,
			// the next index run embeds every file with this one
			return nil, unavailable{fmt.Errorf("this project was indexed with %s, which this version no longer carries; index it again to embed it with %s:%s (%w)",
				id, static.Provider, static.ModelName, err)}
		}
		return nil, unavailable{fmt.Errorf("this project was indexed with %s, which is unavailable: %w", id, err)}
	}
	return emb, nil
}

// OutdatedBuiltin reports whether id ("provider:model") names a built-in
// learned model this build does not carry: the local provider, a model
// name other than static.ModelName and not a hashing model. Such an index
// was built by an earlier coderag; its next whole run embeds every file
// again.
func OutdatedBuiltin(id string) bool {
	p, m := embed.ParseID(id)
	return p == static.Provider && m != "" && m != static.ModelName && !strings.HasPrefix(m, "hashing-")
}

// ErrEmbedderUnavailable is matched (errors.Is) by the errors of
// ProjectEmbedder, and so of Open: the embedder a project was indexed
// with cannot be built here, so its queries cannot be embedded.
var ErrEmbedderUnavailable = errors.New("the project's embedder is unavailable")

// unavailable is an error of ProjectEmbedder: its text as it is, and
// ErrEmbedderUnavailable to errors.Is.
type unavailable struct{ error }

func (u unavailable) Unwrap() error { return u.error }

func (unavailable) Is(target error) bool { return target == ErrEmbedderUnavailable }

// Enclosing returns the indexed project holding dir (an absolute,
// symlink-resolved directory; Find with enclosing), or dir itself when
// none does or the index cannot be read: a root inside an indexed project
// is that project.
func (e *Engine) Enclosing(ctx context.Context, dir string) string {
	if p, err := e.Find(ctx, filepath.Clean(dir), true); err == nil {
		return p.Path
	}
	return dir
}

// Graph runs fn with the relation resolver of the project at root, loaded
// once and kept until the index changes (relate.Cache); calls through one
// Engine run one at a time. ctx applies to the load and to fn's queries.
func (e *Engine) Graph(ctx context.Context, root string, fn func(*relate.Resolver) error) error {
	return e.graphs.Use(ctx, e.st, root, fn)
}

// Describe returns the direct relations of name in the project at root as
// a text tree. Errors: relate.ErrNotFound, relate.ErrAmbiguous, or the
// index's.
func (e *Engine) Describe(ctx context.Context, root, name string) (string, error) {
	return e.graphs.Describe(ctx, e.st, root, name)
}
