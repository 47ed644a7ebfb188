package zh

import (
	"sort"
	"strings"
	"unicode"
)

// Term is an English query term with a weight in (0, 1]: 1 for the best
// term of a word, less for later senses, longer glosses and dictionary
// terms (see Analyzer).
type Term struct {
	Text   string
	Weight float64
}

// Limits of Senses.
const (
	// MaxSenseTerms is the most terms Senses keeps for one headword.
	MaxSenseTerms = 6
	// MinSenseWeight drops terms weaker than this share of the best one.
	MinSenseWeight = 0.3
	// maxGlossWords drops glosses of more content words than this: they
	// describe ("the emergency number for ...") rather than translate.
	maxGlossWords = 3
)

// glossSkip are gloss prefixes (lower case) of entries that are not a
// translation: cross-references, classifiers, surnames, variants.
var glossSkip = []string{
	"surname ", "variant of", "old variant", "archaic variant", "japanese variant", "erhua variant",
	"see ", "cl:", "abbr. for", "abbr. of", "abbr. to", "used in", "also written", "also pr.",
	"taiwan pr.", "pr. ", "(old)", "(archaic)", "(literary)", "(dialect)", "(cantonese)", "(classical)",
	"(buddhism)", "(taoism)", "(tcm)", "(mythology)", "(vulgar)", "(euphemism)", "(slang)", "(onom.)",
	"(honorific)", "(polite)", "(idiom)", "(tw)", "(old)", "(obsolete)",
}

// codeHints in a gloss's parentheses mark a computing sense: "routing (in
// computer networks)".
var codeHints = []string{"comput", "program", "network", "software", "internet", "database", "data", "file", "math"}

// glossStop are words of glosses that carry no meaning as query terms:
// English function words and CC-CEDICT's placeholders (sb, sth, one's).
var glossStop = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "of": true, "and": true, "or": true, "for": true,
	"in": true, "on": true, "at": true, "by": true, "with": true, "from": true, "as": true, "into": true,
	"sb": true, "sth": true, "one": true, "ones": true, "oneself": true, "someone": true, "something": true,
	"somebody": true, "etc": true, "be": true, "is": true, "are": true, "it": true, "its": true,
	"s": true, "up": true, "out": true, "off": true, "down": true, "over": true, "not": true, "no": true,
	"very": true, "so": true, "such": true, "that": true, "this": true, "kind": true, "sort": true,
}

// Senses turns the CC-CEDICT entries of one headword into weighted English
// query terms, best first, at most MaxSenseTerms, the best with weight 1.
//
// The rules, in order: entries of proper nouns (pinyin starting with a
// capital) are dropped when the word also has a common-noun entry;
// cross-references, classifiers, surnames, variants and archaic, literary,
// dialect or religious senses are dropped (glossSkip); each remaining gloss
// is cut into phrases at ';', ',' and " or "; parenthetical and bracketed
// notes are removed (a note that mentions computing raises the sense);
// "to", articles, "sb"/"sth" and other function words are dropped; a phrase
// of more than three content words is dropped. A term's weight is
// 1/(1+0.3·sense) · 1/(1+0.15·phrase) · (1, 0.75, 0.5 for one, two, three
// content words), ×1.5 for a computing sense, then divided by the best
// weight; terms under MinSenseWeight go.
//
// So 丢弃 "to discard/to abandon" gives discard 1, abandon 0.77, and 路由
// "routing (in computer networks)" gives routing 1.
func Senses(es []Entry) []Term {
	common := false
	for _, e := range es {
		if e.Pinyin != "" && !unicode.IsUpper([]rune(e.Pinyin)[0]) {
			common = true
			break
		}
	}
	best := map[string]float64{}
	order := map[string]int{}
	sense := 0
	for _, e := range es {
		if common && e.Pinyin != "" && unicode.IsUpper([]rune(e.Pinyin)[0]) {
			continue
		}
		for _, g := range e.Glosses {
			lg := strings.ToLower(g)
			skip := false
			for _, p := range glossSkip {
				if strings.HasPrefix(lg, p) {
					skip = true
					break
				}
			}
			if skip {
				continue
			}
			domain := 1.0
			notes := parenNotes(lg)
			for _, h := range codeHints {
				if strings.Contains(notes, h) {
					domain = 1.5
					break
				}
			}
			plain := stripNotes(lg)
			used := false
			for p, phrase := range splitPhrases(plain) {
				words := contentWords(phrase)
				if len(words) == 0 || len(words) > maxGlossWords || phrasal(phrase) {
					continue
				}
				lenF := []float64{1, 0.75, 0.5}[len(words)-1]
				w := domain * lenF / (1 + 0.3*float64(sense)) / (1 + 0.15*float64(p))
				for _, word := range words {
					if w > best[word] {
						best[word] = w
					}
					if _, ok := order[word]; !ok {
						order[word] = len(order)
					}
				}
				used = true
			}
			if used {
				sense++
			}
		}
	}
	if len(best) == 0 {
		return nil
	}
	out := make([]Term, 0, len(best))
	for t, w := range best {
		out = append(out, Term{t, w})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Weight != out[j].Weight {
			return out[i].Weight > out[j].Weight
		}
		return order[out[i].Text] < order[out[j].Text]
	})
	top := out[0].Weight
	n := 0
	for _, t := range out {
		t.Weight /= top
		if t.Weight < MinSenseWeight || n == MaxSenseTerms {
			break
		}
		out[n] = t
		n++
	}
	return out[:n]
}

// parenNotes returns the text inside parentheses of g.
func parenNotes(g string) string {
	var b strings.Builder
	depth := 0
	for _, r := range g {
		switch r {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		default:
			if depth > 0 {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// stripNotes removes (...) and [...] from g.
func stripNotes(g string) string {
	var b strings.Builder
	depth := 0
	for _, r := range g {
		switch r {
		case '(', '[':
			depth++
		case ')', ']':
			if depth > 0 {
				depth--
			}
		default:
			if depth == 0 {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// phrasal reports a phrasal verb ("to call off", "to take up"): its verb
// alone means something else, so the phrase gives no term.
func phrasal(phrase string) bool {
	ws := strings.Fields(phrase)
	if len(ws) < 2 {
		return false
	}
	switch ws[len(ws)-1] {
	case "up", "out", "off", "down", "over", "away", "back", "on", "in":
		return true
	}
	return false
}

func splitPhrases(g string) []string {
	g = strings.ReplaceAll(g, " or ", ";")
	return strings.FieldsFunc(g, func(r rune) bool { return r == ';' || r == ',' })
}

// contentWords returns the lower-case ASCII words of a phrase minus
// glossStop; a phrase with a non-ASCII letter (a Chinese cross-reference)
// gives nil.
func contentWords(phrase string) []string {
	for _, r := range phrase {
		if r >= 0x80 {
			return nil
		}
	}
	var out []string
	for _, w := range strings.FieldsFunc(phrase, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}) {
		w = strings.Trim(w, "-")
		if len(w) < 2 || glossStop[w] {
			continue
		}
		out = append(out, w)
	}
	return out
}

// AllHan reports whether s is non-empty and every rune of it is a Han
// character.
func AllHan(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}
