// Package analyze turns code and questions into search terms, the same way on
// the index side and the query side, so that `OvertimeService` is found by
// "overtime service", `user_id` by "user id" and `MemoryManager.compress` as a
// whole and by its parts.
//
// A term is lower-case ASCII letters/digits or a run of CJK characters:
//   - identifiers are split into sub-words at camelCase humps, '_', '.', '$',
//     '-' and letter/digit boundaries ("parseHTTPRequestLine" -> parse, http,
//     request, line), each stemmed with the Snowball English stemmer (Porter,
//     2001); the whole identifier (lower-cased, separators removed) is kept
//     as well when it has several sub-words, so exact names score higher;
//   - Chinese text becomes overlapping character bigrams ("悬空引用" -> 悬空,
//     空引, 引用), the dictionary-free indexing used by CJK search engines
//     (e.g. Lucene's CJKAnalyzer); a one-character run stays a unigram.
//
// Identifiers are split by SubWords everywhere: here, in the query analysis
// (package search) and in the local embedder. The Chinese analysis lives
// here too: segmentation (Analyzer.Cut, segment.go), the bilingual glossary
// (glossary.go) and the translation of words to English terms with the
// glossary and CC-CEDICT (chinese.go, package zh), which the query
// analysis, the local embedder (TranslateHan, for queries and documents)
// and --explain share. Everything that depends on the dictionary is a
// method of an Analyzer value, which an engine owns and hands to index,
// search and its embedders; the package holds only read-only data (the
// glossary, the segmentation dictionary, stop words) and memo caches of
// pure functions (stems), so tests of any package may run in parallel.
package analyze

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// IsHan reports whether r is a CJK ideograph.
func IsHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// SplitIdentifier splits an identifier into its sub-words, lower-cased and
// not stemmed: "parseHTTPRequest_line2" -> [parse http request line 2].
// Runs of letters (Han excepted) and digits are split by SubWords; every
// other character separates.
func SplitIdentifier(id string) []string {
	if IsASCII(id) {
		return splitASCII(id)
	}
	return splitRunes(id)
}

// splitRunes is SplitIdentifier on the runes of id, for any script.
func splitRunes(id string) []string {
	var out []string
	rs := []rune(id)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			run := rs[start:end]
			SubWords(run, func(i, j int) {
				out = append(out, strings.ToLower(string(run[i:j])))
			})
		}
		start = -1
	}
	for i, r := range rs {
		isL, isD := unicode.IsLetter(r) && r < utf8.RuneSelf || unicode.IsLetter(r) && !IsHan(r), unicode.IsDigit(r)
		if !isL && !isD {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	return out
}

// splitASCII is SplitIdentifier of an ASCII identifier, on its bytes: the
// sub-words are substrings of id, copied only to lower-case them
// (strings.ToLower returns an ASCII word without upper case as it is)
// (TestSplitASCIIEqualsRunes: the same words as splitRunes). Identifier analysis is a tenth of an index
// run's CPU, and converting each identifier to runes and each sub-word
// back was a third of it.
func splitASCII(id string) []string {
	var out []string
	i := 0
	for i < len(id) {
		if !isAlnum(id[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(id) && isAlnum(id[j]) {
			j++
		}
		// the run id[i:j], cut as SubWords cuts
		start := i
		for k := i + 1; k < j; k++ {
			c, prev := id[k], id[k-1]
			if isDigit(c) != isDigit(prev) ||
				isUpper(c) && isLower(prev) ||
				isUpper(c) && isUpper(prev) && k+1 < j && isLower(id[k+1]) {
				out = append(out, strings.ToLower(id[start:k]))
				start = k
			}
		}
		out = append(out, strings.ToLower(id[start:j]))
		i = j
	}
	return out
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// IsASCII reports whether s is all ASCII bytes.
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// SubWords calls yield(i, j) for each sub-word rs[i:j] of a run of word
// characters with no separator in it, in order: the run is cut between a
// digit and a non-digit, before an upper-case letter that follows a
// lower-case one ("parseHttp" -> parse, Http) and before the last capital
// of an acronym followed by a lower-case letter ("HTTPRequest" -> HTTP,
// Request). The index, the query analysis and the local embedder all split
// identifiers with it.
func SubWords(rs []rune, yield func(i, j int)) {
	if len(rs) == 0 {
		return
	}
	start := 0
	for i := 1; i < len(rs); i++ {
		r, prev := rs[i], rs[i-1]
		if unicode.IsDigit(r) != unicode.IsDigit(prev) ||
			unicode.IsUpper(r) && unicode.IsLower(prev) ||
			unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
			yield(start, i)
			start = i
		}
	}
	yield(start, len(rs))
}

// stemCache memoises SnowballStem: a code base has a small vocabulary of
// sub-words repeated many times, and the stemmer dominates analysis time
// otherwise. It is the process's one stem cache (the hashing embedder's
// features read it too), bounded by stemCacheMax entries (about 10 MB of
// strings at most).
var stemCache = NewMemo[string](stemCacheMax)

const stemCacheMax = 200_000

// SnowballStem returns the Snowball (Porter2) English stem of a lower-case
// word exactly as the stemmer gives it, memoised. Safe for concurrent use.
// Stem is the keyword index's form of it.
func SnowballStem(w string) string {
	if st, ok := stemCache.Get(w); ok {
		return st
	}
	// a copy: w can be a sub-word of a whole file's text (splitASCII),
	// which the cache must not keep alive through a stem that is w itself
	st := strings.Clone(english.Stem(w, false))
	stemCache.Put(w, st)
	return st
}

// Stem returns the Snowball English stem of a lower-case word, undoubled
// (undouble); words of fewer than 3 letters and words with digits are
// returned unchanged. Safe for concurrent use.
func Stem(w string) string {
	if len(w) < 3 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] >= '0' && w[i] <= '9' {
			return w
		}
	}
	return undouble(SnowballStem(w))
}

// undouble drops the last letter of a stem that ends in one of Porter2's
// doubles (bb dd ff gg mm nn pp rr tt). Porter2 undoubles only after it
// removes a suffix, so "sniffing" -> snif but "sniff" -> sniff and "added"
// -> ad but "add" -> add; undoubling every stem makes the bare word and its
// inflections meet.
func undouble(st string) string {
	n := len(st)
	if n < 3 || st[n-1] != st[n-2] {
		return st
	}
	switch st[n-1] {
	case 'b', 'd', 'f', 'g', 'm', 'n', 'p', 'r', 't':
		return st[:n-1]
	}
	return st
}

// Terms appends the analysed terms of text to dst and returns it. Terms
// repeat as often as they occur (term frequency matters to BM25).
func Terms(dst []string, text string) []string { return terms(dst, text, true) }

// SubTerms is Terms without the joined form of a split identifier
// ("removeHopByHopHeaders" gives remov, hop, by, hop, header, not also
// removehopbyhopheaders first): the terms in the order they are read, for
// a reader of their positions (the proximity stage of the ranker).
func SubTerms(dst []string, text string) []string { return terms(dst, text, false) }

// terms is Terms, with the joined form of split identifiers when wholes.
func terms(dst []string, text string, wholes bool) []string {
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case IsHan(r):
			j := i
			var run []rune
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !IsHan(r2) {
					break
				}
				run = append(run, r2)
				j += s2
			}
			dst = appendCJK(dst, run)
			i = j
		case isWordRune(r):
			// a word: ASCII letters, digits, '_' and '$', and the
			// letters and digits of other scripts but Han ("naïve",
			// "größe", "déjà_vu" stay whole, to be split as identifiers)
			j := i + size
			for j < len(text) {
				if c := text[j]; c < utf8.RuneSelf { // ASCII: no decoding
					if !IsWordByte(c) {
						break
					}
					j++
					continue
				}
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !isWordRune(r2) {
					break
				}
				j += s2
			}
			dst = appendIdentifier(dst, text[i:j], wholes)
			i = j
		default:
			i += size
		}
	}
	return dst
}

// isWordRune reports whether r belongs to a word of Terms: an ASCII
// letter or digit, '_' or '$', or a letter or digit of a script other
// than Han (whose runs are segmented instead).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return IsWordByte(byte(r))
	}
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) && !IsHan(r)
}

// IsWordByte reports whether an ASCII byte is part of a word for Terms: a
// letter, a digit, '_' or '$'. Terms reads words one by one, so text cut
// after a byte that is not one analyses as its two parts do.
func IsWordByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '$'
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

func appendIdentifier(dst []string, id string, whole bool) []string {
	parts := SplitIdentifier(id)
	if len(parts) == 0 {
		return dst
	}
	if whole && len(parts) > 1 {
		whole := strings.Join(parts, "")
		if len(whole) <= 64 {
			dst = append(dst, whole)
		}
	}
	for _, p := range parts {
		if len(p) > 64 {
			continue
		}
		dst = append(dst, Stem(p))
	}
	return dst
}

func appendCJK(dst []string, run []rune) []string {
	if len(run) == 1 {
		return append(dst, string(run))
	}
	for k := 0; k+1 < len(run); k++ {
		dst = append(dst, string(run[k:k+2]))
	}
	return dst
}

// Join returns the terms of text as one space-separated string, the form
// stored in the full-text index.
func Join(text string) string {
	return strings.Join(Terms(nil, text), " ")
}

// PathText turns a file path into identifier-like text for analysis:
// "net/http/server.go" -> "net http server go".
func PathText(p string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '.' || r == '-' || r == '\\' {
			return ' '
		}
		return r
	}, p)
}
