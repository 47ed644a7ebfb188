package chunk

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/lines"
)

// maxChunkChars is the target size of a text chunk and the cut of EmbedText.
const maxChunkChars = 2000

// TextChunks splits a file into text chunks of whole lines of about 2000
// characters (a longer single line stays whole). Markdown is first split at
// headings (outside ``` fences) and its chunks are named after the heading;
// other chunks are named "path#N" (N from 1). Leading/trailing blank lines
// of a chunk are trimmed and all-blank pieces dropped, so an empty file gives
// no chunk. language is stored on each chunk ("" becomes "text").
func TextChunks(path, language string, src []byte) []Chunk {
	if language == "" {
		language = "text"
	}
	t := newTexter(path, language, src)
	n := t.idx.Count()
	if language != "markdown" {
		t.split(1, n, "", "")
		return t.out
	}
	start, heading, fence := 1, "", false
	for l := 1; l <= n; l++ {
		s := strings.TrimSpace(t.line(l))
		if strings.HasPrefix(s, "```") || strings.HasPrefix(s, "~~~") {
			fence = !fence
		}
		if fence || !isHeading(s) {
			continue
		}
		if l > start {
			t.split(start, l-1, heading, "")
		}
		start, heading = l, strings.TrimSpace(strings.Trim(s, "# "))
	}
	t.split(start, n, heading, "")
	return t.out
}

func isHeading(s string) bool {
	i := 0
	for i < len(s) && s[i] == '#' {
		i++
	}
	return i >= 1 && i <= 6 && (len(s) == i || s[i] == ' ' || s[i] == '\t')
}

// texter builds text chunks of one file and numbers the unnamed ones.
type texter struct {
	path, language string
	src            []byte
	idx            *lines.Index
	n              int // unnamed chunks so far
	out            []Chunk
}

func newTexter(path, language string, src []byte) *texter {
	return &texter{path: path, language: language, src: src, idx: lines.NewIndex(src)}
}

// line returns line l without terminator, '\r' or BOM.
func (t *texter) line(l int) string {
	s, e := t.bounds(l, l)
	return cleanText(t.src[s:e])
}

// bounds returns the byte range [start,end) of lines a..b, excluding the BOM,
// the final '\n' and a '\r' before it.
func (t *texter) bounds(a, b int) (int, int) {
	s, e := t.idx.Start(a), t.idx.End(b, t.src)
	if s == 0 && len(t.src) >= 3 && string(t.src[:3]) == lines.BOM {
		s = 3
	}
	if e > s && t.src[e-1] == '\r' {
		e--
	}
	if e < s {
		e = s
	}
	return s, e
}

func (t *texter) blank(l int) bool { return strings.TrimSpace(t.line(l)) == "" }

// split emits lines a..b as chunks of about maxChunkChars. name "" means
// "path#N"; otherwise the first piece is name and later ones name#k.
func (t *texter) split(a, b int, name, owner string) {
	for a <= b && t.blank(a) {
		a++
	}
	for b >= a && t.blank(b) {
		b--
	}
	if a > b {
		return
	}
	part, start, size := 0, a, 0
	emit := func(s, e int) {
		for s <= e && t.blank(s) {
			s++
		}
		for e >= s && t.blank(e) {
			e--
		}
		if e < s {
			return
		}
		part++
		nm := name
		switch {
		case name == "":
			t.n++
			nm = fmt.Sprintf("%s#%d", t.path, t.n)
		case part > 1:
			nm = fmt.Sprintf("%s#%d", name, part)
		}
		t.out = append(t.out, t.chunk(KindText, nm, owner, s, e, e))
	}
	for l := a; l <= b; l++ {
		ll := len(t.line(l)) + 1
		if size > 0 && size+ll > maxChunkChars {
			emit(start, l-1)
			start, size = l, 0
		}
		size += ll
	}
	emit(start, b)
}

// chunk builds a chunk of whole lines a..end; declEnd is the declaration's
// last line (class chunks), otherwise end.
func (t *texter) chunk(kind, name, owner string, a, end, declEnd int) Chunk {
	s, e := t.bounds(a, end)
	return Chunk{
		Path: t.path, Language: t.language, Type: kind, Name: name, Owner: owner,
		StartLine: a, EndLine: end, DeclEndLine: declEnd, StartByte: s, EndByte: e,
		Content: cleanText(t.src[s:e]),
	}
}

// cleanText drops every '\r' and a leading BOM.
func cleanText(b []byte) string {
	s := strings.TrimPrefix(string(b), lines.BOM)
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r", "")
	}
	return s
}

// EmbedText is the text sent to the embedder for a chunk:
// "[type:name] content", cut to at most 2000 characters (runes), never
// splitting a UTF-8 sequence.
func EmbedText(c Chunk) string {
	s := "[" + c.Type + ":" + c.Name + "] " + c.Content
	if utf8.RuneCountInString(s) <= maxChunkChars {
		return s
	}
	n := 0
	for i := range s {
		if n == maxChunkChars {
			return s[:i]
		}
		n++
	}
	return s
}
