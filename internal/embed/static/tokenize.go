package static

import (
	"iter"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/analyze"
)

// MaxHanWord is the longest Chinese word, in characters, the tokenizer
// matches; longer vocabulary entries are never produced.
const MaxHanWord = 4

// Tokenizer turns text into the model's tokens. The training miner
// (train/cmd/mine) and the Embedder use this one type, so a model is trained
// on exactly the tokens it sees at run time.
//
// Text other than Chinese goes through analyze.Terms, the keyword index's own
// analysis: identifiers are split at camelCase humps, '_', '.', digits
// (analyze.SubWords), lower-cased and stemmed ("parseHTTPRequest" -> parse,
// http, request), and an identifier of several sub-words also yields the
// whole name ("parsehttprequest"). A run of Han characters is segmented by
// forward maximum matching over the model's own Chinese vocabulary (the
// longest word of at most MaxHanWord characters that starts at the current
// character, else the single character), so segmentation never depends on
// which dictionary is installed at run time. A Tokenizer is read-only after
// NewTokenizer and safe for concurrent use.
type Tokenizer struct {
	each    iter.Seq[string] // the vocabulary; the set is built from it on first use
	hanOnce sync.Once
	han     map[string]struct{}
}

// NewTokenizer returns a Tokenizer whose Chinese vocabulary is the words of
// chinese that are 2..MaxHanWord Han characters long (others are ignored:
// single characters are always tokens of their own). It keeps chinese,
// which must not change afterwards.
func NewTokenizer(chinese []string) *Tokenizer {
	return &Tokenizer{each: slices.Values(chinese)}
}

// hanWords returns the Chinese vocabulary as a set, built on the first
// run of Han characters (most processes embed none, and a one-shot search
// would otherwise build it for nothing).
func (t *Tokenizer) hanWords() map[string]struct{} {
	t.hanOnce.Do(func() {
		t.han = map[string]struct{}{}
		if t.each == nil {
			return
		}
		for w := range t.each {
			n := utf8.RuneCountInString(w)
			if n < 2 || n > MaxHanWord || !allHan(w) {
				continue
			}
			t.han[w] = struct{}{}
		}
	})
	return t.han
}

// Tokens appends the tokens of text to dst, in text order with repeats, and
// returns it.
func (t *Tokenizer) Tokens(dst []string, text string) []string {
	start := 0 // start of the pending non-Han segment
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !analyze.IsHan(r) {
			i += size
			continue
		}
		if start < i {
			dst = analyze.Terms(dst, text[start:i])
		}
		j := hanRunEnd(text, i)
		dst = t.segment(dst, text[i:j])
		i, start = j, j
	}
	if start < len(text) {
		dst = analyze.Terms(dst, text[start:])
	}
	return dst
}

// hanRunEnd returns the byte offset just past the run of Han characters
// of text that starts at i.
func hanRunEnd(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !analyze.IsHan(r) {
			break
		}
		i += size
	}
	return i
}

// segment appends the forward-maximum-matching words of a run of Han
// characters.
func (t *Tokenizer) segment(dst []string, run string) []string {
	han := t.hanWords()
	for len(run) > 0 {
		// byte offsets of the next MaxHanWord character ends
		var ends [MaxHanWord]int
		n, off := 0, 0
		for n < MaxHanWord && off < len(run) {
			_, s := utf8.DecodeRuneInString(run[off:])
			off += s
			ends[n] = off
			n++
		}
		cut := ends[0]
		for k := n - 1; k >= 1; k-- {
			if _, ok := han[run[:ends[k]]]; ok {
				cut = ends[k]
				break
			}
		}
		dst = append(dst, run[:cut])
		run = run[cut:]
	}
	return dst
}

func allHan(s string) bool {
	for _, r := range s {
		if !analyze.IsHan(r) {
			return false
		}
	}
	return s != ""
}
