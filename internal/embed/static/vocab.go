package static

import (
	"encoding/binary"
	"hash/maphash"
	"iter"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"
)

// table is the model as an Embedder reads it. For a decoded Model
// (NewFromModel) its slices are the Model's; for the built-in model (New)
// every part is a view of the embedded file: the weights are read from
// their little-endian bytes on access, and the vocabulary index is built at
// the first lookup that needs it. The first query of a process needs none:
// its words are looked up by one scan of the vocabulary (resolve). So New
// costs a header parse, and a one-shot search touches only the words, rows
// and weights of its query. (A cold search used to decode the whole file
// first: 80,000 strings and three float tables of 84,096 values copied into
// new memory and an index built over them, 15 ms of its CPU; the index
// alone, 1.3 MB of new memory filled in random order, was still 5 ms.)
type table struct {
	name                string
	dim, nvocab         int
	buckets             int
	wdoc, wquery, scale f32s   // nvocab+buckets values each
	rows                []int8 // (nvocab+buckets)·dim
	// words is the vocabulary in the file's layout: nvocab × (uvarint
	// length + bytes), in row order; it must not change.
	words []byte

	index atomic.Pointer[vocabIndex] // nil until built (vocab)
	mu    sync.Mutex                 // builds the index; guards known and scans
	// known holds the rows of the words resolve looked up (-1: not in
	// the vocabulary) while the index is not built; scans counts the
	// scans resolve made (at most maxScans).
	known map[string]int32
	scans int
}

// queryScans and poolScans bound the scans of the vocabulary resolve makes
// in a process before the index is built instead: one for a one-shot
// search's query, and one more for its candidates' words
// (MaxSim.ScoreAll), each a fifth of an index's cost. A second query
// builds the index.
const (
	queryScans = 1
	poolScans  = 2
)

// f32s is a table of float32 values: decoded (v), or little-endian bytes
// (b) decoded on access, so a view of the embedded file needs neither a
// copy nor 4-byte alignment (the built-in file's tables start at an offset
// of 2 mod 4).
type f32s struct {
	v []float32
	b []byte
}

// at is value i.
func (t f32s) at(i int32) float32 {
	if t.v != nil {
		return t.v[i]
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(t.b[4*int(i):]))
}

// modelTable is the table of a decoded model; its words are m.Vocab
// written out in the file's layout.
func modelTable(m *Model) *table {
	var words []byte
	for _, w := range m.Vocab {
		words = binary.AppendUvarint(words, uint64(len(w)))
		words = append(words, w...)
	}
	return &table{name: m.Name, dim: m.Dim, nvocab: len(m.Vocab), buckets: m.Buckets,
		wdoc: f32s{v: m.WDoc}, wquery: f32s{v: m.WQuery}, scale: f32s{v: m.Scale}, rows: m.Rows, words: words}
}

// viewTable is the table of a weights file, every part a view of data
// (which must not change): the header is parsed and the sizes checked,
// nothing is copied and the checksum is not verified (TestBuiltinChecksum
// verifies the built-in file's, and TestBuiltinView that this view reads
// what Decode decodes).
func viewTable(data []byte) (*table, error) {
	if len(data) < len(magic)+4+32 || string(data[:len(magic)]) != magic {
		return nil, badWeights("no magic")
	}
	h, err := parseHeader(data[len(magic) : len(data)-32])
	if err != nil {
		return nil, err
	}
	n := h.nvocab + h.buckets
	tables := 3*4*n + n*h.dim
	if len(h.rest) < tables+h.nvocab {
		return nil, badWeights("truncated vocabulary")
	}
	words, p := h.rest[:len(h.rest)-tables], h.rest[len(h.rest)-tables:]
	return &table{name: h.name, dim: h.dim, nvocab: h.nvocab, buckets: h.buckets,
		wdoc: f32s{b: p[:4*n]}, wquery: f32s{b: p[4*n : 8*n]}, scale: f32s{b: p[8*n : 12*n]},
		rows: unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(p[12*n:]))), n*h.dim), words: words}, nil
}

// vocab returns the vocabulary index, built on first use.
func (t *table) vocab() *vocabIndex {
	if x := t.index.Load(); x != nil {
		return x
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if x := t.index.Load(); x != nil {
		return x
	}
	x := newVocabIndex(t.words, t.nvocab)
	t.index.Store(x)
	t.known = nil
	return x
}

// lookup returns the row of word and whether it is in the vocabulary:
// from the index when it is built, else from what resolve found, else
// from the index, built now.
func (t *table) lookup(word string) (int32, bool) {
	if x := t.index.Load(); x != nil {
		return x.lookup(word)
	}
	t.mu.Lock()
	r, ok := t.known[word]
	t.mu.Unlock()
	if ok {
		return r, r >= 0
	}
	return t.vocab().lookup(word)
}

// resolve looks words up by one scan of the vocabulary, for the lookups
// that follow, when the index is not built and fewer than limit resolves
// scanned before (queryScans, poolScans): the first query of a process (a one-shot
// search embeds one) reads the vocabulary once instead of building the
// index, about a fifth of the cost, and so do the words of its
// candidates (MaxSim.ScoreAll). Words resolved before are not looked for
// again. A word listed twice resolves to its last row, as in the index.
// Later queries build the index at their first word resolve did not find,
// as it pays for itself within a few queries.
func (t *table) resolve(words []string, limit int) {
	if t.index.Load() != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.index.Load() != nil || t.scans >= limit {
		return
	}
	want := make(map[string]int32, len(words)+len(t.known))
	var lens uint64     // bit l: a word of l bytes is wanted (l < 64)
	var first [4]uint64 // bit b: a word starting with byte b is wanted
	for _, w := range words {
		if _, ok := t.known[w]; ok {
			continue
		}
		want[w] = -1
		lens |= 1 << min(len(w), 63)
		if w != "" {
			first[w[0]>>6] |= 1 << (w[0] & 63)
		}
	}
	if len(want) == 0 {
		return // every word is known: no scan
	}
	t.scans++
	p := t.words
	for r := 0; r < t.nvocab && len(p) > 0; r++ {
		l, k := int(p[0]), 1
		if l >= 0x80 { // a length of more than one byte: the slow path
			w, n := readWord(p)
			if n == 0 {
				break
			}
			l, k = len(w), n-len(w)
		}
		if k+l > len(p) {
			break
		}
		// most words have a length or a first byte no query word has:
		// skipped unread
		if lens&(1<<min(l, 63)) != 0 && (l == 0 || first[p[k]>>6]&(1<<(p[k]&63)) != 0) {
			w := ""
			if l > 0 {
				w = unsafe.String(&p[k], l)
			}
			if _, ok := want[w]; ok {
				want[w] = int32(r)
			}
		}
		p = p[k+l:]
	}
	for w, r := range t.known {
		want[w] = r
	}
	t.known = want
}

// eachWord yields each vocabulary word with its row, in row order, read
// from the file's layout (no index needed). The strings alias t.words.
func (t *table) eachWord() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		p := t.words
		for r := 0; r < t.nvocab; r++ {
			w, k := readWord(p)
			if k == 0 {
				return
			}
			p = p[k:]
			if !yield(r, w) {
				return
			}
		}
	}
}

// readWord reads one uvarint-prefixed word at the start of p, aliasing p,
// and the bytes it took; 0 when p holds no whole word.
func readWord(p []byte) (string, int) {
	l, k := binary.Uvarint(p)
	if k <= 0 || uint64(len(p)-k) < l {
		return "", 0
	}
	return unsafe.String(unsafe.SliceData(p[k:]), int(l)), k + int(l)
}

// vocabIndex maps a vocabulary word to its row: an open-addressing table
// (linear probing, at most half full) of row+1 values, 0 for an empty slot,
// over the words in the file's layout, each found through its offset. It
// replaces a map[string]int32, whose 80,000 inserts were most of a cold
// search's model load (23 ms a load in BenchmarkLoad), and then a []string
// of the words, whose 1.3 MB of new memory cost more than the table; the
// build reads each word once, hashes it and writes two int32s. A word
// listed twice maps to its last row, as the map did.
type vocabIndex struct {
	words []byte
	offs  []uint32 // offs[r]: where row r's word (its length) starts in words
	slots []int32
	mask  uint64
	seed  maphash.Seed
}

// newVocabIndex indexes the n words of words (the file's layout). Rows past
// the end of a truncated layout are the empty word.
func newVocabIndex(words []byte, n int) *vocabIndex {
	size := uint64(1)
	for size < 2*uint64(n)+1 {
		size <<= 1
	}
	x := &vocabIndex{words: words, offs: make([]uint32, n), slots: make([]int32, size), mask: size - 1, seed: maphash.MakeSeed()}
	off := 0
	for i := range n {
		x.offs[i] = uint32(off)
		w, k := readWord(words[off:])
		off += k
		for h := maphash.String(x.seed, w) & x.mask; ; h = (h + 1) & x.mask {
			r := x.slots[h]
			if r == 0 || x.word(r-1) == w {
				x.slots[h] = int32(i) + 1
				break
			}
		}
	}
	return x
}

// word returns the word of row r.
func (x *vocabIndex) word(r int32) string {
	w, _ := readWord(x.words[x.offs[r]:])
	return w
}

// lookup returns the row of word and whether it is in the vocabulary.
func (x *vocabIndex) lookup(word string) (int32, bool) {
	for h := maphash.String(x.seed, word) & x.mask; ; h = (h + 1) & x.mask {
		r := x.slots[h]
		if r == 0 {
			return 0, false
		}
		if x.word(r-1) == word {
			return r - 1, true
		}
	}
}
