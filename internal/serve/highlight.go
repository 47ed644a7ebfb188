package serve

import (
	"html/template"
	"strconv"
	"strings"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/search"
)

// tokenClass maps a chunk.Highlight class to the CSS class of its span;
// classes not listed here are rendered as plain text.
var tokenClass = map[string]string{
	chunk.ClassComment:  "tc",
	chunk.ClassString:   "ts",
	chunk.ClassNumber:   "tn",
	chunk.ClassKeyword:  "tk",
	chunk.ClassType:     "tt",
	chunk.ClassFunction: "tf",
}

// codeCSS styles the markup highlight writes: light colours by default,
// dark ones when the browser prefers a dark scheme.
const codeCSS = `.chroma { tab-size: 4; -webkit-text-size-adjust: none; }
.chroma .line { display: flex; }
.chroma .ln { white-space: pre; -webkit-user-select: none; user-select: none; margin-right: 0.4em; padding: 0 0.4em; color: #7f7f7f; flex: none; text-align: right; box-sizing: content-box; }
.chroma.lnw1 .ln { width: 1ch; } .chroma.lnw2 .ln { width: 2ch; } .chroma.lnw3 .ln { width: 3ch; } .chroma.lnw4 .ln { width: 4ch; }
.chroma.lnw5 .ln { width: 5ch; } .chroma.lnw6 .ln { width: 6ch; } .chroma.lnw7 .ln { width: 7ch; }
.chroma .ln[id] { scroll-margin-top: 4em; }
.chroma .lnlinks { outline: none; text-decoration: none; color: inherit; }
.chroma .cl { white-space: pre; }
.chroma .hl { background-color: #fff1b8; }
.chroma .tc { color: #57606a; font-style: italic; }
.chroma .ts { color: #0a3069; }
.chroma .tn { color: #0550ae; }
.chroma .tk { color: #cf222e; }
.chroma .tt { color: #953800; }
.chroma .tf { color: #6639ba; }
@media (prefers-color-scheme: dark) {
  .chroma .ln { color: #8b949e; }
  .chroma .hl { background-color: #3b3220; }
  .chroma .tc { color: #8b949e; }
  .chroma .ts { color: #a5d6ff; }
  .chroma .tn { color: #79c0ff; }
  .chroma .tk { color: #ff7b72; }
  .chroma .tt { color: #ffa657; }
  .chroma .tf { color: #d2a8ff; }
}
`

// chromaCSS returns the stylesheet of the classes highlight emits (served
// as /static/chroma.css).
func chromaCSS() []byte { return []byte(codeCSS) }

// highlight renders code (lines numbered from first) as HTML: a <pre
// class="chroma"> holding one <span class="line"> per line with its number
// (class "ln") and its text (class "cl"), tokens wrapped in spans of the
// classes of tokenClass. Lines hl[0]..hl[1] get the class "hl" when hl[0] >
// 0, and with anchors each line number gets the id "L<n>" and links to it.
// The file name decides the syntax (chunk.Highlight); language, the
// index's name for it, is not needed. The query's matched terms, marks
// (by file line number and byte offsets in the line, as search.Result's
// LineMatches), are wrapped in <mark> inside the token spans, so each line
// reads as pre, match, post fragments. Every byte of code is escaped.
func highlight(code, file, language string, first int, hl [2]int, anchors bool, marks []search.LineSpan) template.HTML {
	spans := chunk.Highlight(file, []byte(code))
	var b strings.Builder
	b.Grow(len(code) * 2)
	// the line number column is as wide as the last number (class lnwN,
	// N digits): the code column stays straight past line 99
	last := first + strings.Count(code, "\n")
	b.WriteString(`<pre class="chroma lnw` + strconv.Itoa(min(len(strconv.Itoa(last)), 7)) + `"><code>`)
	si := 0 // first span that may reach the current line
	for start, n := 0, first; ; n++ {
		end := strings.IndexByte(code[start:], '\n')
		if end < 0 {
			end = len(code)
		} else {
			end += start + 1 // the newline belongs to its line
		}
		num := strconv.Itoa(n)
		b.WriteString(`<span class="line`)
		if hl[0] > 0 && n >= hl[0] && n <= hl[1] {
			b.WriteString(` hl`)
		}
		b.WriteString(`"><span class="ln"`)
		if anchors {
			b.WriteString(` id="L` + num + `"><a class="lnlinks" href="#L` + num + `">` + num + `</a>`)
		} else {
			b.WriteString(`>` + num)
		}
		b.WriteString(`</span><span class="cl">`)
		for si < len(spans) && spans[si].End <= start {
			si++
		}
		var lineMarks [][2]int // this line's marks, offsets in code
		for _, m := range marks {
			if m.Line == n && m.Start < m.End && start+m.End <= end {
				lineMarks = append(lineMarks, [2]int{start + m.Start, start + m.End})
			}
		}
		text := func(a, z int) { writeMarked(&b, code, a, z, lineMarks) }
		at := start
		for k := si; k < len(spans) && spans[k].Start < end; k++ {
			s := spans[k]
			a, z := max(s.Start, start), min(s.End, end)
			if z > a && code[z-1] == '\n' {
				z-- // keep the newline outside the token span
			}
			cls, ok := tokenClass[s.Class]
			if !ok || z <= a {
				continue
			}
			text(at, a)
			b.WriteString(`<span class="` + cls + `">`)
			text(a, z)
			b.WriteString(`</span>`)
			at = z
		}
		text(at, end)
		b.WriteString(`</span></span>`)
		start = end
		if end == len(code) {
			break
		}
	}
	b.WriteString(`</code></pre>`)
	return template.HTML(b.String()) // #nosec: every text byte is escaped, classes come from tokenClass
}

// writeMarked writes code[a:z] escaped, with the parts of it that marks
// (sorted, not overlapping [start, end) offsets in code) cover wrapped in
// <mark>.
func writeMarked(b *strings.Builder, code string, a, z int, marks [][2]int) {
	for _, m := range marks {
		ma, mz := max(m[0], a), min(m[1], z)
		if ma >= mz {
			continue
		}
		b.WriteString(template.HTMLEscapeString(code[a:ma]))
		b.WriteString(`<mark>`)
		b.WriteString(template.HTMLEscapeString(code[ma:mz]))
		b.WriteString(`</mark>`)
		a = mz
	}
	b.WriteString(template.HTMLEscapeString(code[a:z]))
}

// snippetLines is how many lines of a chunk a search result shows.
const snippetLines = 12

// snippet is the first snippetLines lines of a chunk's content, and
// whether it was cut.
func snippet(content string) (string, bool) {
	lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
	if len(lines) <= snippetLines {
		return strings.Join(lines, "\n"), false
	}
	return strings.Join(lines[:snippetLines], "\n"), true
}
