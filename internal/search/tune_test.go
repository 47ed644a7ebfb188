package search

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/store"
)

// TestTuneGolden evaluates a golden set against an existing index; it runs
// only when CODERAG_TUNE_DB, CODERAG_TUNE_ROOT and CODERAG_TUNE_GOLDEN are set
// (a tool for ranking work, not part of the suite).
func TestTuneGolden(t *testing.T) {
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
	emb, err := provider.New(embed.Options{Provider: prov, Model: model, Expand: GlossaryExpand})
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
		base.VectorWeight = LocalVectorWeight
		variants := map[string]func(*HybridParams){}
		for _, pw := range []bool{false, true} {
			for _, ne := range []float64{0.002, 0.004} {
				pw, ne := pw, ne
				variants[fmt.Sprintf("plain%v-ne%.3f", pw, ne)] = func(h *HybridParams) {
					PlainWordNames = pw
					h.NameExact, h.NameFold, h.NameQualified = ne, ne*0.66, ne
				}
			}
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
