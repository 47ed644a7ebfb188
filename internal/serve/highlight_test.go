package serve

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/search"
)

var (
	tagRE    = regexp.MustCompile(`<[^>]*>`)
	lineNoRE = regexp.MustCompile(`<span class="ln"[^>]*>(<a [^>]*>)?[0-9]+(</a>)?</span>`)
)

// TestHighlightMarkup: the text of the HTML (line numbers and tags removed,
// entities decoded) is the code itself, nothing in the code becomes markup, every class comes
// from the fixed set, and lines carry numbers, anchors and the hl mark.
func TestHighlightMarkup(t *testing.T) {
	t.Parallel()
	code := "package a\n\n// <script>alert(1)</script> & co\nfunc F() string {\n\treturn \"</span><b x='1'>\" + `\"&amp;`\n}\n/* two\nlines */"
	for _, file := range []string{"a.go", "a.txt", "a.lua"} {
		out := string(highlight(code, file, "", 7, [2]int{9, 10}, true, nil))
		if strings.Contains(out, "<script") || strings.Contains(out, "<b ") {
			t.Fatalf("%s: code became markup:\n%s", file, out)
		}
		if got := html.UnescapeString(tagRE.ReplaceAllString(lineNoRE.ReplaceAllString(out, ""), "")); got != code {
			t.Errorf("%s: text of the HTML differs from the code:\n%q\n%q", file, got, code)
		}
		for _, m := range regexp.MustCompile(`class="([^"]*)"`).FindAllStringSubmatch(out, -1) {
			switch m[1] {
			case "chroma lnw2", "line", "line hl", "ln", "lnlinks", "cl", "tc", "ts", "tn", "tk", "tt", "tf":
			default:
				t.Errorf("%s: class %q outside the fixed set", file, m[1])
			}
		}
		if n := strings.Count(out, `<span class="line`); n != 8 {
			t.Errorf("%s: %d lines, want 8", file, n)
		}
		if !strings.Contains(out, `<span class="line hl"><span class="ln" id="L9"><a class="lnlinks" href="#L9">9</a>`) ||
			strings.Count(out, "line hl") != 2 {
			t.Errorf("%s: lines 9-10 not marked:\n%s", file, out)
		}
	}
	out := string(highlight(code, "a.go", "", 1, [2]int{}, false, nil))
	for _, want := range []string{`<span class="tk">func</span>`, `<span class="tf">F</span>`, `<span class="tt">string</span>`,
		`<span class="tc">// &lt;script&gt;alert(1)&lt;/script&gt; &amp; co</span>`, `<span class="tc">/* two</span>`, `<span class="tc">lines */</span>`} {
		if !strings.Contains(out, want) {
			t.Errorf("Go highlight lacks %s:\n%s", want, out)
		}
	}
}

// TestHighlightMarks: the query's matched terms become <mark> fragments
// inside the token spans, escaped like the rest; the text is unchanged,
// and a mark past its line's end is dropped rather than spill over.
func TestHighlightMarks(t *testing.T) {
	t.Parallel()
	code := "// login <timeout> here\nfunc LoginTimeout() {}\n"
	marks := []search.LineSpan{{Line: 5, Start: 3, End: 8}, {Line: 5, Start: 9, End: 18}, {Line: 6, Start: 5, End: 17}, {Line: 6, Start: 20, End: 40}}
	out := string(highlight(code, "a.go", "", 5, [2]int{}, false, marks))
	for _, want := range []string{`<span class="tc">// <mark>login</mark> <mark>&lt;timeout&gt;</mark> here</span>`,
		`<span class="tf"><mark>LoginTimeout</mark></span>`} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %s:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "<mark>"); n != 3 {
		t.Errorf("%d marks, want 3:\n%s", n, out)
	}
	if got := html.UnescapeString(tagRE.ReplaceAllString(lineNoRE.ReplaceAllString(out, ""), "")); got != code {
		t.Errorf("text differs:\n%q\n%q", got, code)
	}
}
