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
	KeywordWeight = 1.0
	VectorWeight  = 1.0
	// TypeBoostCode favours function/method/class chunks over text chunks,
	// in RRF units (1/(60+1) ~= 0.0164 is a first rank).
	TypeBoostCode = 0.004
	// TestPenalty is subtracted for chunks in test files and testdata: about
	// one first rank, so a test only wins when nothing else matches.
	TestPenalty = 0.016
	// NameExact, NameFold and NameQualified boost chunks whose bare name is
	// a code-like word of the query (see nameBoost).
	NameExact     = 0.012
	NameFold      = 0.008
	NameQualified = 0.010
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
}

// DefaultHybridParams returns the default knobs.
func DefaultHybridParams() HybridParams {
	return HybridParams{Candidates: HybridCandidates, KeywordWeight: KeywordWeight, VectorWeight: VectorWeight,
		TypeBoostCode: TypeBoostCode, TestPenalty: TestPenalty, NameExact: NameExact, NameFold: NameFold,
		NameQualified: NameQualified, FTS: store.FTSWeights{Name: 6, Path: 2, Body: 1}}
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
	for _, f := range strings.FieldsFunc(query, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == ',' || r == '?' || r == '　' }) {
		ident := looksLikeIdentifier(f)
		for _, t := range analyze.Terms(nil, f) {
			add(t, ident)
		}
	}
	for _, en := range ExpandQuery(query) {
		for _, t := range analyze.Terms(nil, en) {
			add(t, false)
		}
	}
	return out
}

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
		if !looksLikeIdentifier(m) && len(fields) > 1 {
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

// bareName returns a chunk name without owner and parameters:
// "Server.Serve(l net.Listener)" -> "Serve".
func bareName(name string) string {
	if i := strings.IndexByte(name, '('); i > 0 {
		name = name[:i]
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// nameBoost scores how well a chunk's name answers the code-like words of
// the query: the bare name equal to a word (case-sensitive: NameExact,
// else case-insensitive: NameFold), plus NameQualified when the word's
// qualifier names the chunk's owner or a directory of its path.
func nameBoost(r Result, owner string, idents [][2]string, hp HybridParams) float64 {
	if len(idents) == 0 || r.Type == "text" {
		return 0
	}
	bn := bareName(r.Name)
	best := 0.0
	for _, id := range idents {
		b := 0.0
		switch {
		case bn == id[1]:
			b = hp.NameExact
		case strings.EqualFold(bn, id[1]):
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
		best = max(best, b)
	}
	return best
}

// MatchExpr builds an FTS5 MATCH expression: the terms, each a quoted string
// (so no user text is ever parsed as FTS syntax), joined by OR.
func MatchExpr(terms []string) string {
	q := make([]string, 0, len(terms))
	for _, t := range terms {
		q = append(q, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
	}
	return strings.Join(q, " OR ")
}

func isTestPath(p string) bool {
	return strings.HasSuffix(p, "_test.go") || strings.Contains(p, "/testdata/") || strings.HasPrefix(p, "testdata/") ||
		strings.Contains(p, "/test/") || strings.HasPrefix(p, "test/") || strings.Contains(p, "/tests/")
}

// rankHybrid fuses BM25 and cosine by reciprocal rank fusion.
func (s *Searcher) rankHybrid(ctx context.Context, query string, k int) ([]Result, []string, error) {
	hp := DefaultHybridParams()
	if s.Params != nil {
		hp = *s.Params
	}
	terms := QueryTerms(query)
	idents := identifierQueries(query)
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
		sem, err := s.Store.TopKCosine(ctx, s.Project, s.Embedder.ID(), qv, hp.Candidates)
		if err != nil {
			return nil, nil, err
		}
		for i, x := range sem {
			c := get(x.ID)
			c.ex.Vector, c.ex.VectorRank = x.Score, i+1
			c.rrf += hp.VectorWeight / (RRFK + float64(i+1))
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
		if r.Type != "text" {
			ex.TypeBoost = hp.TypeBoostCode
		}
		if isTestPath(r.Path) {
			ex.PathPenalty = hp.TestPenalty
		}
		ex.NameBoost = nameBoost(r, row.Owner, idents, hp)
		r.Score = c.rrf + ex.TypeBoost + ex.NameBoost - ex.PathPenalty
		r.Explain = &ex
		ranked = append(ranked, r)
	}
	sortResults(ranked)
	return LimitPerFile(ranked, k, MaxPerFile), terms, nil
}
