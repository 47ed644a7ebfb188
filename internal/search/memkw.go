package search

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"modernc.org/libc"

	"github.com/coderag/coderag/internal/store"
)

// memKeywords is a project's full-text index held in memory: the same
// rows, tokens and statistics as its FTS5 table (read whole with
// store.Store.DumpKeywords), scored with FTS5's own bm25 arithmetic, so
// that search answers the keyword route without SQL and with the same
// scores to the last bit (see score). It serves only queries whose every
// term is one token FTS5's unicode61 tokenizer leaves as it is (simpleTerm,
// ASCII case folded); any other query goes to FTS5.
//
// Layout: rows ids ascending (ids) with their token counts (size); per
// token, its document frequency, its IDF and its postings in one shared
// byte slice: per row, the uvarint delta of its index in ids, a byte whose
// bits 0..4 say which columns hold the token, and a uvarint count for each
// of those columns. On GOROOT/src (116k chunks, 18M token instances, 6M
// postings) that is about 4 bytes a posting.
type memKeywords struct {
	version string
	rows    int64   // FTS5's row count (xRowCount)
	avgdl   float64 // tokens / rows, as fts5Bm25GetData computes it
	ids     []int64
	size    []int32
	terms   map[string]int32 // token -> index into post
	post    []memPosting
	data    []byte
	took    time.Duration // how long the build took
	// scratch holds per-query accumulators (memScratch) of len(ids).
	scratch sync.Pool
}

// memPosting is one token's postings: data[start:end] of memKeywords.
type memPosting struct {
	start, end int64
	docs       int64   // rows holding the token (xQueryPhrase's count)
	idf        float64 // FTS5's IDF of the token
}

// memScratch is one query's per-row accumulators, reused across queries:
// acc[d] is valid when stamp[d] == gen.
type memScratch struct {
	acc     []float64
	stamp   []uint32
	gen     uint32
	touched []int32
}

// bytes returns the index's approximate size in memory, in bytes.
func (m *memKeywords) bytes() int64 {
	n := int64(len(m.data)) + int64(len(m.ids))*(8+4) + int64(len(m.post))*32
	for t := range m.terms {
		n += termSize(t)
	}
	return n
}

// termSize is a token's share of bytes: the string, its header, the map
// value and the map's overhead.
func termSize(t string) int64 { return int64(len(t)) + 16 + 4 + 8 }

// buildMemKeywords reads project's full-text index through d and builds
// its in-memory copy, stopping as soon as it holds more than limit bytes
// (as bytes counts them; limit <= 0: no limit). Errors: d's
// (errors.ErrUnsupported when the backend or the project's table cannot
// be read whole), ErrKeywordsTooLarge past limit.
func buildMemKeywords(ctx context.Context, d keywordDumper, project string, limit int64) (*memKeywords, error) {
	start := time.Now()
	m := &memKeywords{terms: map[string]int32{}}
	var termBytes int64 // the terms' share of bytes, kept as they are added
	over := func() bool {
		return limit > 0 && int64(len(m.data))+int64(len(m.ids))*(8+4)+int64(len(m.post))*32+termBytes > limit
	}
	index := map[int64]int32{}
	var (
		term    string // the token being read ("" before the first)
		cur     int32  = -1
		counts  [len(store.KeywordColumns)]uint64
		last    int32 // index in ids of the previous posting of term
		started bool
		p       memPosting
		buf     [binary.MaxVarintLen64]byte
	)
	flushDoc := func() {
		if cur < 0 {
			return
		}
		n := binary.PutUvarint(buf[:], uint64(cur-last))
		m.data = append(m.data, buf[:n]...)
		mask := byte(0)
		for c, k := range counts {
			if k > 0 {
				mask |= 1 << c
			}
		}
		m.data = append(m.data, mask)
		for c, k := range counts {
			if k > 0 {
				n := binary.PutUvarint(buf[:], k)
				m.data = append(m.data, buf[:n]...)
				counts[c] = 0
			}
		}
		last, cur = cur, -1
		p.docs++
	}
	flushTerm := func() {
		flushDoc()
		if !started {
			return
		}
		p.end = int64(len(m.data))
		m.terms[term] = int32(len(m.post))
		m.post = append(m.post, p)
		termBytes += termSize(term)
	}
	st, err := d.DumpKeywords(ctx, project, store.KeywordVisitor{
		Size: func(id int64, tokens int) error {
			index[id] = int32(len(m.ids))
			m.ids = append(m.ids, id)
			m.size = append(m.size, int32(tokens))
			if len(m.ids)%1024 == 0 && over() {
				return ErrKeywordsTooLarge
			}
			return nil
		},
		Instance: func(token string, id int64, col int) error {
			if !started || token != term {
				flushTerm()
				if over() {
					return ErrKeywordsTooLarge
				}
				term, started = strings.Clone(token), true
				p = memPosting{start: int64(len(m.data))}
				last = 0
			}
			d, ok := index[id]
			if !ok {
				return fmt.Errorf("token %q in row %d, which has no size", token, id)
			}
			if d != cur {
				flushDoc()
				cur = d
			}
			counts[col]++
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	flushTerm()
	if over() {
		return nil, ErrKeywordsTooLarge
	}
	m.version, m.rows = st.Version, st.Rows
	if st.Rows > 0 {
		// fts5Bm25GetData: avgdl = (double)nToken / (double)nRow
		m.avgdl = float64(st.Tokens) / float64(st.Rows)
	}
	tls := libc.NewTLS()
	defer tls.Close()
	for i := range m.post {
		m.post[i].idf = fts5IDF(tls, st.Rows, m.post[i].docs)
	}
	m.data = append([]byte(nil), m.data...) // drop the growth slack
	m.took = time.Since(start)
	return m, nil
}

// fts5IDF is fts5Bm25GetData's IDF of a phrase found in nHit of nRow rows:
// log((nRow - nHit + 0.5) / (nHit + 0.5)), at least 1e-6, with the C
// library's log that modernc's SQLite calls (libc.Xlog, musl's), not
// math.Log, whose last bit can differ.
func fts5IDF(tls *libc.TLS, nRow, nHit int64) float64 {
	idf := libc.Xlog(tls, (float64(nRow-nHit)+float64(0.5))/(float64(nHit)+float64(0.5)))
	if idf <= 0.0 {
		idf = float64(1e-06)
	}
	return idf
}

// simpleTerm returns the token FTS5's unicode61 tokenizer (remove_diacritics
// 2) makes of term when it makes exactly one that is term itself up to
// ASCII case: ASCII letters and digits, and ideographs of the CJK Unified
// Ideographs block (U+4E00..U+9FFF, letters in every Unicode version SQLite
// carries, with no case and no diacritics). ok is false for anything else
// (punctuation, '_', accented or other letters, a blank term), which the
// FTS5 route answers.
func simpleTerm(term string) (token string, ok bool) {
	if term == "" {
		return "", false
	}
	upper := false
	for _, r := range term {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 0x4E00 && r <= 0x9FFF:
		default:
			return "", false
		}
	}
	if upper {
		return strings.ToLower(term), true // ASCII only: as unicode61 folds
	}
	return term, true
}

// search is store.Store.KeywordSearch over the in-memory index: the k best
// rows for terms by FTS5's bm25 with column weights w (each term one
// phrase, any may match), Score descending, then id. ok is false when a
// term is not a simpleTerm: the caller asks FTS5.
func (m *memKeywords) search(terms []string, w store.FTSWeights, k int) (out []store.Scored, ok bool) {
	toks := make([]string, len(terms))
	for i, t := range terms {
		if toks[i], ok = simpleTerm(t); !ok {
			return nil, false
		}
	}
	if len(toks) == 0 || k == 0 || m.rows <= 0 {
		return nil, true
	}
	weights := [len(store.KeywordColumns)]float64{w.Name, w.Owner, w.Path, w.Doc, w.Body}
	sc, _ := m.scratch.Get().(*memScratch)
	if sc == nil {
		sc = &memScratch{acc: make([]float64, len(m.ids)), stamp: make([]uint32, len(m.ids))}
	}
	defer m.scratch.Put(sc)
	sc.gen++
	if sc.gen == 0 { // wrapped: every stamp could look current
		clear(sc.stamp)
		sc.gen = 1
	}
	sc.touched = sc.touched[:0]
	// fts5Bm25Function's constants and arithmetic, term by term: for one
	// row its phrases are added in query order, as there (an absent
	// phrase adds +0, which changes nothing)
	const k1, b = float64(1.2), float64(0.75)
	for _, tok := range toks {
		pi, found := m.terms[tok]
		if !found {
			continue
		}
		p := m.post[pi]
		data := m.data[p.start:p.end]
		d := int32(0)
		for i := 0; i < len(data); {
			delta, n := binary.Uvarint(data[i:])
			i += n
			d += int32(delta)
			mask := data[i]
			i++
			// xInst reports a phrase's instances in position order, so
			// column by column: each adds its column's weight
			f := float64(0)
			for c := range weights {
				if mask&(1<<c) == 0 {
					continue
				}
				cnt, n := binary.Uvarint(data[i:])
				i += n
				for ; cnt > 0; cnt-- {
					f += weights[c]
				}
			}
			D := float64(m.size[d])
			t := float64(p.idf * (float64(f*(k1+float64(1))) / (f + float64(k1*(float64(1)-b+float64(b*D)/m.avgdl)))))
			if sc.stamp[d] != sc.gen {
				sc.stamp[d], sc.acc[d] = sc.gen, 0
				sc.touched = append(sc.touched, d)
			}
			sc.acc[d] = sc.acc[d] + t
		}
	}
	if len(sc.touched) == 0 {
		return nil, true
	}
	// ORDER BY -score, rowid LIMIT k: a min-heap of the k best
	if k < 0 || k > len(sc.touched) {
		k = len(sc.touched)
	}
	h := make(scoredMinHeap, 0, k)
	for _, d := range sc.touched {
		s := store.Scored{ID: m.ids[d], Score: sc.acc[d]}
		if len(h) < k {
			h.push(s)
		} else if better(s, h[0]) {
			h[0] = s
			h.down()
		}
	}
	// best first: what popping the heap gives, since (score, id) orders
	// the rows totally
	out = []store.Scored(h)
	slices.SortFunc(out, func(a, b store.Scored) int {
		switch {
		case better(a, b):
			return -1
		case better(b, a):
			return 1
		}
		return 0
	})
	return out, true
}

// push is heap.Push(h, s) without its interface calls: the same moves.
func (h *scoredMinHeap) push(s store.Scored) {
	*h = append(*h, s)
	x := *h
	for j := len(x) - 1; j > 0; {
		i := (j - 1) / 2
		if !x.Less(j, i) {
			break
		}
		x[i], x[j] = x[j], x[i]
		j = i
	}
}

// down is heap.Fix(h, 0) after the root was replaced by a better row (it
// can only move down), without the interface calls: the same moves.
func (h scoredMinHeap) down() {
	for i, n := 0, len(h); ; {
		j := 2*i + 1
		if j >= n {
			break
		}
		if j2 := j + 1; j2 < n && h.Less(j2, j) {
			j = j2
		}
		if !h.Less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// better reports whether a ranks before b: higher score, then lower id.
func better(a, b store.Scored) bool {
	return a.Score > b.Score || a.Score == b.Score && a.ID < b.ID
}

// scoredMinHeap keeps the k best of a stream: its root is the worst kept.
type scoredMinHeap []store.Scored

// Less orders the heap: the worse row first.
func (h scoredMinHeap) Less(i, j int) bool { return better(h[j], h[i]) }
