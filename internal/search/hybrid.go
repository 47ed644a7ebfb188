package search

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/store"
)

// Hybrid ranker defaults (see HybridParams).
const (
	// FusionScale divides the fused score, so that a candidate with the
	// best BM25 and the best cosine of the pool scores 1/FusionScale ~=
	// 0.0164; boosts and penalties are in the same units.
	FusionScale = 61.0
	// HybridCandidates is how many chunks each route contributes.
	HybridCandidates = 200
	// TypeBoostCode favours function/method chunks over class and text
	// chunks.
	TypeBoostCode = 0.004
	// TestPenalty is subtracted for chunks in test files and testdata:
	// about a whole fused score, so a test only wins when nothing else
	// matches.
	TestPenalty = 0.016
	// NameExact, NameFold and NameQualified boost chunks whose bare name is
	// a code-like word of the query (see nameBoost).
	NameExact     = 0.002
	NameFold      = 0.0013
	NameQualified = 0.002
	// AuxPenalty, DocPenalty, FileCoherence, Diversity and ExactPin are the
	// defaults of the HybridParams fields of those names.
	AuxPenalty    = 0.008
	DocPenalty    = 0.008
	FileCoherence = 0.5
	Diversity     = 0.7
	ExactPin      = 0.05
	CoherencePool = 50
	StemBoost     = 0.008
)

// HybridParams are the knobs of the hybrid ranker and of the query
// analysis it reads; DefaultHybridParams holds the values tuned on the
// golden sets.
type HybridParams struct {
	// QueryOptions choose what AnalyzeQuery adds to the query's words.
	QueryOptions
	// Candidates is how many chunks each route contributes.
	Candidates                 int
	TypeBoostCode, TestPenalty float64
	NameExact, NameFold        float64
	NameQualified              float64
	FTS                        store.FTSWeights
	// Alpha is the vector share of the fused score: (1-Alpha)*bm25 +
	// Alpha*cos over max-normalised BM25 and min-max-normalised cosine
	// (Bruch et al., "An Analysis of Fusion Functions for Hybrid
	// Retrieval", 2023). 0 skips the vector route.
	Alpha float64
	// CodeQueryScale multiplies the name boosts for short code-like queries
	// ("HashMap resize", "errors.Is"), where the name is most of the intent.
	CodeQueryScale float64
	// VectorRerank scores only the keyword route's candidates by cosine
	// instead of scanning every vector: the right trade for a lexical
	// embedder (see LexicalEmbedder), whose vectors rarely surface a chunk
	// BM25 missed.
	VectorRerank bool
	// Delegate lifts implementations above the thin wrappers that call
	// them (see Searcher.delegate).
	Delegate bool
	// AuxPenalty is subtracted for docs, examples, benchmarks, generated
	// code, type declarations and vendored copies; DocPenalty for text
	// chunks of prose and build files (see pathPrior).
	AuxPenalty, DocPenalty float64
	// FileCoherence is the share of a file's other candidates' scores
	// added to its best candidate (see fileCoherence).
	FileCoherence float64
	// StemBoost is added, times stemMatch and namesakeShare, to every
	// chunk of a file whose base name the query spells.
	StemBoost float64
	// CoherencePool is how many leading candidates file coherence sums.
	CoherencePool int
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
	// TopicalMin and TopicalMax bound topicality's linear ramp, in content
	// words of the query (see topicality).
	TopicalMin, TopicalMax int
	// ExactPin is added to a definition whose bare name is the whole of a
	// symbol query ("ExecuteContext", "gin.Context"): the named chunk
	// comes first, and no lift passes it (see exactPin).
	ExactPin float64
}

// DefaultHybridParams returns the default knobs (for an embedder that is
// not lexical; see Searcher.HybridParams).
func DefaultHybridParams() HybridParams {
	return HybridParams{QueryOptions: QueryOptions{Glossary: true, GlossaryNames: true, PlainWordNames: true},
		Candidates: HybridCandidates, TypeBoostCode: TypeBoostCode, TestPenalty: TestPenalty, NameExact: NameExact, NameFold: NameFold,
		NameQualified: NameQualified, FTS: store.FTSWeights{Name: 1.5, Owner: 1, Path: 2, Doc: 2, Body: 0.7},
		Alpha: 0.1, CodeQueryScale: 6, Delegate: true,
		AuxPenalty: AuxPenalty, DocPenalty: DocPenalty, FileCoherence: FileCoherence, CoherencePool: CoherencePool, StemBoost: StemBoost, Diversity: Diversity, DiversityFree: 2, MaxPerFile: SeedMaxPerFile, ExactPin: ExactPin, TopicalMin: 6, TopicalMax: 9}
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
// set, else DefaultHybridParams with VectorRerank for a lexical embedder.
func (s *Searcher) HybridParams() HybridParams {
	if s.Params != nil {
		return *s.Params
	}
	hp := DefaultHybridParams()
	if l, ok := s.Embedder.(LexicalEmbedder); ok && l.Lexical() {
		hp.VectorRerank = true
	}
	return hp
}

// nameBoost scores how well a chunk's name answers the code-like words of
// the query: the bare name equal to a word (case-sensitive: NameExact,
// else case-insensitive: NameFold), plus NameQualified when the word's
// qualifier names the chunk's owner or a directory of its path.
func nameBoost(r Result, owner string, idents []Identifier, hp HybridParams) float64 {
	if len(idents) == 0 || r.Type == "text" {
		return 0
	}
	bn := r.sym.Name
	best := 0.0
	for _, id := range idents {
		b := 0.0
		switch {
		case bn == id.Name:
			b = hp.NameExact
		case strings.EqualFold(bn, id.Name), sigilName(bn) == id.Name:
			b = hp.NameFold
		default:
			continue
		}
		if q := id.Qualifier; q != "" {
			last := q
			if i := strings.LastIndexAny(q, "./"); i >= 0 {
				last = q[i+1:]
			}
			dir := path.Dir(r.Path)
			if strings.EqualFold(owner, last) || path.Base(dir) == last || strings.HasSuffix(dir, "/"+q) || dir == q {
				b += hp.NameQualified
			}
		}
		// "HashMap resize": another code-like word of the query names the
		// chunk's owner
		if id.Qualifier == "" && owner != "" {
			for _, o := range idents {
				if o.Qualifier == "" && o.Name == owner && o.Name != id.Name {
					b += hp.NameQualified
					break
				}
			}
		}
		best = max(best, b)
	}
	return best
}

// MatchExpr builds an FTS5 MATCH expression: the terms, each a quoted string
// (so no user text is ever parsed as FTS syntax), joined by OR. A NUL byte,
// which would end the SQL string inside SQLite and leave the quote open, is
// replaced by a space; blank terms are dropped, so no terms (or only
// blank ones) give "".
func MatchExpr(terms []string) string {
	q := make([]string, 0, len(terms))
	for _, t := range terms {
		t = strings.ReplaceAll(t, "\x00", " ")
		if strings.TrimSpace(t) == "" {
			continue
		}
		q = append(q, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
	}
	return strings.Join(q, " OR ")
}

// rankHybrid ranks by a convex combination of normalised BM25 (over the
// query's terms) and cosine (with the query's embedding), then applies
// the boosts and re-ranking stages of rerank.go and delegate.go.
func (s *Searcher) rankHybrid(ctx context.Context, q *Query, hp HybridParams, k int) ([]Result, error) {
	terms := q.Terms
	termSet := make(map[string]bool, len(terms))
	for _, t := range terms {
		termSet[t] = true
	}
	cands := map[int64]*Explain{}
	get := func(id int64) *Explain {
		c, ok := cands[id]
		if !ok {
			c = &Explain{}
			cands[id] = c
		}
		return c
	}
	if len(terms) > 0 {
		kw, err := s.Store.FTSSearch(ctx, s.Project, MatchExpr(terms), hp.FTS, hp.Candidates)
		if err != nil {
			return nil, err
		}
		for i, x := range kw {
			c := get(x.ID)
			c.Keyword, c.KeywordRank = x.Score, i+1
		}
	}
	qv, err := s.embedQuery(ctx, q)
	if err != nil {
		return nil, err
	}
	if len(qv) > 0 && hp.Alpha > 0 {
		var sem []store.Scored
		if hp.VectorRerank && len(cands) > 0 { // no keyword candidates (a query of stop words): scan every vector
			ids := make([]int64, 0, len(cands))
			for id := range cands {
				ids = append(ids, id)
			}
			sem, err = s.Store.CosineByID(ctx, s.Project, s.Embedder.ID(), ids, qv)
		} else {
			sem, err = s.Store.TopKCosine(ctx, s.Project, s.Embedder.ID(), qv, hp.Candidates)
		}
		if err != nil {
			return nil, err
		}
		for i, x := range sem {
			c := get(x.ID)
			c.Vector, c.VectorRank = x.Score, i+1
		}
	}
	var maxKW, maxVec, minVec float64
	first := true
	for _, c := range cands {
		if c.KeywordRank > 0 {
			maxKW = max(maxKW, c.Keyword)
		}
		if c.VectorRank > 0 {
			if first {
				maxVec, minVec, first = c.Vector, c.Vector, false
			}
			maxVec, minVec = max(maxVec, c.Vector), min(minVec, c.Vector)
		}
	}
	ids := make([]int64, 0, len(cands))
	for id := range cands {
		ids = append(ids, id)
	}
	rows, err := s.Store.ChunksByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	// a symbol query no parsed definition answers: look for where the
	// name is declared in text or re-exported (see symbolSites)
	var sites map[int64]float64
	if q.Symbol != "" && hp.ExactPin > 0 && !definesSymbol(rows, q.Symbol) {
		if sites, err = s.symbolSites(ctx, q.Symbol, hp, rows); err != nil {
			return nil, err
		}
		for id := range sites {
			get(id)
		}
	}
	var ranked []Result
	for id, c := range cands {
		row, ok := rows[id]
		if !ok {
			continue
		}
		r := fromRow(row)
		ex := *c
		switch r.Type {
		case "text", "class", "impl": // an impl block is no definition of a name
		default:
			ex.TypeBoost = hp.TypeBoostCode
		}
		ex.PathPenalty = pathPrior(r, hp)
		ex.NameBoost = nameBoost(r, row.Owner, q.Identifiers, hp)
		if q.Code {
			ex.NameBoost *= hp.CodeQueryScale
		}
		kn, vn := 0.0, 0.0
		if maxKW > 0 && ex.KeywordRank > 0 {
			kn = ex.Keyword / maxKW
		}
		if maxVec > minVec && ex.VectorRank > 0 {
			vn = (ex.Vector - minVec) / (maxVec - minVec)
		}
		ex.Fusion = ((1-hp.Alpha)*kn + hp.Alpha*vn) / FusionScale
		r.Score = ex.Fusion + ex.TypeBoost + ex.NameBoost - ex.PathPenalty
		r.Explain = &ex
		ranked = append(ranked, r)
	}
	sortResults(ranked)
	topical := topicality(q, hp.TopicalMin, hp.TopicalMax)
	// a query whose words name the best candidate's definition ("HashMap
	// resize", "big nat karatsuba multiplication") asks for that
	// definition, which the name boosts find; file-level evidence would
	// pull up the files around it. A one-symbol query keeps it: a file
	// named like the symbol is where it is defined.
	named := len(ranked) > 0 && ranked[0].Explain.NameBoost > 0 && ranked[0].Type != "text"
	if (q.Code || named) && q.Symbol == "" {
		topical = 0
	}
	if hp.StemBoost > 0 && topical > 0 {
		sm := map[string]float64{}
		namesakes := baseNameCounts(ranked)
		for i := range ranked {
			m, ok := sm[ranked[i].Path]
			if !ok {
				if m = stemMatch(ranked[i].Path, termSet); m > 0 {
					m *= namesakeShare(ranked[i].Path, namesakes, termSet)
				}
				sm[ranked[i].Path] = m
			}
			if b := topical * hp.StemBoost * m; b > 0 {
				ranked[i].Score += b
				ranked[i].Explain.StemBoost = b
			}
		}
	}
	sortResults(ranked)
	fileCoherence(ranked, hp.FileCoherence*topical, hp.CoherencePool)
	exactPin(ranked, q.Symbol, hp.ExactPin)
	pinSites(ranked, sites)
	spelledPin(ranked, q.Spelled, hp.ExactPin/2)
	if hp.Delegate {
		if err := s.delegate(ctx, ranked, rows); err != nil {
			return nil, err
		}
	}
	diversify(ranked, hp.Diversity, hp.DiversityFree)
	if hp.Diversity <= 0 {
		out := LimitPerFile(ranked, k, hp.MaxPerFile)
		markCapped(ranked, out)
		return out, nil
	}
	return ranked[:min(k, len(ranked))], nil
}

// QueryEmbedder is implemented by embedders that embed an analysed query
// with its own Chinese segmentation and translations (the local
// embedder), so the query is not analysed a second time. translate maps a
// Han run to weighted English terms.
type QueryEmbedder interface {
	EmbedQueryTranslated(ctx context.Context, text string, translate func(han string) []analyze.Expansion) ([]float32, error)
}

// embedQuery embeds q with the project's embedder: through QueryEmbedder
// with q's translations when the embedder offers it.
func (s *Searcher) embedQuery(ctx context.Context, q *Query) ([]float32, error) {
	var qv []float32
	var err error
	if qe, ok := s.Embedder.(QueryEmbedder); ok {
		qv, err = qe.EmbedQueryTranslated(ctx, q.Text, q.TranslateHan)
	} else {
		qv, err = s.Embedder.EmbedQuery(ctx, q.Text)
	}
	if err != nil {
		return nil, fmt.Errorf("embed query with %s: %w", s.Embedder.ID(), err)
	}
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
