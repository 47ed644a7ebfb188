package search

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/walk"
)

// HybridParams are the weights and knobs of the hybrid ranker and of the
// query analysis it reads, in one block (as zoekt keeps its scoring
// weights in one place): DefaultHybridParams holds the values tuned on
// the golden sets and the semble dev subset. Scores are in fused units:
// the best candidate on both routes fuses to 1/FusionScale ~= 0.0164, and
// every boost and penalty below is in those units.
type HybridParams struct {
	// QueryOptions choose what AnalyzeQuery adds to the query's words.
	QueryOptions
	// Candidates is how many chunks each route contributes (200).
	Candidates int
	// FTS weights the keyword route's BM25 columns.
	FTS store.FTSWeights
	// Alpha is the vector share of the fused score: (1-Alpha)*bm25 +
	// Alpha*cos over max-normalised BM25 and min-max-normalised cosine
	// (Bruch et al., "An Analysis of Fusion Functions for Hybrid
	// Retrieval", 2023). 0 skips the vector route. It is the share for a
	// lexical embedder, whose cosine re-ranks the keyword route's
	// candidates (VectorRerank); Searcher.HybridParams puts LearnedAlpha
	// in its place for a learned one.
	Alpha float64
	// LearnedAlpha is Alpha for an embedder that is not lexical (the
	// built-in learned model, a remote model): its vector route brings
	// candidates BM25 missed, the words a question uses and the code does
	// not, so it earns a larger share.
	LearnedAlpha float64
	// AlphaPerDecade sizes a full-scan vector route's share by the
	// project's chunk count N (store.RunState.Chunks): Alpha -
	// AlphaPerDecade*log10(N/AlphaRefChunks), clamped to
	// [AlphaMin, AlphaMax]. A dense route's false positives grow with the
	// index faster than a sparse route's (Reimers and Gurevych, "The Curse
	// of Dense Low-Dimensional Information Retrieval for Large Index
	// Sizes", ACL 2021): among 100,000 chunks the 200 nearest vectors
	// hold many chunks that merely share a topic, while BM25's rare terms
	// stay sharp; among 500 the nearest are mostly right. 0 keeps Alpha
	// whatever the size; a lexical embedder's re-rank (VectorRerank)
	// brings no candidates and keeps it too.
	AlphaPerDecade float64
	// AlphaRefChunks is the chunk count at which the sized share is
	// Alpha itself.
	AlphaRefChunks int
	// AlphaMin and AlphaMax bound the sized share.
	AlphaMin, AlphaMax float64
	// RerankAtFloor makes a full-scan vector route whose sized share is
	// at AlphaMin (a project of AlphaRefChunks*10^((Alpha-AlphaMin)/
	// AlphaPerDecade) chunks or more: 53,000 with the defaults) score
	// only the keyword route's candidates, as VectorRerank does. Past
	// that size the share stops falling while the scan's false positives
	// and its cost keep growing with the project: on the Linux kernel's
	// 1.4 million chunks the scan was most of a search's CPU, for a route
	// weighed at 0.05.
	RerankAtFloor bool
	// FusionScale divides the fused score (61), so that a candidate with
	// the best BM25 and the best cosine of the pool scores 1/FusionScale.
	FusionScale float64
	// VectorRerank scores only the keyword route's candidates by cosine
	// instead of scanning every vector: the right trade for a lexical
	// embedder (see LexicalEmbedder), whose vectors rarely surface a chunk
	// BM25 missed.
	VectorRerank bool
	// Semantic weighs the semantic stage: the cosine of a learned
	// embedding (Searcher.Semantic, or the project's own embedder when it
	// is not lexical) between the query and each candidate, min-max
	// normalised over the pool, times Semantic / FusionScale. 0 skips it.
	Semantic float64
	// Expand weighs the expansion route: each of the first ExpandWords
	// query terms brings its ExpandK nearest code words of the learned
	// model with a cosine of at least ExpandMin (see expandTerms); BM25
	// over them, max-normalised, times Expand / FusionScale, is added to
	// the chunks they hit, which join the pool. 0 skips it.
	Expand      float64
	ExpandWords int
	ExpandK     int
	ExpandMin   float64
	// AcronymMin is the least cosine between an acronym's row in the
	// built-in learned model and its run of query words for the acronym
	// to join the keyword route ("breadth first search" -> bfs; see
	// acronymTerms); 0 turns it off.
	AcronymMin float64
	// SemanticDescriptiveOnly keeps both learned stages to descriptive
	// queries: a symbol or a short code-like query names what it wants,
	// and a learned neighbour of the name only competes with it.
	SemanticDescriptiveOnly bool
	// TypeBoostCode favours function/method chunks over class and text
	// chunks.
	TypeBoostCode float64
	// TestPenalty is subtracted for chunks in test files and testdata:
	// about a whole fused score, so a test only wins when nothing else
	// matches. AuxPenalty is subtracted for docs, examples, benchmarks,
	// generated code, type declarations, build scripts and vendored
	// copies; DocPenalty for text chunks of prose and build files (see
	// pathPrior).
	TestPenalty, AuxPenalty, DocPenalty float64
	// NameExact, NameFold and NameQualified boost chunks whose bare name
	// is a code-like word of the query (see nameBoost).
	NameExact, NameFold, NameQualified float64
	// CodeQueryScale multiplies the name boosts for short code-like queries
	// ("HashMap resize", "errors.Is"), where the name is most of the intent.
	CodeQueryScale float64
	// StemBoost is added, times stemMatch, namesakeShare and topicality,
	// to every chunk of a file whose name the query spells: its base name,
	// or its directory's for a directory's module file (mod.rs, index.js,
	// __init__.py, init.lua; see fileSubject).
	StemBoost float64
	// TopicalMin and TopicalMax bound topicality's linear ramp, in content
	// words of the query (see topicality).
	TopicalMin, TopicalMax int
	// FileCoherence is the share of a file's other candidates' scores
	// added to its best candidate, times topicality (see fileCoherence);
	// CoherencePool is how many leading candidates it sums.
	FileCoherence float64
	CoherencePool int
	// ExactPin is added to a definition whose bare name is the whole of a
	// symbol query ("ExecuteContext", "gin.Context"): the named chunk
	// comes first, and no lift passes it (see exactPin). Half of it pins
	// a name spelled in plain words (spelledPin) and a re-export
	// (symbolSites).
	ExactPin float64
	// SymbolSiteCandidates is how many chunks holding a symbol query's
	// whole identifier the symbol-site fallback reads (see symbolSites).
	SymbolSiteCandidates int
	// Delegate lifts implementations above the thin wrappers that call
	// them (see delegate): of the first DelegateTop results, a function of
	// at most ThinCodeLines code lines lifts the one candidate it calls to
	// DelegateMargin above itself.
	Delegate      bool
	DelegateTop   int
	ThinCodeLines int
	// WrapperCodeLines (0 = ThinCodeLines) extends delegation to
	// functions of up to that many code lines, for which the callee must
	// have at least WrapperRatio times the caller's code lines: the
	// longer a caller, the more of the work it may do itself, and only a
	// callee much longer than it is where the behaviour lives.
	WrapperCodeLines int
	WrapperRatio     float64
	DelegateMargin   float64
	// Diversity is the per-extra-chunk decay of a file's candidates when
	// the list is ordered (see diversify); 0 keeps the score order and
	// caps each file at MaxPerFile results instead.
	Diversity float64
	// DiversityFree is how many candidates of a file keep their score
	// before the decay applies: two, as a per-file cap of two would
	// allow, since a question often wants a type and its method.
	DiversityFree int
	// MaxPerFile caps the results of one file when Diversity is 0.
	MaxPerFile int
	// MaxSim weighs the late-interaction stage: the built-in model's
	// MaxSim score of each candidate (static.MaxSim), min-max normalised
	// over the pool, times MaxSim / FusionScale. 0 skips it.
	MaxSim float64
	// MaxSimPerDecade lowers MaxSim by this much per tenfold of the
	// project's chunk count above AlphaRefChunks, down to 0, as the
	// vector share falls (SizedAlpha): among the standard libraries'
	// 22,000-117,000 chunks a learned signal's near misses outnumber its
	// finds.
	MaxSimPerDecade float64
	// MaxSimTop is how many of the best candidates after fusion the
	// late-interaction stage scores.
	MaxSimTop int
	// Proximity weighs the proximity stage (proximity.go): the share of
	// the query's adjacent content-word pairs whose terms stand within
	// ProximityWindow terms of each other in a candidate, for the best
	// ProximityTop candidates, times Proximity / FusionScale. 0 skips it.
	Proximity       float64
	ProximityTop    int
	ProximityWindow int
}

// DefaultHybridParams returns the default knobs (for an embedder that is
// not lexical; see Searcher.HybridParams).
func DefaultHybridParams() HybridParams {
	return HybridParams{
		QueryOptions: QueryOptions{Glossary: true, GlossaryNames: true, PlainWordNames: true},
		Candidates:   200,
		FTS:          store.FTSWeights{Name: 1.5, Owner: 1, Path: 2, Doc: 2, Body: 0.7},
		Alpha:        0.1,
		LearnedAlpha: 0.3,
		// per corpus on the dev sets (semble dev, fresh-bench, fresh-func,
		// golden): the best share falls from 0.3-0.5 below 3,000 chunks
		// to 0.1 or less on the standard libraries (22k-116k chunks);
		// sized, the golden sets rise (go 0.518 to 0.589, java 0.493 to
		// 0.531, python 0.683 to 0.733) and fresh-func (0.529/0.630 to
		// 0.540/0.666 en/zh) with the semble dev subset level (0.830,
		// 0.829)
		AlphaPerDecade: 0.2,
		AlphaRefChunks: 3000,
		AlphaMin:       0.05,
		AlphaMax:       0.4,
		RerankAtFloor:  true,
		FusionScale:    61,
		// Semantic and Expand are off: with the first learned model
		// (local:coderag-code-v1, small) over a hashed index, Semantic 0.5
		// lifts the semble dev subset (gin, axum, zod, fastapi, curl) from
		// 0.730 to 0.745 but lowers go-stdlib MRR@10 from 0.609 to 0.520
		// and java-jdk from 0.526 to 0.517; Expand 0.5 (ExpandMin 0.3)
		// lowers the dev subset to 0.726
		// real acronyms 0.20-0.56, chance initials at most 0.10 (acronym.go)
		AcronymMin:  0.18,
		ExpandWords: 6,
		ExpandK:     3,
		ExpandMin:   0.5,
		// symbol category of the semble dev subset: 0.917 with it, 0.866
		// without, at Semantic 0.5
		SemanticDescriptiveOnly: true,
		TypeBoostCode:           0.004,
		TestPenalty:             0.016,
		AuxPenalty:              0.008,
		DocPenalty:              0.008,
		NameExact:               0.002,
		NameFold:                0.0013,
		NameQualified:           0.002,
		CodeQueryScale:          6,
		StemBoost:               0.008,
		TopicalMin:              6,
		TopicalMax:              9,
		FileCoherence:           0.5,
		CoherencePool:           50,
		ExactPin:                0.05,
		// a long module chunk that re-exports many names ranks below the
		// short functions that call the name: read deep
		SymbolSiteCandidates: 500,
		Delegate:             true,
		DelegateTop:          10,
		// `func Copy(dst, src) { return copyBuffer(dst, src, nil) }` has 3
		ThinCodeLines: 8,
		// golden java 0.533 -> 0.589 (ThreadLocalMap.expungeStaleEntries ->
		// expungeStaleEntry), python 0.722 -> 0.789 (lru_cache ->
		// _lru_cache_wrapper), fresh-func2 zh 0.570 -> 0.590, func3 en
		// 0.557 -> 0.560, semble dev 0.848 -> 0.849; fresh-func zh 0.6503
		// -> 0.6496 (one wrong answer lifted above another: toml's
		// cachedTypeFields -> typeFields); the rest level (session 22)
		WrapperCodeLines: 20,
		WrapperRatio:     3,
		DelegateMargin:   0.0001,
		Diversity:        0.7,
		DiversityFree:    2,
		MaxPerFile:       seedMaxPerFile,
		// all 320 English function-level queries of testdata/fresh-func*
		// MRR@10 0.620 -> 0.635, Chinese (153) 0.594 -> 0.595,
		// fresh-bench 0.795 -> 0.808, zh-fresh 0.671 -> 0.700, semble dev
		// 0.851 level, the golden sets level (unsized: Go 0.611 -> 0.571,
		// Java 0.589 -> 0.561). 0.25 per decade gives the same figures
		// but for semble's architecture queries (0.769 against 0.768); at
		// 0.4 the weight is 0 from 12,600 chunks, where the stage's cost
		// (tokenising 60 candidates, 10-25 ms of a cold search's CPU)
		// buys nothing measured. The whole pool instead of the best 60:
		// the same within 0.001; the best 30: English 0.629 (session 23)
		MaxSim:          0.25,
		MaxSimPerDecade: 0.4,
		MaxSimTop:       60,
		// the proximity stage is off: at 0.15 (window 2, the best 50) golden
		// java 0.589 -> 0.639 (one query, "the end of central directory
		// header", 4th -> 1st), go 0.611 -> 0.614, fresh-bench 0.808 ->
		// 0.812, but the held-out function-level sets level (English
		// 0.632 -> 0.629, Chinese 0.642 -> 0.644 over 515 and 278
		// queries) and semble dev level (0.851); at 0.3 semble falls to
		// 0.847 (session 27). eval --set Proximity=0.15 turns it on.
		Proximity:       0,
		ProximityTop:    50,
		ProximityWindow: 2,
	}
}

// SizedAlpha returns the vector route's share for a project of chunks
// chunks: Alpha - AlphaPerDecade*log10(chunks/AlphaRefChunks), clamped to
// [AlphaMin, AlphaMax]; Alpha when AlphaPerDecade, AlphaRefChunks or
// chunks is not positive.
func (hp HybridParams) SizedAlpha(chunks int) float64 {
	if hp.AlphaPerDecade <= 0 || hp.AlphaRefChunks <= 0 || chunks <= 0 {
		return hp.Alpha
	}
	a := hp.Alpha - hp.AlphaPerDecade*math.Log10(float64(chunks)/float64(hp.AlphaRefChunks))
	return min(max(a, hp.AlphaMin), hp.AlphaMax)
}

// builtinModel reports whether emb is the built-in learned model
// (static.New), by its ID.
func builtinModel(emb embed.Embedder) bool {
	m, err := static.New()
	return err == nil && emb != nil && emb.ID() == m.ID()
}

// SizedMaxSim returns the late-interaction stage's weight for a project
// of chunks chunks: MaxSim - MaxSimPerDecade*log10(chunks/AlphaRefChunks),
// at most MaxSim and at least 0.
func (hp HybridParams) SizedMaxSim(chunks int) float64 {
	if hp.MaxSimPerDecade <= 0 || hp.AlphaRefChunks <= 0 || chunks <= hp.AlphaRefChunks {
		return hp.MaxSim
	}
	return max(0, hp.MaxSim-hp.MaxSimPerDecade*math.Log10(float64(chunks)/float64(hp.AlphaRefChunks)))
}

// LexicalEmbedder is implemented by embedders whose vectors hold the same
// lexical evidence as the keyword route (the built-in local embedder):
// for them the hybrid ranker scores by cosine only the keyword route's
// candidates (HybridParams.VectorRerank).
type LexicalEmbedder interface {
	// Lexical reports whether the vectors are lexical.
	Lexical() bool
}

// HybridParams returns the knobs the hybrid ranker uses: s.Params when
// set, else DefaultHybridParams with VectorRerank for a lexical embedder
// and Alpha = LearnedAlpha for any other.
func (s *Searcher) HybridParams() HybridParams {
	if s.Params != nil {
		return *s.Params
	}
	hp := DefaultHybridParams()
	if l, ok := s.Embedder.(LexicalEmbedder); ok && l.Lexical() {
		hp.VectorRerank = true
	} else {
		hp.Alpha = hp.LearnedAlpha
	}
	if !builtinModel(s.Embedder) {
		// the late-interaction stage reads the built-in model's rows: on
		// by default where that model is the project's embedder. The
		// hashing index stays lexical (Semantic adds the model to it),
		// and a remote model's vectors are its own learned evidence
		hp.MaxSim = 0
	}
	return hp
}

// keywordHit is the best-ranked candidate the keyword route found: its
// place (copied: the pool's slice is the results', which later steps
// change in place) and its 1-based rank in the ranking.
type keywordHit struct {
	path string
	line int
	rank int
}

// rankHybrid ranks in two phases (as zoekt scores a match): gather reads
// the candidates and every piece of evidence the stages need from the
// store, then the stages of hybridStages add their named signals to the
// pool in declared order, without reading the store. It returns the k
// best candidates (chunks HideSecrets hides left out before the cut), and
// the best-ranked candidate the keyword route found (nil when it found
// none the filters kept): a note tells a user whose k results are all
// vector neighbours where the query's words do occur.
func (s *Searcher) rankHybrid(ctx context.Context, q *Query, hp HybridParams, k int) ([]Result, *keywordHit, error) {
	sized := ""
	sizeAlpha := !hp.VectorRerank && hp.Alpha > 0 && hp.AlphaPerDecade > 0
	if sizeAlpha || hp.MaxSim > 0 && hp.MaxSimPerDecade > 0 {
		// a record without a count (an index of an older coderag), or
		// one that cannot be read, keeps Alpha and MaxSim
		if r, ok, err := s.Store.LastRun(ctx, s.Project); err == nil && ok && r.Chunks > 0 {
			hp.MaxSim = hp.SizedMaxSim(r.Chunks)
			if sizeAlpha {
				hp.Alpha = hp.SizedAlpha(r.Chunks)
				sized = fmt.Sprintf("vector share %.2f for %d chunks", hp.Alpha, r.Chunks)
				if hp.RerankAtFloor && hp.AlphaMin > 0 && hp.Alpha <= hp.AlphaMin {
					hp.VectorRerank = true
					sized += ", at its floor: cosine of the keyword route's candidates only"
				}
			}
		}
	}
	p, err := s.gather(ctx, q, hp)
	if err != nil {
		return nil, nil, err
	}
	// filters that kept fewer than k of a pool the routes cut short:
	// read deeper, up to filterMaxCandidates per route, so a language or
	// a directory rare in the project still fills the answer
	for q.Filter.Narrows() && len(p.res) < k && p.cut && hp.Candidates < filterMaxCandidates {
		hp.Candidates = min(hp.Candidates*filterPoolFactor, filterMaxCandidates)
		if p, err = s.gather(ctx, q, hp); err != nil {
			return nil, nil, err
		}
	}
	p.fusionNote = sized
	runStages(p, hybridStages)
	ranked := p.res
	if s.HideSecrets {
		// before the cut: a hidden chunk takes no place of the k, and is
		// neither named nor counted by the notes
		ranked = slices.DeleteFunc(ranked, func(x Result) bool { return walk.SecretName(x.Path) })
	}
	var firstKW *keywordHit
	for i := range ranked {
		if ranked[i].Explain.KeywordRank > 0 {
			firstKW = &keywordHit{path: ranked[i].Path, line: ranked[i].StartLine, rank: i + 1}
			break
		}
	}
	if hp.Diversity <= 0 {
		out := limitPerFile(ranked, k, hp.MaxPerFile)
		markCapped(ranked, out)
		return out, firstKW, nil
	}
	return ranked[:min(k, len(ranked))], firstKW, nil
}

// QueryEmbedder is implemented by embedders that embed an analysed query
// with its own Chinese segmentation and translations (the local
// embedder), so the query is not analysed a second time. translate maps a
// Han run to weighted English terms.
type QueryEmbedder interface {
	EmbedQueryTranslated(ctx context.Context, text string, translate func(han string) []analyze.Expansion) ([]float32, error)
}

// QueryVector is the embedding of one query kept for the searches of it
// that follow (Options.Vector): the vector, or why the embedder could not
// make one (the search then answers by its keyword routes,
// EmbedFailedNote). The zero value holds nothing; the first search that
// embeds the query fills it, and a later search of the same query text by
// the same embedder reads it instead of asking the embedder again. An
// error that fails the search (a cancelled search, embed.Misconfigured) is
// not kept. It is not safe for concurrent use: a search that reads it
// must start after the one that filled it returned.
type QueryVector struct {
	made           bool
	embedder, text string // whose embedding of which query text
	vec            []float32
	err            error // why there is no vector (the search's embedErr)
}

// embedQuery embeds q with the project's embedder (see embedQueryWith)
// once: the outcome is kept in q's QueryVector, which the search's later
// passes and the caller's next search (Options.Vector) read instead. It
// sends the request once (embed.WithoutRetry) and waits at most
// QueryTimeout for the answer: someone waits for it, and the HTTP
// client's own wait (embed.ReadTimeout, 2 minutes) is sized for a model
// that loads during an index run. When the server is down, silent past
// the bound, failing or rate-limiting (not a cancelled ctx, not a setting
// to fix: embed.Misconfigured) it records why in q and returns no vector
// and no error: the search goes on with its keyword routes and says so
// (EmbedFailedNote), a guess labelled a guess, instead of failing or
// waiting out a backoff of seconds.
func (s *Searcher) embedQuery(ctx context.Context, q *Query) ([]float32, error) {
	if q.vector == nil {
		q.vector = &QueryVector{}
	}
	m := q.vector
	if m.made && m.embedder == s.Embedder.ID() && m.text == q.Text {
		q.embedErr = m.err
		return m.vec, nil
	}
	d := s.QueryTimeout
	if d <= 0 {
		d = config.DefaultQueryTimeout
	}
	ectx, cancel := context.WithTimeout(embed.WithoutRetry(ctx), d)
	defer cancel()
	qv, err := embedQueryWith(ectx, s.Embedder, q)
	if err != nil && ctx.Err() == nil && ectx.Err() != nil {
		// the bound ended the wait, not the caller
		err = fmt.Errorf("embed query with %s: %w: waited %s (%s)", s.Embedder.ID(), embed.ErrTimeout, d, config.EnvQueryTimeout)
	}
	if err != nil && (ctx.Err() != nil || embed.Misconfigured(err)) {
		return nil, err
	}
	*m = QueryVector{made: true, embedder: s.Embedder.ID(), text: q.Text, vec: qv, err: err}
	q.embedErr = err
	return qv, nil
}

// markCapped records in each kept result's Explain how many chunks of its
// file ranked between it and the last kept result but were dropped by the
// per-file cap.
func markCapped(ranked, kept []Result) {
	if len(kept) == 0 {
		return
	}
	last := kept[len(kept)-1]
	dropped := map[string]int{}
	keptID := map[int64]bool{}
	for _, r := range kept {
		keptID[r.id] = true
	}
	for _, r := range ranked {
		if !keptID[r.id] {
			dropped[r.Path]++
		}
		if r.id == last.id {
			break
		}
	}
	for i := range kept {
		if kept[i].Explain != nil {
			kept[i].Explain.CapDropped = dropped[kept[i].Path]
		}
	}
}
