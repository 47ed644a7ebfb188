package search

import (
	"context"
	"strings"

	"github.com/coderag/coderag/internal/chunk"
)

// Seed ranker constants: the bonuses of its keyword and type scores.
const (
	seedKeywordBase  = 0.3  // a chunk whose name or content contains the keyword
	seedNameBonus    = 0.3  // ... and whose name contains it
	seedPathBonus    = 0.1  // ... and whose file path contains it
	seedContentBonus = 0.1  // ... and whose content contains it
	seedBothBonus    = 0.1  // hit by both the vector and the keyword route, once
	seedMethodBoost  = 0.15 // method (and function) chunks
	seedClassBoost   = 0.10 // class chunks
	// seedKeywordLimit caps the rows one keyword's LIKE scan returns; name
	// hits are taken first, so a cut drops content-only hits.
	seedKeywordLimit = 200
)

type seedHit struct {
	r     Result
	sem   float64
	kw    float64
	isSem bool
	isKw  bool
	terms string
}

// seedKeywordScore is the seed ranker's score for a chunk matched by one keyword:
// 0.3, +0.3 if the name contains it, +0.1 if the path does, +0.1 if the
// content does (case-insensitive), so at most 0.8.
func seedKeywordScore(name, path, content, keyword string) float64 {
	kw := strings.ToLower(keyword)
	s := seedKeywordBase
	if strings.Contains(strings.ToLower(name), kw) {
		s += seedNameBonus
	}
	if strings.Contains(strings.ToLower(path), kw) {
		s += seedPathBonus
	}
	if strings.Contains(strings.ToLower(content), kw) {
		s += seedContentBonus
	}
	return s
}

// seedTypeBoost is +0.15 for method, function and macro chunks, +0.10 for
// class chunks, 0 otherwise (text, impl blocks): top-level functions are methods' peers and get the
// same boost.
func seedTypeBoost(typ string) float64 {
	switch typ {
	case chunk.KindMethod, chunk.KindFunction, chunk.KindMacro:
		return seedMethodBoost
	case chunk.KindClass:
		return seedClassBoost
	}
	return 0
}

// rankSeed is the seed ranker, step for step:
//  1. vector route: the max(2k,10) chunks with the highest cosine;
//  2. keyword route: per query token, chunks whose name or content contains
//     it (LIKE, escaped), scored by seedKeywordScore; a chunk keeps its best;
//  3. chunks on both routes get max(semantic, keyword) + 0.1 once;
//  4. type boost; sort by score desc, path, name; at most 2 per file; top k.
//
// The query's filters (Query.Filter) drop candidates before step 3, and
// both routes then read filterPoolFactor times deeper.
//
// Chunks are keyed by path + "#" + name: two chunks of one file with the
// same name count once.
func (s *Searcher) rankSeed(ctx context.Context, q *Query, k int) ([]Result, error) {
	hits, err := s.seedCandidates(ctx, q, k)
	if err != nil {
		return nil, err
	}
	for key, h := range hits {
		if !q.Filter.Keep(&h.r) {
			delete(hits, key)
		}
	}
	return seedRank(hits, k), nil
}

func (s *Searcher) seedCandidates(ctx context.Context, q *Query, k int) (map[string]*seedHit, error) {
	merged := map[string]*seedHit{}
	depth := 1
	if q.Filter.Narrows() {
		depth = filterPoolFactor // the filters drop candidates before the cut
	}
	qv, err := s.embedQuery(ctx, q)
	if err != nil {
		return nil, err
	}
	if len(qv) > 0 {
		sem, err := s.Store.TopKCosine(ctx, s.Project, s.Embedder.ID(), qv, max(2*k, 10)*depth)
		if err != nil {
			return nil, err
		}
		ids := make([]int64, len(sem))
		for i, x := range sem {
			ids[i] = x.ID
		}
		rows, err := s.chunksByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		for _, x := range sem {
			c, ok := rows[x.ID]
			if !ok {
				continue
			}
			key := c.Path + "#" + c.Name
			if h, ok := merged[key]; !ok || x.Score > h.sem {
				merged[key] = &seedHit{r: fromRow(c.ChunkRow), sem: x.Score, isSem: true}
			}
		}
	}
	for _, kw := range q.Keywords {
		rows, err := s.Store.LikeSearch(ctx, s.Project, kw, seedKeywordLimit*depth)
		if err != nil {
			return nil, err
		}
		for _, c := range rows {
			sc := seedKeywordScore(c.Name, c.Path, c.Content, kw)
			key := c.Path + "#" + c.Name
			h, ok := merged[key]
			if !ok {
				h = &seedHit{r: fromRow(c)}
				merged[key] = h
			}
			if !h.isKw || sc > h.kw {
				h.kw, h.isKw, h.terms = sc, true, kw
			}
		}
	}
	return merged, nil
}

// seedRank turns merged candidates into the final list (steps 3 and 4).
func seedRank(hits map[string]*seedHit, k int) []Result {
	var ranked []Result
	for _, h := range hits {
		r := h.r
		ex := &Explain{Vector: h.sem, Keyword: h.kw, Terms: h.terms}
		switch {
		case h.isSem && h.isKw:
			r.Score = max(h.sem, h.kw) + seedBothBonus
			ex.Signals = append(ex.Signals, Signal{Name: "route", Value: max(h.sem, h.kw)}, Signal{Name: "both", Value: seedBothBonus})
		case h.isSem:
			r.Score = h.sem
			ex.Signals = append(ex.Signals, Signal{Name: "route", Value: h.sem})
		default:
			r.Score = h.kw
			ex.Signals = append(ex.Signals, Signal{Name: "route", Value: h.kw})
		}
		if tb := seedTypeBoost(r.Type); tb != 0 {
			r.Score += tb
			ex.Signals = append(ex.Signals, Signal{Name: "type", Value: tb})
		}
		r.Explain = ex
		ranked = append(ranked, r)
	}
	sortResults(ranked)
	out := limitPerFile(ranked, k, seedMaxPerFile)
	markCapped(ranked, out)
	return out
}
