package analyze

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestSplitIdentifier(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"OvertimeService":        {"overtime", "service"},
		"user_id":                {"user", "id"},
		"parseHTTPRequestLine":   {"parse", "http", "request", "line"},
		"MemoryManager.compress": {"memory", "manager", "compress"},
		"utf8Len2":               {"utf", "8", "len", "2"},
		"café_handler":           {"café", "handler"},
		"XMLHttpRequest":         {"xml", "http", "request"},
		"":                       nil,
	}
	for in, want := range cases {
		if got := SplitIdentifier(in); !reflect.DeepEqual(got, want) {
			t.Errorf("SplitIdentifier(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestTermsBothDirections(t *testing.T) {
	t.Parallel()
	idx := Terms(nil, "type OvertimeService struct{}; user_id := 1")
	q := Terms(nil, "overtime services user id")
	set := map[string]bool{}
	for _, s := range idx {
		set[s] = true
	}
	for _, s := range q {
		if !set[s] {
			t.Errorf("query term %q not among index terms %v", s, idx)
		}
	}
	// the whole identifier is kept too
	if !set["overtimeservice"] || !set["userid"] {
		t.Errorf("whole identifiers missing: %v", idx)
	}
}

func TestTermsChinese(t *testing.T) {
	t.Parallel()
	got := Terms(nil, "重跑gen-itgc后50条悬空引用清零")
	want := []string{"重跑", "gen", "itgc", "后", "50", "条悬", "悬空", "空引", "引用", "用清", "清零"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

func TestStem(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"parsing": "pars", "parses": "pars", "retries": "retri", "retry": "retri", "id": "id", "utf8": "utf8",
		// a bare word and its inflections meet (Porter2 alone: sniff vs snif, add vs ad)
		"sniff": "snif", "sniffing": "snif", "add": "ad", "added": "ad", "adding": "ad", "err": "er", "errs": "er",
		"setting": "set", "set": "set", "call": "call", "calling": "call", "pass": "pass"} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSubWords(t *testing.T) {
	cases := map[string][]string{
		"parseHTTPRequest": {"parse", "HTTP", "Request"},
		"HTTPServer2Go":    {"HTTP", "Server", "2", "Go"},
		"ABc":              {"A", "Bc"},
		"AB":               {"AB"},
		"v1beta2":          {"v", "1", "beta", "2"},
		"ÜberGröße":        {"Über", "Größe"},
		"x":                {"x"},
		"":                 nil,
	}
	for in, want := range cases {
		rs := []rune(in)
		var got []string
		SubWords(rs, func(i, j int) { got = append(got, string(rs[i:j])) })
		if !reflect.DeepEqual(got, want) {
			t.Errorf("SubWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// A word of Latin letters with accents is one term, whether its accented
// letter comes first, in the middle or last, and the same in a query and
// in code, so "naïve" finds naïve and not every "na"; Han runs beside it
// are still segmented on their own.
func TestTermsAccentedWordsWhole(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][]string{
		"naïve":        {"naïv"},
		"café":         {"café"},
		"Größe":        {"größe"},
		"éclair":       {"éclair"},
		"déjà_vu":      {"déjàvu", "déjà", "vu"},
		"naïveCafé":    {"naïvecafé", "naïv", "café"},
		"naïve缓存":      {"naïv"},
		"über connect": {"über", "connect"},
	} {
		got := Terms(nil, text)
		if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
			t.Errorf("Terms(%q) = %q, want it to start %q", text, got, want)
		}
		for _, g := range got {
			if g == "na" || g == "caf" || g == "gr" || g == "ïve" {
				t.Errorf("Terms(%q) holds the split piece %q: %q", text, g, got)
			}
		}
	}
}

// BenchmarkTerms analyses a chunk-sized mix of Go code, comments and a
// few accented and Chinese words, as the index does for every chunk.
func BenchmarkTerms(b *testing.B) {
	text := strings.Repeat("// readRequest parses a request line; naïve callers retry 重试 on EOF.\nfunc (c *conn) readRequest(ctx context.Context) (w *response, err error) {\n\tif c.hijacked() { return nil, ErrHijacked }\n}\n", 8)
	b.SetBytes(int64(len(text)))
	var dst []string
	for b.Loop() {
		dst = Terms(dst[:0], text)
	}
}

// splitASCII cuts every ASCII identifier as splitRunes cuts it: random identifiers of letters of both cases,
// digits, '_', '$' and punctuation, and the documented examples.
func TestSplitASCIIEqualsRunes(t *testing.T) {
	ids := []string{"parseHTTPRequest_line2", "HTTPRequest", "parseHttp", "x", "", "__init__", "$scope", "IPv6Addr", "ABC", "aB", "Ab", "a1b2C3", "getURLs", "UTF8String"}
	const alphabet = "aBcDxYZ019_$.-: "
	rng := uint64(29)
	for range 20000 {
		rng = rng*6364136223846793005 + 1442695040888963407
		b := make([]byte, (rng>>33)%24)
		for i := range b {
			rng = rng*6364136223846793005 + 1442695040888963407
			b[i] = alphabet[(rng>>33)%uint64(len(alphabet))]
		}
		ids = append(ids, string(b))
	}
	for _, id := range ids {
		if got, want := SplitIdentifier(id), splitRunes(id); !slices.Equal(got, want) {
			t.Fatalf("SplitIdentifier(%q) = %q, the rune path gives %q", id, got, want)
		}
	}
}

// SubTerms reads a split identifier's parts in order without its joined
// form, which Terms puts first.
func TestSubTermsWithoutWholes(t *testing.T) {
	t.Parallel()
	text := "removeHopByHopHeaders(h) user_id"
	if got, want := SubTerms(nil, text), []string{"remov", "hop", "by", "hop", "header", "h", "user", "id"}; !slices.Equal(got, want) {
		t.Errorf("SubTerms(%q) = %v, want %v", text, got, want)
	}
	if got := Terms(nil, text); got[0] != "removehopbyhopheaders" || !slices.Contains(got, "userid") {
		t.Errorf("Terms(%q) = %v, want the joined forms too", text, got)
	}
}
