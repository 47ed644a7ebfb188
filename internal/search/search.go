// Package search answers natural-language and identifier queries over the
// index: it tokenizes the query, runs a vector route (cosine over chunk
// embeddings) and a keyword route, fuses them with a ranker, caps results per
// file and formats them for people and for tools.
//
// Two rankers are provided:
//   - "seed" is a fixed formula (cosine or keyword score plus bonuses,
//     see rankSeed), kept as a baseline the default must beat;
//   - "hybrid" (the default) gathers candidates and evidence in one phase
//     (BM25 over code-aware terms, cosine similarity, the chunks, symbol
//     sites, wrapper calls), then runs an ordered list of pure stages
//     declared as data (stages.go: fusion, semantic, expansion, type,
//     name, path, file, pin, delegation and diversity), each adding a
//     named signal that Explain lists; its weights are HybridParams.
//
// A query is analysed once (AnalyzeQuery) into a Query that every ranker,
// the query embedding and --explain read.
package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/walk"
)

// Ranker names accepted by Options.Ranker.
const (
	RankerSeed   = "seed"
	RankerHybrid = "hybrid"
)

// DefaultRanker is the ranker used when none is named.
const DefaultRanker = RankerHybrid

// seedMaxPerFile is the seed ranker's per-file cap on results, and the
// default of HybridParams.MaxPerFile.
const seedMaxPerFile = 2

// Options select how a query is answered.
type Options struct {
	TopK    int    // results wanted, clamped to 1..30 (default 5)
	Ranker  string // RankerSeed or RankerHybrid ("" = DefaultRanker)
	Explain bool   // fill Result.Explain
	// Vector, when not nil, carries the query's embedding from one search
	// to the next search of the same query by the same embedder, run after
	// it (the engine searches again once its Freshen policy re-indexed
	// files beside the first search): see QueryVector. nil: the search
	// embeds its query itself, once. SearchProjects ignores it.
	Vector *QueryVector
}

// MaxTopK is the most results one query returns (config.TopK, the one
// declaration of the rule).
const MaxTopK = config.MaxTopK

// ClampTopK applies config.TopK's default to 0 and clamps k to its range.
func ClampTopK(k int) int {
	if k == 0 {
		return config.TopK.Default
	}
	return max(config.TopK.Min, min(config.TopK.Max, k))
}

// Result is one ranked chunk. Path is root-relative; lines are 1-based and
// inclusive.
type Result struct {
	Path      string   `json:"path"`
	Name      string   `json:"name"`
	Type      string   `json:"type"`
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Score     float64  `json:"score"`
	Preview   string   `json:"preview"`
	Language  string   `json:"language,omitempty"`
	Explain   *Explain `json:"explain,omitempty"`
	// Callers and Callees are filled by search --expand ("Name path:line").
	Callers []string `json:"callers,omitempty"`
	Callees []string `json:"callees,omitempty"`
	// Stale is set by the engine's Freshen policy when the file changed
	// since the last index: the lines may be off.
	Stale bool `json:"stale,omitempty"`
	// PreviewMatches are the query's terms in Preview (byte offsets, see
	// highlight.go); LineMatches the same in the chunk's lines, by file
	// line number, for a caller that shows the code. Both are for display
	// only; empty when nothing matched.
	PreviewMatches []Span     `json:"preview_matches,omitempty"`
	LineMatches    []LineSpan `json:"line_matches,omitempty"`
	content        string
	id             int64
	sym            chunk.Symbol // the chunk's name taken apart (zero for text chunks)
}

// Content returns the chunk's stored text.
func (r Result) Content() string { return r.content }

// Explain is the breakdown of one result's score: what the two routes
// found (the evidence), then the named signals the ranking stages added,
// in stage order. Result.Score is the sum of the signals' values (up to
// rounding: the diversity signal is the difference its factor made).
type Explain struct {
	Vector      float64 `json:"vector"`                 // cosine similarity (0 if not a vector hit)
	VectorRank  int     `json:"vector_rank,omitempty"`  // 1-based rank on the vector route
	Keyword     float64 `json:"keyword"`                // seed: best keyword score; hybrid: BM25
	KeywordRank int     `json:"keyword_rank,omitempty"` // 1-based rank on the keyword route
	// Semantic is the learned cosine of the semantic stage (0 when it did
	// not run).
	Semantic float64 `json:"semantic,omitempty"`
	// Signals are the score's parts, one per stage that changed it (see
	// hybridStages for the hybrid ranker's names; the seed ranker adds
	// "route", "both" and "type").
	Signals []Signal `json:"signals,omitempty"`
	// CapDropped counts chunks of the same file that ranked above the last
	// result shown but were dropped by the per-file cap.
	CapDropped int    `json:"cap_dropped,omitempty"`
	Terms      string `json:"terms,omitempty"` // keywords that hit
	// FromModel names the keyword terms the learned model added that this
	// result holds, each with the query words it came from
	// ("bfs<-breadth first search"; see acronymTerms).
	FromModel string `json:"from_model,omitempty"`
}

// Signal is one named part of a result's score, in fused units for the
// hybrid ranker (the best candidate on both routes fuses to
// 1/HybridParams.FusionScale). Note says where it came from when the
// value alone does not: the wrapper a delegation lifted from, the factor
// of the diversity decay, the query word an expanded term came from.
type Signal struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Note  string  `json:"note,omitempty"`
}

// Signal returns the summed value of the signals named name (0 when there
// is none); a nil Explain has none.
func (e *Explain) Signal(name string) float64 {
	if e == nil {
		return 0
	}
	v := 0.0
	for _, s := range e.Signals {
		if s.Name == name {
			v += s.Value
		}
	}
	return v
}

// note returns the note of the first signal named name, or "".
func (e *Explain) note(name string) string {
	if e == nil {
		return ""
	}
	for _, s := range e.Signals {
		if s.Name == name {
			return s.Note
		}
	}
	return ""
}

// Response is the answer to one query.
type Response struct {
	Query    string   `json:"query"`
	Ranker   string   `json:"ranker"`
	Keywords []string `json:"keywords"`
	Results  []Result `json:"results"`
	// Note warns about weak results (NoKeywordNote, StopWordsNote), a
	// query identifier the code does not hold ("no identifier `X` in the
	// code; results match its parts", without the parts when no result
	// holds a word of the query; not said with NoKeywordNote, which says
	// it already) and a cut query (CutQueryNote),
	// those that apply joined by "; " in that order; empty otherwise.
	Note string `json:"note,omitempty"`
	// Filter is the query's filters as written ("lang:go file:*_test.go",
	// see ParseQuery); Keywords come from the other words. Empty without.
	Filter string `json:"filter,omitempty"`
	// Analysis is the analysed query the rankers read (Chinese words and
	// their translations for --explain, the query's kind).
	Analysis *Query `json:"-"`
	// Incomplete says the project's index is partial — its first index run
	// was interrupted, or a run is still going — as "index incomplete: N of
	// M files indexed (...)", with a HintIndex in Hints; empty for a
	// complete index. Results (or their absence) then speak only for the N
	// files. It also says, as MixedNote, that some files carry vectors of
	// another embedder than the project's (a change of embedder that did
	// not finish): those rank by keywords alone. Both are joined by "; ".
	Incomplete string `json:"incomplete,omitempty"`
	// Hints are what the answer suggests doing next (an index run, an
	// exact-string search), for each front end to word; nil when none.
	Hints []Hint `json:"hints,omitempty"`
}

// Searcher answers queries for one indexed project.
type Searcher struct {
	Store    Index          // the index it reads: a *store.Store, or a fake in tests
	Embedder embed.Embedder // must be the embedder the project was indexed with
	Project  string         // absolute project root
	// Params overrides DefaultHybridParams (tuning and tests); nil = defaults.
	Params *HybridParams
	// Analyzer is the engine's text analysis (glossary, CC-CEDICT when
	// installed): the query's Chinese words are segmented and translated
	// by it. It must be the Analyzer of Embedder when that translates (see
	// embed.Options.Analyzer). nil: the glossary only.
	Analyzer *analyze.Analyzer
	// HideSecrets leaves out results in files whose names look like
	// secrets (walk.SecretName): an index written before they were
	// withheld, or with secrets allowed, still holds their chunks.
	HideSecrets bool
	// Semantic is the learned embedder of the semantic stage and of query
	// expansion when the project was indexed with another (lexical) one:
	// it embeds the candidates at query time. nil = the project's own
	// embedder when it is not lexical, else the built-in learned model
	// (see semanticEmbedder).
	Semantic embed.Embedder
	// Warm holds the in-memory keyword index, chunk rows and relations of
	// a long-lived process, shared by its searchers (see Warm); nil reads
	// everything from Store. It changes no result.
	Warm *Warm
	// QueryTimeout bounds the embedding of the query by Embedder; past it
	// the search answers by its keyword routes with EmbedFailedNote
	// (embedQuery). 0 = config.DefaultQueryTimeout.
	QueryTimeout time.Duration
}

// ErrUnknownRanker is returned for an unknown Options.Ranker.
var ErrUnknownRanker = errors.New("unknown ranker (want seed or hybrid)")

// Search runs query with the selected ranker.
func (s *Searcher) Search(ctx context.Context, query string, opts Options) (*Response, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, errors.New("empty query")
	}
	// the filters are read from the whole query and the words cut after:
	// a -file: past the first 1,000 bytes still excludes
	words, filter, err := ParseQuery(query)
	if err != nil {
		return nil, err
	}
	words, cut := cutQuery(words)
	if cut {
		filter.keepCaseWords(words)
		query = strings.TrimSpace(words + " " + filter.String())
	}
	if !filter.MatchProject(s.Project) {
		return nil, badQuery(ErrBadQuery, "%s matches no project searched (%s)", projectFilterText(&filter), s.Project)
	}
	k := ClampTopK(opts.TopK)
	r := opts.Ranker
	if r == "" {
		r = DefaultRanker
	}
	if r != RankerSeed && r != RankerHybrid {
		return nil, fmt.Errorf("%w: %q", ErrUnknownRanker, r)
	}
	hp := s.HybridParams()
	if filter.Narrows() {
		// the filters drop candidates before the cut: read deeper so
		// that k results survive them
		hp.Candidates *= filterPoolFactor
	}
	q := AnalyzeQuery(s.Analyzer, words, hp.QueryOptions)
	q.Filter = filter
	// every pass below (a deeper read for the filters, a search run again
	// after an index run) and the caller's next search reuse one embedding
	q.vector = opts.Vector
	if q.vector == nil {
		q.vector = &QueryVector{}
	}
	if !strings.ContainsFunc(words, func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }) {
		// nothing to match: any result would be an arbitrary neighbour
		resp := &Response{Query: query, Ranker: r, Keywords: []string{}, Results: []Result{}, Note: NoWordsNote,
			Filter: filter.String(), Analysis: q, Hints: []Hint{{Do: HintGrep}}}
		s.markIncomplete(ctx, resp)
		return resp, nil
	}
	var (
		res     []Result
		kws     []string
		firstKW *keywordHit // the best candidate with a keyword hit (hybrid)
	)
	// A search reads the index in several queries (candidates, then their
	// rows). An index run that replaces files between them takes the
	// candidates' rows away (a file's new rows have new ids), and the
	// search would come back short or empty: when the project's data
	// version moved during the search, it runs again, at most
	// maxSearchRetries more times.
	for attempt := 0; ; attempt++ {
		v0, verr := s.Store.DataVersion(ctx, s.Project)
		actx := ctx
		if verr == nil {
			// the warm caches, and the store's cached vectors, answer only
			// at the version read here
			actx = store.WithDataVersion(context.WithValue(ctx, versionKey{}, v0), s.Project, v0)
		}
		switch r {
		case RankerSeed:
			res, err = s.rankSeed(actx, q, k)
			kws = q.Keywords
		default:
			res, firstKW, err = s.rankHybrid(actx, q, hp, k)
			kws = q.Terms
		}
		if err != nil {
			return nil, err
		}
		if verr != nil || attempt == maxSearchRetries {
			break
		}
		if v1, err := s.Store.DataVersion(ctx, s.Project); err != nil || v1 == v0 {
			break
		}
	}
	if s.HideSecrets {
		res = slices.DeleteFunc(res, func(x Result) bool { return walk.SecretName(x.Path) })
	}
	note := ""
	kw := false // some result holds a word of the query
	for _, x := range res {
		kw = kw || x.Explain != nil && x.Explain.KeywordRank > 0
	}
	if r == RankerHybrid && len(res) > 0 {
		switch {
		case kw:
		case len(q.Terms) == 0:
			note = StopWordsNote
		case firstKW != nil:
			// the words do occur, in chunks the ranking puts below these
			// (tests, docs, examples): say where, not that they are absent
			note = fmt.Sprintf(LowerKeywordNote, firstKW.rank, firstKW.path, firstKW.line)
		case filter.Narrows():
			note = NoKeywordFilteredNote
		default:
			note = NoKeywordNote
		}
	}
	if r == RankerHybrid && note != NoKeywordNote && note != NoKeywordFilteredNote {
		// (no word of the query occurs at all: nor does the identifier)
		note = joinNotes(note, s.absentIdentifierNote(ctx, q, hp, res, kw))
	}
	if q.embedErr != nil {
		note = joinNotes(note, fmt.Sprintf(EmbedFailedNote, q.embedErr))
	}
	note = joinNotes(note, filter.Note())
	if len(res) == 0 && len(filter.Langs) > 0 {
		note = joinNotes(note, s.absentLanguageNote(ctx, filter.Langs))
	}
	if cut {
		note = joinNotes(note, CutQueryNote)
	}
	if !opts.Explain {
		for i := range res {
			res[i].Explain = nil
		}
	}
	for i := range res {
		res[i].Preview = Preview(res[i].content, 120)
	}
	newHighlighter(q).markMatches(res)
	if res == nil {
		res = []Result{}
	}
	resp := &Response{Query: query, Ranker: r, Keywords: kws, Results: res, Note: note, Filter: filter.String(), Analysis: q}
	s.markIncomplete(ctx, resp)
	return resp, nil
}

// maxSearchRetries is how many times a search runs again when the
// project was written while it read (Searcher.Search).
const maxSearchRetries = 2

// MaxQueryBytes is the longest run of a query's words searched as given;
// longer words (a pasted log or file) are cut at the last word boundary
// before it, with CutQueryNote. Its filters are read from the whole query
// (ParseQuery bounds them: maxFilters, each value at most MaxQueryBytes). Every word of a query is a term of the keyword route and
// of the name boosts, so a 100 KB query would cost seconds of CPU for
// results no better than its first sentences give.
const MaxQueryBytes = 1000

// cutQuery returns query cut to at most MaxQueryBytes at a space (or a
// rune boundary when the first MaxQueryBytes hold no space), and whether
// it was cut.
func cutQuery(query string) (string, bool) {
	if len(query) <= MaxQueryBytes {
		return query, false
	}
	q := query[:MaxQueryBytes]
	for len(q) > 0 && !utf8.RuneStart(query[len(q)]) {
		q = q[:len(q)-1]
	}
	if i := strings.LastIndexAny(q, " \t\n"); i > 0 {
		q = q[:i]
	}
	return strings.TrimSpace(q), true
}

// markIncomplete sets resp.Incomplete, with a HintIndex, when the
// project's index is partial or mixed (MixedNote).
func (s *Searcher) markIncomplete(ctx context.Context, resp *Response) {
	rn, err := s.Store.RunNotes(ctx, s.Project)
	if err != nil {
		return
	}
	var notes []string
	if rn.Incomplete {
		notes = append(notes, fmt.Sprintf("index incomplete: %d of %d files indexed (an index run was interrupted or is still going)", rn.Indexed, rn.Total))
	}
	env := ""
	if m := rn.Mixed; m != nil {
		notes = append(notes, MixedNote(*m))
		first, _, _ := strings.Cut(m.Other, ", ")
		env = EmbedderEnv(first)
	}
	if len(notes) > 0 {
		resp.Incomplete = strings.Join(notes, "; ")
		resp.Hints = append(resp.Hints, Hint{Do: HintIndex, Project: s.Project, Env: env})
	}
}

// MixedLead begins MixedNote.
const MixedLead = "index mixed:"

// MixedNote says that m.Files of the project's files carry vectors of
// another embedder than the project's, which its searches do not read:
// a change of embedder was interrupted, failed for some files, or is still
// going (or the model behind the project's embedder's name was replaced:
// store.RetiredID), and the next index run embeds them again. Searches (in
// Response.Incomplete), `stats` and the status reports say it in these
// words.
func MixedNote(m store.MixedVectors) string {
	if id, ok := store.RetiredOf(m.Other); ok && id == m.Embedder {
		return fmt.Sprintf("%s %d of %d files carry vectors of the model replaced behind %s and rank by keywords alone until an index run embeds them again",
			MixedLead, m.Files, m.Total, m.Embedder)
	}
	return fmt.Sprintf("%s %d of %d files carry vectors of %s, not of the project's %s, and rank by keywords alone (a change of embedder was interrupted, failed for some files or is still going)",
		MixedLead, m.Files, m.Total, m.Other, m.Embedder)
}

// Hint is one thing an answer suggests doing next, as data: each front
// end words it in its own terms (the CLI as a command line, FormatHuman;
// a model's tools as a tool to call, FormatForTool; the API returns it as
// JSON), so that nothing below the front ends names one front end's
// commands.
type Hint struct {
	// Do is the action: HintIndex or HintGrep.
	Do string `json:"do"`
	// Project is the root the action applies to (HintIndex); "" otherwise.
	Project string `json:"project,omitempty"`
	// Env is the environment settings to run the action with
	// ("EMBEDDING_MODEL=hashing-768-v1"): for an index run of a mixed
	// index, the settings of the embedder whose change it finishes
	// (EmbedderEnv); "" for the configured one.
	Env string `json:"env,omitempty"`
}

// EmbedderEnv returns the environment settings that select embedder id,
// ending in a space ("local:hashing-768-v1" -> "EMBEDDING_MODEL=hashing-768-v1 ";
// another provider's id names the provider too), or "" for the default
// built-in model and an id without a model. An index run embeds with the
// embedder the environment configures, so these settings are what
// finishes a change of embedder that did not finish.
func EmbedderEnv(id string) string {
	p, model := embed.ParseID(id)
	switch {
	case model == "":
		return ""
	case p == "local" && model == static.ModelName:
		return ""
	case p == "local":
		return "EMBEDDING_MODEL=" + model + " "
	}
	return "EMBEDDING_PROVIDER=" + p + " EMBEDDING_MODEL=" + model + " "
}

// The actions of Hint.Do.
const (
	// HintIndex: run an index run of Hint.Project, whose index is
	// incomplete (Response.Incomplete).
	HintIndex = "index"
	// HintGrep: search for an exact string instead; the query has no
	// words (NoWordsNote).
	HintGrep = "grep"
)

// The notes of Response.Note. NoKeywordNote: no word of the query occurs in
// the index and the results come from vector similarity alone.
// StopWordsNote: the query's words are all common English words (stop
// words, "the", "how to"), which the keyword route does not search, and no
// result has a keyword hit. NoWordsNote: the query has no letter or digit
// at all; there are no results.
const (
	NoKeywordNote = "no word of the query occurs in the indexed code; these results are only the nearest by vector similarity"
	// NoKeywordFilteredNote: as NoKeywordNote, within what the query's
	// filters keep (the words may occur elsewhere).
	NoKeywordFilteredNote = "no word of the query occurs in the code the filters keep; these results are only the nearest by vector similarity"
	// LowerKeywordNote: no result shown holds a word of the query, but a
	// chunk ranked lower does (a test, a doc, an example): its rank and
	// place fill the verbs.
	LowerKeywordNote = lowerKeywordLead + "; these are only the nearest by vector similarity. The first chunk that holds one ranks %d (%s:%d): tests, docs and examples rank last; raise --top-k or add file: to see it"
	StopWordsNote    = "the query has only common words (stop words), which are not searched as keywords; these results are only the nearest by vector similarity: add a word that names what you look for"
	NoWordsNote      = "the query has no searchable words (only punctuation or symbols)"
	CutQueryNote     = "the query's words were cut to their first 1,000 bytes (its filters all apply); search for the part that names what you look for"
	// EmbedFailedNote: the project's embedder could not embed the query
	// (its error fills the verb); the results are the keyword routes'.
	EmbedFailedNote = "the query could not be embedded (%v): these results are the keyword matches alone, without vector similarity"
)

// lowerKeywordLead is how LowerKeywordNote starts, before its verbs.
const lowerKeywordLead = "no result shown holds a word of the query"

// vectorOnly reports whether note marks an answer whose results come from
// vector similarity alone (the note comes first, before the others).
func vectorOnly(note string) bool {
	return strings.HasPrefix(note, NoKeywordNote) || strings.HasPrefix(note, StopWordsNote) ||
		strings.HasPrefix(note, NoKeywordFilteredNote) || strings.HasPrefix(note, lowerKeywordLead)
}

// sortResults orders by score desc, then path, then name, so ties are
// broken the same way on every run. It is a stable sort, as
// sort.SliceStable's: equal results keep their order. A Result is about
// 300 bytes, so it sorts their indices and then moves each result once.
func sortResults(rs []Result) {
	if len(rs) < 2 {
		return
	}
	idx := make([]int32, len(rs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int { return compareResults(&rs[a], &rs[b]) })
	permute(rs, idx)
}

// compareResults is sortResults' order as a three-way comparison: < 0
// when x comes before y (a higher score, then a lower path, then a lower
// name, then an earlier line), > 0 when after, 0 when neither. A NaN score is neither before
// nor after another score, and its path and name are not compared, as in
// the order sort.SliceStable was given before.
func compareResults(x, y *Result) int {
	if x.Score != y.Score {
		switch {
		case x.Score > y.Score:
			return -1
		case x.Score < y.Score:
			return 1
		}
		return 0
	}
	if c := strings.Compare(x.Path, y.Path); c != 0 {
		return c
	}
	if c := strings.Compare(x.Name, y.Name); c != 0 {
		return c
	}
	// namesakes in one file (three validator(value) closures): the
	// earlier first, not whichever the routes gave first (it varied from
	// run to run)
	return x.StartLine - y.StartLine
}

// permute puts rs[idx[i]] at position i for every i, in place, following
// the permutation's cycles; idx (a permutation of 0..len(rs)-1) is left
// as the identity.
func permute(rs []Result, idx []int32) {
	for i := range rs {
		if int(idx[i]) == i {
			continue
		}
		tmp := rs[i]
		j := i
		for {
			k := int(idx[j])
			idx[j] = int32(j)
			if k == i {
				rs[j] = tmp
				break
			}
			rs[j] = rs[k]
			j = k
		}
	}
}

// limitPerFile keeps at most perFile results of each file, in order, and
// stops at k results.
func limitPerFile(sorted []Result, k, perFile int) []Result {
	count := map[string]int{}
	var out []Result
	for _, r := range sorted {
		if len(out) >= k {
			break
		}
		if count[r.Path] >= perFile {
			continue
		}
		count[r.Path]++
		out = append(out, r)
	}
	return out
}

func fromRow(c store.ChunkRow) Result {
	return Result{Path: c.Path, Name: c.Name, Type: c.Type, StartLine: c.StartLine, EndLine: c.EndLine,
		Language: c.Language, content: c.Content, id: c.ID,
		sym: chunk.Symbol{Name: c.Symbol, Owner: c.Owner, Params: c.Params}}
}

// Preview collapses whitespace in content and cuts it to n runes with "...".
// It collapses only as many of content's fields as the cut needs (a chunk
// can be thousands of lines); the result is that of joining all of them.
func Preview(content string, n int) string {
	var b strings.Builder
	runes := 0
	for f := range strings.FieldsSeq(content) {
		if runes > 0 {
			b.WriteByte(' ')
			runes++
		}
		b.WriteString(f)
		if runes += utf8.RuneCountInString(f); runes > n {
			break // cut below: the fields after change nothing
		}
	}
	s := b.String()
	if runes <= n {
		return s
	}
	return string([]rune(s)[:n-3]) + "..."
}

// absentLanguageNote says, for a search with lang: filters and no result,
// when the project holds no indexed file in any of those languages, and
// which languages it does hold (the three with most files): "the project
// has no python files (its languages: javascript 288, typescript 1)".
// "" when it does hold some, or the files cannot be read.
func (s *Searcher) absentLanguageNote(ctx context.Context, langs []string) string {
	files, err := s.Store.FileLanguages(ctx, s.Project)
	if err != nil {
		return ""
	}
	count := map[string]int{}
	for _, l := range files {
		if l != "" {
			count[l]++
		}
	}
	for _, l := range langs {
		if count[l] > 0 {
			return ""
		}
	}
	held := make([]string, 0, len(count))
	for l := range count {
		held = append(held, l)
	}
	sort.Slice(held, func(i, j int) bool {
		if count[held[i]] != count[held[j]] {
			return count[held[i]] > count[held[j]]
		}
		return held[i] < held[j]
	})
	for i, l := range held {
		held[i] = fmt.Sprintf("%s %d", l, count[l])
	}
	if len(held) > 3 {
		held = held[:3]
	}
	what := "no indexed files"
	if len(held) > 0 {
		what = "its languages: " + strings.Join(held, ", ")
	}
	return fmt.Sprintf("the project has no %s files (%s)", strings.Join(langs, " or "), what)
}
