// Package local is coderag's built-in feature-hashing embedder, the default
// before the learned model (package static) and still selectable with
// EMBEDDING_MODEL=hashing-768-v1: deterministic
// signed feature hashing (Weinberger et al., "Feature Hashing for Large Scale
// Multitask Learning", ICML 2009) of code-aware lexical features into a fixed
// dimension, L2-normalised. It needs no server, no download and no model
// file, runs in-process at thousands of chunks per second per core, and gives
// the same vector for the same text on every machine and run.
//
// Features of one text (all lowercased; each weighted w·(1+ln tf), so a
// repeated term counts sublinearly; weights are fixed per feature class
// instead of IDF, so a vector depends only on its own text):
//
//   - identifier sub-words: identifiers are split on snake_case, camelCase,
//     acronym boundaries ("HTTPServer" -> http, server), letter/digit
//     boundaries and punctuation such as dots (analyze.SubWords, the
//     splitting of the keyword index), then stemmed with the Snowball
//     English stemmer ("services" and "Service" meet) — weight 1; English
//     stop words and common keywords (return, func, public, ...) weight 0.2;
//     one-letter parts are dropped; digit runs weight 0.3;
//   - the whole identifier (parts joined) — weight 0.6, so an exact symbol
//     name matches strongly;
//   - adjacent sub-word pairs, within an identifier and across words separated
//     only by spaces, so "OvertimeService" and "overtime service" share a
//     phrase feature — weight 0.5;
//   - character 3-grams of each sub-word with boundary marks ("#ov", "ove",
//     ..., "ce#") — weight 0.25, for partial and misspelt matches;
//   - CJK (Han, kana, Hangul) character bigrams (weight 1) and unigrams
//     (weight 0.4), since Chinese is not written with spaces;
//   - optional expansions: Options.Expand maps a sub-word or a CJK substring
//     (1-4 characters) to English terms, e.g. a bilingual glossary
//     ("加班" -> "overtime"), whose features are added at 0.8 of their weight;
//     Options.Analyzer, when set, replaces it for CJK text: a whole run is
//     segmented and translated by package analyze's Chinese analysis (the
//     same as the keyword route's), and each term's features
//     are added at 0.8 times its weight. Which terms a run gets depends on
//     the translation data installed (glossary, CC-CEDICT), so an index
//     built with other data differs only in the features of Chinese text;
//     the index records that data beside the embedder id of each file with
//     Chinese text (Analysis, analyze.Analyzer.Identity) and re-embeds those
//     files when it changes.
//
// Each feature is hashed (FNV-1a 64 + a 64-bit finaliser) to a coordinate
// (hash mod Dim) and a sign (top bit), so collisions cancel in expectation.
//
// What it captures: lexical and morphological similarity — shared
// identifier sub-words across naming styles, word forms, partial words, and
// Chinese/English terms the glossary links. What it does not: synonyms and
// meaning ("remove" vs "delete", "auth" vs "login" unless they share
// sub-words or the glossary links them), word order beyond adjacent pairs,
// or anything a trained model learns. For semantic search switch to a neural
// model and re-index, e.g.
//
//	EMBEDDING_PROVIDER=ollama EMBEDDING_MODEL=nomic-embed-text coderag index .
//	EMBEDDING_PROVIDER=openai EMBEDDING_API_KEY=... coderag index .
//
// The model name carries the dimension and the feature-set version
// ("hashing-768-v1"); any change to the features must bump the version so
// old indexes are re-embedded.
package local

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/vec"
)

// Provider is the provider half of this embedder's ID.
const Provider = "local"

// DefaultDim is the vector dimension when Options.Dim is 0.
const DefaultDim = 768

// Dimension bounds accepted by New.
const (
	MinDim = 64
	MaxDim = 1 << 16
)

// version is the feature-set version carried in the model name.
const version = "v1"

// ErrBadModel is returned by ParseModel and New for a model name or
// dimension this package does not produce.
var ErrBadModel = errors.New("unknown local embedding model")

// Options configures New.
type Options struct {
	// Dim is the vector dimension, MinDim..MaxDim; 0 means DefaultDim.
	Dim int
	// Expand, if not nil, maps a term — a lowercased English sub-word or a
	// CJK substring of 1-4 characters — to extra (English) terms to hash
	// with it. It must be deterministic and safe for concurrent use; nil
	// means no expansion.
	Expand func(term string) []string
	// Analyzer, if not nil, maps a run of CJK characters to weighted
	// English terms (Analyzer.TranslateHan, embed.Options.Analyzer); it
	// replaces Expand for CJK text.
	Analyzer *analyze.Analyzer
}

// Embedder is the feature-hashing embedder. It is safe for concurrent use.
type Embedder struct {
	dim       int
	expand    func(string) []string
	translate func(string) []analyze.Expansion
	an        *analyze.Analyzer // whose TranslateHan translate is; nil: none
	pool      sync.Pool         // *featurizer
}

var _ embed.Embedder = (*Embedder)(nil)
var _ embed.Describer = (*Embedder)(nil)
var _ embed.Translator = (*Embedder)(nil)

// New returns an Embedder of opts.Dim dimensions (ErrBadModel outside
// MinDim..MaxDim).
func New(opts Options) (*Embedder, error) {
	d := opts.Dim
	if d == 0 {
		d = DefaultDim
	}
	if d < MinDim || d > MaxDim {
		return nil, fmt.Errorf("%w: dimension %d (want %d..%d)", ErrBadModel, d, MinDim, MaxDim)
	}
	e := &Embedder{dim: d, expand: opts.Expand, an: opts.Analyzer}
	if opts.Analyzer != nil {
		e.translate = opts.Analyzer.TranslateHan
	}
	e.pool.New = func() any { return newFeaturizer(e) }
	return e, nil
}

// ModelName returns the model name for a dimension: "hashing-768-v1".
func ModelName(dim int) string { return "hashing-" + strconv.Itoa(dim) + "-" + version }

// ParseModel returns the dimension named by a model name from ModelName; ""
// means DefaultDim. Other names, including other feature versions, are
// ErrBadModel.
func ParseModel(model string) (dim int, err error) {
	if model == "" {
		return DefaultDim, nil
	}
	s, ok := strings.CutPrefix(model, "hashing-")
	if ok {
		s, ok = strings.CutSuffix(s, "-"+version)
	}
	if ok {
		if d, err := strconv.Atoi(s); err == nil && d >= MinDim && d <= MaxDim {
			return d, nil
		}
	}
	return 0, fmt.Errorf("%w %q (this build makes %q)", ErrBadModel, model, ModelName(DefaultDim))
}

// ID returns "local:hashing-<dim>-v1".
func (e *Embedder) ID() string { return Provider + ":" + ModelName(e.dim) }

// Dim returns the vector dimension.
func (e *Embedder) Dim() int { return e.dim }

// Analysis is the identity of the text analysis whose English terms Han
// text gets (embed.Translator): Options.Analyzer's, else the glossary's
// when Options.Expand is set (a nil Analyzer's: the glossary only), else
// "" (Han text gets only its own characters' features).
func (e *Embedder) Analysis() string {
	switch {
	case e.an != nil:
		return e.an.Identity()
	case e.expand != nil:
		return (*analyze.Analyzer)(nil).Identity()
	}
	return ""
}

// Describe is the one-line honest description shown by `coderag stats`.
func (e *Embedder) Describe() string {
	return fmt.Sprintf("%s: built-in feature hashing, %d-d, no model — matches shared identifier sub-words, stems, "+
		"character 3-grams and CJK bigrams (lexical similarity), not synonyms or meaning; "+
		"for learned similarity leave EMBEDDING_MODEL unset (the built-in learned model) or use EMBEDDING_PROVIDER=ollama or openai, and re-index", e.ID(), e.dim)
}

// InProcess marks the embedder as in-process CPU work (embed.InProcess):
// each Embed call takes its own featurizer from a pool, so concurrent
// calls are safe (race_test.go).
func (e *Embedder) InProcess() {}

var _ embed.InProcess = (*Embedder)(nil)

// Embed returns one L2-normalised vector of Dim() values per text, in input
// order; blank texts get nil. Each text is cut to embed.MaxInputRunes runes
// first, like every provider does. A text with no features (only
// punctuation) gets a zero vector. The only error is the context's.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	f := e.pool.Get().(*featurizer)
	defer e.pool.Put(f)
	for i, t := range texts {
		if i%16 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if embed.IsBlank(t) {
			continue
		}
		out[i] = f.vector(embed.Truncate(t, embed.MaxInputRunes))
	}
	return out, nil
}

// EmbedQuery embeds a query exactly like a document (the features are
// symmetric). A blank query is embed.ErrEmptyInput.
func (e *Embedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if embed.IsBlank(text) {
		return nil, embed.ErrEmptyInput
	}
	v, err := e.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

// EmbedQueryTranslated embeds a query like EmbedQuery, with translate in
// place of Options.Analyzer's TranslateHan for its CJK runs, when
// Options.Analyzer is set (else translate is not called). A search passes
// the translations it already made of the query with the same Analyzer,
// which must equal what the Analyzer returns; the vector is then the same.
func (e *Embedder) EmbedQueryTranslated(ctx context.Context, text string, translate func(han string) []analyze.Expansion) ([]float32, error) {
	if embed.IsBlank(text) {
		return nil, embed.ErrEmptyInput
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f := e.pool.Get().(*featurizer)
	defer func() {
		f.translate = nil
		e.pool.Put(f)
	}()
	if e.translate != nil {
		f.translate = translate
	}
	return f.vector(embed.Truncate(text, embed.MaxInputRunes)), nil
}

// Lexical reports true: the vectors hash the text's own words, the
// evidence a keyword search has too, so a ranker should weigh them as a
// re-ranking signal (search.LexicalEmbedder).
func (e *Embedder) Lexical() bool { return true }

// Term is one feature of a text, for explaining a vector (Terms).
type Term struct {
	Name   string  // class and value: "word:overtim", "pair:overtim+servic", "gram:#ov", "ident:overtimeservice", "cjk2:加班", "stop:return", "digits:8"
	Count  int     // occurrences (tf)
	Weight float64 // class weight × (1+ln tf), before hashing and normalisation
	Index  int     // coordinate it hashes to
	Sign   int     // +1 or -1
}

// Terms lists the features Embed hashes for text (after truncation), in
// first-occurrence order — a debugging aid showing why two texts are close.
func (e *Embedder) Terms(text string) []Term {
	f := newFeaturizer(e)
	f.names = map[uint64]string{}
	f.text(embed.Truncate(text, embed.MaxInputRunes), 1)
	out := make([]Term, len(f.feats))
	for i, ft := range f.feats {
		sign := 1
		if ft.key>>63 != 0 {
			sign = -1
		}
		out[i] = Term{Name: f.names[ft.key], Count: int(ft.n), Weight: ft.w * (1 + math.Log(float64(ft.n))),
			Index: int(ft.key % uint64(e.dim)), Sign: sign}
	}
	return out
}

// vector turns the collected features into the hashed, normalised vector.
func (f *featurizer) vector(text string) []float32 {
	f.reset()
	f.text(text, 1)
	v := make([]float32, f.e.dim)
	d := uint64(f.e.dim)
	for _, ft := range f.feats {
		w := ft.w * (1 + math.Log(float64(ft.n)))
		if ft.key>>63 != 0 {
			w = -w
		}
		v[ft.key%d] += float32(w)
	}
	return vec.Normalize(v)
}
