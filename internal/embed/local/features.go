package local

import (
	"unicode"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/analyze"
)

// Feature classes; each seeds the hash, so equal strings of different
// classes are different features.
const (
	classWord     = 'w'
	classDigits   = 'd'
	classCompound = 'c'
	classPair     = 'p'
	classGram     = 'g'
	classCJK1     = 'u'
	classCJK2     = 'b'
)

// Class weights (see the package doc).
const (
	wWord      = 1.0
	wStop      = 0.2
	wDigits    = 0.3
	wCompound  = 0.6
	wPair      = 0.5
	wGram      = 0.25
	wCJK2      = 1.0
	wCJK1      = 0.4
	wExpansion = 0.8
)

// maxExpandRunes is the longest CJK substring offered to Options.Expand.
const maxExpandRunes = 4

type feature struct {
	key uint64
	n   int32
	w   float64 // the largest weight this feature was seen with
	pos int32   // cell in featurizer.keys
}

// featurizer collects one text's features; pooled per Embedder.
type featurizer struct {
	e     *Embedder
	keys  []uint64  // open-addressing table of feature keys, power-of-two size
	slots []int32   // index in feats of keys[i]
	feats []feature // insertion order, so sums are deterministic
	runes []rune
	buf   []byte

	stems    map[string]string // local stem cache, in front of stemCache
	names    map[uint64]string // feature names, only for Terms
	prevName string

	// translate overrides e.translate for one query (EmbedQueryTranslated).
	translate func(string) []analyze.Expansion

	prev      uint64 // hash of the previous pairable word
	havePrev  bool
	expanding bool
}

func newFeaturizer(e *Embedder) *featurizer {
	return &featurizer{e: e, keys: make([]uint64, 2048), slots: make([]int32, 2048), stems: make(map[string]string, 1024)}
}

func (f *featurizer) reset() {
	for _, ft := range f.feats {
		f.keys[ft.pos] = 0
	}
	f.feats = f.feats[:0]
	f.havePrev = false
}

// add counts one occurrence of feature key with weight w. Features live in
// an open-addressing table (keys are already well-mixed hashes, 0 marks a
// free cell) indexing f.feats; it is ~2x faster than a Go map here.
func (f *featurizer) add(key uint64, w float64) {
	if key == 0 {
		key = 1
	}
	mask := uint64(len(f.keys) - 1)
	for i := key & mask; ; i = (i + 1) & mask {
		switch f.keys[i] {
		case key:
			ft := &f.feats[f.slots[i]]
			ft.n++
			ft.w = max(ft.w, w)
			return
		case 0:
			f.keys[i] = key
			f.slots[i] = int32(len(f.feats))
			f.feats = append(f.feats, feature{key: key, n: 1, w: w, pos: int32(i)})
			if 2*len(f.feats) > len(f.keys) {
				f.grow()
			}
			return
		}
	}
}

func (f *featurizer) grow() {
	f.keys = make([]uint64, 2*len(f.keys))
	f.slots = make([]int32, len(f.keys))
	mask := uint64(len(f.keys) - 1)
	for j := range f.feats {
		ft := &f.feats[j]
		i := ft.key & mask
		for f.keys[i] != 0 {
			i = (i + 1) & mask
		}
		f.keys[i], f.slots[i], ft.pos = ft.key, int32(j), int32(i)
	}
}

// text adds the features of s, each weight multiplied by scale.
func (f *featurizer) text(s string, scale float64) {
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case isCJK(r):
			j := i + n
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !isCJK(r2) {
					break
				}
				j += n2
			}
			f.cjk(s[i:j], scale)
			i = j
		case isWord(r):
			j := i + n
			for j < len(s) {
				r2, n2 := rune(s[j]), 1
				if r2 >= utf8.RuneSelf {
					r2, n2 = utf8.DecodeRuneInString(s[j:])
				}
				if !isWord(r2) || isCJK(r2) {
					break
				}
				j += n2
			}
			f.identifier(s[i:j], scale)
			i = j
		default:
			if r != ' ' && r != '\t' && r != '\n' && r != '\r' {
				f.havePrev = false // only plain spacing joins words into pairs
			}
			i += n
		}
	}
}

// identifier splits one run of word characters into sub-words (snake_case,
// camelCase, acronyms, digits) and adds their features.
func (f *featurizer) identifier(s string, scale float64) {
	rs := f.runes[:0]
	for _, r := range s {
		rs = append(rs, r)
	}
	f.runes = rs
	parts, letters := 0, 0
	start := 0
	for i := 0; i <= len(rs); i++ {
		if i < len(rs) && rs[i] != '_' {
			continue
		}
		if i > start {
			seg := rs[start:i]
			analyze.SubWords(seg, func(a, b int) {
				parts++
				letters += f.part(seg[a:b], scale)
			})
		}
		start = i + 1
	}
	if parts > 1 && letters > 0 {
		// The whole identifier, lowercased, separators dropped.
		b := f.buf[:0]
		for _, r := range rs {
			if r != '_' {
				b = utf8.AppendRune(b, unicode.ToLower(r))
			}
		}
		f.buf = b
		k := hashBytes(classCompound, b)
		f.add(k, wCompound*scale)
		if f.names != nil {
			f.names[k] = "ident:" + string(b)
		}
	}
}

// part adds the features of one sub-word and returns 1 if it was a word
// (not digits, not a single letter), else 0.
func (f *featurizer) part(rs []rune, scale float64) int {
	if isDigit(rs[0]) {
		k := hashRunes(classDigits, rs)
		f.add(k, wDigits*scale)
		if f.names != nil {
			f.names[k] = "digits:" + string(rs)
		}
		return 0
	}
	if len(rs) < 2 {
		return 0
	}
	ascii := true
	b := f.buf[:0]
	for _, r := range rs {
		r = unicode.ToLower(r)
		if r >= utf8.RuneSelf {
			ascii = false
		}
		b = utf8.AppendRune(b, r)
	}
	f.buf = b
	stop := analyze.CodeStop(b)
	var wh uint64
	stem := ""
	if ascii && !stop {
		stem = f.stem(b)
		wh = hashString(classWord, stem)
	} else {
		wh = hashBytes(classWord, b)
	}
	if f.names != nil {
		if stem == "" {
			stem = string(b)
		}
		if stop {
			f.names[wh] = "stop:" + stem
		} else {
			f.names[wh] = "word:" + stem
		}
	}
	if stop {
		f.add(wh, wStop*scale)
		return 1
	}
	f.add(wh, wWord*scale)
	if f.havePrev {
		k := mix(f.prev*0x9e3779b97f4a7c15 ^ wh ^ classPair)
		f.add(k, wPair*scale)
		if f.names != nil {
			f.names[k] = "pair:" + f.prevName + "+" + stem
		}
	}
	f.prev, f.havePrev = wh, true
	if f.names != nil {
		f.prevName = stem
	}
	if len(rs) >= 3 {
		f.grams(rs, scale)
	}
	if f.e.expand != nil && !f.expanding {
		f.expandTerm(string(b), scale)
	}
	return 1
}

// grams adds the boundary-marked character 3-grams of a lowercased sub-word.
func (f *featurizer) grams(rs []rune, scale float64) {
	const mark = '#'
	at := func(i int) rune { // i indexes "#" + rs + "#"
		if i == 0 || i == len(rs)+1 {
			return mark
		}
		return unicode.ToLower(rs[i-1])
	}
	for i := 0; i+3 <= len(rs)+2; i++ {
		h := uint64(offset64) ^ classGram
		h = (h ^ uint64(at(i))) * prime64
		h = (h ^ uint64(at(i+1))) * prime64
		h = (h ^ uint64(at(i+2))) * prime64
		f.add(mix(h), wGram*scale)
		if f.names != nil {
			f.names[mix(h)] = "gram:" + string([]rune{at(i), at(i + 1), at(i + 2)})
		}
	}
}

// cjk adds unigrams and bigrams of a run of CJK characters, and the
// expansions of its substrings.
func (f *featurizer) cjk(s string, scale float64) {
	f.havePrev = false
	rs := f.runes[:0]
	for _, r := range s {
		rs = append(rs, r)
	}
	f.runes = rs
	for i := range rs {
		k := hashRunes(classCJK1, rs[i:i+1])
		f.add(k, wCJK1*scale)
		if f.names != nil {
			f.names[k] = "cjk1:" + string(rs[i:i+1])
		}
		if i+1 < len(rs) {
			k = hashRunes(classCJK2, rs[i:i+2])
			f.add(k, wCJK2*scale)
			if f.names != nil {
				f.names[k] = "cjk2:" + string(rs[i:i+2])
			}
		}
	}
	if f.expanding {
		return
	}
	if f.translate != nil || f.e.translate != nil {
		f.translateRun(s, scale)
		f.havePrev = false
		return
	}
	if f.e.expand == nil {
		return
	}
	for i := range rs {
		for j := i + 1; j <= len(rs) && j-i <= maxExpandRunes; j++ {
			f.expandTerm(string(rs[i:j]), scale)
		}
	}
	f.havePrev = false
}

// translateRun adds the features of the weighted English terms of a CJK
// run (Options.Analyzer, or a query's own translation).
func (f *featurizer) translateRun(s string, scale float64) {
	tr := f.translate
	if tr == nil {
		tr = f.e.translate
	}
	ts := tr(s)
	if len(ts) == 0 {
		return
	}
	prev, have, runes, buf := f.prev, f.havePrev, f.runes, f.buf
	f.runes, f.buf = nil, nil
	f.expanding = true
	for _, t := range ts {
		if t.Weight <= 0 {
			continue
		}
		f.havePrev = false
		f.text(t.Term, scale*wExpansion*min(t.Weight, 1))
	}
	f.expanding = false
	f.prev, f.havePrev, f.runes, f.buf = prev, have, runes, buf
}

func (f *featurizer) expandTerm(term string, scale float64) {
	terms := f.e.expand(term)
	if len(terms) == 0 {
		return
	}
	// text() reuses f.runes and f.buf, which the caller is still reading.
	prev, have, runes, buf := f.prev, f.havePrev, f.runes, f.buf
	f.runes, f.buf = nil, nil
	f.expanding = true
	for _, t := range terms {
		f.havePrev = false
		f.text(t, scale*wExpansion)
	}
	f.expanding = false
	f.prev, f.havePrev, f.runes, f.buf = prev, have, runes, buf
}

func isDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsDigit(r)
}

func isWord(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func isCJK(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

// FNV-1a 64 constants.
const (
	offset64 = 14695981039346656037
	prime64  = 1099511628211
)

// mix is the murmur3 64-bit finaliser; it spreads FNV's low bits, which
// pick the coordinate, and the top bit, which picks the sign.
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func hashBytes(class byte, b []byte) uint64 {
	h := uint64(offset64) ^ uint64(class)
	h *= prime64
	for _, c := range b {
		h = (h ^ uint64(c)) * prime64
	}
	return mix(h)
}

func hashString(class byte, s string) uint64 {
	h := uint64(offset64) ^ uint64(class)
	h *= prime64
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * prime64
	}
	return mix(h)
}

func hashRunes(class byte, rs []rune) uint64 {
	h := uint64(offset64) ^ uint64(class)
	h *= prime64
	for _, r := range rs {
		h = (h ^ uint64(r)) * prime64
	}
	return mix(h)
}

// stem returns the Snowball stem of a lowercased ASCII word, from the
// featurizer's own lock-free cache when it can.
func (f *featurizer) stem(b []byte) string {
	if s, ok := f.stems[string(b)]; ok {
		return s
	}
	s := stemOf(b)
	if len(f.stems) < maxLocalStems {
		f.stems[string(b)] = s
	}
	return s
}

const maxLocalStems = 1 << 14

// stemOf is the Snowball stem of a lowercased ASCII word, from the
// process's stem cache (analyze.SnowballStem).
func stemOf(b []byte) string {
	return analyze.SnowballStem(string(b))
}
