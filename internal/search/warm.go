package search

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
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
// Warm).
//
// All of it, over every project, is bounded by one budget (MaxBytes; see
// DefaultWarmBytes), measured with the same estimates WarmStats reports.
// What would go over it evicts the caches of the least recently searched
// projects, cheapest to gather again first: a new keyword index evicts
// other projects' rows and relations, oldest use first, then its own
// project's, then other projects' keyword indexes, oldest use first; new rows
// and relations evict only other projects' rows and relations (never a
// keyword index, which takes a dump of the whole table to build again),
// and when that is not enough their own project's are emptied and
// gathered again. A keyword index larger than the whole budget is not
// built (its build stops when it reaches the budget) and FTS5 answers
// that project's keyword route. Forget drops a removed project's caches.
//
// The zero value is not usable: use NewWarm. Safe for concurrent use.
type Warm struct {
	// MaxBytes bounds everything w holds over all projects (keyword
	// indexes, chunk rows and relations), in bytes as WarmStats.Bytes
	// counts them. 0 = DefaultWarmBytes. Set it before the first search.
	// A keyword index build in progress is not counted: its transients
	// (the index so far, the id map, the buffers' growth) come on top;
	// a build stops when its index reaches MaxBytes, and one runs at a
	// time over all projects.
	MaxBytes int64
	// MaxRowBytes bounds the chunk rows kept per project (their text and
	// fields, in bytes); when full the rows are dropped and gathered
	// again. 0 = DefaultWarmRowBytes; the budget (MaxBytes) bounds them
	// too.
	MaxRowBytes int64
	// NoKeywords leaves the keyword route to FTS5 (tests compare both).
	NoKeywords bool

	// mu guards everything below and every warmProject's fields: one lock
	// for all projects, so that eviction can weigh and empty any of them
	// (each critical section is map lookups and copies; the keyword
	// search itself runs outside it, over an immutable index).
	mu       sync.Mutex
	projects map[string]*warmProject
	clock    uint64          // use counter: warmProject.used is its value at the last use
	total    int64           // bytes held over all projects (sum of warmProject.bytes)
	building bool            // a keyword index build is running (at most one)
	ctx      context.Context // background builds; Close cancels it
	cancel   context.CancelFunc
	builds   sync.WaitGroup
}

// DefaultWarmBytes is Warm.MaxBytes' default: 256 MiB over all projects.
// It holds the largest tree measured, GOROOT/src (116k chunks), whole:
// its keyword index (41 MiB) and a full row cache (DefaultWarmRowBytes,
// 64 MiB), with room left for the keyword indexes of about a hundred
// net/http-sized projects (1.4 MiB each) or a dozen mid-sized ones, as a
// team server over 15 repositories holds; and it keeps a server's
// resident size within a small machine's memory next to the store's
// vector cache and the page cache SQLite reads through. Past it, least
// recently searched projects lose their caches and answer from the store
// as before Warm, with the same results.
const DefaultWarmBytes = 256 << 20

// DefaultWarmRowBytes is Warm.MaxRowBytes' default: 64 MiB of chunk rows
// per project (net/http's 3,900 chunks are about 5 MiB, a GOROOT/src
// search reads about 1 MiB of rows).
const DefaultWarmRowBytes = 64 << 20

// ErrKeywordsTooLarge is LoadKeywords' error for a keyword index larger
// than the whole budget (Warm.MaxBytes): it is not built, and FTS5
// answers the project's keyword route.
var ErrKeywordsTooLarge = errors.New("keyword index larger than the warm budget")

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

// warmProject is one project's caches, guarded by Warm.mu.
type warmProject struct {
	used uint64 // Warm.clock at the last use (least recently used: lowest)
	// rowsEvicted and kwEvicted count the times the budget evicted its
	// rows and relations, and its keyword index, for another project's.
	rowsEvicted, kwEvicted int
	// kw is the in-memory keyword index, of kw.version, kwBytes its size;
	// nil before the first build ends and after an eviction. kwErr is a
	// build's lasting error (errors.ErrUnsupported, ErrKeywordsTooLarge):
	// no more builds are tried.
	kw      *memKeywords
	kwBytes int64
	kwErr   error
	// builtAt is when the last build ended (or the index was evicted),
	// took how long the last build took: the next build waits rebuildAfter
	// times took after builtAt.
	builtAt time.Time
	took    time.Duration
	// rows are chunk rows of rowsVersion, rowBytes their size. A row is
	// never changed once kept (but for its memo of code lines): searches
	// share it (see chunksByID).
	rowsVersion string
	rows        map[int64]*warmRow
	rowBytes    int64
	// calls are the "calls" relations from each name, of callsVersion,
	// callsBytes their size.
	callsVersion string
	calls        map[string][]store.RelationRow
	callsBytes   int64
}

// bytes is what wp holds, in bytes.
func (wp *warmProject) bytes() int64 { return wp.kwBytes + wp.rowBytes + wp.callsBytes }

// keywordDumper is what the keyword index is built from: a
// *store.Store.
type keywordDumper interface {
	DumpKeywords(ctx context.Context, project string, v store.KeywordVisitor) (store.KeywordStats, error)
}

// budget is w's bound over all projects, in bytes.
func (w *Warm) budget() int64 {
	if w.MaxBytes > 0 {
		return w.MaxBytes
	}
	return DefaultWarmBytes
}

// use returns project's caches, made when missing, and marks them the
// most recently used. w.mu must be held.
func (w *Warm) use(p string) *warmProject {
	wp := w.projects[p]
	if wp == nil {
		wp = &warmProject{}
		w.projects[p] = wp
	}
	w.clock++
	wp.used = w.clock
	return wp
}

// dropRows empties wp's rows and relations. w.mu must be held.
func (w *Warm) dropRows(wp *warmProject) {
	w.total -= wp.rowBytes + wp.callsBytes
	wp.rows, wp.rowBytes = nil, 0
	wp.calls, wp.callsBytes = nil, 0
}

// dropKeywords drops wp's keyword index; its next build waits as after a
// build (rebuildAfter), so that projects searched in turn do not rebuild
// their indexes at every turn. w.mu must be held.
func (w *Warm) dropKeywords(wp *warmProject) {
	w.total -= wp.kwBytes
	wp.kw, wp.kwBytes, wp.builtAt = nil, 0, time.Now()
}

// makeRoom evicts the caches of projects other than wp, least recently
// used first, until n more bytes fit in the budget: their rows and
// relations, then, when keywords is set, their keyword indexes. It
// reports whether n bytes fit now. w.mu must be held.
func (w *Warm) makeRoom(wp *warmProject, n int64, keywords bool) bool {
	max := w.budget()
	for pass := 0; pass < 2 && w.total+n > max; pass++ {
		if pass == 1 && !keywords {
			break
		}
		var victims []*warmProject
		for _, o := range w.projects {
			if o != wp && (pass == 0 && o.rowBytes+o.callsBytes > 0 || pass == 1 && o.kwBytes > 0) {
				victims = append(victims, o)
			}
		}
		sort.Slice(victims, func(i, j int) bool { return victims[i].used < victims[j].used })
		for _, o := range victims {
			if w.total+n <= max {
				break
			}
			if pass == 0 {
				w.dropRows(o)
				o.rowsEvicted++
			} else {
				w.dropKeywords(o)
				o.kwEvicted++
			}
		}
	}
	return w.total+n <= max
}

// putKeywords keeps m as project's keyword index when it is still wp (not
// forgotten) and fits the budget, evicting other projects' rows and
// relations, then wp's own, then other projects' keyword indexes (see
// makeRoom). w.mu must be held.
func (w *Warm) putKeywords(project string, wp *warmProject, m *memKeywords) error {
	wp.builtAt, wp.took = time.Now(), m.took
	if w.projects[project] != wp {
		return nil // forgotten during the build
	}
	n := m.bytes()
	if n > w.budget() {
		return ErrKeywordsTooLarge
	}
	w.total -= wp.kwBytes
	wp.kw, wp.kwBytes = nil, 0
	if !w.makeRoom(wp, n, false) {
		w.dropRows(wp)
		w.makeRoom(wp, n, true) // fits: n is within the budget
	}
	wp.kw, wp.kwBytes = m, n
	w.total += n
	return nil
}

// finishBuild keeps the index m a build of project's wp made, or
// records its error: a lasting one (errors.ErrUnsupported,
// ErrKeywordsTooLarge) ends the project's builds and drops its index.
// It returns err, or putKeywords'. w.mu must be held.
func (w *Warm) finishBuild(project string, wp *warmProject, m *memKeywords, err error) error {
	if err == nil {
		err = w.putKeywords(project, wp, m)
	}
	if (errors.Is(err, errors.ErrUnsupported) || errors.Is(err, ErrKeywordsTooLarge)) && w.projects[project] == wp {
		wp.kwErr = err
		w.total -= wp.kwBytes
		wp.kw, wp.kwBytes = nil, 0
	}
	return err
}

// Forget drops everything w holds of project (a project removed from the
// store: engine.Engine.Remove calls it); a keyword index build of it
// going on is not kept. A later search of project starts again from
// nothing.
func (w *Warm) Forget(project string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if wp := w.projects[project]; wp != nil {
		w.total -= wp.bytes()
		delete(w.projects, project)
	}
}

// LoadKeywords builds project's in-memory keyword index from idx now, and
// waits for it (a benchmark's or a test's warm-up; searches build it in
// the background by themselves); it is kept within the budget as a
// background build's is. Errors: errors.ErrUnsupported when idx cannot be
// read whole (PostgreSQL, a fake, a project in the legacy shared table),
// ErrKeywordsTooLarge when the index would be larger than Warm.MaxBytes,
// the store's.
func (w *Warm) LoadKeywords(ctx context.Context, idx Index, project string) error {
	d, ok := idx.(keywordDumper)
	if !ok {
		return errors.ErrUnsupported
	}
	w.mu.Lock()
	wp := w.use(project)
	w.mu.Unlock()
	m, err := buildMemKeywords(ctx, d, project, w.budget())
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.finishBuild(project, wp, m, err)
}

// WarmStats is what a Warm holds for one project, for diagnostics, the
// benchmark's report and the budget's tests. Sizes are approximate, in
// bytes: what the budget (Warm.MaxBytes) counts.
type WarmStats struct {
	// KeywordVersion is the DataVersion of the keyword index ("" = none).
	KeywordVersion string
	// KeywordBytes is its size in memory, KeywordBuild how long its last
	// build took.
	KeywordBytes int64
	KeywordBuild time.Duration
	// KeywordErr is why no keyword index is built for the project any
	// more (errors.ErrUnsupported, ErrKeywordsTooLarge), nil otherwise.
	KeywordErr error
	// Rows and RowBytes are the chunk rows kept and their size.
	Rows     int
	RowBytes int64
	// RelationNames and RelationBytes are the names whose calls are kept
	// and their size.
	RelationNames int
	RelationBytes int64
	// Bytes is KeywordBytes + RowBytes + RelationBytes.
	Bytes int64
	// RowsEvicted and KeywordsEvicted count the times the budget evicted
	// the project's rows and relations, and its keyword index, to make
	// room for another project's.
	RowsEvicted, KeywordsEvicted int
}

// Stats returns what w holds for project (the zero WarmStats for a
// project never searched or forgotten); it does not count as a use.
func (w *Warm) Stats(project string) WarmStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	wp := w.projects[project]
	if wp == nil {
		return WarmStats{}
	}
	st := WarmStats{Rows: len(wp.rows), RowBytes: wp.rowBytes, RelationNames: len(wp.calls),
		RelationBytes: wp.callsBytes, Bytes: wp.bytes(), RowsEvicted: wp.rowsEvicted, KeywordsEvicted: wp.kwEvicted, KeywordErr: wp.kwErr,
		KeywordBytes: wp.kwBytes, KeywordBuild: wp.took}
	if wp.kw != nil {
		st.KeywordVersion = wp.kw.version
	}
	return st
}

// Bytes returns what w holds over all projects, in bytes (the sum of their
// WarmStats.Bytes): never more than MaxBytes.
func (w *Warm) Bytes() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total
}

// rebuildAfter is how many of its build times a keyword index waits,
// after its build ended, before another build starts: an index run
// changes the version at every commit, and a build per commit would spend
// a core on indexes that are stale when done. Searches meanwhile go to
// FTS5, which is what they did without Warm.
const rebuildAfter = 4

// keywords returns project's keyword index when it is of version, else
// nil, starting a background build when none is going on (in any
// project: one at a time) and the project's last one ended, or its index
// was evicted, long enough ago (rebuildAfter).
func (w *Warm) keywords(idx Index, project, version string) *memKeywords {
	if w.NoKeywords {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	wp := w.use(project)
	if wp.kw != nil && wp.kw.version == version {
		return wp.kw
	}
	d, ok := idx.(keywordDumper)
	if !ok || wp.kwErr != nil || w.building || w.ctx.Err() != nil {
		return nil
	}
	if !wp.builtAt.IsZero() && time.Since(wp.builtAt) < rebuildAfter*wp.took {
		return nil
	}
	w.building = true
	w.builds.Add(1)
	go func() {
		defer w.builds.Done()
		m, err := buildMemKeywords(w.ctx, d, project, w.budget())
		w.mu.Lock()
		defer w.mu.Unlock()
		w.building = false
		w.finishBuild(project, wp, m, err)
		// other errors (cancelled, a busy or damaged database): the next
		// search tries again, and FTS5 answers meanwhile
	}()
	return nil
}

// rowsOf returns the cached rows of ids at version (shared: not to be
// changed) and the ids missing.
func (w *Warm) rowsOf(project, version string, ids []int64) (map[int64]*warmRow, []int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	wp := w.use(project)
	if wp.rowsVersion != version {
		w.total -= wp.rowBytes
		wp.rowsVersion, wp.rows, wp.rowBytes = version, nil, 0
	}
	out := make(map[int64]*warmRow, len(ids))
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

// keepRows adds rows, read at version, to project's cache when it still
// holds that version: a cache at its bound (max bytes) is emptied first,
// and so is it when the budget has no room left after evicting other
// projects' rows and relations.
func (w *Warm) keepRows(project, version string, rows map[int64]*warmRow, max int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	wp := w.projects[project]
	if wp == nil || wp.rowsVersion != version {
		return
	}
	for id, r := range rows {
		if _, ok := wp.rows[id]; ok {
			continue
		}
		n := rowBytes(r)
		if wp.rowBytes+n > max {
			w.total -= wp.rowBytes
			wp.rows, wp.rowBytes = nil, 0
		}
		if !warmPut(w, wp, &wp.rows, &wp.rowBytes, id, r, n) {
			return // the keyword indexes fill the budget
		}
	}
}

// warmPut adds v under k to *m, one of wp's caches holding *used bytes,
// counting its n bytes in *used and in w's total. When the budget has no
// room (makeRoom), the cache is emptied first; false: no room even then
// (the keyword indexes fill the budget), and nothing was added.
func warmPut[K comparable, V any](w *Warm, wp *warmProject, m *map[K]V, used *int64, k K, v V, n int64) bool {
	if !w.makeRoom(wp, n, false) {
		w.total -= *used
		*m, *used = nil, 0
		if !w.makeRoom(wp, n, false) {
			return false
		}
	}
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
	*used += n
	w.total += n
	return true
}

// rowBytes is the approximate size of a cached row: its strings and the
// struct (with its memo of code lines) with its map slot.
func rowBytes(r *warmRow) int64 {
	return int64(len(r.Path)+len(r.Type)+len(r.Name)+len(r.Owner)+len(r.Symbol)+len(r.Params)+
		len(r.Signature)+len(r.Language)+len(r.Doc)+len(r.Content)+len(r.Embedder)) + 400
}

// callsBytes is the approximate size of a cached name's calls: the name
// with its map slot and slice header, and each relation's strings and
// struct.
func callsBytes(name string, rs []store.RelationRow) int64 {
	n := int64(len(name)) + 64
	for _, r := range rs {
		n += int64(len(r.Path)+len(r.From)+len(r.To)+len(r.Kind)) + 96
	}
	return n
}

// callsOf returns the cached calls from names at version, in no order,
// and the names missing (once each).
func (w *Warm) callsOf(project, version string, names []string) ([]store.RelationRow, []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	wp := w.use(project)
	if wp.callsVersion != version {
		w.total -= wp.callsBytes
		wp.callsVersion, wp.calls, wp.callsBytes = version, nil, 0
	}
	total := 0
	for _, n := range names {
		total += len(wp.calls[n])
	}
	out := make([]store.RelationRow, 0, total) // not grown by doubling
	var missing []string
	for _, n := range names {
		if rs, ok := wp.calls[n]; ok {
			out = append(out, rs...)
		} else if !slices.Contains(missing, n) {
			missing = append(missing, n)
		}
	}
	return out, missing
}

// keepCalls adds the calls from each name of by, read at version, to
// project's cache when it still holds that version; a cache of
// maxCachedNames names is emptied first, and so is it when the budget has
// no room left after evicting other projects' rows and relations.
func (w *Warm) keepCalls(project, version string, by map[string][]store.RelationRow) {
	w.mu.Lock()
	defer w.mu.Unlock()
	wp := w.projects[project]
	if wp == nil || wp.callsVersion != version {
		return
	}
	if len(wp.calls)+len(by) > maxCachedNames {
		w.total -= wp.callsBytes
		wp.calls, wp.callsBytes = nil, 0 // bounded: start again
	}
	for name, rs := range by {
		if _, ok := wp.calls[name]; ok {
			continue
		}
		if !warmPut(w, wp, &wp.calls, &wp.callsBytes, name, rs, callsBytes(name, rs)) {
			return // the keyword indexes fill the budget
		}
	}
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
// are kept only when the version has not moved meanwhile. The rows are
// shared with the cache and other searches: callers read them, never
// change them.
func (s *Searcher) chunksByID(ctx context.Context, ids []int64) (map[int64]*warmRow, error) {
	v, ok := readVersion(ctx)
	if s.Warm == nil || !ok {
		rows, err := s.Store.ChunksByID(ctx, ids)
		return rowPointers(rows), err
	}
	out, missing := s.Warm.rowsOf(s.Project, v, ids)
	if len(missing) == 0 {
		return out, nil
	}
	read, err := s.Store.ChunksByID(ctx, missing)
	if err != nil {
		return nil, err
	}
	rows := rowPointers(read)
	for id, r := range rows {
		out[id] = r
	}
	if now, err := s.Store.DataVersion(ctx, s.Project); err == nil && now == v {
		max := s.Warm.MaxRowBytes
		if max <= 0 {
			max = DefaultWarmRowBytes
		}
		s.Warm.keepRows(s.Project, v, rows, max)
	}
	return out, nil
}

// rowPointers returns rows by pointer, as warmRows; nil for nil. Each row
// is its own allocation, so that a row the cache keeps holds no other
// (the budget counts the rows kept).
func rowPointers(rows map[int64]store.ChunkRow) map[int64]*warmRow {
	if rows == nil {
		return nil
	}
	out := make(map[int64]*warmRow, len(rows))
	for id, r := range rows {
		out[id] = &warmRow{ChunkRow: r}
	}
	return out
}

// warmRow is a chunk row as searches share it (the warm row cache, or one
// search's rows), with a memo of its code lines: thin wrappers are looked
// for among every candidate of every search (wrapperCalls), and counting
// a chunk's code lines each time was 8% of a warm search.
type warmRow struct {
	store.ChunkRow
	// lines is 0 before the first count, else (limit+1)<<16 | n, n being
	// codeLinesUpTo(Content, limit).
	lines atomic.Uint32
}

// codeLinesUpTo is codeLinesUpTo(r.Content, limit), counted once per
// limit (the last one asked is kept; limits of 65,535 or more are not).
func (r *warmRow) codeLinesUpTo(limit int) int {
	if limit < 0 || limit >= 1<<16-1 {
		return codeLinesUpTo(r.Content, limit)
	}
	if v := r.lines.Load(); v>>16 == uint32(limit+1) {
		return int(v & 0xffff)
	}
	n := codeLinesUpTo(r.Content, limit) // at most limit+1
	r.lines.Store(uint32(limit+1)<<16 | uint32(n))
	return n
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
	out, missing := s.Warm.callsOf(s.Project, v, names)
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
			s.Warm.keepCalls(s.Project, v, by)
		}
	}
	store.SortRelations(out) // the store's order (relationsBy)
	return out, nil
}
