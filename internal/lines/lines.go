// Package lines holds the one offset->line routine shared by the chunker, the
// exact tools and the formatters, so every surface agrees on line numbers.
//
// Rules: lines are 1-based; a line ends at '\n' ("a\r\nb" has lines "a" and
// "b"); a trailing '\n' does not start a new line, so "a\nb\nc\n" and
// "a\nb\nc" both have 3 lines; an empty input has 0 lines. A UTF-8 BOM at the
// start is part of line 1 and is removed by Clean.
package lines

import (
	"bytes"
	"sort"
	"strings"
)

// BOM is the UTF-8 byte order mark.
const BOM = "\ufeff"

// Index maps byte offsets of one text to 1-based line numbers.
type Index struct {
	starts []int // byte offset at which each line starts; starts[0] == 0
	size   int
}

// NewIndex builds the line index of src in O(len(src)).
func NewIndex(src []byte) *Index {
	starts := make([]int, 1, 1+bytes.Count(src, []byte{'\n'}))
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	return &Index{starts: starts, size: len(src)}
}

// Count returns the number of lines (0 for empty input).
func (x *Index) Count() int {
	if x.size == 0 {
		return 0
	}
	return len(x.starts)
}

// Line returns the 1-based line holding byte offset off (clamped to the text).
func (x *Index) Line(off int) int {
	if off < 0 {
		off = 0
	}
	return sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off })
}

// Start returns the byte offset at which 1-based line n starts (clamped).
func (x *Index) Start(n int) int {
	if n < 1 {
		return 0
	}
	if n > len(x.starts) {
		return x.size
	}
	return x.starts[n-1]
}

// End returns the byte offset just past line n, excluding its '\n' (and a
// '\r' before it is left to Clean).
func (x *Index) End(n int, src []byte) int {
	if n >= len(x.starts) {
		e := x.size
		if e > 0 && src[e-1] == '\n' {
			e--
		}
		return e
	}
	return x.starts[n] - 1
}

// Clean returns text with a leading BOM removed and every "\r\n" (and a lone
// trailing '\r') turned into '\n' without changing the line count.
func Clean(s string) string {
	s = strings.TrimPrefix(s, BOM)
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.TrimSuffix(s, "\r")
}

// Split returns the lines of s, without terminators, following the package
// rules (BOM removed, CRLF folded, no empty last line for a trailing '\n').
func Split(s string) []string {
	s = Clean(s)
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}
