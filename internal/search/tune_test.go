package search

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/store"
)

// TestTuneGolden evaluates a golden set against an existing index; it runs
// only when CODERAG_TUNE_DB, CODERAG_TUNE_ROOT and CODERAG_TUNE_GOLDEN are set
// (a tool for ranking work, not part of the suite).
func TestTuneGolden(t *testing.T) {
	t.Parallel()
	db, root, golden := os.Getenv("CODERAG_TUNE_DB"), os.Getenv("CODERAG_TUNE_ROOT"), os.Getenv("CODERAG_TUNE_GOLDEN")
	if db == "" || root == "" || golden == "" {
		t.Skip("set CODERAG_TUNE_DB, CODERAG_TUNE_ROOT, CODERAG_TUNE_GOLDEN")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := st.GetProject(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	prov, model := embed.ParseID(p.Embedder)
	emb, err := provider.New(embed.Options{Provider: prov, Model: model, Expand: analyze.GlossaryExpand})
	if err != nil {
		t.Fatal(err)
	}
	g, err := LoadGolden(golden)
	if err != nil {
		t.Fatal(err)
	}
	st.CacheVectors(true)
	s := &Searcher{Store: st, Embedder: emb, Project: p.Path}
	rankers := []string{RankerHybrid}
	if os.Getenv("CODERAG_TUNE_SEED") != "" {
		rankers = append(rankers, RankerSeed)
	}
	if os.Getenv("CODERAG_TUNE_GRID") != "" {
		base := DefaultHybridParams()
		base.VectorRerank = true
		variants := map[string]func(*HybridParams){
			"glossary-on":  func(h *HybridParams) { h.Glossary = true },
			"glossary-off": func(h *HybridParams) { h.Glossary = false },
		}
		for name, f := range variants {
			hp := base
			f(&hp)
			s.Params = &hp
			rep, err := Evaluate(ctx, s, g, RankerHybrid)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%-10s overall MRR %.3f R@1 %.3f R@5 %.3f | zh MRR %.3f | fuzzy %.3f", name, rep.Overall.MRRAt10, rep.Overall.RecallAt1, rep.Overall.RecallAt5, rep.ByLang["zh"].MRRAt10, rep.ByKind["fuzzy"].MRRAt10)
		}
		s.Params = nil
		return
	}
	for _, r := range rankers {
		rep, err := Evaluate(ctx, s, g, r)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: overall %+v zh %+v", r, rep.Overall, rep.ByLang["zh"])
		for _, m := range rep.Misses {
			if r == RankerHybrid {
				t.Logf("  miss %s rank %d %q want %s got %v", m.ID, m.Rank, m.Query, m.Expected, m.Top3)
			}
		}
	}
}

// TestLatencyGolden reports warm in-process query latency (p50, p95) over a
// golden set's queries on an existing index, with the vector cache on
// (the MCP server's and REPL's mode) and off (the CLI's mode).
func TestLatencyGolden(t *testing.T) {
	t.Parallel()
	db, root, golden := os.Getenv("CODERAG_TUNE_DB"), os.Getenv("CODERAG_TUNE_ROOT"), os.Getenv("CODERAG_TUNE_GOLDEN")
	if db == "" || os.Getenv("CODERAG_LATENCY") == "" {
		t.Skip("set CODERAG_LATENCY and the CODERAG_TUNE_* variables")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, _ := st.GetProject(ctx, root)
	prov, model := embed.ParseID(p.Embedder)
	emb, _ := provider.New(embed.Options{Provider: prov, Model: model, Expand: analyze.GlossaryExpand})
	g, _ := LoadGolden(golden)
	s := &Searcher{Store: st, Embedder: emb, Project: p.Path}
	for _, cache := range []bool{true, false} {
		st.CacheVectors(cache)
		s.Search(ctx, "warm up", Options{TopK: 5})
		var ds []time.Duration
		for _, q := range g.Queries {
			t0 := time.Now()
			if _, err := s.Search(ctx, q.Query, Options{TopK: 5}); err != nil {
				t.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		t.Logf("cache=%v n=%d p50=%v p95=%v", cache, len(ds), ds[len(ds)/2], ds[len(ds)*95/100])
	}
}

// TestTuneMulti evaluates ranker variants over several golden sets at once
// (CODERAG_TUNE_SETS="db|root|golden;..."), reporting the query-weighted MRR.
func TestTuneMulti(t *testing.T) {
	t.Parallel()
	sets := os.Getenv("CODERAG_TUNE_SETS")
	if sets == "" {
		t.Skip("set CODERAG_TUNE_SETS")
	}
	ctx := context.Background()
	type evalSet struct {
		s *Searcher
		g *Golden
	}
	var es []evalSet
	for _, spec := range strings.Split(sets, ";") {
		f := strings.Split(spec, "|")
		st, err := store.Open(ctx, f[0])
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		st.CacheVectors(true)
		p, err := st.GetProject(ctx, f[1])
		if err != nil {
			t.Fatal(err)
		}
		prov, model := embed.ParseID(p.Embedder)
		emb, _ := provider.New(embed.Options{Provider: prov, Model: model, Expand: analyze.GlossaryExpand})
		g, err := LoadGolden(f[2])
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, evalSet{&Searcher{Store: st, Embedder: emb, Project: p.Path}, g})
	}
	base := DefaultHybridParams()
	base.VectorRerank = true
	variants := map[string]func(*HybridParams){
		"base":        func(*HybridParams) {},
		"no-delegate": func(h *HybridParams) { h.Delegate = false },
	}
	baseRanks := map[string]int{}
	names := []string{"base"}
	for name := range variants {
		if name != "base" {
			names = append(names, name)
		}
	}
	for _, name := range names {
		f := variants[name]
		hp := base
		f(&hp)
		var line string
		var diff []string
		total, mrr, r5 := 0, 0.0, 0.0
		for _, e := range es {
			e.s.Params = &hp
			rep, err := Evaluate(ctx, e.s, e.g, RankerHybrid)
			if err != nil {
				t.Fatal(err)
			}
			n := rep.Overall.N
			total += n
			mrr += rep.Overall.MRRAt10 * float64(n)
			r5 += rep.Overall.RecallAt5 * float64(n)
			line += fmt.Sprintf(" | %s %.3f/%.3f", e.g.Corpus, rep.Overall.MRRAt10, rep.Overall.RecallAt5)
			for id, r := range rep.Ranks {
				if name == "base" {
					baseRanks[id] = r
				} else if baseRanks[id] != r {
					diff = append(diff, fmt.Sprintf("%s:%d->%d", id, baseRanks[id], r))
				}
			}
		}
		sort.Strings(diff)
		t.Logf("%-16s all MRR %.3f R@5 %.3f%s %v", name, mrr/float64(total), r5/float64(total), line, diff)
	}
}
