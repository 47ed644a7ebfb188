package search

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/analyze"
)

// referenceSpans is spans as it was written before its ASCII scan and its
// memo of words (highlighter.words): every rune decoded, every identifier
// taken apart by word. TestSpansEqualReference holds spans to it.
func referenceSpans(h *highlighter, text string) []Span {
	var out []Span
	add := func(a, b int) {
		if n := len(out); n > 0 && out[n-1].End >= a {
			out[n-1].End = max(out[n-1].End, b)
			return
		}
		out = append(out, Span{a, b})
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case analyze.IsHan(r):
			j := i
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !analyze.IsHan(r2) {
					break
				}
				j += s2
			}
			h.hanRun(text[i:j], i, add)
			i = j
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$':
			j := i
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !(unicode.IsLetter(r2) || unicode.IsDigit(r2) || r2 == '_' || r2 == '$') || analyze.IsHan(r2) {
					break
				}
				j += s2
			}
			referenceWord(h, text[i:j], i, add)
			i = j
		default:
			i += size
		}
	}
	return out
}

// referenceWord is word as it was written before mayMatch: every
// sub-word lower-cased and stemmed.
func referenceWord(h *highlighter, w string, at int, add func(a, b int)) {
	type part struct{ a, b int } // byte offsets in w
	var parts []part
	rs := []rune(w)
	off := make([]int, len(rs)+1) // byte offset of each rune
	for i, r := range rs {
		off[i+1] = off[i] + utf8.RuneLen(r)
	}
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			run := rs[start:end]
			base := start
			analyze.SubWords(run, func(i, j int) { parts = append(parts, part{off[base+i], off[base+j]}) })
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	if len(parts) == 0 {
		return
	}
	if len(parts) > 1 {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(strings.ToLower(w[p.a:p.b]))
		}
		if h.terms[b.String()] {
			add(at+parts[0].a, at+parts[len(parts)-1].b)
			return
		}
	}
	for _, p := range parts {
		lw := strings.ToLower(w[p.a:p.b])
		if h.terms[lw] || h.terms[analyze.Stem(lw)] {
			add(at+p.a, at+p.b)
		}
	}
}

// TestSpansEqualReference: spans (ASCII fast path, memoised words) marks
// the same spans as referenceSpans, line by line, over net/http's Go files
// and over text mixing scripts, invalid UTF-8 and digits, for queries whose
// terms hit whole identifiers, sub-words, stems and Han pairs; and one
// highlighter reused over all of it (its memo full) marks what a new one
// marks.
func TestSpansEqualReference(t *testing.T) {
	t.Parallel()
	texts := []string{
		"func (rw *ResponseRecorder) writeHeader(b []byte) { // records headers",
		"RetryCount retry_count retry $scope __init__ x2y HTTP2Server h2_bundle",
		"// 压缩上下文: compact 上下文压缩 压 $压缩 abc压缩def",
		"naïve Ünïcödé ΣΙΓΜΑ σίγμα Straße ﬁle ǅungla 12345 ٣٤ fullwidthＡＢＣ",
		"bad \xff\xfe utf8 \xe2\x82 header\xc3 writeHeader\x80Header",
		"", "\r\n", "a", "$", "_",
		"HTTPRequest parseHttp ABC1def a1B2 X xY XYz serverHTTP2 Server2Http http2server $$retry__count$ R",
		"Ugly early Only dying skies Skis lying tying idly gently singly news inning Innings generously",
	}
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	if len(files) == 0 {
		t.Fatal("no net/http sources under GOROOT")
	}
	for _, f := range files[:min(len(files), 40)] {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, strings.Split(string(b), "\n")...)
	}
	for _, query := range []string{"record the response headers", "where is writeHeader called",
		"retry_count http2 server", "parse http request abc def", "上下文压缩", "read the request body and close the connection", "naive sigma file", "ugly early only dying skies idly gently singly"} {
		q := AnalyzeQuery(nil, query, DefaultHybridParams().QueryOptions)
		shared := newHighlighter(q)
		if shared == nil {
			t.Fatalf("%q: no highlighter", query)
		}
		hits := 0
		for _, text := range texts {
			want := referenceSpans(newHighlighter(q), text)
			if got := shared.spans(text); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q over %q:\n got %v\nwant %v", query, text, got, want)
			}
			if got := newHighlighter(q).spans(text); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q over %q (new highlighter):\n got %v\nwant %v", query, text, got, want)
			}
			hits += len(want)
		}
		if hits == 0 {
			t.Errorf("%q marks nothing: the comparison proves little", query)
		}
	}
}

// TestPreviewEqualsJoin: Preview, which collapses only the fields its cut
// needs, returns what collapsing all of content and cutting it returns,
// around the cut (n-1, n, n+1 runes), with multi-byte runes, Unicode
// spaces and invalid UTF-8 at the cut.
func TestPreviewEqualsJoin(t *testing.T) {
	t.Parallel()
	full := func(content string, n int) string {
		s := strings.Join(strings.Fields(content), " ")
		rs := []rune(s)
		if len(rs) <= n {
			return s
		}
		return string(rs[:n-3]) + "..."
	}
	words := []string{"a", "bb", "ccc", "\tfunc", "\n\n", "  ", "ü", "日本語", "\u00a0", "\u2003x", "\xff", "\xe2\x82", "y\xc3", "writeHeader(b)"}
	for n := 3; n <= 14; n++ {
		for i := range 2000 {
			var b strings.Builder
			for k := i; k > 0; k /= len(words) {
				b.WriteString(words[k%len(words)])
				if k%3 == 0 {
					b.WriteByte(' ')
				}
			}
			c := b.String()
			if got, want := Preview(c, n), full(c, n); got != want {
				t.Fatalf("Preview(%q, %d) = %q, want %q", c, n, got, want)
			}
		}
	}
}

// TestStemKeepsFirstLetter: the stem of a lower-case ASCII word starts
// with the word's first letter, which mayMatch counts on: over Snowball
// English's special words and every sub-word of net/http's sources.
func TestStemKeepsFirstLetter(t *testing.T) {
	t.Parallel()
	words := strings.Fields("skis skies dying lying tying idly gently ugly early only singly sky news howe atlas cosmos bias andes inning innings outing outings canning cannings herring herrings earring earrings proceed exceed succeed yelling youth ying yyy generous communism arsenal sses ies ied eed ing ed")
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range strings.FieldsFunc(string(b), func(r rune) bool { return !isWordRune(r) }) {
			rs := []rune(w)
			analyze.SubWords(rs, func(i, j int) { words = append(words, strings.ToLower(string(rs[i:j]))) })
		}
	}
	n := 0
	for _, w := range words {
		ascii := true
		for i := 0; i < len(w); i++ {
			ascii = ascii && w[i] < utf8.RuneSelf
		}
		if !ascii || w == "" {
			continue
		}
		n++
		if st := analyze.Stem(w); st == "" || st[0] != w[0] {
			t.Fatalf("Stem(%q) = %q: the first letter changed", w, st)
		}
	}
	if n < 10000 {
		t.Fatalf("only %d words checked", n)
	}
}
