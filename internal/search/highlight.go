package search

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/analyze"
)

// Highlighting the query's terms in results. This is presentation only:
// nothing here changes which results come back or their order.
//
// A word of a result's text matches when it is a term of the query as the
// keyword route analyses both (analyze.Terms): a whole identifier whose
// lower-cased sub-words joined are a term ("writeHeader" for the query word
// writeHeader), or one sub-word whose lower-cased form or stem is a term
// ("Header" in "writeHeader" for "headers"), or a pair of Han characters
// that is a term. With case:yes the filter's words are marked where they
// occur exactly as written instead.

// Span is a matched term in a text: byte offsets [Start, End) of its UTF-8
// bytes.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// LineSpan is a matched term in one line of a result's chunk: Line is the
// file's 1-based line number, Start and End byte offsets in that line
// (without its newline).
type LineSpan struct {
	Line  int `json:"line"`
	Start int `json:"start"`
	End   int `json:"end"`
}

// maxLineMatches caps Result.LineMatches: enough for any snippet shown.
const maxLineMatches = 200

// highlighter marks the words of a text that a query's terms match.
type highlighter struct {
	terms map[string]bool
	exact []string // case:yes words, marked as written
	// first marks the first bytes of the terms (see mayMatch).
	first [256]bool
	// words memoises word: the spans it marks in each identifier seen,
	// relative to the identifier (nil for none). A result's preview and
	// lines repeat most of their identifiers, and word's sub-word split,
	// lower-casing and stemming cost more than a map look-up.
	words map[string][]Span
}

// newHighlighter returns the highlighter of q, or nil when q has nothing
// to mark.
func newHighlighter(q *Query) *highlighter {
	if q == nil {
		return nil
	}
	h := &highlighter{terms: map[string]bool{}}
	if q.Filter.Case && len(q.Filter.CaseWords) > 0 {
		h.exact = q.Filter.CaseWords
		return h
	}
	for _, t := range q.Terms {
		h.terms[t] = true
		if t != "" {
			h.first[t[0]] = true
		}
	}
	if len(h.terms) == 0 {
		return nil
	}
	return h
}

// spans returns the matched spans of text, sorted, adjacent ones joined.
func (h *highlighter) spans(text string) []Span {
	if h == nil || text == "" {
		return nil
	}
	var out []Span
	add := func(a, b int) {
		if n := len(out); n > 0 && out[n-1].End >= a {
			out[n-1].End = max(out[n-1].End, b)
			return
		}
		out = append(out, Span{a, b})
	}
	if h.exact != nil {
		var all []Span
		for _, w := range h.exact {
			for i := 0; ; {
				j := strings.Index(text[i:], w)
				if j < 0 {
					break
				}
				all = append(all, Span{i + j, i + j + len(w)})
				i += j + len(w)
			}
		}
		slices.SortFunc(all, func(x, y Span) int { return cmp.Or(x.Start-y.Start, x.End-y.End) })
		for _, s := range all {
			add(s.Start, s.End)
		}
		return out
	}
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf && !isWordByte(c) {
			i++ // ASCII punctuation and space: the default case below
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case analyze.IsHan(r):
			j := i
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !analyze.IsHan(r2) {
					break
				}
				j += s2
			}
			h.hanRun(text[i:j], i, add)
			i = j
		case isWordRune(r):
			j := i + size
			for j < len(text) {
				if c := text[j]; c < utf8.RuneSelf {
					if !isWordByte(c) {
						break
					}
					j++
					continue
				}
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !isWordRune(r2) || analyze.IsHan(r2) {
					break
				}
				j += s2
			}
			for _, s := range h.wordSpans(text[i:j]) {
				add(i+s.Start, i+s.End)
			}
			i = j
		default:
			i += size
		}
	}
	return out
}

// isWordRune reports a rune of an identifier: a letter, a digit, '_' or
// '$'.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$'
}

// isWordByte is isWordRune for an ASCII byte.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$'
}

// wordSpans returns the spans word marks in the identifier w, relative to
// w, in the order word adds them; memoised in h.words.
func (h *highlighter) wordSpans(w string) []Span {
	if s, ok := h.words[w]; ok {
		return s
	}
	var out []Span
	h.word(w, 0, func(a, b int) { out = append(out, Span{a, b}) })
	if h.words == nil {
		h.words = map[string][]Span{}
	}
	h.words[w] = out
	return out
}

// word marks the identifier w at byte offset at: whole when its sub-words
// joined are a term, else each sub-word that is a term or stems to one.
func (h *highlighter) word(w string, at int, add func(a, b int)) {
	if isASCII(w) {
		h.wordASCII(w, at, add)
		return
	}
	type part struct{ a, b int } // byte offsets in w
	var parts []part
	rs := []rune(w)
	off := make([]int, len(rs)+1) // byte offset of each rune
	for i, r := range rs {
		off[i+1] = off[i] + utf8.RuneLen(r)
	}
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			run := rs[start:end]
			base := start
			analyze.SubWords(run, func(i, j int) { parts = append(parts, part{off[base+i], off[base+j]}) })
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	if len(parts) == 0 {
		return
	}
	if len(parts) > 1 && h.mayMatch(w[parts[0].a:parts[0].b]) {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(strings.ToLower(w[p.a:p.b]))
		}
		if h.terms[b.String()] {
			add(at+parts[0].a, at+parts[len(parts)-1].b)
			return
		}
	}
	for _, p := range parts {
		if !h.mayMatch(w[p.a:p.b]) {
			continue
		}
		lw := strings.ToLower(w[p.a:p.b])
		if h.terms[lw] || h.terms[analyze.Stem(lw)] {
			add(at+p.a, at+p.b)
		}
	}
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// wordASCII is word for an ASCII identifier, without its rune slices: the
// same runs of letters and digits, cut into sub-words as analyze.SubWords
// cuts them (its unicode classes are the byte ranges for ASCII), and the
// same look-ups, lower-cased in a buffer on the stack.
func (h *highlighter) wordASCII(w string, at int, add func(a, b int)) {
	type part struct{ a, b int } // byte offsets in w
	var buf [16]part
	parts := buf[:0]
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	isUpper := func(c byte) bool { return 'A' <= c && c <= 'Z' }
	isLower := func(c byte) bool { return 'a' <= c && c <= 'z' }
	for i := 0; i < len(w); {
		if c := w[i]; !isDigit(c) && !isUpper(c) && !isLower(c) {
			i++ // '_' or '$': between runs
			continue
		}
		j := i + 1
		for j < len(w) && (isDigit(w[j]) || isUpper(w[j]) || isLower(w[j])) {
			j++
		}
		start := i
		for k := i + 1; k < j; k++ {
			c, prev := w[k], w[k-1]
			if isDigit(c) != isDigit(prev) || isUpper(c) && isLower(prev) ||
				isUpper(c) && isUpper(prev) && k+1 < j && isLower(w[k+1]) {
				parts = append(parts, part{start, k})
				start = k
			}
		}
		parts = append(parts, part{start, j})
		i = j
	}
	if len(parts) == 0 {
		return
	}
	var lower [64]byte
	if len(parts) > 1 && h.mayMatch(w[parts[0].a:parts[0].b]) {
		joined := lower[:0]
		for _, p := range parts {
			joined = appendLowerASCII(joined, w[p.a:p.b])
		}
		if h.terms[string(joined)] {
			add(at+parts[0].a, at+parts[len(parts)-1].b)
			return
		}
	}
	for _, p := range parts {
		if !h.mayMatch(w[p.a:p.b]) {
			continue
		}
		lw := appendLowerASCII(lower[:0], w[p.a:p.b])
		if h.terms[string(lw)] || h.terms[analyze.Stem(string(lw))] {
			add(at+p.a, at+p.b)
		}
	}
}

// appendLowerASCII appends s, lower-cased (ASCII), to b.
func appendLowerASCII(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// mayMatch reports whether the sub-word part, lower-cased, or its stem, or
// a joined identifier that starts with it, can be a term: false only for
// an ASCII part whose first letter, lower-cased, starts no term. A stem
// keeps its word's first letter (Snowball English changes only suffixes,
// and of a word of letters and digits; analyze.Stem returns a word with
// digits as it is and undoubles only the last letter), so the test is
// exact, and it saves lower-casing and stemming most sub-words of code.
func (h *highlighter) mayMatch(part string) bool {
	for i := 0; i < len(part); i++ {
		if part[i] >= utf8.RuneSelf {
			return true
		}
	}
	c := part[0]
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	return h.first[c]
}

// hanRun marks the characters of a run of Han characters at byte offset at
// that form a term: a pair of characters (the index's bigrams) or a run of
// one.
func (h *highlighter) hanRun(run string, at int, add func(a, b int)) {
	rs := []rune(run)
	if len(rs) == 1 {
		if h.terms[run] {
			add(at, at+len(run))
		}
		return
	}
	off := 0
	for k := 0; k+1 < len(rs); k++ {
		n0, n1 := utf8.RuneLen(rs[k]), utf8.RuneLen(rs[k+1])
		if h.terms[string(rs[k:k+2])] {
			add(at+off, at+off+n0+n1)
		}
		off += n0
	}
}

// lineSpans returns the matched spans of content, whose first line is the
// file's line first, one LineSpan per span (a span never crosses a line),
// at most maxLineMatches.
func (h *highlighter) lineSpans(content string, first int) []LineSpan {
	if h == nil {
		return nil
	}
	var out []LineSpan
	for n, rest, more := 0, content, true; more; n++ {
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		for _, s := range h.spans(strings.TrimSuffix(line, "\r")) {
			if len(out) == maxLineMatches {
				return out
			}
			out = append(out, LineSpan{Line: first + n, Start: s.Start, End: s.End})
		}
	}
	return out
}

// markMatches fills each result's PreviewMatches and LineMatches with the
// spans h matches.
func (h *highlighter) markMatches(res []Result) {
	if h == nil {
		return
	}
	for i := range res {
		res[i].PreviewMatches = h.spans(res[i].Preview)
		res[i].LineMatches = h.lineSpans(res[i].content, res[i].StartLine)
	}
}
