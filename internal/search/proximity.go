package search

import (
	"strings"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/analyze"
)

// Term proximity. BM25 scores each query term on its own, so a long chunk
// that mentions many of a question's common words ("request", "header",
// "proxy", "connection") outscores the short function whose comment says
// the question's rare compound ("hop-by-hop headers"). Two words the
// question writes side by side and the chunk also writes side by side are
// evidence BM25 does not see: the proximity stage adds, to each of the
// best ProximityTop candidates, Proximity times the share of the query's
// adjacent word pairs that stand within ProximityWindow terms of each
// other in the chunk (in either order), divided by FusionScale.
//
// The idea is BM25TP's (Büttcher, Clarke and Lushman, "Term Proximity
// Scoring for Ad-Hoc Retrieval on Very Large Text Collections", SIGIR
// 2006) and the adjacent-pair form Tao and Zhai measured ("An Exploration
// of Proximity Measures in Information Retrieval", SIGIR 2007); here it
// is a share of pairs, not a sum of distances, so that it is bounded like
// the other stages' signals. Terms are the keyword index's (analyze.
// SubTerms: identifiers split, stemmed), English stop words left out on
// both sides, so "end-of-central-directory" in a question and "end of
// central directory record" in archive/zip's comments both read end,
// central, directori.

// queryPairs returns the distinct adjacent pairs of the query's English
// content words, in order of appearance: the last term of a word and the
// first term of the next content word (an identifier's own parts are no
// pair: "ThreadLocal" would match wherever the name is, which BM25 and the
// name boosts already see). Pairs do not cross a phrase break (, ; ( ) ?
// ! or a line break) or a run of Han characters: a Chinese word's English
// translations have no order.
func queryPairs(text string) [][2]string {
	var pairs [][2]string
	seen := map[[2]string]bool{}
	var buf []string
	for _, seg := range strings.FieldsFunc(text, phraseBreak) {
		prev := ""
		for _, w := range strings.FieldsFunc(seg, func(r rune) bool { return r < utf8.RuneSelf && !analyze.IsWordByte(byte(r)) }) {
			buf = contentTerms(buf[:0], w)
			if len(buf) == 0 {
				continue
			}
			if k := [2]string{prev, buf[0]}; prev != "" && !seen[k] && !seen[[2]string{k[1], k[0]}] {
				seen[k] = true
				pairs = append(pairs, k)
			}
			prev = buf[len(buf)-1]
		}
	}
	return pairs
}

// phraseBreak reports whether r ends a phrase for queryPairs.
func phraseBreak(r rune) bool {
	switch r {
	case ',', ';', '(', ')', '?', '!', '\n', '，', '；', '？', '！', '、', '（', '）':
		return true
	}
	return analyze.IsHan(r)
}

// contentTerms appends text's analysed terms (analyze.SubTerms) to dst,
// without English stop words, Chinese question words, numbers and single
// characters: "^1.2.3" or "0-9" in a question are no phrase of words.
func contentTerms(dst []string, text string) []string {
	n := len(dst)
	dst = analyze.SubTerms(dst, text)
	out := dst[:n]
	for _, t := range dst[n:] {
		if len(t) > 1 && !allDigits(t) && !analyze.StopWords[t] && !analyze.EnglishStop(t) {
			out = append(out, t)
		}
	}
	return out
}

// allDigits reports whether s is ASCII digits only.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// proximity scores texts by the query's adjacent pairs.
type proximity struct {
	pairs [][2]string
	// at maps a term of some pair to the pairs it is part of (indexes).
	at map[string][]int
	// last is the position of each pair term's latest occurrence in the
	// text being read; scratch, reset per text.
	last map[string]int
	// terms is scratch for a text's terms.
	terms []string
}

// newProximity returns a scorer of pairs, or nil when there are none.
func newProximity(pairs [][2]string) *proximity {
	if len(pairs) == 0 {
		return nil
	}
	p := &proximity{pairs: pairs, at: map[string][]int{}, last: map[string]int{}}
	for i, k := range pairs {
		p.at[k[0]] = append(p.at[k[0]], i)
		if k[1] != k[0] {
			p.at[k[1]] = append(p.at[k[1]], i)
		}
	}
	return p
}

// share returns the share (0 to 1) of p's pairs whose two terms stand
// within window terms of each other somewhere in text, in either order.
func (p *proximity) share(text string, window int) float64 {
	p.terms = contentTerms(p.terms[:0], text)
	clear(p.last)
	var found uint64 // pairs found, by index (pairs past 64 are not read)
	hits := 0
	for j, t := range p.terms {
		ks, ok := p.at[t]
		if !ok {
			continue
		}
		for _, k := range ks {
			if k >= 64 || found&(1<<k) != 0 {
				continue
			}
			other := p.pairs[k][0]
			if other == t {
				other = p.pairs[k][1]
			}
			if i, ok := p.last[other]; ok && j-i <= window {
				found |= 1 << k
				hits++
			}
		}
		p.last[t] = j
	}
	return float64(hits) / float64(min(len(p.pairs), 64))
}

// proximityStage adds the proximity signal to the best ProximityTop
// candidates (see the comment at the top of this file).
func proximityStage(p *pool) {
	px := newProximity(queryPairs(p.q.Text))
	if px == nil {
		return
	}
	n := min(len(p.res), p.hp.ProximityTop)
	for i := range n {
		if s := px.share(p.res[i].content, p.hp.ProximityWindow); s > 0 {
			p.add(i, "proximity", p.hp.Proximity*s/p.hp.FusionScale, "")
		}
	}
}
