package search

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/coderag/coderag/internal/store"
)

// Warm is what a long-lived process (coderag serve, the MCP server, the
// REPL; engine.Config.LongLived) keeps in memory between searches, per
// project, so that a warm search reads next to nothing from the store:
//
//   - the project's full-text index (memKeywords), built in the
//     background from one read snapshot of the FTS5 table and scored with
//     FTS5's own bm25 arithmetic, so the keyword route returns the same
//     chunks with the same scores as FTS5;
//   - the chunk rows searches read (ChunksByID), decoded, up to
//     MaxRowBytes per project;
//   - the "calls" relations of the names searches asked for (the delegate
//     stage's wrappers).
//
// Everything is keyed by the project's store.Store.DataVersion, which every
// write of the project changes in its own transaction: a search at another
// version than a cache's does not use it (the keyword route goes to FTS5
// while the index is rebuilt behind it; rows and relations are read again
// and the old ones dropped). So an index run, a --watch re-index or
// Freshen's in-place re-index is seen by the next search, and no search
// answers from a cache of another version than the one it read first (a
// write during the search makes Search run again, as it does without
// Warm). The zero value is not usable: use NewWarm. Safe for concurrent
// use.
type Warm struct {
	// MaxRowBytes bounds the chunk rows kept per project (their text and
	// fields, in bytes); when full the rows are dropped and gathered
	// again. 0 = DefaultWarmRowBytes.
	MaxRowBytes int64
	// NoKeywords leaves the keyword route to FTS5 (tests compare both).
	NoKeywords bool

	mu       sync.Mutex
	projects map[string]*warmProject
	ctx      context.Context // background builds; Close cancels it
	cancel   context.CancelFunc
	builds   sync.WaitGroup
}

// DefaultWarmRowBytes is Warm.MaxRowBytes' default: 64 MiB of chunk rows
// per project (net/http's 3,900 chunks are about 5 MiB, a GOROOT/src
// search reads about 1 MiB of rows).
const DefaultWarmRowBytes = 64 << 20

// NewWarm returns an empty Warm.
func NewWarm() *Warm {
	ctx, cancel := context.WithCancel(context.Background())
	return &Warm{projects: map[string]*warmProject{}, ctx: ctx, cancel: cancel}
}

// Close cancels the keyword index builds going on and waits for them; a
// search after Close goes to the store. Safe to call more than once.
func (w *Warm) Close() {
	w.cancel()
	w.builds.Wait()
}

// warmProject is one project's caches.
type warmProject struct {
	mu sync.Mutex
	// kw is the in-memory keyword index, of kw.version; nil before the
	// first build ends. kwErr is a build's lasting error
	// (errors.ErrUnsupported): no more builds are tried.
	kw       *memKeywords
	kwErr    error
	building bool
	builtAt  time.Time // when the last build ended
	// rows are chunk rows of rowsVersion, rowBytes their size.
	rowsVersion string
	rows        map[int64]store.ChunkRow
	rowBytes    int64
	// calls are the "calls" relations from each name, of callsVersion.
	callsVersion string
	calls        map[string][]store.RelationRow
}

// keywordDumper is what the keyword index is built from: a
// *store.Store.
type keywordDumper interface {
	DumpKeywords(ctx context.Context, project string, v store.KeywordVisitor) (store.KeywordStats, error)
}

func (w *Warm) project(p string) *warmProject {
	w.mu.Lock()
	defer w.mu.Unlock()
	wp := w.projects[p]
	if wp == nil {
		wp = &warmProject{}
		w.projects[p] = wp
	}
	return wp
}

// LoadKeywords builds project's in-memory keyword index from idx now, and
// waits for it (a benchmark's or a test's warm-up; searches build it in
// the background by themselves). Errors: errors.ErrUnsupported when idx
// cannot be read whole (PostgreSQL, a fake, a project in the legacy shared
// table), the store's.
func (w *Warm) LoadKeywords(ctx context.Context, idx Index, project string) error {
	d, ok := idx.(keywordDumper)
	if !ok {
		return errors.ErrUnsupported
	}
	m, err := buildMemKeywords(ctx, d, project)
	if err != nil {
		return err
	}
	wp := w.project(project)
	wp.mu.Lock()
	wp.kw, wp.builtAt = m, time.Now()
	wp.mu.Unlock()
	return nil
}

// WarmStats is what a Warm holds for one project, for diagnostics and
// the benchmark's report.
type WarmStats struct {
	// KeywordVersion is the DataVersion of the keyword index ("" = none).
	KeywordVersion string
	// KeywordBytes is its approximate size in memory, KeywordBuild how
	// long its build took.
	KeywordBytes int64
	KeywordBuild time.Duration
	// Rows and RowBytes are the chunk rows kept and their size in bytes.
	Rows     int
	RowBytes int64
}

// Stats returns what w holds for project.
func (w *Warm) Stats(project string) WarmStats {
	wp := w.project(project)
	wp.mu.Lock()
	defer wp.mu.Unlock()
	st := WarmStats{Rows: len(wp.rows), RowBytes: wp.rowBytes}
	if wp.kw != nil {
		st.KeywordVersion, st.KeywordBytes, st.KeywordBuild = wp.kw.version, wp.kw.bytes(), wp.kw.took
	}
	return st
}

// rebuildAfter is how many of its build times a keyword index waits,
// after its build ended, before another build starts: an index run
// changes the version at every commit, and a build per commit would spend
// a core on indexes that are stale when done. Searches meanwhile go to
// FTS5, which is what they did without Warm.
const rebuildAfter = 4

// keywords returns project's keyword index when it is of version, else
// nil, starting a background build when none is going on and the last one
// ended long enough ago (rebuildAfter).
func (w *Warm) keywords(idx Index, project, version string) *memKeywords {
	if w.NoKeywords {
		return nil
	}
	wp := w.project(project)
	wp.mu.Lock()
	defer wp.mu.Unlock()
	if wp.kw != nil && wp.kw.version == version {
		return wp.kw
	}
	d, ok := idx.(keywordDumper)
	if !ok || wp.kwErr != nil || wp.building || w.ctx.Err() != nil {
		return nil
	}
	if wp.kw != nil && time.Since(wp.builtAt) < rebuildAfter*wp.kw.took {
		return nil
	}
	wp.building = true
	w.builds.Add(1)
	go func() {
		defer w.builds.Done()
		m, err := buildMemKeywords(w.ctx, d, project)
		wp.mu.Lock()
		defer wp.mu.Unlock()
		wp.building = false
		switch {
		case err == nil:
			wp.kw, wp.builtAt = m, time.Now()
		case errors.Is(err, errors.ErrUnsupported):
			wp.kwErr = err
		}
		// other errors (cancelled, a busy or damaged database): the next
		// search tries again, and FTS5 answers meanwhile
	}()
	return nil
}

// rowsOf returns the cached rows of ids at version and the ids missing.
func (wp *warmProject) rowsOf(version string, ids []int64) (map[int64]store.ChunkRow, []int64) {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	if wp.rowsVersion != version {
		wp.rowsVersion, wp.rows, wp.rowBytes = version, nil, 0
	}
	out := make(map[int64]store.ChunkRow, len(ids))
	var missing []int64
	for _, id := range ids {
		if r, ok := wp.rows[id]; ok {
			out[id] = r
		} else {
			missing = append(missing, id)
		}
	}
	return out, missing
}

// keepRows adds rows, read at version, to the cache when it still holds
// that version; a full cache (max bytes) is emptied first.
func (wp *warmProject) keepRows(version string, rows map[int64]store.ChunkRow, max int64) {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	if wp.rowsVersion != version {
		return
	}
	for id, r := range rows {
		n := rowBytes(r)
		if wp.rowBytes+n > max {
			wp.rows, wp.rowBytes = nil, 0
		}
		if wp.rows == nil {
			wp.rows = map[int64]store.ChunkRow{}
		}
		if _, ok := wp.rows[id]; !ok {
			wp.rows[id] = r
			wp.rowBytes += n
		}
	}
}

// rowBytes is the approximate size of a cached row: its strings and the
// struct with its map slot.
func rowBytes(r store.ChunkRow) int64 {
	return int64(len(r.Path)+len(r.Type)+len(r.Name)+len(r.Owner)+len(r.Symbol)+len(r.Params)+
		len(r.Signature)+len(r.Language)+len(r.Doc)+len(r.Content)+len(r.Embedder)) + 400
}

// maxCachedNames bounds the names whose calls a project keeps (a few
// thin wrappers a search; each entry holds their relation rows).
const maxCachedNames = 20000

// versionKey is the context key of the DataVersion a search read first
// (Searcher.Search), which the warm caches are keyed by.
type versionKey struct{}

// readVersion returns the DataVersion Search put in ctx; ok is false
// outside a search (no cache is used then).
func readVersion(ctx context.Context) (string, bool) {
	v, ok := ctx.Value(versionKey{}).(string)
	return v, ok
}

// keywordSearch is the keyword route: from the Warm's in-memory index
// when it is of the search's version and every term is simple, else
// Store.KeywordSearch. Both give the same chunks and scores.
func (s *Searcher) keywordSearch(ctx context.Context, terms []string, w store.FTSWeights, k int) ([]store.Scored, error) {
	if s.Warm != nil {
		if v, ok := readVersion(ctx); ok {
			if m := s.Warm.keywords(s.Store, s.Project, v); m != nil {
				if out, ok := m.search(terms, w, k); ok {
					return out, nil
				}
			}
		}
	}
	return s.Store.KeywordSearch(ctx, s.Project, terms, w, k)
}

// chunksByID is Store.ChunksByID through the Warm's row cache: rows of the
// search's version are kept, and only the missing ones are read; rows read
// are kept only when the version has not moved meanwhile.
func (s *Searcher) chunksByID(ctx context.Context, ids []int64) (map[int64]store.ChunkRow, error) {
	v, ok := readVersion(ctx)
	if s.Warm == nil || !ok {
		return s.Store.ChunksByID(ctx, ids)
	}
	wp := s.Warm.project(s.Project)
	out, missing := wp.rowsOf(v, ids)
	if len(missing) == 0 {
		return out, nil
	}
	rows, err := s.Store.ChunksByID(ctx, missing)
	if err != nil {
		return nil, err
	}
	for id, r := range rows {
		out[id] = r
	}
	if now, err := s.Store.DataVersion(ctx, s.Project); err == nil && now == v {
		max := s.Warm.MaxRowBytes
		if max <= 0 {
			max = DefaultWarmRowBytes
		}
		wp.keepRows(v, rows, max)
	}
	return out, nil
}

// callsFrom is Store.RelationsFrom(project, names, ["calls"]) through the
// Warm's relation cache, in the store's order (path, line, kind, from,
// to).
func (s *Searcher) callsFrom(ctx context.Context, names []string) ([]store.RelationRow, error) {
	kinds := []string{"calls"}
	v, ok := readVersion(ctx)
	if s.Warm == nil || !ok {
		return s.Store.RelationsFrom(ctx, s.Project, names, kinds)
	}
	wp := s.Warm.project(s.Project)
	var out []store.RelationRow
	var missing []string
	wp.mu.Lock()
	if wp.callsVersion != v {
		wp.callsVersion, wp.calls = v, map[string][]store.RelationRow{}
	}
	for _, n := range names {
		if rs, ok := wp.calls[n]; ok {
			out = append(out, rs...)
		} else if !slices.Contains(missing, n) {
			missing = append(missing, n)
		}
	}
	wp.mu.Unlock()
	if len(missing) > 0 {
		rels, err := s.Store.RelationsFrom(ctx, s.Project, missing, kinds)
		if err != nil {
			return nil, err
		}
		out = append(out, rels...)
		if now, err := s.Store.DataVersion(ctx, s.Project); err == nil && now == v {
			by := make(map[string][]store.RelationRow, len(missing))
			for _, n := range missing {
				by[n] = nil // a name without calls is cached too
			}
			for _, r := range rels {
				by[r.From] = append(by[r.From], r)
			}
			wp.mu.Lock()
			if len(wp.calls) > maxCachedNames {
				wp.calls = map[string][]store.RelationRow{} // bounded: start again
			}
			if wp.callsVersion == v {
				for n, rs := range by {
					wp.calls[n] = rs
				}
			}
			wp.mu.Unlock()
		}
	}
	// the store's order (relationsBy)
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.From != b.From {
			return a.From < b.From
		}
		return a.To < b.To
	})
	return out, nil
}
