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
	// RRFK is the k constant of reciprocal rank fusion (Cormack et al., 2009).
	RRFK = 60.0
	// HybridCandidates is how many chunks each route contributes.
	HybridCandidates = 200
	// KeywordWeight and VectorWeight weight the two routes in the fusion.
	// LocalVectorWeight replaces VectorWeight for the built-in local
	// embedder, whose vectors are lexical too and add more noise than
	// signal at full weight (measured on the golden sets: see the README).
	KeywordWeight     = 1.0
	VectorWeight      = 1.0
	LocalVectorWeight = 0.2
	// TypeBoostCode favours function/method/class chunks over text chunks,
	// in RRF units (1/(60+1) ~= 0.0164 is a first rank).
	TypeBoostCode = 0.004
	// TestPenalty is subtracted for chunks in test files and testdata: about
	// one first rank, so a test only wins when nothing else matches.
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

// HybridParams are the knobs of the hybrid ranker; DefaultHybridParams
// holds the values tuned on the golden sets.
type HybridParams struct {
	Candidates                  int
	KeywordWeight, VectorWeight float64
	TypeBoostCode, TestPenalty  float64
	NameExact, NameFold         float64
	NameQualified               float64
	FTS                         store.FTSWeights
	// Fusion is FusionRRF or FusionConvex.
	Fusion string
	// Alpha is the vector share of a convex combination (FusionConvex).
	Alpha float64
	// CodeQueryScale multiplies the name boosts for short code-like queries
	// ("HashMap resize", "errors.Is"), where the name is most of the intent.
	CodeQueryScale float64
	// ClassTypeBoost is the type boost of class chunks (TypeBoostCode is
	// for functions and methods).
	ClassTypeBoost float64
	// VectorRerank scores only the keyword route's candidates by cosine
	// instead of scanning every vector: the right trade for the local
	// embedder, whose vectors rarely surface a chunk BM25 missed.
	VectorRerank bool
	// Coverage weights the share of distinct query terms a chunk contains
	// (name, path, doc and text), in units of a first rank.
	Coverage float64
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
	// StemBoost is added, times stemMatch, to every chunk of a file whose
	// base name the query spells.
	StemBoost float64
	// CoherencePool is how many leading candidates file coherence sums.
	CoherencePool int
	// Diversity is the per-extra-chunk decay of a file's candidates when
	// the list is ordered (see diversify); 0 keeps the score order.
	Diversity float64
	// DiversityFree is how many candidates of a file keep their score
	// before the decay applies: two, as the seed's per-file cap allowed,
	// since a question often wants a type and its method.
	DiversityFree int
	// TopicalMin and TopicalMax bound topicality's linear ramp, in content
	// words of the query (see topicality).
	TopicalMin, TopicalMax int
	// ExactPin is added to a definition whose bare name is the whole of a
	// symbol query ("ExecuteContext", "gin.Context"): the named chunk
	// comes first, and no lift passes it (see exactPin).
	ExactPin float64
}

// Fusion methods.
const (
	// FusionRRF sums 1/(RRFK+rank) over the routes (Cormack et al., 2009).
	FusionRRF = "rrf"
	// FusionConvex mixes max-normalised BM25 and min-max-normalised cosine,
	// (1-Alpha)*bm25 + Alpha*cos (Bruch et al., "An Analysis of Fusion
	// Functions for Hybrid Retrieval", 2023); boosts are scaled by 1/0.0164
	// so they mean the same as under RRF.
	FusionConvex = "convex"
)

// DefaultHybridParams returns the default knobs.
func DefaultHybridParams() HybridParams {
	return HybridParams{Candidates: HybridCandidates, KeywordWeight: KeywordWeight, VectorWeight: VectorWeight,
		TypeBoostCode: TypeBoostCode, TestPenalty: TestPenalty, NameExact: NameExact, NameFold: NameFold,
		NameQualified: NameQualified, FTS: store.FTSWeights{Name: 1.5, Owner: 1, Path: 2, Doc: 2, Body: 0.7},
		Fusion: FusionConvex, Alpha: 0.1, CodeQueryScale: 6, ClassTypeBoost: 0, Delegate: true,
		AuxPenalty: AuxPenalty, DocPenalty: DocPenalty, FileCoherence: FileCoherence, CoherencePool: CoherencePool, StemBoost: StemBoost, Diversity: Diversity, DiversityFree: 2, ExactPin: ExactPin, TopicalMin: 6, TopicalMax: 9}
}

// englishStop are frequent English words that carry no code meaning.
var englishStop = map[string]bool{
	"the": true, "a": true, "an": true, "of": true, "to": true, "in": true, "is": true, "it": true,
	"and": true, "or": true, "for": true, "on": true, "by": true, "be": true, "are": true, "at": true,
	"as": true, "with": true, "that": true, "this": true, "from": true, "when": true, "where": true,
	"which": true, "what": true, "how": true, "doe": true, "do": true, "does": true, "its": true, "into": true,
	"there": true, "whi": true, "who": true, "can": true, "so": true, "if": true, "then": true, "than": true,
	"find": true, "code": true, "function": true, "method": true, "handl": false,
}

// QueryTerms returns the analysed, de-duplicated terms of a query for the
// keyword route, in order of appearance: English stop words are dropped
// from plain words but kept inside identifiers ("errors.Is" keeps "is"), and
// Chinese words found in the bilingual glossary add their English terms.
func QueryTerms(query string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string, fromIdent bool) {
		if seen[t] || StopWords[t] || (!fromIdent && englishStop[t]) {
			return
		}
		seen[t] = true
		out = append(out, t)
	}
	for _, f := range strings.FieldsFunc(query, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == ',' || r == '?' || r == '\u3000' }) {
		ident := looksLikeIdentifier(f)
		for _, part := range splitHan(f) {
			if part.han {
				// Chinese: bigrams of the segmenter's words only, so no
				// bigram straddles two words ("时在" of "时 在哪里"), and
				// question words are dropped.
				for _, w := range CutChinese(part.text) {
					if len([]rune(w)) < 2 || StopWords[w] || zhQuestionWords[w] {
						continue
					}
					for _, t := range analyze.Terms(nil, w) {
						add(t, false)
					}
				}
				continue
			}
			for _, t := range analyze.Terms(nil, part.text) {
				add(t, ident)
			}
		}
	}
	if UseGlossary {
		for _, en := range ExpandQuery(query) {
			for _, t := range analyze.Terms(nil, en) {
				add(t, false)
			}
		}
	}
	if ExpandEnglish {
		for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !(r >= 'a' && r <= 'z') }) {
			if englishStop[w] || GlossaryExpand == nil {
				continue
			}
			for _, en := range GlossaryExpand(w) {
				for _, t := range analyze.Terms(nil, en) {
					add(t, false)
				}
			}
		}
	}
	return out
}

// coverage returns the share of terms found among the analysed terms of a
// chunk's name, path, doc and content.
func coverage(terms []string, c store.ChunkRow) float64 {
	have := map[string]bool{}
	for _, t := range analyze.Terms(nil, c.Name+" "+analyze.PathText(c.Path)+" "+c.Doc+" "+c.Content) {
		have[t] = true
	}
	n := 0
	for _, t := range terms {
		if have[t] {
			n++
		}
	}
	return float64(n) / float64(len(terms))
}

// zhQuestionWords are Chinese function and question words that carry no
// code meaning, beyond the seed's StopWords.
var zhQuestionWords = map[string]bool{
	"哪里": true, "在哪": true, "在哪里": true, "哪个": true, "什么样": true, "时候": true, "什么时候": true,
	"为什么": true, "是否": true, "怎样": true, "怎么样": true, "多少": true, "如何": true, "的话": true,
	"是不是": true, "这个": true, "那个": true, "这些": true, "那些": true, "以及": true,
	"或者": true, "还是": true, "然后": true, "进行": true, "地方": true, "代码": true,
	"逻辑": true, "方法": true, "函数": true,
}

type hanPart struct {
	text string
	han  bool
}

// splitHan cuts s into runs of Han and non-Han characters.
func splitHan(s string) []hanPart {
	var out []hanPart
	start, cur := 0, false
	for i, r := range s {
		h := analyze.IsHan(r)
		if i == 0 {
			cur = h
			continue
		}
		if h != cur {
			out = append(out, hanPart{s[start:i], cur})
			start, cur = i, h
		}
	}
	if start < len(s) {
		out = append(out, hanPart{s[start:], cur})
	}
	return out
}

// UseGlossary adds the bilingual glossary's English terms for the Chinese
// words of a query to the keyword route (on by default; off only to measure
// the glossary's effect).
var UseGlossary = true

// ExpandEnglish adds the glossary's English synonyms and abbreviations
// (request -> req, connection -> conn) of plain query words to the keyword
// route.
var ExpandEnglish = false

// looksLikeIdentifier reports whether a query word is written like code:
// it has an inner upper-case letter, '_', '.', '$' or mixes letters and
// digits ("errors.Is", "user_id", "bytes.Buffer", "utf8").
func looksLikeIdentifier(w string) bool {
	w = strings.Trim(w, "\"'`()[]{}:;!?。，、")
	if len(w) < 2 {
		return false
	}
	letters, digits := false, false
	for i, r := range w {
		switch {
		case r == '_' || r == '.' || r == '$':
			if i > 0 && i < len(w)-1 {
				return true
			}
		case r >= 'A' && r <= 'Z':
			if i > 0 {
				return true
			}
			letters = true
		case r >= 'a' && r <= 'z':
			letters = true
		case r >= '0' && r <= '9':
			digits = true
		}
	}
	return letters && digits
}

// identifierQueries returns the code-like words of a query, split into an
// optional qualifier and the bare name: "hex.Dump" -> {"hex", "Dump"},
// "StripPrefix" -> {"", "StripPrefix"}. A query of one word counts as
// code-like whatever its case.
func identifierQueries(query string) [][2]string {
	var out [][2]string
	fields := strings.Fields(query)
	for _, m := range identifierRE.FindAllString(query, -1) {
		if !looksLikeIdentifier(m) && len(fields) > 1 && !(PlainWordNames && len(m) >= 6 && !englishStop[strings.ToLower(m)]) {
			continue
		}
		m = strings.Trim(m, ".-$")
		if i := strings.LastIndexByte(m, '.'); i > 0 {
			out = append(out, [2]string{m[:i], m[i+1:]})
		} else {
			out = append(out, [2]string{"", m})
		}
	}
	return out
}

// isCodeQuery reports whether a query is a short run of code-like words
// (at most 3 words, no Chinese, at least one written like code or a single
// word): "HashMap resize", "errors.Is", "StripPrefix".
func isCodeQuery(q string) bool {
	fields := strings.Fields(q)
	if len(fields) == 0 || len(fields) > 3 || hasHan(q) {
		return false
	}
	if len(fields) == 1 {
		return true
	}
	for _, f := range fields {
		if looksLikeIdentifier(f) {
			return true
		}
	}
	return false
}

// GlossaryNames lets the glossary's English terms for a query's Chinese
// words count as code-like words for the name boost.
var GlossaryNames = true

// PlainWordNames lets plain query words of 6+ letters ("karatsuba") count as
// code-like words for the name boost.
var PlainWordNames = true

// nameBoost scores how well a chunk's name answers the code-like words of
// the query: the bare name equal to a word (case-sensitive: NameExact,
// else case-insensitive: NameFold), plus NameQualified when the word's
// qualifier names the chunk's owner or a directory of its path.
func nameBoost(r Result, owner string, idents [][2]string, hp HybridParams) float64 {
	if len(idents) == 0 || r.Type == "text" {
		return 0
	}
	bn := r.sym.Name
	best := 0.0
	for _, id := range idents {
		b := 0.0
		switch {
		case bn == id[1]:
			b = hp.NameExact
		case strings.EqualFold(bn, id[1]), sigilName(bn) == id[1]:
			b = hp.NameFold
		default:
			continue
		}
		if q := id[0]; q != "" {
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
		if id[0] == "" && owner != "" {
			for _, o := range idents {
				if o[0] == "" && o[1] == owner && o[1] != id[1] {
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

// rankHybrid fuses BM25 and cosine by reciprocal rank fusion.
func (s *Searcher) rankHybrid(ctx context.Context, query string, k int) ([]Result, []string, error) {
	hp := DefaultHybridParams()
	if strings.HasPrefix(s.Embedder.ID(), "local:") {
		hp.VectorWeight = LocalVectorWeight
		hp.VectorRerank = true
	}
	if s.Params != nil {
		hp = *s.Params
	}
	terms := QueryTerms(query)
	idents := identifierQueries(query)
	if GlossaryNames && UseGlossary {
		// Chinese words name code too: 扩容 -> grow, a function named grow
		for _, en := range ExpandQuery(query) {
			if len(en) >= 4 && !strings.Contains(en, " ") {
				idents = append(idents, [2]string{"", en})
			}
		}
	}
	codeQuery := isCodeQuery(query)
	termSet := make(map[string]bool, len(terms))
	for _, t := range terms {
		termSet[t] = true
	}
	type cand struct {
		ex  Explain
		rrf float64
	}
	cands := map[int64]*cand{}
	get := func(id int64) *cand {
		c, ok := cands[id]
		if !ok {
			c = &cand{}
			cands[id] = c
		}
		return c
	}
	if len(terms) > 0 {
		kw, err := s.Store.FTSSearch(ctx, s.Project, MatchExpr(terms), hp.FTS, hp.Candidates)
		if err != nil {
			return nil, nil, err
		}
		for i, x := range kw {
			c := get(x.ID)
			c.ex.Keyword, c.ex.KeywordRank = x.Score, i+1
			c.rrf += hp.KeywordWeight / (RRFK + float64(i+1))
		}
	}
	qv, err := s.Embedder.EmbedQuery(ctx, query)
	if err != nil {
		return nil, nil, fmt.Errorf("embed query with %s: %w", s.Embedder.ID(), err)
	}
	if len(qv) > 0 && hp.VectorWeight > 0 {
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
			return nil, nil, err
		}
		for i, x := range sem {
			c := get(x.ID)
			c.ex.Vector, c.ex.VectorRank = x.Score, i+1
			c.rrf += hp.VectorWeight / (RRFK + float64(i+1))
		}
	}
	var maxKW, maxVec, minVec float64
	first := true
	for _, c := range cands {
		if c.ex.KeywordRank > 0 {
			maxKW = max(maxKW, c.ex.Keyword)
		}
		if c.ex.VectorRank > 0 {
			if first {
				maxVec, minVec, first = c.ex.Vector, c.ex.Vector, false
			}
			maxVec, minVec = max(maxVec, c.ex.Vector), min(minVec, c.ex.Vector)
		}
	}
	ids := make([]int64, 0, len(cands))
	for id := range cands {
		ids = append(ids, id)
	}
	rows, err := s.Store.ChunksByID(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	var ranked []Result
	for id, c := range cands {
		row, ok := rows[id]
		if !ok {
			continue
		}
		r := fromRow(row)
		ex := c.ex
		ex.Fusion = c.rrf
		switch r.Type {
		case "text":
		case "class":
			ex.TypeBoost = hp.ClassTypeBoost
		default:
			ex.TypeBoost = hp.TypeBoostCode
		}
		ex.PathPenalty = pathPrior(r, hp)
		ex.NameBoost = nameBoost(r, row.Owner, idents, hp)
		if codeQuery {
			ex.NameBoost *= hp.CodeQueryScale
		}
		base := c.rrf
		if hp.Fusion == FusionConvex {
			kn, vn := 0.0, 0.0
			if maxKW > 0 && ex.KeywordRank > 0 {
				kn = ex.Keyword / maxKW
			}
			if maxVec > minVec && ex.VectorRank > 0 {
				vn = (ex.Vector - minVec) / (maxVec - minVec)
			}
			// scale to RRF units so boosts keep their meaning
			base = ((1-hp.Alpha)*kn + hp.Alpha*vn) / (RRFK + 1)
			ex.Fusion = base
		}
		if hp.Coverage > 0 && len(terms) > 1 {
			ex.Coverage = hp.Coverage * coverage(terms, row) / (RRFK + 1)
		}
		r.Score = base + ex.TypeBoost + ex.NameBoost + ex.Coverage - ex.PathPenalty
		r.Explain = &ex
		ranked = append(ranked, r)
	}
	sortResults(ranked)
	topical := topicality(query, hp.TopicalMin, hp.TopicalMax)
	// a query whose words name the best candidate's definition ("HashMap
	// resize", "big nat karatsuba multiplication") asks for that
	// definition, which the name boosts find; file-level evidence would
	// pull up the files around it. A one-symbol query keeps it: a file
	// named like the symbol is where it is defined.
	named := len(ranked) > 0 && ranked[0].Explain.NameBoost > 0 && ranked[0].Type != "text"
	if (codeQuery || named) && symbolQuery(query) == "" {
		topical = 0
	}
	if hp.StemBoost > 0 && topical > 0 {
		sm := map[string]float64{}
		for i := range ranked {
			m, ok := sm[ranked[i].Path]
			if !ok {
				m = stemMatch(ranked[i].Path, termSet)
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
	exactPin(ranked, query, hp.ExactPin)
	if hp.Delegate {
		if err := s.delegate(ctx, ranked, rows); err != nil {
			return nil, nil, err
		}
	}
	diversify(ranked, hp.Diversity, hp.DiversityFree)
	if hp.Diversity <= 0 {
		out := LimitPerFile(ranked, k, MaxPerFile)
		markCapped(ranked, out)
		return out, terms, nil
	}
	return ranked[:min(k, len(ranked))], terms, nil
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
