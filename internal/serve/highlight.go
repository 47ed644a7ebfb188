package serve

import (
	"bytes"
	"fmt"
	"html/template"
	"path"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// codeStyle is the chroma style of highlighted code.
const codeStyle = "github"

// chromaCSS returns the stylesheet of the classes highlight emits.
func chromaCSS() ([]byte, error) {
	var b bytes.Buffer
	if err := html.New(html.WithClasses(true)).WriteCSS(&b, styles.Get(codeStyle)); err != nil {
		return nil, fmt.Errorf("serve: highlight stylesheet: %w", err)
	}
	return b.Bytes(), nil
}

// lexer picks a lexer by file name, then by coderag's language name, else
// plain text.
func lexer(file, language string) chroma.Lexer {
	l := lexers.Match(path.Base(file))
	if l == nil && language != "" {
		l = lexers.Get(language)
	}
	if l == nil {
		l = lexers.Fallback
	}
	return chroma.Coalesce(l)
}

// highlight renders code (lines numbered from first) as HTML with classes;
// lines hl[0]..hl[1] are marked when hl[0] > 0, and with anchors each line
// number gets the id "L<n>" and links to it.
func highlight(code, file, language string, first int, hl [2]int, anchors bool) template.HTML {
	it, err := lexer(file, language).Tokenise(nil, code)
	if err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(code) + "</pre>") // #nosec: escaped
	}
	opts := []html.Option{html.WithClasses(true), html.WithLineNumbers(true), html.BaseLineNumber(first), html.TabWidth(4)}
	if anchors {
		opts = append(opts, html.WithLinkableLineNumbers(true, "L"))
	}
	if hl[0] > 0 {
		opts = append(opts, html.HighlightLines([][2]int{hl}))
	}
	var b strings.Builder
	if err := html.New(opts...).Format(&b, styles.Get(codeStyle), it); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(code) + "</pre>")
	}
	return template.HTML(b.String()) // chroma escapes every token
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
