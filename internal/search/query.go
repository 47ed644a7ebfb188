package search

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/zh"
)

// Query is one query analysed once, at the top of Searcher.Search: every
// ranker, --explain and the query embedding read it instead of the text.
// Build it with AnalyzeQuery; its fields are not to be modified.
type Query struct {
	// Text is the query as asked, trimmed of surrounding white space.
	Text string
	// Terms are the keyword route's analysed, de-duplicated terms, in
	// order of appearance (see QueryTerms).
	Terms []string
	// Keywords are the seed ranker's tokens (see Tokenize).
	Keywords []string
	// Identifiers are the code-like words of the query, for the name boost
	// (see identifierQueries), then, with QueryOptions.GlossaryNames, the
	// one-word English names of its Chinese words.
	Identifiers []Identifier
	// Chinese are the query's Chinese words, each with its English terms
	// and their source (glossary, dictionary, parts); nil when the query
	// has no Han character.
	Chinese []zh.Word
	// Code is true for a short run of code-like words (at most 3 words,
	// no Chinese, one written like code or a single word): "HashMap
	// resize", "errors.Is", "StripPrefix".
	Code bool
	// Symbol is the name a query asks for when the whole query is one
	// symbol ("gin.Context" -> "Context"); "" otherwise (see symbolQuery).
	Symbol string
	// Spelled is the name a query of two to four plain words spells when
	// its words are joined ("generate password hash" ->
	// "generatepasswordhash", which generate_password_hash and
	// GeneratePasswordHash fold to; see foldName); "" otherwise.
	Spelled string
	// Pair holds the two words of a query that is two plain words, neither
	// a stop word ("peekable peek", "iterutils remap"): a member and what
	// it is a member of, when a definition's name is one and its owner,
	// file or directory the other (see pairBoost); empty otherwise.
	Pair [2]string
	// ContentWords counts the words that carry meaning: the words that are
	// not English stop words, and the segmented Chinese words that are not
	// question words (see topicality).
	ContentWords int
	// HasHan is true when the query has a Han character.
	HasHan bool
	// Filter is the query's filters (see ParseQuery); Text is then the
	// words without them. Searcher.Search sets it.
	Filter Filter
	// runs memoises the segmentation of each Han run, so one query is
	// segmented once whatever reads it (embedders included).
	runs map[string][]string
	// an is the analysis the query was analysed with.
	an *analyze.Analyzer
	// embedErr is why the project's embedder could not embed the query
	// (Searcher.embedQuery); the search then ranks by its keyword routes
	// alone and says so (EmbedFailedNote).
	embedErr error
	// vector keeps the query's embedding once embedQuery made it (see
	// QueryVector): Options.Vector or a new one, set by Searcher.Search.
	vector *QueryVector
}

// Identifier is a code-like word of a query split into an optional
// qualifier and the bare name: "hex.Dump" -> {"hex", "Dump"},
// "StripPrefix" -> {"", "StripPrefix"}.
type Identifier struct {
	Qualifier, Name string
}

// Query kinds (Query.Kind).
const (
	// KindSymbol is a query that is one symbol: "gin.Context".
	KindSymbol = "symbol"
	// KindCode is a short run of code-like words: "HashMap resize".
	KindCode = "code"
	// KindDescriptive is a question or description in words.
	KindDescriptive = "descriptive"
)

// Kind returns KindSymbol, KindCode or KindDescriptive.
func (q *Query) Kind() string {
	switch {
	case q.Symbol != "":
		return KindSymbol
	case q.Code:
		return KindCode
	}
	return KindDescriptive
}

// QueryOptions choose what the analysis adds to a query's own words. They
// are part of HybridParams.
type QueryOptions struct {
	// Glossary adds the English terms of the query's Chinese words
	// (glossary, else dictionary) to the keyword route.
	Glossary bool
	// ExpandEnglish adds the glossary's English synonyms and abbreviations
	// of plain query words (request -> req, connection -> conn) to the
	// keyword route.
	ExpandEnglish bool
	// GlossaryNames lets the one-word English terms (4+ letters) of the
	// query's Chinese words count as code-like words for the name boost
	// (扩容 -> grow, a function named grow); only with Glossary.
	GlossaryNames bool
	// PlainWordNames lets plain query words of 6+ letters ("karatsuba")
	// count as code-like words for the name boost.
	PlainWordNames bool
}

// AnalyzeQuery analyses text (already trimmed) once with a (nil: the
// glossary only; Searcher.Analyzer in a search): terms, seed tokens,
// identifiers, Chinese words with their translations, kind and content
// words. Each Han run is segmented once.
func AnalyzeQuery(a *analyze.Analyzer, text string, opts QueryOptions) *Query {
	q := &Query{Text: text, runs: map[string][]string{}, an: a}
	han := zh.HanRuns(text)
	q.HasHan = len(han) > 0
	var expand []string
	if q.HasHan {
		segs := make([][]string, len(han))
		for i, r := range han {
			segs[i] = q.cut(r)
		}
		q.Chinese = a.Segmented(segs)
		expand = zh.StrongTerms(q.Chinese)
	}
	q.Terms = q.queryTerms(opts, expand)
	q.Keywords = q.tokenize()
	q.Code = isCodeQuery(text, q.HasHan)
	q.Identifiers = identifierQueries(text, opts.PlainWordNames, q.Code)
	if opts.GlossaryNames && opts.Glossary {
		// Chinese words name code too: 扩容 -> grow, a function named grow
		for _, en := range expand {
			if len(en) >= 4 && !strings.Contains(en, " ") {
				q.Identifiers = append(q.Identifiers, Identifier{"", en})
			}
		}
	}
	q.Symbol = symbolQuery(text)
	if q.Symbol == "" && !q.HasHan {
		q.Spelled = spelledName(text)
		q.Pair = plainPair(text)
	}
	q.ContentWords = q.contentWords()
	return q
}

// ShownKeywords returns the words the keyword route searched for, as a
// reader would write them, for the summary agents read: the query's own
// words as typed (stop words left out; an identifier whole), and each
// Chinese word with its first English terms ("解码 (decode, decoder)").
// Query.Terms are the same words as the index holds them, stemmed and
// split ("dayj", "pars"), which read like misspellings.
func (q *Query) ShownKeywords() []string {
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if w != "" && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	zhTerms := map[string][]string{}
	for _, w := range q.Chinese {
		var ts []string
		for _, t := range w.Terms {
			if len(ts) == 2 {
				break
			}
			ts = append(ts, t.Text)
		}
		zhTerms[w.Text] = ts
	}
	q.eachWord(func(w string, han, _ bool) {
		if han {
			if ts := zhTerms[w]; len(ts) > 0 {
				w += " (" + strings.Join(ts, ", ") + ")"
			}
			add(w)
			return
		}
		for _, m := range nameRE.FindAllString(w, -1) {
			m = strings.Trim(m, ".-$")
			if looksLikeIdentifier(m) {
				add(m)
				continue
			}
			if lw := strings.ToLower(m); !analyze.EnglishStop(lw) && !analyze.StopWords[lw] {
				add(lw)
			}
		}
	})
	return out
}

// eachWord calls fn with the words of the query the keyword route reads,
// in order: each non-Han run of a field (han false; ident when its field
// is written like code, looksLikeIdentifier) and each segmented Chinese
// word of two or more characters that is not a question word (han true).
// Fields are split at spaces, tabs, newlines, ',', '?' and the ideographic
// space.
func (q *Query) eachWord(fn func(w string, han, ident bool)) {
	for _, f := range strings.FieldsFunc(q.Text, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == ',' || r == '?' || r == '\u3000'
	}) {
		ident := looksLikeIdentifier(f)
		for _, part := range splitHan(f) {
			if !part.han {
				fn(part.text, false, ident)
				continue
			}
			for _, w := range q.cut(part.text) {
				if len([]rune(w)) >= 2 && !analyze.QuestionWord(w) {
					fn(w, true, false)
				}
			}
		}
	}
}

// cut segments one Han run, once per query.
func (q *Query) cut(run string) []string {
	ws, ok := q.runs[run]
	if !ok {
		ws = q.an.Cut(run)
		q.runs[run] = ws
	}
	return ws
}

// QueryTerms returns the keyword route's terms of query under the default
// options and the glossary only: AnalyzeQuery(nil, query,
// DefaultHybridParams().QueryOptions).Terms.
func QueryTerms(query string) []string {
	return AnalyzeQuery(nil, query, DefaultHybridParams().QueryOptions).Terms
}

// queryTerms returns the analysed, de-duplicated terms of the query for
// the keyword route, in order of appearance: English stop words are
// dropped from plain words but kept inside identifiers ("errors.Is" keeps
// "is"); a Chinese run adds the terms of its segmented words (no term
// straddles two words) but no question word; with opts.Glossary, expand
// (the English terms of the Chinese words) adds its terms.
func (q *Query) queryTerms(opts QueryOptions, expand []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string, fromIdent bool) {
		if seen[t] || analyze.StopWords[t] || (!fromIdent && analyze.EnglishStop(t)) {
			return
		}
		seen[t] = true
		out = append(out, t)
	}
	q.eachWord(func(w string, han, ident bool) {
		for _, t := range analyze.Terms(nil, w) {
			add(t, ident && !han)
		}
	})
	if opts.Glossary {
		for _, en := range expand {
			for _, t := range analyze.Terms(nil, en) {
				add(t, false)
			}
		}
	}
	if opts.ExpandEnglish {
		for _, w := range strings.FieldsFunc(strings.ToLower(q.Text), func(r rune) bool { return !(r >= 'a' && r <= 'z') }) {
			if analyze.EnglishStop(w) {
				continue
			}
			for _, en := range analyze.GlossaryExpand(w) {
				for _, t := range analyze.Terms(nil, en) {
					add(t, false)
				}
			}
		}
	}
	return out
}

// tokenize is Tokenize over the query's memoised segmentation.
func (q *Query) tokenize() []string {
	type span struct {
		at  int
		tok string
	}
	var spans []span
	for _, m := range identifierRE.FindAllStringIndex(q.Text, -1) {
		spans = append(spans, span{m[0], q.Text[m[0]:m[1]]})
	}
	if q.HasHan {
		for _, m := range hanRunRE.FindAllStringIndex(q.Text, -1) {
			at := m[0]
			for _, w := range q.cut(q.Text[m[0]:m[1]]) {
				spans = append(spans, span{at, w})
				at += len(w)
			}
		}
	}
	// Insertion sort by position: identifiers and Han words interleave.
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j].at < spans[j-1].at; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range spans {
		t := strings.TrimSpace(s.tok)
		if utf8.RuneCountInString(t) < 2 || analyze.StopWords[t] || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// contentWords counts the query's words that are not English stop words
// (after trimming punctuation, as written or stemmed) and its segmented
// Chinese words of 2+ characters that are not question words.
func (q *Query) contentWords() int {
	n := 0
	for _, f := range strings.Fields(q.Text) {
		for _, part := range splitHan(f) {
			if part.han {
				for _, w := range q.cut(part.text) {
					if len([]rune(w)) >= 2 && !analyze.QuestionWord(w) {
						n++
					}
				}
				continue
			}
			w := strings.ToLower(strings.Trim(part.text, ",.;:?!()\"'`"))
			if w != "" && !analyze.EnglishStop(w) && !analyze.EnglishStop(analyze.Stem(w)) {
				n++
			}
		}
	}
	return n
}

// TranslateHan returns the weighted English terms of one Han run, like
// analyze.Analyzer.TranslateHan with the query's analyzer, from the
// query's own segmentation when the run is one of its runs. It is what
// the local embedder uses to embed this query.
func (q *Query) TranslateHan(run string) []analyze.Expansion {
	ws, ok := q.runs[run]
	if !ok {
		return q.an.TranslateHan(run)
	}
	return q.an.TranslateWords(ws)
}

// Tokenize is the seed's query tokenizer (RagQueryTokenizer): Chinese word
// segmentation (analyze.Analyzer.Cut with the glossary only, jieba's algorithm over a compact
// dictionary) plus identifiers matched by [A-Za-z][A-Za-z0-9_.$-]{1,};
// single characters and question words are dropped; order of first
// appearance is kept; duplicates removed.
func Tokenize(query string) []string {
	q := &Query{Text: query, HasHan: analyze.HasHan(query), runs: map[string][]string{}}
	return q.tokenize()
}

// nameRE is identifierRE with the leading underscores of a private name
// ("_load_data", "__init__"), which identifierQueries keeps: the chunk's
// name has them.
var nameRE = regexp.MustCompile(`_*[A-Za-z][A-Za-z0-9_.$-]{1,}`)

// identifierRE is the seed's identifier pattern (RagQueryTokenizer).
var identifierRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_.$-]{1,}`)

var hanRunRE = regexp.MustCompile(`\p{Han}+`)

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
// optional qualifier and the bare name. A query of one word counts as
// code-like whatever its case; with plainWords, so does a plain word of 6+
// letters that is not a stop word; in a code query (isCodeQuery: at most
// three words, one written like code) every word that is not a stop word
// does, since its neighbour says the words are names: "LineNumbers get",
// "TokenMatcher match" and "iterutils remap_keys" name a class or module
// and a member of it.
func identifierQueries(query string, plainWords, code bool) []Identifier {
	var out []Identifier
	fields := strings.Fields(query)
	for _, m := range nameRE.FindAllString(query, -1) {
		plain := !analyze.EnglishStop(strings.ToLower(m))
		if !looksLikeIdentifier(m) && len(fields) > 1 && !(plainWords && len(m) >= 6 && plain) && !(code && plain) {
			continue
		}
		m = strings.Trim(m, ".-$")
		if i := strings.LastIndexByte(m, '.'); i > 0 {
			out = append(out, Identifier{m[:i], m[i+1:]})
		} else {
			out = append(out, Identifier{"", m})
		}
	}
	return out
}

// isCodeQuery reports whether a query is a short run of code-like words
// (at most 3 words, no Chinese, at least one written like code or a single
// word): "HashMap resize", "errors.Is", "StripPrefix".
func isCodeQuery(q string, hasHan bool) bool {
	fields := strings.Fields(q)
	if len(fields) == 0 || len(fields) > 3 || hasHan {
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

// plainPair returns the two words of text when it is two words of ASCII
// letters, digits and '_' that are not English stop words; else empty.
func plainPair(text string) [2]string {
	ws := strings.Fields(text)
	if len(ws) != 2 {
		return [2]string{}
	}
	for _, w := range ws {
		if analyze.EnglishStop(strings.ToLower(w)) {
			return [2]string{}
		}
		for i := 0; i < len(w); i++ {
			if !isAlnumByte(w[i]) && w[i] != '_' {
				return [2]string{}
			}
		}
	}
	return [2]string{ws[0], ws[1]}
}

// spelledName returns the lower-cased concatenation of text's words when
// text is two to four words of ASCII letters and digits ("secure
// filename", "file server"), else "".
func spelledName(text string) string {
	ws := strings.Fields(text)
	if len(ws) < 2 || len(ws) > 4 {
		return ""
	}
	for _, w := range ws {
		for i := 0; i < len(w); i++ {
			if !isAlnumByte(w[i]) {
				return ""
			}
		}
	}
	return strings.ToLower(strings.Join(ws, ""))
}

func isAlnumByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// foldName returns a name lower-cased without '_', '-' and '$':
// generate_password_hash, GeneratePasswordHash and generate-password-hash
// all fold to generatepasswordhash.
func foldName(n string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '$':
			return -1
		}
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, n)
}
