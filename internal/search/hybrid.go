package search

import (
	"context"
	"fmt"
	"strings"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/store"
)

// Hybrid ranker parameters.
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
	// TestPenalty is subtracted for chunks in test files and testdata.
	TestPenalty = 0.006
)

// FTS column weights: name, path, body.
var hybridWeights = store.FTSWeights{Name: 6, Path: 2, Body: 1}

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
// keyword route, in order of appearance, without stop words.
func QueryTerms(query string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range analyze.Terms(nil, query) {
		if englishStop[t] || seen[t] || StopWords[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
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
	terms := QueryTerms(query)
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
		kw, err := s.Store.FTSSearch(ctx, s.Project, MatchExpr(terms), hybridWeights, HybridCandidates)
		if err != nil {
			return nil, nil, err
		}
		for i, x := range kw {
			c := get(x.ID)
			c.ex.Keyword, c.ex.KeywordRank = x.Score, i+1
			c.rrf += KeywordWeight / (RRFK + float64(i+1))
		}
	}
	qv, err := s.Embedder.EmbedQuery(ctx, query)
	if err != nil {
		return nil, nil, fmt.Errorf("embed query with %s: %w", s.Embedder.ID(), err)
	}
	if len(qv) > 0 {
		sem, err := s.Store.TopKCosine(ctx, s.Project, s.Embedder.ID(), qv, HybridCandidates)
		if err != nil {
			return nil, nil, err
		}
		for i, x := range sem {
			c := get(x.ID)
			c.ex.Vector, c.ex.VectorRank = x.Score, i+1
			c.rrf += VectorWeight / (RRFK + float64(i+1))
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
			ex.TypeBoost = TypeBoostCode
		}
		if isTestPath(r.Path) {
			ex.PathPenalty = TestPenalty
		}
		r.Score = c.rrf + ex.TypeBoost - ex.PathPenalty
		r.Explain = &ex
		ranked = append(ranked, r)
	}
	sortResults(ranked)
	return LimitPerFile(ranked, k, MaxPerFile), terms, nil
}
