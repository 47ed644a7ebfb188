package analyze

//go:generate go run ./internal/gendict -out data/zhdict.txt

import (
	_ "embed"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/go-ego/gse/hmm"
)

// zhDictData is the compact segmentation dictionary written by
// internal/gendict: header lines starting with '#' (the first is
// "#total N", the sum of the frequencies of the full jieba dictionary), then
// "word freq" lines sorted by bytes. It is searched in place by binary
// search, so a process pays nothing to load it.
//
//go:embed data/zhdict.txt
var zhDictData string

var (
	zhOnce     sync.Once
	zhBody     string  // the word lines of zhDictData
	zhLogTotal float64 // log of the total frequency
	hmmOnce    sync.Once
)

// segmentTie is the margin within which two segmentations' log-probabilities
// are a tie (route in Cut): far below the difference two distinct
// frequencies make (no word is counted above 10^7 times, so at least 10^-7
// in log), far above the rounding of a sum of a few dozen logarithms.
const segmentTie = 1e-9

func zhDict() string {
	zhOnce.Do(func() {
		body := zhDictData
		total := 6e7
		for strings.HasPrefix(body, "#") {
			line, rest, _ := strings.Cut(body, "\n")
			if v, ok := strings.CutPrefix(line, "#total "); ok {
				if n, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && n > 0 {
					total = n
				}
			}
			body = rest
		}
		zhBody, zhLogTotal = body, math.Log(total)
	})
	return zhBody
}

// zhLookup finds word in the dictionary: its frequency (0 if it is not a
// word) and whether some dictionary word starts with it.
func zhLookup(word string) (freq int, prefix bool) {
	d := zhDict()
	lo, hi := 0, len(d) // both at line starts
	for lo < hi {
		mid := lo + (hi-lo)/2
		s := lo + strings.LastIndexByte(d[lo:mid], '\n') + 1
		e := strings.IndexByte(d[s:], '\n')
		if e < 0 {
			e = len(d) - s
		}
		line := d[s : s+e]
		w, f, _ := strings.Cut(line, " ")
		switch {
		case w == word:
			n, _ := strconv.Atoi(f)
			return n, true
		case w < word:
			lo = s + e + 1
		default:
			hi = s
		}
	}
	return 0, strings.HasPrefix(d[lo:], word)
}

// particles are the Chinese function characters that a word of a question
// never spans: 路由是怎么匹配的 is 路由/是/怎么/匹配/的, not 路/由是. No
// multi-character word may contain one of them (whatever the segmentation
// dictionary says: jieba knows 由是 "therefore" and 的确 "indeed"); the
// function words lost that way (但是, 是否, 为了) carry no code meaning.
var particles = map[rune]bool{'是': true, '的': true, '了': true, '吗': true, '呢': true, '吧': true, '啊': true}

// endParticles may end a word only when the word is in the glossary or
// the bilingual dictionary (超时 timeout, 实时 real-time): 本地为空时 is
// 本地/为空/时, not 为/空时.
var endParticles = map[rune]bool{'时': true}

// edgeParticles may start or end a word only when the glossary or the
// dictionary knows it (时间, 存在, 在线 yes; 时才 of 时才, 否在 no). They
// are the function characters that jieba's frequencies glue to a
// neighbour.
var edgeParticles = map[rune]bool{'时': true, '在': true}

// questionWords are the question words no other word may overlap:
// 无论如何 gives up 如何's characters; the longest match wins (在哪里).
var questionWords = []string{"怎么", "如何", "什么", "哪里", "在哪", "在哪里", "在哪儿", "哪个", "哪些", "为什么", "怎样", "哪儿", "多少", "是否", "是不是"}

// knownWord reports whether a word ending in an end particle may stay
// whole: the glossary or the dictionary knows it.
func (a *Analyzer) knownWord(w string) bool {
	if len(glossaryLookup(w)) > 0 {
		return true
	}
	d := a.Dictionary()
	return d != nil && d.Has(w)
}

// wordBoundaries returns hard[k] for k in 1..n-1: no word may contain both
// rs[k-1] and rs[k] (particles and question words are words of their own).
// A particle inside a question word (是 of 是否) is part of it.
func wordBoundaries(rs []rune) []bool {
	n := len(rs)
	hard := make([]bool, n+1)
	inQuestion := make([]bool, n)
	// Question words are found left to right, longest first, so
	// overlapping ones (在哪 and 哪里 in 在哪里) do not cut each other.
	for i := 0; i < n; {
		m := 0
		for _, q := range questionWords {
			qr := []rune(q)
			if len(qr) > m && i+len(qr) <= n && string(rs[i:i+len(qr)]) == q {
				m = len(qr)
			}
		}
		if m == 0 {
			i++
			continue
		}
		hard[i], hard[i+m] = true, true
		for k := i; k < i+m; k++ {
			inQuestion[k] = true
		}
		i += m
	}
	for k, r := range rs {
		if particles[r] && !inQuestion[k] {
			hard[k], hard[k+1] = true, true
		}
	}
	return hard
}

// Cut segments a run of Han characters into words the way jieba
// does (precise mode with HMM): a DAG of the dictionary words found in the
// text, the most probable path through it by unigram frequency, and the
// HMM of github.com/go-ego/gse/hmm for runs of characters the dictionary
// does not know. Unlike jieba, no word crosses a particle or a question
// word (see particles, endParticles, questionWords). The dictionary is
// compact (see internal/gendict) and read in place, so the first call costs
// microseconds, not a dictionary load. text should be one run of Han
// characters (search.AnalyzeQuery splits queries so).
// Words ending in a particle are kept whole only when the glossary or
// a's dictionary knows them, so the dictionary changes the segmentation.
func (a *Analyzer) Cut(text string) []string {
	a = a.or()
	rs := []rune(text)
	n := len(rs)
	if n == 0 {
		return nil
	}
	zhDict()
	hard := wordBoundaries(rs)
	allowed := func(i, j int) bool {
		for k := i + 1; k < j; k++ {
			if hard[k] {
				return false
			}
		}
		if j-i < 2 {
			return true
		}
		if endParticles[rs[j-1]] || (edgeParticles[rs[j-1]] || edgeParticles[rs[i]]) && a.Dictionary() != nil {
			return a.knownWord(string(rs[i:j]))
		}
		return true
	}
	// route[i] = best log-probability of rs[i:] and the end of its first word.
	type step struct {
		score float64
		end   int
	}
	route := make([]step, n+1)
	var freqs []int
	for i := n - 1; i >= 0; i-- {
		freqs = freqs[:0]
		var ends []int
		for j := i + 1; j <= n; j++ {
			f, prefix := zhLookup(string(rs[i:j]))
			if f > 0 && allowed(i, j) {
				ends = append(ends, j)
				freqs = append(freqs, f)
			}
			if !prefix {
				break
			}
		}
		if len(ends) == 0 {
			ends, freqs = append(ends, i+1), append(freqs, 1)
		}
		best := step{score: math.Inf(-1)}
		for k, j := range ends {
			s := math.Log(float64(freqs[k])) - zhLogTotal + route[j].score
			// a tie (终端/点 against 终/端点, each a word of the glossary's
			// floor frequency and a single character) goes to the longer
			// first word, as jieba breaks it; the scores of a tie differ
			// only by rounding, which the dictionary's total moves, so
			// they are compared within segmentTie
			if s > best.score+segmentTie || (s >= best.score-segmentTie && j > best.end) {
				best = step{s, j}
			}
		}
		route[i] = best
	}
	var out []string
	var buf []rune
	flush := func() {
		switch {
		case len(buf) == 1:
			out = append(out, string(buf))
		case len(buf) > 1:
			if f, _ := zhLookup(string(buf)); f > 0 {
				for _, r := range buf {
					out = append(out, string(r))
				}
			} else {
				hmmOnce.Do(func() { hmm.LoadModel() })
				out = append(out, hmm.Cut(string(buf))...)
			}
		}
		buf = buf[:0]
	}
	for i := 0; i < n; {
		j := route[i].end
		if j-i == 1 {
			// the HMM must not join characters across a hard boundary,
			// nor an edge particle to a neighbour: a word the HMM makes is
			// one neither the glossary nor the dictionary knows (时退 of
			// 设置时退回, 在栈 of 在栈上)
			edge := edgeParticles[rs[i]] || endParticles[rs[i]]
			if hard[i] || edge {
				flush()
			}
			buf = append(buf, rs[i])
			if hard[j] || edge {
				flush()
			}
		} else {
			flush()
			out = append(out, string(rs[i:j]))
		}
		i = j
	}
	flush()
	return out
}

// HasHan reports whether s has a Han character.
func HasHan(s string) bool {
	for _, r := range s {
		if IsHan(r) {
			return true
		}
	}
	return false
}
