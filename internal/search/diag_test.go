package search

import (
	"context"
	"os"
	"testing"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/store"
)

// TestDiagGolden prints, for each golden query, the rank of the expected
// chunk on the keyword route and on the vector route (ranking work only).
func TestDiagGolden(t *testing.T) {
	t.Parallel()
	db, root, golden := os.Getenv("CODERAG_TUNE_DB"), os.Getenv("CODERAG_TUNE_ROOT"), os.Getenv("CODERAG_TUNE_GOLDEN")
	if db == "" || os.Getenv("CODERAG_DIAG") == "" {
		t.Skip("set CODERAG_DIAG and the CODERAG_TUNE_* variables")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.CacheVectors(true)
	p, _ := st.GetProject(ctx, root)
	prov, model := embed.ParseID(p.Embedder)
	emb, _ := provider.New(embed.Options{Provider: prov, Model: model, Expand: analyze.GlossaryExpand})
	g, _ := LoadGolden(golden)
	hp := DefaultHybridParams()
	for _, q := range g.Queries {
		terms := QueryTerms(q.Query)
		kw, _ := st.KeywordSearch(ctx, root, terms, hp.FTS, 2000)
		qv, _ := emb.EmbedQuery(ctx, q.Query)
		vs, _ := st.TopKCosine(ctx, root, emb.ID(), qv, 2000)
		ids := []int64{}
		for _, x := range kw {
			ids = append(ids, x.ID)
		}
		for _, x := range vs {
			ids = append(ids, x.ID)
		}
		rows, _ := st.ChunksByID(ctx, ids)
		find := func(list []store.Scored) int {
			for i, x := range list {
				r := fromRow(rows[x.ID])
				for _, e := range q.Expect {
					if IsHit(r, e) {
						return i + 1
					}
				}
			}
			return 0
		}
		t.Logf("%s kw=%d vec=%d terms=%v", q.ID, find(kw), find(vs), terms)
	}
}
