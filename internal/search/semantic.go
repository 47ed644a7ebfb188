package search

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/vec"
	"github.com/coderag/coderag/internal/zh"
)

// This file holds the evidence of the two learned-model stages: semantic
// (the cosine of a learned embedding between the query and each
// candidate) and expand (the keyword route over the code words a learned
// model puts nearest the query's words). Both are read in phase 1 and
// turned into signals by pure stages (hybridStages), and both are off
// when their weight (HybridParams.Semantic, HybridParams.Expand) is 0, so
// the hashing embedder alone, the learned model alone and both together
// can be compared on one index.

// wordNeighbors is implemented by a learned embedder that can name the
// vocabulary words nearest a query word (static.Embedder): at most k
// (word, cosine) pairs, best first, the words spelled as index terms
// (lower-case, stemmed, or whole identifiers).
type wordNeighbors interface {
	Neighbors(word string, k int) []static.Neighbor
}

// semanticEmbedder returns the embedder of the semantic and expand
// stages, and whether its vectors are the project's stored ones:
// s.Semantic when set; else the project's own embedder when it is not
// lexical (a learned one: its stored vectors are the learned evidence);
// else the built-in learned model (static.New), which then embeds the
// candidates at query time. Errors: the built-in model cannot be decoded.
func (s *Searcher) semanticEmbedder() (emb embed.Embedder, stored bool, err error) {
	switch {
	case s.Semantic != nil && s.Semantic.ID() != s.Embedder.ID():
		return s.Semantic, false, nil
	case s.Semantic != nil:
		return s.Embedder, true, nil
	}
	if l, ok := s.Embedder.(LexicalEmbedder); !ok || !l.Lexical() {
		return s.Embedder, true, nil
	}
	m, err := static.New()
	if err != nil {
		return nil, false, err
	}
	return m, false, nil
}

// semanticScores returns the cosine between the query and each candidate
// of res under the semantic embedder (see semanticEmbedder): from the
// stored vectors when the project was indexed with it, else by embedding
// the candidates' texts (chunk.EmbedText) now, which for a static model
// is a table lookup per token.
func (s *Searcher) semanticScores(ctx context.Context, q *Query, res []Result) (map[int64]float64, error) {
	if len(res) == 0 {
		return nil, nil
	}
	emb, stored, err := s.semanticEmbedder()
	if err != nil {
		return nil, err
	}
	qv, err := embedQueryWith(ctx, emb, q)
	if err != nil || len(qv) == 0 {
		return nil, err
	}
	out := make(map[int64]float64, len(res))
	if stored {
		ids := make([]int64, len(res))
		for i, r := range res {
			ids[i] = r.id
		}
		sc, err := s.Store.CosineByID(ctx, s.Project, emb.ID(), ids, qv)
		if err != nil {
			return nil, err
		}
		for _, x := range sc {
			out[x.ID] = x.Score
		}
		return out, nil
	}
	texts := make([]string, len(res))
	for i, r := range res {
		texts[i] = chunk.EmbedText(chunk.Chunk{Type: r.Type, Name: r.Name, Content: r.content})
	}
	vs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("semantic: embed candidates with %s: %w", emb.ID(), err)
	}
	for i, v := range vs {
		if len(v) == len(qv) {
			out[res[i].id] = float64(vec.Dot(qv, v))
		}
	}
	return out, nil
}

// semanticStage adds Semantic times the min-max-normalised semantic
// cosine of the pool, / FusionScale: the learned similarity as a signal
// of its own, beside the fused routes.
func semanticStage(p *pool) {
	lo, hi, first := 0.0, 0.0, true
	for _, c := range p.sem {
		if first {
			lo, hi, first = c, c, false
		}
		lo, hi = min(lo, c), max(hi, c)
	}
	for i := range p.res {
		c, ok := p.sem[p.res[i].id]
		if !ok {
			continue
		}
		p.res[i].Explain.Semantic = c
		if hi <= lo { // one cosine: nothing to tell apart
			continue
		}
		p.add(i, "semantic", p.hp.Semantic*(c-lo)/(hi-lo)/p.hp.FusionScale, "")
	}
}

// expansion is one code word added to the keyword route: Term, the query
// term it came from (From) and their cosine.
type expansion struct {
	Term, From string
	Score      float64
}

// expandTerms returns the code words a learned model puts nearest the
// query's words: for each of the first hp.ExpandWords single-word terms
// of the query and each of its Chinese words, its hp.ExpandK nearest
// words with a cosine of at least hp.ExpandMin that are not query terms
// already, each once (kept with its best source), best first. nil when
// the semantic embedder names no neighbours (it is not a learned static
// model). Errors: as semanticEmbedder's.
func (s *Searcher) expandTerms(q *Query, hp HybridParams) ([]expansion, error) {
	emb, _, err := s.semanticEmbedder()
	if err != nil {
		return nil, err
	}
	nb, ok := emb.(wordNeighbors)
	if !ok {
		return nil, nil
	}
	have := map[string]bool{}
	for _, t := range q.Terms {
		have[t] = true
	}
	var words []string
	for _, t := range q.Terms {
		if len(words) == hp.ExpandWords {
			break
		}
		if !strings.ContainsAny(t, " \t") && len(zh.HanRuns(t)) == 0 {
			words = append(words, t)
		}
	}
	for _, w := range q.Chinese {
		words = append(words, w.Text)
	}
	best := map[string]expansion{}
	for _, w := range words {
		for _, x := range nb.Neighbors(w, hp.ExpandK) {
			if float64(x.Score) < hp.ExpandMin || have[x.Word] {
				continue
			}
			if b, ok := best[x.Word]; !ok || float64(x.Score) > b.Score {
				best[x.Word] = expansion{Term: x.Word, From: w, Score: float64(x.Score)}
			}
		}
	}
	out := make([]expansion, 0, len(best))
	for _, x := range best {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Term < out[j].Term
	})
	return out, nil
}

// expandStage adds Expand times the expansion route's max-normalised
// BM25, / FusionScale, to the candidates it hit; the signal's note names
// the expanded terms the chunk holds and the query word each came from
// ("delete<-remove").
func expandStage(p *pool) {
	hi := 0.0
	for _, v := range p.exp {
		hi = max(hi, v)
	}
	if hi <= 0 {
		return
	}
	for i := range p.res {
		v, ok := p.exp[p.res[i].id]
		if !ok {
			continue
		}
		var from []string
		lc := strings.ToLower(p.res[i].content + " " + p.res[i].Name)
		for _, x := range p.expansions {
			if strings.Contains(lc, x.Term) {
				from = append(from, x.Term+"<-"+x.From)
			}
		}
		p.add(i, "expand", p.hp.Expand*v/hi/p.hp.FusionScale, strings.Join(from, " "))
	}
}

// embedQueryWith embeds q with emb: through QueryEmbedder with q's
// translations when emb offers it.
func embedQueryWith(ctx context.Context, emb embed.Embedder, q *Query) ([]float32, error) {
	var qv []float32
	var err error
	if qe, ok := emb.(QueryEmbedder); ok {
		qv, err = qe.EmbedQueryTranslated(ctx, q.Text, q.TranslateHan)
	} else {
		qv, err = emb.EmbedQuery(ctx, q.Text)
	}
	if err != nil {
		return nil, fmt.Errorf("embed query with %s: %w", emb.ID(), err)
	}
	return qv, nil
}

// maxSimScorer returns the late-interaction scorer of q under the
// built-in learned model (static.MaxSim), whatever the project's
// embedder: it reads the model's rows, not stored vectors. nil when the
// query has no weighted row. Errors: the built-in model cannot be
// decoded.
func maxSimScorer(q *Query) (*static.MaxSim, error) {
	m, err := static.New()
	if err != nil {
		return nil, err
	}
	return m.NewMaxSim(q.Text, q.TranslateHan), nil
}

// maxSimStage adds MaxSim times the late-interaction score (over
// chunk.EmbedText of the candidate), min-max normalised over the
// MaxSimTop best candidates so far, / FusionScale, to those candidates: a
// soft word match, each query word credited with the code word nearest it
// in the learned space. A candidate further down could gain at most
// MaxSim/FusionScale, less than the gap to the first places, and its
// score would cost a tokenisation and a dot product per new word.
func maxSimStage(p *pool) {
	n := min(len(p.res), p.hp.MaxSimTop)
	if n < 2 {
		return
	}
	texts := make([]string, n)
	for i := range n {
		r := &p.res[i]
		texts[i] = chunk.EmbedText(chunk.Chunk{Type: r.Type, Name: r.Name, Content: r.content})
	}
	sc := p.msim.ScoreAll(texts)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range sc {
		lo, hi = min(lo, x), max(hi, x)
	}
	if hi <= lo { // one score: nothing to tell apart
		return
	}
	for i := range n {
		p.add(i, "maxsim", p.hp.MaxSim*(sc[i]-lo)/(hi-lo)/p.hp.FusionScale, "")
	}
}
