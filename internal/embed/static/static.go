// Package static is coderag's own learned code embedding model: a static
// token table with learned per-token weights and weighted mean pooling, the
// architecture of CodeSearchNet's neural bag of words (Husain et al., 2019)
// and of model2vec models at inference time. The table was trained here, by
// the committed pipeline under train/ (see docs/MODEL.md), contrastively
// (InfoNCE with in-batch negatives) on pairs mined from Debian packages with
// coderag's own chunker: a doc comment against the function it documents,
// and a function's name in words against its body. Chinese words (CC-CEDICT
// headwords) share the table, aligned with their English senses, so "阻塞"
// lands near block and wait.
//
// API (stable; package integrate wires it into the product):
//
//	New() (*Embedder, error)        the built-in model (weights.bin, go:embed)
//	NewFromModel(*Model) *Embedder  any decoded model (tests, experiments)
//	(*Embedder).ID()                "local:coderag-code-v6"
//	(*Embedder).Dim, Embed, EmbedQuery   embed.Embedder
//	(*Embedder).Describe()          one line for `coderag stats`
//	(*Embedder).Tokens(text)        the tokens a text is embedded from
//	(*Embedder).Vector(token)       one token's unit vector, nil if unknown
//	(*Embedder).Neighbors(word, k)  nearest vocabulary words, for query expansion
//	Tokenizer, NewTokenizer         the tokenizer shared with the training miner
//	Model, Encode, Decode, Quantize, BucketOf   the weights format (format.go)
//
// A text's vector is normalise(Σ_t (1+ln tf_t) · w_side[t] · row[t]) over its
// distinct tokens t (Tokenizer), where tf_t is the token's count in the text,
// w_side the learned weight of the document side (Embed) or the query side
// (EmbedQuery), and row[t] the dequantised table row. A token outside the
// vocabulary uses the row of its hash bucket (BucketOf), trained like the
// others on the rare tokens of the corpus. A text with no tokens (only
// punctuation) gets a zero vector. Embedding is a table lookup: no server,
// no download, the same vector on every machine.
package static

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/vec"
)

// Provider is the provider half of the embedder's ID.
const Provider = "local"

// ModelName is the name of the model built into this binary (weights.bin
// carries it; TestBuiltinID checks they agree): the model half of the
// default local embedder's ID, "local:" + ModelName.
const ModelName = "coderag-code-v6"

//go:embed weights.bin
var weights []byte

// Embedder embeds texts with a static model. It is safe for concurrent use.
type Embedder struct {
	t         *table
	idStr     string // ID(), made once: a freshness check asks it of every file
	tok       *Tokenizer
	norms     []float32 // Euclidean norm of each dequantised row (rowNorms)
	normsOnce sync.Once
	pool      sync.Pool // *scratch
	// cache maps an ASCII identifier run to its rows (identIDs), at most
	// identCacheMax of them
	cache *analyze.Memo[[]int32]
}

var _ embed.Embedder = (*Embedder)(nil)
var _ embed.Describer = (*Embedder)(nil)
var _ embed.Preparer = (*Embedder)(nil)

var (
	builtinOnce sync.Once
	builtin     *Embedder
	builtinErr  error
)

// New returns the Embedder of the built-in model, made once per process;
// later calls return the same Embedder. Nothing is decoded or copied: the
// Embedder reads the embedded file in place (table), and builds its
// vocabulary index at the first text it embeds. The error is a corrupt
// embedded file (ErrBadWeights), which a test of this package rules out.
func New() (*Embedder, error) {
	builtinOnce.Do(func() {
		t, err := viewTable(weights)
		if err != nil {
			builtinErr = fmt.Errorf("built-in model: %w", err)
			return
		}
		builtin = newEmbedder(t)
	})
	return builtin, builtinErr
}

// NewFromModel returns an Embedder over a decoded model. Its Chinese
// vocabulary, for segmentation, is the vocabulary's words of Han characters.
func NewFromModel(m *Model) *Embedder { return newEmbedder(modelTable(m)) }

func newEmbedder(t *table) *Embedder {
	// the tokenizer keeps the words of 2..MaxHanWord Han characters of
	// the vocabulary, read on first use
	e := &Embedder{t: t, idStr: Provider + ":" + t.name, tok: &Tokenizer{each: func(yield func(string) bool) {
		for _, w := range t.eachWord() {
			if !yield(w) {
				return
			}
		}
	}}, cache: analyze.NewMemo[[]int32](identCacheMax)}
	e.pool.New = func() any { return &scratch{} }
	return e
}

// rowNorms returns the Euclidean norm of each dequantised row, computed on
// first use (only Neighbors needs them).
func (e *Embedder) rowNorms() []float32 {
	e.normsOnce.Do(func() {
		t := e.t
		n := t.nvocab + t.buckets
		e.norms = make([]float32, n)
		for r := 0; r < n; r++ {
			var s float64
			for _, q := range t.rows[r*t.dim : (r+1)*t.dim] {
				s += float64(q) * float64(q)
			}
			e.norms[r] = float32(math.Sqrt(s) * float64(t.scale.at(int32(r))))
		}
	})
	return e.norms
}

// scratch is the per-call buffers of one embedding.
type scratch struct {
	toks []string
	ids  []int32
	acc  []float32
}

// identCacheMax bounds the identifier cache (entries; a few MB).
const identCacheMax = 100_000

// identIDs returns the rows of the tokens of one ASCII identifier run
// (analyze.Terms of it), memoised: code repeats a small set of identifiers,
// and splitting and stemming them is most of the cost of a vector.
func (e *Embedder) identIDs(run string) []int32 {
	if ids, ok := e.cache.Get(run); ok {
		return ids
	}
	toks := analyze.Terms(nil, run)
	ids := make([]int32, len(toks))
	for i, t := range toks {
		ids[i] = e.id(t)
	}
	e.cache.Put(run, ids)
	return ids
}

// appendIDs appends the rows of text's tokens, in the order Tokenizer.Tokens
// gives them: the scan below cuts text where analyze.Terms would (runs of
// ASCII letters, digits, '_' and '$'; runs of other letters and digits; Han
// runs, which the tokenizer segments), so the tokens are the same.
func (e *Embedder) appendIDs(dst []int32, s *scratch, text string) []int32 {
	i := 0
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if isIdent(c) {
				j := i + 1
				for j < len(text) && text[j] < utf8.RuneSelf && isIdent(text[j]) {
					j++
				}
				dst = append(dst, e.identIDs(text[i:j])...)
				i = j
				continue
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case analyze.IsHan(r):
			j := hanRunEnd(text, i)
			s.toks = e.tok.segment(s.toks[:0], text[i:j])
			for _, t := range s.toks {
				dst = append(dst, e.id(t))
			}
			i = j
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			j := i
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !(unicode.IsLetter(r2) || unicode.IsDigit(r2) || r2 == '_') || analyze.IsHan(r2) {
					break
				}
				j += s2
			}
			s.toks = analyze.Terms(s.toks[:0], text[i:j])
			for _, t := range s.toks {
				dst = append(dst, e.id(t))
			}
			i = j
		default:
			i += size
		}
	}
	return dst
}

func isIdent(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$'
}

// ID returns "local:" + the model name, e.g. "local:coderag-code-v6".
func (e *Embedder) ID() string { return e.idStr }

// Dim returns the vector dimension.
func (e *Embedder) Dim() int { return e.t.dim }

// Describe is the one-line description shown by `coderag stats`.
func (e *Embedder) Describe() string {
	return fmt.Sprintf("%s: built-in learned static code model, %d-d, %d words + %d hash buckets, "+
		"trained on Debian and npm package code (docs/MODEL.md) — relates different words of like meaning "+
		"(remove/delete, 阻塞/block), no server", e.ID(), e.t.dim, e.t.nvocab, e.t.buckets)
}

// Tokens returns the tokens a text is embedded from, in text order.
func (e *Embedder) Tokens(text string) []string { return e.tok.Tokens(nil, text) }

// Prepare builds the index of the vocabulary, which the first Embed call
// would otherwise build: 8-33 ms in a new process on this machine, much
// of it the first reads of the model's vocabulary pages. An index run
// calls it beside its start-up work (index.Warm). It does nothing when
// the index is built already.
func (e *Embedder) Prepare() { e.t.vocab() }

// id returns the row of a token: its vocabulary id, else its bucket's row.
func (e *Embedder) id(tok string) int32 {
	if i, ok := e.t.lookup(tok); ok {
		return i
	}
	return int32(e.t.nvocab + BucketOf(tok, e.t.buckets))
}

// InProcess marks the embedder as in-process CPU work (embed.InProcess):
// Embed reads the model in place and its scratch buffers come from a pool,
// so concurrent calls are safe.
func (e *Embedder) InProcess() {}

var _ embed.InProcess = (*Embedder)(nil)

// Embed returns one L2-normalised vector of Dim() values per text, in input
// order, with the document-side weights; blank texts get nil. Each text is
// cut to embed.MaxInputRunes runes first, like every provider does. The
// only error is the context's.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%16 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if embed.IsBlank(t) {
			continue
		}
		out[i] = e.vector(embed.Truncate(t, embed.MaxInputRunes), e.t.wdoc)
	}
	return out, nil
}

// EmbedQuery embeds a query with the query-side weights (a query's words
// weigh differently from a chunk's: "return" says little in code, more in a
// question). A blank query is embed.ErrEmptyInput.
func (e *Embedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if embed.IsBlank(text) {
		return nil, embed.ErrEmptyInput
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	text = embed.Truncate(text, embed.MaxInputRunes)
	e.t.resolve(e.tok.Tokens(nil, text), queryScans)
	return e.vector(text, e.t.wquery), nil
}

// HanOwnShare is the share of a Han run's weight that EmbedQueryTranslated
// gives the model's own Chinese rows; the rest goes to the run's English
// translations. The own rows were aligned to their senses by a loss of
// their own (train/train.py, --zh-weight) and are noisier than the code
// words the translations name, which the contrastive loss trained on code:
// with coderag-code-v1 as the index's embedder, MRR@10 of the fresh-func
// Chinese queries was 0.621, 0.582 and 0.554 at shares 0, 0.25 and 0.5
// (0.454 with the own rows alone), so the own rows only stand in for a run
// nothing translates.
const HanOwnShare = 0.0

// EmbedQueryTranslated embeds a query like EmbedQuery, except that each
// run of Han characters is embedded mostly through translate(run): the
// weighted English terms the keyword route searches for it (glossary and
// CC-CEDICT), each term's tokens weighted by the term's weight, normalised
// so the run's translations weigh 1-HanOwnShare and its own segmented
// Chinese rows HanOwnShare. A run without translations keeps its own rows.
// It lets a search embed a Chinese question with the translations it
// already made (search.QueryEmbedder). A blank query is
// embed.ErrEmptyInput; the other error is the context's.
func (e *Embedder) EmbedQueryTranslated(ctx context.Context, text string, translate func(han string) []analyze.Expansion) ([]float32, error) {
	if translate == nil || !analyze.HasHan(text) {
		return e.EmbedQuery(ctx, text)
	}
	if embed.IsBlank(text) {
		return nil, embed.ErrEmptyInput
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	text = embed.Truncate(text, embed.MaxInputRunes)
	acc := e.queryAcc(text, translate)
	t := e.t
	v := make([]float32, t.dim)
	rows := make([]int32, 0, len(acc))
	for r := range acc {
		rows = append(rows, r)
	}
	slices.Sort(rows) // a fixed summation order: the same query gives the same bits
	for _, r := range rows {
		axpy(v, acc[r]*t.wquery.at(r)*t.scale.at(r), t.rows[int(r)*t.dim:(int(r)+1)*t.dim])
	}
	return vec.Normalize(v), nil
}

// vector pools the rows of text's tokens with the weights w.
func (e *Embedder) vector(text string, w f32s) []float32 {
	s := e.pool.Get().(*scratch)
	defer e.pool.Put(s)
	s.ids = e.appendIDs(s.ids[:0], s, text)
	return e.pool1(s.ids, w)
}

// EmbedTerms returns the document-side vector of a text whose
// analyze.Terms are terms, without reading the text again: an index
// worker has those terms already, for the full-text row. For an ASCII text
// t of at most embed.MaxInputRunes runes it equals Embed of t
// (TestEmbedTermsEqualsEmbed): on ASCII, Embed's tokens are analyze.Terms
// of each identifier run, and Terms reads the runs one by one. Safe for
// concurrent use.
func (e *Embedder) EmbedTerms(terms []string) []float32 {
	s := e.pool.Get().(*scratch)
	defer e.pool.Put(s)
	s.ids = s.ids[:0]
	for _, t := range terms {
		s.ids = append(s.ids, e.id(t))
	}
	return e.pool1(s.ids, e.t.wdoc)
}

var _ embed.TermEmbedder = (*Embedder)(nil)

// pool1 pools the rows ids (in any order; sorted in place) with the
// weights w: each distinct row weighted by w, its scale and 1 + ln of its
// count, summed and L2-normalised.
func (e *Embedder) pool1(ids []int32, w f32s) []float32 {
	slices.Sort(ids)
	t := e.t
	v := make([]float32, t.dim)
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[i] {
			j++
		}
		r := ids[i]
		c := w.at(r) * t.scale.at(r) * float32(1+math.Log(float64(j-i)))
		axpy(v, c, t.rows[int(r)*t.dim:(int(r)+1)*t.dim])
		i = j
	}
	return vec.Normalize(v)
}

// axpy adds c·q to v (len(q) >= len(v)), unrolled by 8.
func axpy(v []float32, c float32, q []int8) {
	q = q[:len(v)]
	k := 0
	for ; k+8 <= len(v); k += 8 {
		w, x := v[k:k+8:k+8], q[k:k+8:k+8]
		w[0] += c * float32(x[0])
		w[1] += c * float32(x[1])
		w[2] += c * float32(x[2])
		w[3] += c * float32(x[3])
		w[4] += c * float32(x[4])
		w[5] += c * float32(x[5])
		w[6] += c * float32(x[6])
		w[7] += c * float32(x[7])
	}
	for ; k < len(v); k++ {
		v[k] += c * float32(q[k])
	}
}

// Vector returns the unit vector of one token's row (a vocabulary word as
// Tokens spells it: lower-case, stemmed), or nil for a token outside the
// vocabulary.
func (e *Embedder) Vector(token string) []float32 {
	r, ok := e.t.lookup(token)
	if !ok {
		return nil
	}
	t := e.t
	v := make([]float32, t.dim)
	for k, q := range t.rows[int(r)*t.dim : (int(r)+1)*t.dim] {
		v[k] = float32(q)
	}
	return vec.Normalize(v)
}

// Neighbor is one vocabulary word near a query word.
type Neighbor struct {
	Word  string  // a vocabulary token (lower-case, stemmed sub-word or whole identifier)
	Score float32 // cosine between the word's query vector and the token's row, -1..1
}

// NeighborPool is how many vocabulary words Neighbors considers: the most
// frequent code words of the corpus (the vocabulary lists code words by
// descending frequency), whose rows are trained on many pairs; rarer rows,
// mostly whole identifiers, are too noisy to expand a query with.
const NeighborPool = 20000

// Neighbors returns the k vocabulary words nearest to word, best first, by
// cosine between word's query-side vector (EmbedQuery of the word, so a
// Chinese word or an identifier works too) and each row. Only code words are
// candidates: the first NeighborPool tokens of ASCII letters and digits, at
// least 2 long, not one of word's own tokens. nil for a blank word or k <= 0. Scanning the table
// costs about V·Dim multiply-adds (tens of milliseconds at most).
func (e *Embedder) Neighbors(word string, k int) []Neighbor {
	if k <= 0 || embed.IsBlank(word) {
		return nil
	}
	q := e.vector(word, e.t.wquery)
	own := map[string]bool{}
	for _, t := range e.tok.Tokens(nil, word) {
		own[t] = true
	}
	var best []Neighbor
	t := e.t
	dim := t.dim
	norms := e.rowNorms()
	pool := 0
	for r, w := range t.eachWord() {
		if !codeWord(w) {
			continue
		}
		if pool++; pool > NeighborPool {
			break
		}
		if norms[r] == 0 || own[w] {
			continue
		}
		var dot float32
		for j, x := range t.rows[r*dim : (r+1)*dim] {
			dot += q[j] * float32(x)
		}
		c := dot * t.scale.at(int32(r)) / norms[r]
		if len(best) == k && c <= best[k-1].Score {
			continue
		}
		i := sort.Search(len(best), func(i int) bool { return best[i].Score < c })
		if len(best) < k {
			best = append(best, Neighbor{})
		}
		copy(best[i+1:], best[i:])
		best[i] = Neighbor{Word: w, Score: c}
	}
	return best
}

// codeWord reports whether a token is an ASCII word of at least 2 characters
// with a letter.
func codeWord(w string) bool {
	if len(w) < 2 {
		return false
	}
	letter := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter && !strings.HasPrefix(w, "0")
}

// queryAcc returns the rows of a query text and the count weight of each
// (1 + ln tf), each Han run's rows replaced by its translations as
// EmbedQueryTranslated weighs them (a nil translate, or a run it does not
// translate: the run's own rows).
func (e *Embedder) queryAcc(text string, translate func(han string) []analyze.Expansion) map[int32]float32 {
	// the translations of each run of Han characters, in text order, and
	// the words of the text and of every translation looked up at once
	// (resolve: the first query of a process builds no index)
	var runExps [][]analyze.Expansion
	words := e.tok.Tokens(nil, text)
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !analyze.IsHan(r) {
			i += size
			continue
		}
		j := hanRunEnd(text, i)
		var exps []analyze.Expansion
		if translate != nil {
			exps = translate(text[i:j])
		}
		runExps = append(runExps, exps)
		for _, x := range exps {
			words = e.tok.Tokens(words, x.Term)
		}
		i = j
	}
	e.t.resolve(words, queryScans)
	s := e.pool.Get().(*scratch)
	defer e.pool.Put(s)
	acc := map[int32]float32{}
	addIDs := func(ids []int32, scale float32) {
		tf := map[int32]int{}
		for _, r := range ids {
			tf[r]++
		}
		for r, n := range tf {
			acc[r] += scale * float32(1+math.Log(float64(n)))
		}
	}
	start := 0
	flush := func(end int) {
		if start < end {
			s.ids = e.appendIDs(s.ids[:0], s, text[start:end])
			addIDs(s.ids, 1)
		}
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !analyze.IsHan(r) {
			i += size
			continue
		}
		flush(i)
		j := hanRunEnd(text, i)
		run := text[i:j]
		s.ids = e.appendIDs(s.ids[:0], s, run)
		own := append([]int32(nil), s.ids...)
		exps := runExps[0]
		runExps = runExps[1:]
		total := 0.0
		for _, x := range exps {
			total += x.Weight
		}
		if total <= 0 {
			addIDs(own, 1)
		} else {
			// a run's mass is its own word count, split between its rows
			// and its translations
			mass := float32(max(len(own), 1))
			if HanOwnShare > 0 {
				addIDs(own, mass*HanOwnShare/float32(max(len(own), 1)))
			}
			for _, x := range exps {
				s.ids = e.appendIDs(s.ids[:0], s, x.Term)
				if len(s.ids) == 0 {
					continue
				}
				addIDs(s.ids, mass*(1-HanOwnShare)*float32(x.Weight/total)/float32(len(s.ids)))
			}
		}
		i, start = j, j
	}
	flush(len(text))
	return acc
}

// MaxSim scores texts against one query by late interaction over the
// table's rows: for each of the query's rows, its best cosine with any
// row of the text, weighted by the row's query weight (the count weight
// 1 + ln tf times the query-side weight, as EmbedQuery pools them),
// summed and divided by the weights' sum. This is ColBERT's MaxSim
// (Khattab and Zaharia, SIGIR 2020) over a static table: each query word
// meets the one code word nearest it ("remove" meets del), where a pooled
// vector blurs a long chunk's words into one centroid. A score is in
// [-1, 1]; 1 when every query row is in the text. The cosines of a row
// pair are kept, so scoring a pool of candidates that share words costs
// one dot product per distinct row. Not safe for concurrent use.
type MaxSim struct {
	e     *Embedder
	rows  []int32   // the query's rows, ascending
	w     []float32 // their weights
	total float32
	qn    []float32 // their norms (rowNorm)
	// sims[d] holds the cosine of row d with each query row, in rows order
	sims map[int32][]float32
	s    scratch
}

// NewMaxSim returns the scorer of query, Han runs read through translate
// as in EmbedQueryTranslated (nil: their own rows); nil when no row of
// the query has a positive weight.
func (e *Embedder) NewMaxSim(query string, translate func(han string) []analyze.Expansion) *MaxSim {
	acc := e.queryAcc(embed.Truncate(query, embed.MaxInputRunes), translate)
	rows := make([]int32, 0, len(acc))
	for r := range acc {
		rows = append(rows, r)
	}
	slices.Sort(rows) // a fixed summation order: the same query gives the same bits
	m := &MaxSim{e: e, sims: map[int32][]float32{}}
	for _, r := range rows {
		w, n := acc[r]*e.t.wquery.at(r), e.rowNorm(r)
		if w <= 0 || n == 0 {
			continue
		}
		m.rows, m.w, m.qn = append(m.rows, r), append(m.w, w), append(m.qn, n)
		m.total += w
	}
	if len(m.rows) == 0 {
		return nil
	}
	return m
}

// Score returns the MaxSim score of text (a chunk's embedding text).
func (m *MaxSim) Score(text string) float64 {
	m.s.ids = m.e.appendIDs(m.s.ids[:0], &m.s, embed.Truncate(text, embed.MaxInputRunes))
	return m.score(m.s.ids)
}

// ScoreAll returns the MaxSim score of each text, in order. While the
// model's vocabulary index is not built (a one-shot search), the texts'
// words are first looked up together by one scan of the vocabulary, a
// fifth of the index's cost (primeRuns).
func (m *MaxSim) ScoreAll(texts []string) []float64 {
	if m.e.t.index.Load() == nil {
		m.e.primeRuns(texts)
	}
	out := make([]float64, len(texts))
	for i, t := range texts {
		out[i] = m.Score(t)
	}
	return out
}

// primeRuns readies the rows of texts for appendIDs without building the
// vocabulary index: the words of every ASCII identifier run not in the
// identifier cache, and of every other run of letters, are resolved by
// one scan (table.resolve), and each such identifier run's rows are put
// in the cache, so its words are split and stemmed once.
func (e *Embedder) primeRuns(texts []string) {
	terms := map[string][]string{}
	var words, toks []string
	for _, text := range texts {
		text = embed.Truncate(text, embed.MaxInputRunes)
		for i := 0; i < len(text); {
			c := text[i]
			if c < utf8.RuneSelf {
				j := i + 1
				if isIdent(c) {
					for j < len(text) && text[j] < utf8.RuneSelf && isIdent(text[j]) {
						j++
					}
					run := text[i:j]
					if _, ok := terms[run]; !ok {
						if _, cached := e.cache.Get(run); cached {
							terms[run] = nil
						} else {
							ts := analyze.Terms(nil, run)
							terms[run] = ts
							words = append(words, ts...)
						}
					}
				}
				i = j
				continue
			}
			// a run of other characters: its tokens as appendIDs reads
			// them (rare in code, so not cached)
			j := i
			for j < len(text) && text[j] >= utf8.RuneSelf {
				j++
			}
			toks = e.tok.Tokens(toks[:0], text[i:j])
			words = append(words, toks...)
			i = j
		}
	}
	e.t.resolve(words, poolScans)
	for run, ts := range terms {
		if ts == nil {
			continue
		}
		ids := make([]int32, len(ts))
		for i, t := range ts {
			ids[i] = e.id(t)
		}
		e.cache.Put(run, ids)
	}
}

// score is the MaxSim score of a text's rows ids.
func (m *MaxSim) score(ids []int32) float64 {
	e := m.e
	if len(ids) == 0 {
		return 0
	}
	best := make([]float32, len(m.rows))
	for i := range best {
		best[i] = -1
	}
	for _, d := range ids {
		c, ok := m.sims[d]
		if !ok {
			c = make([]float32, len(m.rows))
			if nd := e.rowNorm(d); nd > 0 {
				for i, q := range m.rows {
					c[i] = float32(e.rowDot(q, d)) / (m.qn[i] * nd)
				}
			}
			m.sims[d] = c
		}
		for i, x := range c {
			best[i] = max(best[i], x)
		}
	}
	var sc float32
	for i, b := range best {
		sc += m.w[i] * b
	}
	return float64(sc / m.total)
}

// rowDot is the dot product of two quantised rows (their scales left
// out: a cosine does not need them).
func (e *Embedder) rowDot(a, b int32) int32 {
	t := e.t
	x, y := t.rows[int(a)*t.dim:(int(a)+1)*t.dim], t.rows[int(b)*t.dim:(int(b)+1)*t.dim]
	y = y[:len(x)]
	var d0, d1, d2, d3 int32
	k := 0
	for ; k+4 <= len(x); k += 4 {
		a, b := x[k:k+4:k+4], y[k:k+4:k+4]
		d0 += int32(a[0]) * int32(b[0])
		d1 += int32(a[1]) * int32(b[1])
		d2 += int32(a[2]) * int32(b[2])
		d3 += int32(a[3]) * int32(b[3])
	}
	for ; k < len(x); k++ {
		d0 += int32(x[k]) * int32(y[k])
	}
	return d0 + d1 + d2 + d3
}

// rowNorm is the Euclidean norm of a quantised row (scale left out).
func (e *Embedder) rowNorm(r int32) float32 {
	return float32(math.Sqrt(float64(e.rowDot(r, r))))
}
