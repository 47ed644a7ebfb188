package search

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/store"
)

// The hybrid ranker runs in two phases, as zoekt scores a match: gather
// (phase 1) reads the candidates and every piece of evidence the stages
// need from the store: keyword and vector hits, the chunks, the symbol
// sites of a symbol query and the calls of thin wrappers. The stages of
// hybridStages (phase 2) are then pure functions of that evidence and of
// the scores so far: each adds its named signals (Explain.Signals) to the
// candidates' scores, in declared order, and none reads the store. The
// pool is sorted only where a stage reads the order (ordered), and once
// at the end.

// pool is phase 1's output and phase 2's state: the candidates (res, with
// a non-nil Explain each) and the evidence the stages read.
type pool struct {
	q  *Query
	hp HybridParams
	// res are the candidates: the keyword and vector hits, and the symbol
	// sites of a symbol query.
	res []Result
	// fusionNote is the fusion signal's note: the vector share sized by
	// the project's chunk count (HybridParams.SizedAlpha), "" when Alpha
	// was kept.
	fusionNote string
	// maxKW is the best BM25 of the keyword route; minVec and maxVec bound
	// the vector route's cosines (for fusion's normalisation).
	maxKW, minVec, maxVec float64
	// terms is the set of the query's keyword terms.
	terms map[string]bool
	// sites maps the chunks that declare or re-export a symbol query's
	// name in text to their pin (see symbolSites); nil when a parsed
	// definition answers it.
	sites map[int64]float64
	// callees lists the non-value calls of the pool's thin functions, by
	// (file, from_name) (see delegate).
	callees map[[2]string][]wrapperCall
	// sem is the semantic cosine of each candidate (see semanticScores);
	// nil with HybridParams.Semantic 0.
	sem map[int64]float64
	// msim scores candidates by late interaction (maxSimStage); nil with
	// HybridParams.MaxSim 0 or a query without a weighted row.
	msim *static.MaxSim
	// expansions are the learned neighbours of the query's terms, and exp
	// the BM25 of the candidates the keyword route over them hit (see
	// expandTerms); nil with HybridParams.Expand 0.
	expansions []expansion
	exp        map[int64]float64
	// acronyms are the acronyms of runs of the query's words that the
	// keyword route searched for too (acronymTerms).
	acronyms []expansion
	// changed is set when a stage changes a score, and cleared when the
	// pool is sorted.
	changed bool
	// topical memoises topicality (-1 until first read).
	topical float64
	// cut is set when a route returned all the candidates it was allowed
	// (HybridParams.Candidates): a deeper read would find more.
	cut bool
}

// stage is one step of phase 2, declared as data.
type stage struct {
	// name is the signal the stage adds (Signal.Name).
	name string
	// on reports whether the stage runs for this query and these params;
	// nil = always.
	on func(p *pool) bool
	// ordered says the stage reads the pool's order (rank positions, a
	// file's best candidate): the pool is sorted before it when an earlier
	// stage changed a score.
	ordered bool
	// run adds the stage's signals (with p.add); it reads only the pool.
	run func(p *pool)
}

// hybridStages is phase 2 of the hybrid ranker, in order. The names are
// the Signal names --explain shows:
//
//	fusion     (1-Alpha)*bm25 + Alpha*cos, normalised, / FusionScale (Alpha
//	           sized by the chunk count: HybridParams.SizedAlpha)
//	semantic   Semantic * the learned cosine, normalised over the pool
//	expand     Expand * BM25 of the query words' learned neighbours
//	maxsim     MaxSim * the learned model's late-interaction score of the
//	           best MaxSimTop, normalised over them (sized by the chunk
//	           count: SizedMaxSim)
//	proximity  Proximity * the share of the query's adjacent word pairs
//	           that stand together in the chunk, for the best ProximityTop
//	type       function and method chunks over class and text chunks
//	name       the chunk's bare name is a code-like word of the query
//	path       tests, docs, examples, generated and vendored code (negative)
//	file_name  the file's base name is spelled by a topical query
//	coherence  a file's best candidate gains a share of its others'
//	pin        a symbol query's definition
//	site       where a symbol query's name is declared in text or re-exported
//	spelled    the definition a few plain words spell
//	delegate   an implementation called by a thin wrapper ranked above it
//	diversity  the decay of a file's later chunks and of parallel copies
//	acronym    no score: notes the acronyms the keyword route added
//	           (Explain.FromModel; acronym.go)
var hybridStages = []stage{
	{name: "fusion", run: fuseStage},
	{name: "semantic", on: func(p *pool) bool { return p.hp.Semantic > 0 && len(p.sem) > 0 }, run: semanticStage},
	{name: "expand", on: func(p *pool) bool { return p.hp.Expand > 0 && len(p.exp) > 0 }, run: expandStage},
	{name: "maxsim", ordered: true, on: func(p *pool) bool { return p.hp.MaxSim > 0 && p.msim != nil }, run: maxSimStage},
	{name: "proximity", ordered: true, on: func(p *pool) bool { return p.hp.Proximity > 0 && !p.q.Code && p.q.Symbol == "" }, run: proximityStage},
	{name: "type", run: func(p *pool) {
		for i := range p.res {
			switch p.res[i].Type {
			case chunk.KindText, chunk.KindClass, chunk.KindImpl: // an impl block is no definition of a name
			default:
				p.add(i, "type", p.hp.TypeBoostCode, "")
			}
		}
	}},
	{name: "name", run: func(p *pool) {
		for i := range p.res {
			b := nameBoost(p.res[i], p.res[i].sym.Owner, p.q.Identifiers, p.q.Code, p.hp)
			if p.q.Code {
				b *= p.hp.CodeQueryScale
			} else if pairBoost(p.res[i], p.q.Pair) {
				b = max(b, (p.hp.NameExact+p.hp.NameQualified)*p.hp.CodeQueryScale)
			}
			p.add(i, "name", b, "")
		}
	}},
	{name: "path", run: func(p *pool) {
		// pathPrior reads the path, the type only as text or not, and
		// whether the chunk is an in-source test: once per file and kind (a
		// file has several candidates)
		type key struct {
			path       string
			text, test bool
		}
		prior := map[key]float64{}
		for i := range p.res {
			r := &p.res[i]
			k := key{r.Path, r.Type == chunk.KindText, inSourceTest(*r)}
			v, ok := prior[k]
			if !ok {
				v = pathPrior(*r, p.hp)
				prior[k] = v
			}
			p.add(i, "path", -v, "")
		}
	}},
	{name: "file_name", on: func(p *pool) bool { return p.hp.StemBoost > 0 && p.topicality() > 0 }, run: stemStage},
	{name: "coherence", ordered: true, on: func(p *pool) bool { return p.hp.FileCoherence*p.topicality() > 0 }, run: func(p *pool) {
		fileCoherence(p.res, p.hp.FileCoherence*p.topicality(), p.hp.CoherencePool)
		p.changed = true
	}},
	{name: "pin", on: func(p *pool) bool { return p.q.Symbol != "" && p.hp.ExactPin > 0 }, run: func(p *pool) {
		p.changed = exactPin(p.res, p.q.Symbol, p.hp.ExactPin) || p.changed
	}},
	{name: "site", on: func(p *pool) bool { return len(p.sites) > 0 }, run: func(p *pool) {
		p.changed = pinWhere(p.res, "site", func(r *Result) float64 { return p.sites[r.id] }) || p.changed
	}},
	{name: "spelled", on: func(p *pool) bool { return p.q.Spelled != "" && p.hp.ExactPin > 0 }, run: func(p *pool) {
		p.changed = spelledPin(p.res, p.q.Spelled, p.hp.ExactPin/2) || p.changed
	}},
	{name: "delegate", ordered: true, on: func(p *pool) bool { return p.hp.Delegate }, run: func(p *pool) {
		p.changed = delegate(p.res, p.callees, p.q.Code || p.q.Pair[0] != "", p.hp) || p.changed
	}},
	{name: "diversity", ordered: true, on: func(p *pool) bool { return p.hp.Diversity > 0 && p.hp.Diversity < 1 }, run: func(p *pool) {
		diversify(p.res, p.hp.Diversity, p.hp.DiversityFree)
		p.changed = true
	}},
	{name: "acronym", on: func(p *pool) bool { return len(p.acronyms) > 0 }, run: acronymStage},
}

// runStages runs the stages that are on, in order, sorting the pool
// before an ordered stage when a score changed since the last sort, and
// once at the end.
func runStages(p *pool, stages []stage) {
	sorted := false
	for _, st := range stages {
		if st.on != nil && !st.on(p) {
			continue
		}
		if st.ordered && (p.changed || !sorted) {
			sortResults(p.res)
			p.changed, sorted = false, true
		}
		st.run(p)
	}
	if p.changed || !sorted {
		sortResults(p.res)
	}
}

// add adds v (when not 0) to candidate i's score as the signal name.
func (p *pool) add(i int, name string, v float64, note string) {
	if addSignal(&p.res[i], name, v, note) {
		p.changed = true
	}
}

// addSignal adds v to r's score and, when r has an Explain, records it as
// the signal name; 0 adds nothing. It reports whether the score changed.
func addSignal(r *Result, name string, v float64, note string) bool {
	if v == 0 {
		return false
	}
	r.Score += v
	if r.Explain != nil {
		r.Explain.Signals = append(r.Explain.Signals, Signal{Name: name, Value: v, Note: note})
	}
	return true
}

// fuseStage adds the fused route score: (1-Alpha)*kn + Alpha*vn over
// max-normalised BM25 (kn) and min-max-normalised cosine (vn), divided by
// FusionScale; the note names a share sized by the project's chunk count.
func fuseStage(p *pool) {
	for i := range p.res {
		ex := p.res[i].Explain
		kn, vn := 0.0, 0.0
		if p.maxKW > 0 && ex.KeywordRank > 0 {
			kn = ex.Keyword / p.maxKW
		}
		if p.maxVec > p.minVec && ex.VectorRank > 0 {
			vn = (ex.Vector - p.minVec) / (p.maxVec - p.minVec)
		}
		p.add(i, "fusion", ((1-p.hp.Alpha)*kn+p.hp.Alpha*vn)/p.hp.FusionScale, p.fusionNote)
	}
}

// topicality is topicality(q) for the pool, or 0 when the query is
// code-like or names the best candidate's definition and is not a symbol
// query. A query whose words name the best candidate ("HashMap resize",
// "big nat karatsuba multiplication") asks for that definition, which the
// name boosts find; file-level evidence would pull up the files around
// it. A one-symbol query keeps it: a file named like the symbol is where
// it is defined. It is computed once, when first read (by the file_name
// stage's condition), so the best candidate is the one of the stages
// before file_name.
func (p *pool) topicality() float64 {
	if p.topical < 0 {
		p.topical = p.topicalityNow()
	}
	return p.topical
}

func (p *pool) topicalityNow() float64 {
	t := topicality(p.q, p.hp.TopicalMin, p.hp.TopicalMax)
	if t == 0 || p.q.Symbol != "" {
		return t
	}
	if p.q.Code {
		return 0
	}
	if b := p.best(); b >= 0 && p.res[b].Explain.Signal("name") > 0 && p.res[b].Type != chunk.KindText {
		return 0
	}
	return t
}

// best returns the index of the candidate sortResults would put first, or
// -1 for an empty pool.
func (p *pool) best() int {
	b := -1
	for i, r := range p.res {
		if b < 0 || r.Score > p.res[b].Score || r.Score == p.res[b].Score &&
			(r.Path < p.res[b].Path || r.Path == p.res[b].Path && r.Name < p.res[b].Name) {
			b = i
		}
	}
	return b
}

// stemStage adds StemBoost times topicality, stemMatch and namesakeShare
// to every chunk of a file whose name (fileSubject) the query spells.
func stemStage(p *pool) {
	topical := p.topicality()
	sm := map[string]float64{}
	namesakes := baseNameCounts(p.res)
	for i := range p.res {
		m, ok := sm[p.res[i].Path]
		if !ok {
			if m = stemMatch(p.res[i].Path, p.terms); m > 0 {
				m *= namesakeShare(p.res[i].Path, namesakes, p.terms)
			}
			sm[p.res[i].Path] = m
		}
		if b := topical * p.hp.StemBoost * m; b > 0 {
			p.add(i, "file_name", b, "")
		}
	}
}

// gather is phase 1 of the hybrid ranker: the keyword route (BM25 over
// q's terms), the vector route (cosine with q's embedding: over the
// keyword candidates with VectorRerank, else the top Candidates of every
// vector), with Expand the keyword route over the learned neighbours of
// q's terms, the candidates' chunks, with Semantic their learned cosine, the symbol sites of a symbol query no
// parsed definition answers, and the calls of the thin functions among
// the candidates. Errors are the store's and the embedder's.
func (s *Searcher) gather(ctx context.Context, q *Query, hp HybridParams) (*pool, error) {
	p := &pool{q: q, hp: hp, terms: make(map[string]bool, len(q.Terms)), topical: -1}
	for _, t := range q.Terms {
		p.terms[t] = true
	}
	// the routes bring up to 2*Candidates chunks (more with expansion and
	// symbol sites): the map and the Explains are made for that many at
	// once, not grown
	cands := make(map[int64]*Explain, 2*hp.Candidates)
	var slab []Explain
	get := func(id int64) *Explain {
		c, ok := cands[id]
		if !ok {
			if len(slab) == cap(slab) {
				slab = make([]Explain, 0, max(2*hp.Candidates, 16))
			}
			slab = append(slab, Explain{})
			c = &slab[len(slab)-1]
			cands[id] = c
		}
		return c
	}
	terms := q.Terms
	if len(terms) > 0 {
		// "breadth first search" finds BFSIterator (acronym.go)
		p.acronyms = acronymTerms(ctx, q, hp.AcronymMin)
		if len(p.acronyms) > 0 {
			terms = slices.Clone(terms) // q.Terms is the query's own
			for _, x := range p.acronyms {
				terms = append(terms, x.Term)
			}
		}
	}
	if len(terms) > 0 {
		kw, err := s.keywordSearch(ctx, terms, hp.FTS, hp.Candidates)
		if err != nil {
			return nil, err
		}
		p.cut = len(kw) >= hp.Candidates
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
			p.cut = p.cut || len(sem) >= hp.Candidates
		}
		if errors.Is(err, store.ErrDimMismatch) {
			// vectors of another size behind the same embedder name:
			// the keyword route answers, and the note says why
			q.embedErr, sem, err = err, nil, nil
		}
		if err != nil {
			return nil, err
		}
		for i, x := range sem {
			c := get(x.ID)
			c.Vector, c.VectorRank = x.Score, i+1
		}
	}
	// the keyword route over the learned neighbours of the query's
	// terms: a low-weight route of its own, so a word the code never
	// spells ("remove" for delete) still finds it
	if hp.Expand > 0 && (q.Kind() == KindDescriptive || !hp.SemanticDescriptiveOnly) {
		if p.expansions, err = s.expandTerms(q, hp); err != nil {
			return nil, err
		}
		if len(p.expansions) > 0 {
			terms := make([]string, len(p.expansions))
			for i, x := range p.expansions {
				terms[i] = x.Term
			}
			kw, err := s.keywordSearch(ctx, terms, hp.FTS, hp.Candidates)
			if err != nil {
				return nil, err
			}
			p.exp = make(map[int64]float64, len(kw))
			for _, x := range kw {
				get(x.ID)
				p.exp[x.ID] = x.Score
			}
		}
	}
	ids := make([]int64, 0, len(cands))
	for id := range cands {
		ids = append(ids, id)
	}
	rows, err := s.chunksByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	// a symbol query no parsed definition answers: look for where the
	// name is declared in text or re-exported (see symbolSites)
	if q.Symbol != "" && hp.ExactPin > 0 && !definesSymbol(rows, q.Symbol) {
		if p.sites, err = s.symbolSites(ctx, q.Symbol, hp, rows); err != nil {
			return nil, err
		}
		for id := range p.sites {
			get(id)
		}
	}
	p.res = make([]Result, 0, len(cands)) // a Result is large: not grown by doubling
	for id, c := range cands {
		row, ok := rows[id]
		if !ok {
			continue
		}
		r := fromRow(row.ChunkRow)
		r.Explain = c
		// the query's filters run over the whole pool, before any stage,
		// the per-file cap and the top-k cut (see filter.go)
		if q.Filter.Keep(&r) {
			p.res = append(p.res, r)
		}
	}
	// fusion normalises over the candidates the filters kept: the best
	// of them on both routes fuses to 1/FusionScale
	first := true
	for _, r := range p.res {
		c := r.Explain
		if c.KeywordRank > 0 {
			p.maxKW = max(p.maxKW, c.Keyword)
		}
		if c.VectorRank > 0 {
			if first {
				p.maxVec, p.minVec, first = c.Vector, c.Vector, false
			}
			p.maxVec, p.minVec = max(p.maxVec, c.Vector), min(p.minVec, c.Vector)
		}
	}
	if hp.Semantic > 0 && (q.Kind() == KindDescriptive || !hp.SemanticDescriptiveOnly) {
		if p.sem, err = s.semanticScores(ctx, q, p.res); err != nil {
			return nil, err
		}
	}
	if hp.MaxSim > 0 && (q.Kind() == KindDescriptive || !hp.SemanticDescriptiveOnly) {
		if p.msim, err = maxSimScorer(q); err != nil {
			return nil, err
		}
	}
	if hp.Delegate {
		if p.callees, err = s.wrapperCalls(ctx, p.res, rows, max(hp.ThinCodeLines, hp.WrapperCodeLines)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// wrapperCalls reads the calls of the thin functions and methods among
// res (at most thin code lines, see codeLines) for the delegate stage: the
// callees of each by (file, from_name). A call on another value
// ("b.Bind(...)", "t.Execute(w)") is matched by bare name only: its
// receiver's type is unknown, so the edge is a guess and is left out.
// rows are the rows res were made from, by id: their code lines are
// counted once (warmRow.codeLinesUpTo). Each call keeps its form, which
// tells delegate what kind of definition it can reach.
func (s *Searcher) wrapperCalls(ctx context.Context, res []Result, rows map[int64]*warmRow, thin int) (map[[2]string][]wrapperCall, error) {
	seen := map[string]bool{}
	var names []string
	for i := range res {
		r := &res[i]
		if r.Type != chunk.KindFunction && r.Type != chunk.KindMethod {
			continue
		}
		// isThin, through the memo of the row r was made from
		if row := rows[r.id]; row != nil && row.Content == r.content {
			if row.codeLinesUpTo(thin) > thin {
				continue
			}
		} else if !isThin(*r, thin) {
			continue
		}
		if call := r.sym.CallName(); !seen[call] {
			seen[call] = true
			names = append(names, call)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	rels, err := s.callsFrom(ctx, names)
	if err != nil {
		return nil, fmt.Errorf("read calls of wrappers: %w", err)
	}
	callees := map[[2]string][]wrapperCall{}
	for _, rel := range rels {
		if c, ok := delegableCall(rel.Path, rel.To, rel.Form); ok {
			k := [2]string{rel.Path, rel.From}
			callees[k] = append(callees[k], c)
		}
	}
	return callees, nil
}

// delegableCall returns the call of a wrapper in file that delegation
// follows, and false for none: a call on a value of unknown type names no
// callee; in the languages whose declarations type a call
// ("q_.push_back" stored as circular_q.push_back, chunk.declaredTypes)
// it is the call by name it was before they did.
func delegableCall(file, to string, form lang.CallForm) (wrapperCall, bool) {
	if form != lang.CallValue {
		return wrapperCall{to, form}, true
	}
	i := strings.LastIndexByte(to, '.')
	if i < 0 || !declaredTyping[lang.Detect(file)] {
		return wrapperCall{}, false
	}
	return wrapperCall{to[i+1:], lang.CallBare}, true
}

// declaredTyping are the languages whose calls on a value are typed by
// the value's declared class (chunk.declaredTypes: Java, C#, C++; "c" is
// what a C++ header's extension says).
var declaredTyping = map[string]bool{"java": true, "csharp": true, "cpp": true, "c": true}

// wrapperCall is one call of a thin function (wrapperCalls): the callee
// as written ("copyBuffer", "b.grow", "subtle.ConstantTimeCompare") and
// the call's form (lang.CallForm).
type wrapperCall struct {
	to   string
	form lang.CallForm
}

// isThin reports whether r is a function or method of at most thin code
// lines: a possible thin wrapper.
func isThin(r Result, thin int) bool {
	return (r.Type == chunk.KindFunction || r.Type == chunk.KindMethod) && codeLinesUpTo(r.content, thin) <= thin
}

// pairBoost reports whether a definition answers a query of two plain
// words (Query.Pair) as a member answers "Owner member": its name is one
// word and its owner, or for a definition of no type its file or
// directory (namesModule), the other, both compared without case
// ("peekable peek" is more.py's peekable.peek, "iterutils remap"
// boltons/iterutils.py's remap). A query that says both is a code query
// written in lower case.
func pairBoost(r Result, pair [2]string) bool {
	if pair[0] == "" || r.Type == chunk.KindText {
		return false
	}
	for k := range 2 {
		name, of := pair[k], pair[1-k]
		if !strings.EqualFold(r.sym.Name, name) {
			continue
		}
		if owner := r.sym.Owner; owner != "" && strings.EqualFold(owner, of) || owner == "" && namesModule(r.Path, of) {
			return true
		}
	}
	return false
}

// namesModule reports whether name is p's file name without its extension
// or the name of its directory, compared without case ("iterutils" for
// boltons/iterutils.py, "english" for english/words.go).
func namesModule(p, name string) bool {
	file := path.Base(p)
	if i := strings.IndexByte(file, '.'); i > 0 {
		file = file[:i]
	}
	return strings.EqualFold(file, name) || strings.EqualFold(path.Base(path.Dir(p)), name)
}

// nameBoost scores how well a chunk's name answers the code-like words of
// the query: the bare name equal to a word (case-sensitive: NameExact,
// else case-insensitive: NameFold), plus NameQualified when the word's
// qualifier names the chunk's owner or a directory of its path, or another
// word does (code: the query is a code query, Query.Code).
func nameBoost(r Result, owner string, idents []Identifier, code bool, hp HybridParams) float64 {
	if len(idents) == 0 || r.Type == chunk.KindText {
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
		// chunk's owner; in a code query ("iterutils remap_keys",
		// "english Plural_word"), a definition of no type whose file
		// (without the extension) or directory the other word names, the
		// module or package it is in (in a sentence a word that names a
		// directory says little: "v3 compatibility error types and
		// ZodError" is not about v3/'s ZodError alone)
		if id.Qualifier == "" {
			for _, o := range idents {
				if o.Qualifier != "" || o.Name == id.Name {
					continue
				}
				if owner != "" && o.Name == owner || code && owner == "" && namesModule(r.Path, o.Name) {
					b += hp.NameQualified
					break
				}
			}
		}
		best = max(best, b)
	}
	return best
}
