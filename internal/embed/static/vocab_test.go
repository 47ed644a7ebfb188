package static

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/analyze"
)

// TestVocabIndex: every word of the built-in vocabulary maps to the row a
// map would give (the last row of a word listed twice), and other words to
// none.
func TestVocabIndex(t *testing.T) {
	m, err := Decode(weights)
	if err != nil {
		t.Fatal(err)
	}
	vocab := append(append([]string{}, m.Vocab...), "", "dup", "dup")
	want := make(map[string]int32, len(vocab))
	for i, w := range vocab {
		want[w] = int32(i)
	}
	x := modelTable(&Model{Vocab: vocab}).vocab()
	for w, r := range want {
		if got, ok := x.lookup(w); !ok || got != r {
			t.Fatalf("lookup(%q) = %d, %v; want %d", w, got, ok, r)
		}
	}
	misses := []string{"no such wordzz", "dupe", "du", "\x00", strings.Repeat("long", 40)}
	for _, w := range misses {
		if _, ok := want[w]; ok {
			continue
		}
		if r, ok := x.lookup(w); ok {
			t.Fatalf("lookup(%q) = %d, want none", w, r)
		}
	}
	// the same rows from one scan (resolve), without building the index
	s := modelTable(&Model{Vocab: vocab})
	s.resolve(append(append([]string{}, vocab...), misses...), queryScans)
	for w, r := range want {
		if got, ok := s.lookup(w); !ok || got != r {
			t.Fatalf("resolved lookup(%q) = %d, %v; want %d", w, got, ok, r)
		}
	}
	for _, w := range misses {
		if _, ok := want[w]; ok {
			continue
		}
		if r, ok := s.lookup(w); ok {
			t.Fatalf("resolved lookup(%q) = %d, want none", w, r)
		}
	}
	if s.index.Load() != nil {
		t.Fatal("lookups of resolved words built the index")
	}
}

// TestFirstQueryScans: the first query of a fresh built-in Embedder is
// embedded without building the vocabulary index (its words are resolved
// by one scan), the next one builds it, and both give the vectors, bit for
// bit, of an Embedder whose index was built first.
func TestFirstQueryScans(t *testing.T) {
	ctx := context.Background()
	fresh := func() *Embedder {
		v, err := viewTable(weights)
		if err != nil {
			t.Fatal(err)
		}
		return newEmbedder(v)
	}
	cold, warm := fresh(), fresh()
	warm.t.vocab()
	translate := func(han string) []analyze.Expansion {
		return []analyze.Expansion{{Term: "wake up", Weight: 1}, {Term: "waitQueue " + han, Weight: 0.5}}
	}
	queries := []string{"allocate a span for the heap: mallocgc(size, typ) zzqqxx", "parseHTTPRequest 唤醒等待的任务 user_id"}
	for i, q := range queries {
		got, err := cold.EmbedQuery(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if built := cold.t.index.Load() != nil; built != (i > 0) {
			t.Errorf("query %d: index built %v, want %v", i, built, i > 0)
		}
		want, _ := warm.EmbedQuery(ctx, q)
		for k := range want {
			if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
				t.Fatalf("query %d: value %d is %v, want %v", i, k, got[k], want[k])
			}
		}
	}
	// the same for a Chinese query embedded through its translations: its
	// words and its translations' words are resolved by the scan
	coldZh, warmZh := fresh(), fresh()
	warmZh.t.vocab()
	q := "唤醒等待的任务 in the scheduler"
	got, err := coldZh.EmbedQueryTranslated(ctx, q, translate)
	if err != nil {
		t.Fatal(err)
	}
	if coldZh.t.index.Load() != nil {
		t.Error("a translated first query built the index")
	}
	want, _ := warmZh.EmbedQueryTranslated(ctx, q, translate)
	for k := range want {
		if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
			t.Fatalf("translated query: value %d is %v, want %v", k, got[k], want[k])
		}
	}
}

// TestBuiltinView: the built-in model as New reads it (a view of the
// embedded file, weights read from their bytes) holds what Decode decodes,
// value for value and bit for bit: the same header, words in the same
// rows, the same weights, scales and rows.
func TestBuiltinView(t *testing.T) {
	v, err := viewTable(weights)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Decode(weights)
	if err != nil {
		t.Fatal(err)
	}
	d := modelTable(m)
	if v.name != d.name || v.dim != d.dim || v.nvocab != d.nvocab || v.buckets != d.buckets || len(v.rows) != len(d.rows) {
		t.Fatalf("view %s %d-d %d words %d buckets %d codes; Decode %s %d-d %d words %d buckets %d codes",
			v.name, v.dim, v.nvocab, v.buckets, len(v.rows), d.name, d.dim, d.nvocab, d.buckets, len(d.rows))
	}
	n := 0
	for r, w := range v.eachWord() {
		if w != m.Vocab[r] {
			t.Fatalf("word %d: view %q, Decode %q", r, w, m.Vocab[r])
		}
		if got, ok := v.vocab().lookup(w); !ok || m.Vocab[got] != w {
			t.Fatalf("lookup(%q) = %d, %v", w, got, ok)
		}
		n++
	}
	if n != len(m.Vocab) {
		t.Fatalf("view yields %d words, Decode has %d", n, len(m.Vocab))
	}
	for i := int32(0); i < int32(v.nvocab+v.buckets); i++ {
		for _, f := range [][2]f32s{{v.wdoc, d.wdoc}, {v.wquery, d.wquery}, {v.scale, d.scale}} {
			if a, b := f[0].at(i), f[1].at(i); math.Float32bits(a) != math.Float32bits(b) {
				t.Fatalf("row %d: view %v, Decode %v", i, a, b)
			}
		}
	}
	for i := range v.rows {
		if v.rows[i] != d.rows[i] {
			t.Fatalf("code %d: view %d, Decode %d", i, v.rows[i], d.rows[i])
		}
	}
}

// TestViewRejectsCorruptFiles: a file whose header or sizes are wrong is
// not viewed (New reports ErrBadWeights rather than reading out of range).
func TestViewRejectsCorruptFiles(t *testing.T) {
	for name, data := range map[string][]byte{
		"empty":     nil,
		"no magic":  append([]byte("XXSTATIC"), weights[8:]...),
		"version":   append(append([]byte(magic), 9, 0, 0, 0), weights[12:]...),
		"truncated": weights[:len(weights)/2],
	} {
		if _, err := viewTable(data); !errors.Is(err, ErrBadWeights) {
			t.Errorf("%s: viewTable = %v, want ErrBadWeights", name, err)
		}
	}
}

// TestPrepareBuildsIndex: Prepare builds the vocabulary index that the
// first Embed call would build, and documents embedded after it get the
// vectors, bit for bit, of an Embedder whose first Embed call built it.
func TestPrepareBuildsIndex(t *testing.T) {
	ctx := context.Background()
	fresh := func() *Embedder {
		v, err := viewTable(weights)
		if err != nil {
			t.Fatal(err)
		}
		return newEmbedder(v)
	}
	cold, prepared := fresh(), fresh()
	prepared.Prepare()
	if prepared.t.index.Load() == nil {
		t.Fatal("Prepare left the vocabulary index unbuilt")
	}
	x := prepared.t.index.Load()
	prepared.Prepare()
	if prepared.t.index.Load() != x {
		t.Error("a second Prepare built the index again")
	}
	docs := []string{"func (s *Server) Serve(l net.Listener) error { return s.serve(l) }", "唤醒等待的任务 wakeUp(waitQueue)", "zzqqxx_unknown_word"}
	got, err := prepared.Embed(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := cold.Embed(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		for k := range want[i] {
			if math.Float32bits(got[i][k]) != math.Float32bits(want[i][k]) {
				t.Fatalf("doc %d: value %d is %v, want %v", i, k, got[i][k], want[i][k])
			}
		}
	}
}
