package httpx

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestReadLimitedKeepsRunesWhole: a body cut at the limit inside a
// multibyte rune loses the partial rune, not the text before it.
func TestReadLimitedKeepsRunesWhole(t *testing.T) {
	for _, c := range []struct {
		body  string
		limit int64
		want  string
	}{
		{"ab错", 3, "ab"},   // 1 of 3 bytes of 错
		{"ab错", 4, "ab"},   // 2 of 3
		{"ab错", 5, "ab错"},  // whole
		{"ab错c", 5, "ab错"}, // cut after a whole rune
		{"ab😀", 5, "ab"},   // 3 of 4 bytes of a 4-byte rune
		{"abc", 10, "abc"}, // under the limit
	} {
		got, err := ReadLimited(strings.NewReader(c.body), c.limit)
		if err != nil || string(got) != c.want {
			t.Errorf("ReadLimited(%q, %d) = %q, %v; want %q", c.body, c.limit, got, err, c.want)
		}
	}
	// a body that is not UTF-8 is not eaten
	bin := bytes.Repeat([]byte{0xff}, 8)
	if got, _ := ReadLimited(bytes.NewReader(bin), 4); len(got) != 4 {
		t.Errorf("binary body cut to %d bytes", len(got))
	}
}

func TestCutRunesAndSnippet(t *testing.T) {
	s := strings.Repeat("é", 10)
	if got := CutRunes(s, 4); got != "éééé…" {
		t.Errorf("CutRunes = %q", got)
	}
	if got := CutRunes(s, 10); got != s {
		t.Errorf("CutRunes at the length = %q", got)
	}
	if got := Snippet([]byte(s), 3); got != "ééé" {
		t.Errorf("Snippet = %q", got)
	}
	// a body cut inside a rune by the caller still gives valid text
	if got := Snippet([]byte(s)[:5], 10); !utf8.ValidString(got) || got != "éé" {
		t.Errorf("Snippet of a cut body = %q", got)
	}
}

func TestParseErrorShapes(t *testing.T) {
	for body, want := range map[string]ServerError{
		`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`: {Message: "Incorrect API key provided", Type: "invalid_request_error", Code: "invalid_api_key"},
		`{"error":{"code":"1211","message":"模型不存在"}}`:                                                                             {Message: "模型不存在", Code: "1211"},
		`{"object":"error","message":"auto tool choice requires --enable-auto-tool-choice","type":"BadRequestError","code":400}`:  {Message: "auto tool choice requires --enable-auto-tool-choice"},
		`{"error":"model \"x\" not found, try pulling it first"}`:                                                                 {Message: `model "x" not found, try pulling it first`},
		`{"detail":"Not authenticated"}`:                               {Message: "Not authenticated"},
		`{"detail":[{"loc":["body","input"],"msg":"field required"}]}`: {Message: `[{"loc":["body","input"],"msg":"field required"}]`},
		"404 page not found\n":                                         {Message: "404 page not found"},
		"<!DOCTYPE html><html><body>x</body></html>":                   {Message: htmlMessage, HTML: true},
		"  many   spaces\n\tand lines  ":                               {Message: "many spaces and lines"},
		"":                                                             {},
	} {
		if got := ParseError([]byte(body)); got != want {
			t.Errorf("ParseError(%q) = %+v, want %+v", body, got, want)
		}
	}
}
