package store

import (
	"cmp"
	"container/heap"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coderag/coderag/internal/vec"
)

// Scored is a chunk id with a retrieval score (higher is better).
type Scored struct {
	ID    int64
	Score float64
}

// scoredHeap is a min-heap on Score used for top-k selection.
type scoredHeap []Scored

func (h scoredHeap) Len() int { return len(h) }
func (h scoredHeap) Less(i, j int) bool {
	return h[i].Score < h[j].Score || (h[i].Score == h[j].Score && h[i].ID > h[j].ID)
}
func (h scoredHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *scoredHeap) Push(x any)   { *h = append(*h, x.(Scored)) }
func (h *scoredHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// TopKCosine returns the k chunks of project embedded by embedder (its id)
// with the highest cosine similarity to q, best first. Vectors are
// L2-normalised, so cosine is the dot product, taken with the stored
// int8 codes (vector.go): the cosine to the quantised vector. A stored vector whose
// dimension differs from len(q) is an error (the index was built by another
// embedder). With CacheVectors on, the project's vectors are kept in memory
// and reloaded only when the project's DataVersion changes; otherwise they are
// streamed from code_vectors, one row per file.
func (s *Store) TopKCosine(ctx context.Context, project, embedder string, q []float32, k int) ([]Scored, error) {
	if s.cacheOn.Load() {
		vs, err := s.vectors(ctx, project, embedder)
		if err != nil {
			return nil, err
		}
		if vs.dim != 0 && vs.dim != len(q) {
			return nil, dimError(vs.dim, len(q))
		}
		return vs.topK(q, k, scanParts(len(vs.ids))), nil
	}
	h := make(scoredHeap, 0, max(k, 0)+1)
	err := s.eachVector(ctx, project, embedder, func(id int64, blob []byte) error {
		if blobDim(blob) != len(q) {
			return dimError(blobDim(blob), len(q))
		}
		h.offer(Scored{ID: id, Score: float64(dotBlob(q, blob))}, k)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]Scored, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Scored)
	}
	return out, nil
}

// scanPartRows is the fewest cached vectors a part of a parallel scan
// (vectorSet.topK) gets: below it a goroutine costs more than it saves. On
// GOROOT/src (116k vectors of 256 int8 codes) the scan was 76% of a warm
// search's CPU, about 12 ms.
const scanPartRows = 32768

// scanParts is how many parts a scan of n cached vectors is split into:
// one per CPU the Go scheduler may use, at most one per scanPartRows rows.
func scanParts(n int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n/scanPartRows))
}

// topK returns the k rows of vs with the highest scale × DotCodes(q, codes),
// best first, ties by ascending id: the rows are split into parts
// contiguous runs, each scanned by its own goroutine into its own top-k
// heap, and the parts' heaps merged. Every row's score is computed as in
// a one-part scan and (score, id) orders the rows totally, so the result
// does not depend on parts.
func (vs *vectorSet) topK(q []float32, k, parts int) []Scored {
	if k <= 0 {
		return []Scored{}
	}
	n := len(vs.ids)
	parts = max(1, min(parts, n))
	heaps := make([]scoredHeap, parts)
	dim := vs.dim
	scan := func(p int) {
		h := make(scoredHeap, 0, k+1)
		i, end := p*n/parts, (p+1)*n/parts
		// four rows a pass (vec.DotCodes4: DotCodes' sums, in one SIMD
		// pass on amd64), then the rest one by one
		var d [4]float32
		for ; i+4 <= end; i += 4 {
			vec.DotCodes4(q, vs.data[i*dim:(i+4)*dim], dim, &d)
			for r, x := range d {
				h.offer(Scored{ID: vs.ids[i+r], Score: float64(vs.scale[i+r] * x)}, k)
			}
		}
		for ; i < end; i++ {
			h.offer(Scored{ID: vs.ids[i], Score: float64(vs.scale[i] * vec.DotCodes(q, vs.data[i*dim:(i+1)*dim]))}, k)
		}
		heaps[p] = h
	}
	if parts == 1 {
		scan(0) // a small project: no goroutine
	} else {
		var wg sync.WaitGroup
		for p := 0; p < parts; p++ {
			wg.Add(1)
			go func() { defer wg.Done(); scan(p) }()
		}
		wg.Wait()
	}
	h := heaps[0]
	for _, o := range heaps[1:] {
		for _, sc := range o {
			h.offer(sc, k)
		}
	}
	// best first: what popping the heap gives, since (score, id) orders
	// the rows totally
	out := []Scored(h)
	slices.SortFunc(out, func(a, b Scored) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// offer keeps sc in h when h holds fewer than k entries or sc beats its
// worst (a higher score, or the same score and a lower id).
func (h *scoredHeap) offer(sc Scored, k int) {
	if k <= 0 {
		return
	}
	// heap.Push and heap.Fix(h, 0), without their interface calls: the
	// same moves
	s := *h
	if len(s) < k {
		s = append(s, sc)
		for j := len(s) - 1; j > 0; {
			i := (j - 1) / 2
			if !s.Less(j, i) {
				break
			}
			s[i], s[j] = s[j], s[i]
			j = i
		}
		*h = s
	} else if sc.Score > s[0].Score || (sc.Score == s[0].Score && sc.ID < s[0].ID) {
		s[0] = sc
		for i, n := 0, len(s); ; {
			j := 2*i + 1
			if j >= n {
				break
			}
			if j2 := j + 1; j2 < n && s.Less(j2, j) {
				j = j2
			}
			if !s.Less(j, i) {
				break
			}
			s[i], s[j] = s[j], s[i]
			i = j
		}
	}
}

// eachVector calls fn with every vector of project embedded by embedder
// (chunk id and the vector in the one-vector format, valid during the
// call only), reading one code_vectors row per file (vector.go). An error
// of fn stops the scan and is returned.
//
// On SQLite the rows are read in place (eachRowInPlace): the packs (3.6 MB
// on GOROOT/src/runtime) are not copied into a new Go buffer per row as a
// scan through database/sql copies them, which was most of a cold search's
// vector route.
func (s *Store) eachVector(ctx context.Context, project, embedder string, fn func(id int64, blob []byte) error) error {
	const cols, from = `v.n, v.ids, v.vecs`, `indexed_files f
		JOIN code_vectors v ON v.file_id = f.id WHERE f.project_path=? AND v.embedder=?`
	if ok, err := s.eachRowInPlace(ctx, cols, from, []any{project, embedder},
		func(vals []driver.Value) error {
			n, _ := vals[0].(int64)
			return unpack(int(n), BlobArg(vals[1]), BlobArg(vals[2]), fn)
		}); ok {
		return err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+cols+` FROM `+from, project, embedder)
	if err != nil {
		return err
	}
	defer rows.Close()
	var ids, vecs sql.RawBytes
	var n int
	for rows.Next() {
		if err := rows.Scan(&n, &ids, &vecs); err != nil {
			return err
		}
		if err := unpack(n, ids, vecs, fn); err != nil {
			return err
		}
	}
	return rows.Err()
}

// eachRowInPlace runs `SELECT cols FROM from` with args through the
// backend's in-place scan (Backend.EachRowInPlace); ok is false when the
// backend has none (PostgreSQL), and the caller scans through
// database/sql.
func (s *Store) eachRowInPlace(ctx context.Context, cols, from string, args []any, fn func(vals []driver.Value) error) (ok bool, err error) {
	err = s.b.EachRowInPlace(ctx, cols, from, args, fn)
	if errors.Is(err, errors.ErrUnsupported) {
		return false, nil
	}
	return true, err
}

// BlobArg is a BLOB (or TEXT) value's bytes, as a driver hands it to an
// SQL function or a raw row; nil for NULL.
func BlobArg(v driver.Value) []byte {
	switch b := v.(type) {
	case []byte:
		return b
	case string:
		return []byte(b)
	}
	return nil
}

// TextArg is a TEXT (or BLOB) value as a string, a view when it is TEXT;
// "" for NULL.
func TextArg(v driver.Value) string {
	switch b := v.(type) {
	case string:
		return b
	case []byte:
		return string(b)
	}
	return ""
}

// ErrDimMismatch: the stored vectors and the query's have different
// dimensions (the embedding server changed its model, or sent vectors of
// another size, behind the same embedder name).
var ErrDimMismatch = errors.New("vector dimensions differ")

func dimError(stored, query int) error {
	return fmt.Errorf("%w: stored vectors have dimension %d, the query has %d: run `coderag index` to embed the project again", ErrDimMismatch, stored, query)
}

// CosineByID returns the cosine similarity of q to the stored vectors of the
// given chunks (those embedded by embedder), best first; chunks without a
// vector are left out. It reads only those rows, so it is cheap where a full
// scan (TopKCosine) is not. With CacheVectors on, it scores from the
// project's cached vectors instead of reading rows.
func (s *Store) CosineByID(ctx context.Context, project, embedder string, ids []int64, q []float32) ([]Scored, error) {
	var out []Scored
	if s.cacheOn.Load() {
		// a warm process scores from the project's cached vectors
		vs, err := s.vectors(ctx, project, embedder)
		if err != nil {
			return nil, err
		}
		if vs.dim != 0 && vs.dim != len(q) {
			return nil, dimError(vs.dim, len(q))
		}
		vs.indexOnce.Do(func() {
			vs.index = make(map[int64]int, len(vs.ids))
			for i, id := range vs.ids {
				vs.index[id] = i
			}
		})
		for _, id := range ids {
			if i, ok := vs.index[id]; ok {
				out = append(out, Scored{ID: id, Score: float64(vs.scale[i] * vec.DotCodes(q, vs.data[i*vs.dim:(i+1)*vs.dim]))})
			}
		}
		sortScored(out)
		return out, nil
	}
	want := make(map[int64]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	seen := map[int64]bool{}
	for start := 0; start < len(ids); start += 500 {
		part := ids[start:min(start+500, len(ids))]
		in, inArgs := s.b.IDsIn("c.id", part)
		args := append([]any{embedder}, inArgs...)
		// the rows of the files that hold the chunks; each is read once,
		// by the first part that names one of its chunks
		rows, err := s.db.QueryContext(ctx, `SELECT v.file_id, v.n, v.ids, v.vecs FROM code_vectors v
			WHERE v.embedder=? AND v.file_id IN (SELECT c.file_id FROM code_chunks c
				WHERE `+in+`)`, args...)
		if err != nil {
			return nil, err
		}
		var vids, vecs sql.RawBytes
		var file int64
		var n int
		for rows.Next() {
			if err := rows.Scan(&file, &n, &vids, &vecs); err != nil {
				rows.Close()
				return nil, err
			}
			if seen[file] {
				continue
			}
			seen[file] = true
			err := unpack(n, vids, vecs, func(id int64, blob []byte) error {
				if !want[id] {
					return nil
				}
				if blobDim(blob) != len(q) {
					return dimError(blobDim(blob), len(q))
				}
				out = append(out, Scored{ID: id, Score: float64(dotBlob(q, blob))})
				return nil
			})
			if err != nil {
				rows.Close()
				return nil, err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	sortScored(out)
	return out, nil
}

// sortScored orders by score descending, then id ascending.
func sortScored(out []Scored) {
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
}

// vectorSet is one project's vectors held in memory as stored (see
// vector.go): row i is scale[i] times the int8 codes data[i*dim:(i+1)*dim]
// and belongs to chunk ids[i], dim+4 bytes a vector.
type vectorSet struct {
	version string
	loaded  time.Time     // when the load ended
	took    time.Duration // how long the load took
	ids     []int64
	dim     int
	data    []byte
	scale   []float32
	// index maps an id to its row, built on first use by CosineByID
	indexOnce sync.Once
	index     map[int64]int
}

// CachingVectors reports whether the in-memory vector cache is on.
func (s *Store) CachingVectors() bool { return s.cacheOn.Load() }

// CacheVectors turns the in-memory vector cache on or off; long-lived
// processes (MCP server, REPL, eval) turn it on (engine.Config.LongLived).
func (s *Store) CacheVectors(on bool) {
	s.vmu.Lock()
	s.cacheOn.Store(on)
	if !on {
		s.cache = nil
	}
	s.vmu.Unlock()
}

// vectorLoad is a load of one project's vectors going on: the others
// asking for them meanwhile wait for it, or take the set it replaces.
type vectorLoad struct {
	done chan struct{}
	vs   *vectorSet
	err  error
}

// Reloads of the vector cache. An index run changes a project's
// DataVersion at every commit, and a set is as large as the project
// (GOROOT/src: 600 MB). Reloading it for every search after every commit,
// one search after the other, is what took a server to 3.7 GB and 22 s
// searches during an index run. So a set is loaded by one search at a
// time, without holding the cache's lock, the others go on with the set
// it replaces; a set that was slow to load (staleAfter) is kept a while
// (staleFor) before a changed version reloads it, and then reloaded in
// the background, the search that saw the change going on with it too. A search can then
// miss vectors written in the last moments of an index run, never see a
// removed chunk (callers drop ids whose rows are gone), and memory holds
// at most two sets per project: the one in use and the one being loaded.
const (
	// staleAfter: a set that took at least this long to load may be
	// used stale; smaller ones are always reloaded at once.
	staleAfter = 50 * time.Millisecond
	// staleFor is how many of its load times a slow set is used stale.
	staleFor = 4
)

// versionRead is the context key of a project's DataVersion as a caller
// read it (WithDataVersion).
type versionRead struct{ project string }

// WithDataVersion returns ctx carrying version as project's DataVersion,
// read by the caller (a search reads it once, first, and runs again when
// it has moved by the end). The cached vectors (CacheVectors) of that
// version then answer TopKCosine and CosineByID without reading the
// version again; a cached set of any other version is checked against the
// version read from the store, as without it.
func WithDataVersion(ctx context.Context, project, version string) context.Context {
	return context.WithValue(ctx, versionRead{project}, version)
}

// vectors returns the cached vectors of project by embedder, loading them
// when the project's DataVersion has changed (see above for when a stale
// set is returned instead). A set of the version ctx carries
// (WithDataVersion) is returned without reading the version.
func (s *Store) vectors(ctx context.Context, project, embedder string) (*vectorSet, error) {
	key := project + "\x00" + embedder
	if v, ok := ctx.Value(versionRead{project}).(string); ok {
		// the caller read the version already: a set of that version
		// answers without reading it again
		s.vmu.Lock()
		old := s.cache[key]
		s.vmu.Unlock()
		if old != nil && old.version == v {
			return old, nil
		}
	}
	version, err := s.DataVersion(ctx, project)
	if err != nil {
		return nil, err
	}
	s.vmu.Lock()
	old := s.cache[key]
	if old != nil && (old.version == version ||
		old.took >= staleAfter && time.Since(old.loaded) < staleFor*old.took) {
		s.vmu.Unlock()
		return old, nil
	}
	if l := s.loading[key]; l != nil {
		s.vmu.Unlock()
		if old != nil {
			return old, nil
		}
		select {
		case <-l.done:
			if l.err != nil && ctx.Err() == nil {
				return s.vectors(ctx, project, embedder) // the loader's error (its cancel), not ours: load
			}
			return l.vs, l.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	l := &vectorLoad{done: make(chan struct{})}
	if s.loading == nil {
		s.loading = map[string]*vectorLoad{}
	}
	s.loading[key] = l
	s.vmu.Unlock()
	load := func(ctx context.Context) {
		l.vs, l.err = s.loadVectors(ctx, project, embedder, version)
		s.vmu.Lock()
		delete(s.loading, key)
		if l.err == nil && s.cacheOn.Load() {
			if s.cache == nil {
				s.cache = map[string]*vectorSet{}
			}
			s.cache[key] = l.vs
		}
		s.vmu.Unlock()
		close(l.done)
	}
	if old != nil && old.took >= staleAfter {
		// a slow set is reloaded behind the searches, which go on with
		// the one it replaces: none waits for the load
		go load(context.WithoutCancel(ctx))
		return old, nil
	}
	load(ctx)
	return l.vs, l.err
}

// loadVectors reads the vectors of project by embedder at version into
// one array, sized by a count first so it is not grown by doubling.
func (s *Store) loadVectors(ctx context.Context, project, embedder, version string) (*vectorSet, error) {
	start := time.Now()
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT CAST(coalesce(sum(v.n), 0) AS BIGINT) FROM indexed_files f
		JOIN code_vectors v ON v.file_id = f.id WHERE f.project_path=? AND v.embedder=?`, project, embedder).Scan(&n); err != nil {
		return nil, err
	}
	vs := &vectorSet{version: version, ids: make([]int64, 0, n), scale: make([]float32, 0, n)}
	err := s.eachVector(ctx, project, embedder, func(id int64, blob []byte) error {
		d := blobDim(blob)
		if d <= 0 {
			return dimError(d, vs.dim)
		}
		if vs.dim == 0 {
			vs.dim = d
			vs.data = make([]byte, 0, n*d) // rows added since the count grow it
		} else if d != vs.dim {
			return dimError(d, vs.dim)
		}
		vs.ids = append(vs.ids, id)
		vs.scale = append(vs.scale, blobScale(blob))
		vs.data = appendCodes(vs.data, blob)
		return nil
	})
	if err != nil {
		return nil, err
	}
	vs.loaded = time.Now()
	vs.took = vs.loaded.Sub(start)
	return vs, nil
}

// FTSWeights are the BM25 column weights of chunks_fts.
type FTSWeights struct{ Name, Owner, Path, Doc, Body float64 }

// LikeSearch is the seed ranker's keyword route: chunks of project whose name or
// content contains keyword, case-insensitively for ASCII (SQLite LIKE), with
// '%', '_' and '\' escaped (LIKE ... ESCAPE '\'). At most limit rows: chunks
// whose name matches first (by id), then chunks whose content matches (by
// id), so the cut is deterministic and the scan stops early.
func (s *Store) LikeSearch(ctx context.Context, project, keyword string, limit int) ([]ChunkRow, error) {
	pat := "%" + likeEscape(keyword) + "%"
	like := s.b.Like()
	rows, err := s.db.QueryContext(ctx, `SELECT `+chunkCols+` FROM `+chunkFrom+`
		WHERE f.project_path=? AND c.name `+like+` ? ESCAPE '\' ORDER BY c.id LIMIT ?`, project, pat, limit)
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	out, err := scanChunks(rows)
	rows.Close()
	if err != nil || len(out) >= limit {
		return out, err
	}
	rows, err = s.db.QueryContext(ctx, `SELECT `+chunkCols+` FROM `+chunkFrom+`
		WHERE f.project_path=? AND `+s.b.ContentText("c.content")+` `+like+` ? ESCAPE '\' AND NOT (c.name `+like+` ? ESCAPE '\') ORDER BY c.id LIMIT ?`,
		project, pat, pat, limit-len(out))
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	more, err := scanChunks(rows)
	return append(out, more...), err
}

// chunkCols are the columns scanChunks reads, from chunkFrom.
const chunkCols = `c.id, f.file_path, c.chunk_type, c.name, c.owner, c.symbol, c.params, c.signature, c.language, c.doc,
	c.start_line, c.end_line, c.decl_end_line, c.start_byte, c.end_byte, c.content, f.embedding_model`

// chunkFrom joins a chunk (c) to its file (f), for its path.
const chunkFrom = `code_chunks c JOIN indexed_files f ON f.id = c.file_id`

// scanChunks returns the chunks of rows (columns chunkCols) and closes rows.
func scanChunks(rows *sql.Rows) ([]ChunkRow, error) { return collect(rows, scanChunk) }

// chunkFromValues is the chunk of one row of chunkCols read in place
// (eachRowInPlace), its texts copied, its chunk text and doc comment
// inflated (DecodeChunkText) and its name's parts read (DecodeNamePart).
// Errors: a damaged chunk text or name part.
func chunkFromValues(v []driver.Value) (ChunkRow, error) {
	str := func(i int) string { return strings.Clone(TextArg(v[i])) }
	num := func(i int) int { n, _ := v[i].(int64); return int(n) }
	id, _ := v[0].(int64)
	c := ChunkRow{ID: id, Path: str(1), Type: str(2), Name: str(3), Owner: str(4), Language: str(8),
		StartLine: num(10), EndLine: num(11), DeclEndLine: num(12), StartByte: num(13), EndByte: num(14), Embedder: str(16)}
	// a text part is a view: copied; a BLOB part is read, not kept
	part := func(i int) any {
		if s, ok := v[i].(string); ok {
			return strings.Clone(s)
		}
		return v[i]
	}
	if err := c.decodeParts(part(5), part(6), part(7)); err != nil {
		return ChunkRow{}, err
	}
	content, doc := TextArg(v[15]), TextArg(v[9])
	if strings.HasPrefix(content, contentMark) {
		var err error
		if c.Content, c.Doc, err = DecodeChunkText(content, ""); err != nil {
			return ChunkRow{}, fmt.Errorf("chunk %d: %w", id, err)
		}
		if c.Doc == "" { // not stored with the text: the column's
			c.Doc = strings.Clone(doc)
		}
	} else {
		c.Content, c.Doc = strings.Clone(content), strings.Clone(doc)
	}
	return c, nil
}

// decodeParts sets c's Symbol, Params and Signature from their stored
// values (DecodeNamePart), which share c.Name's memory. Errors: a damaged
// part, naming the chunk.
func (c *ChunkRow) decodeParts(symbol, params, signature any) error {
	var err [3]error
	c.Symbol, err[0] = DecodeNamePart(c.Name, symbol)
	c.Params, err[1] = DecodeNamePart(c.Name, params)
	c.Signature, err[2] = DecodeNamePart(c.Name, signature)
	if e := errors.Join(err[:]...); e != nil {
		return fmt.Errorf("chunk %d: %w", c.ID, e)
	}
	return nil
}

// scanChunk scans one row of chunkCols, its chunk text and doc comment
// inflated (DecodeChunkText) and its name's parts read (DecodeNamePart).
// Errors: the driver's, or a damaged chunk text or name part.
func scanChunk(rows *sql.Rows) (ChunkRow, error) {
	var c ChunkRow
	err := rows.Scan(&c.ID, &c.Path, &c.Type, &c.Name, &c.Owner, &partScan{&c.Name, &c.Symbol}, &partScan{&c.Name, &c.Params},
		&partScan{&c.Name, &c.Signature}, &c.Language, &c.Doc, &c.StartLine, &c.EndLine, &c.DeclEndLine, &c.StartByte, &c.EndByte,
		&c.Content, &c.Embedder)
	if err != nil {
		return c, err
	}
	if c.Content, c.Doc, err = DecodeChunkText(c.Content, c.Doc); err != nil {
		err = fmt.Errorf("chunk %d: %w", c.ID, err)
	}
	return c, err
}

// partScan scans a stored symbol, params or signature column into *dst:
// the part of *name it holds (DecodeNamePart), where name is a column
// scanned before it in the same row (database/sql scans in column order).
// The value is read in the call, not kept: a BLOB's bytes are the
// driver's.
type partScan struct{ name, dst *string }

// Scan sets *p.dst from src. Errors: a damaged part.
func (p *partScan) Scan(src any) error {
	var err error
	*p.dst, err = DecodeNamePart(*p.name, src)
	return err
}

// ChunksByID returns the chunks with the given ids (without vectors), keyed by id.
func (s *Store) ChunksByID(ctx context.Context, ids []int64) (map[int64]ChunkRow, error) {
	out := make(map[int64]ChunkRow, len(ids))
	for start := 0; start < len(ids); start += 500 {
		end := min(start+500, len(ids))
		part := ids[start:end]
		in, args := s.b.IDsIn("c.id", part)
		in = ` WHERE ` + in
		// read in place where the backend can: each text is copied once,
		// into the row kept
		ok, err := s.eachRowInPlace(ctx, chunkCols, chunkFrom+in, args, func(v []driver.Value) error {
			c, err := chunkFromValues(v)
			out[c.ID] = c
			return err
		})
		if err != nil {
			return nil, err
		}
		if ok {
			continue
		}
		rows, err := s.db.QueryContext(ctx, `SELECT `+chunkCols+` FROM `+chunkFrom+in, args...)
		if err != nil {
			return nil, err
		}
		// scanned straight into the map (made at its size): a ChunkRow
		// is 300 bytes, and a slice grown row by row and then copied into
		// the map moved each several times, in memory touched for the
		// first time
		err = eachRow(rows, func() error {
			c, err := scanChunk(rows)
			if err != nil {
				return err
			}
			out[c.ID] = c
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// FileVectors returns the stored vectors of one file's chunks, by chunk
// id, each in the one-vector format of EncodeVector (DecodeVector reads
// it); an empty map for a file without vectors.
func (s *Store) FileVectors(ctx context.Context, project, path string) (map[int64][]byte, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT v.n, v.ids, v.vecs FROM indexed_files f
		JOIN code_vectors v ON v.file_id = f.id WHERE f.project_path=? AND f.file_path=?`, project, path)
	if err != nil {
		return nil, fmt.Errorf("vectors of %s: %w", path, err)
	}
	defer rows.Close()
	out := map[int64][]byte{}
	for rows.Next() {
		var n int
		var ids, vecs []byte
		if err := rows.Scan(&n, &ids, &vecs); err != nil {
			return nil, fmt.Errorf("vectors of %s: %w", path, err)
		}
		if err := unpack(n, ids, vecs, func(id int64, blob []byte) error {
			out[id] = blob
			return nil
		}); err != nil {
			return nil, fmt.Errorf("vectors of %s: %w", path, err)
		}
	}
	return out, rows.Err()
}
