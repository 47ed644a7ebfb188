package search

import (
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/chunk"
)

// codeQueryCorpus holds the shapes of the identifier questions that ranked
// the class, a stub or a wrapper's callee above the member the query named
// (fresh-func3's "TokenMatcher match", fresh-func7's "LineNumbers get",
// fresh-func8's "LocaleDataLoader _load_data", fresh-func4's "humanize
// FormatInteger").
var codeQueryCorpus = map[string]string{
	"wrap/optimal_fit.py": `class LineNumbers:
    """Line numbers of the optimal fit, computed lazily and cached."""

    def __init__(self, size):
        self.line_numbers = [0]
        self.size = size

    def get(self, i, minima):
        while len(self.line_numbers) < i + 1:
            pos = len(self.line_numbers)
            prev = minima[pos][0]
            self.line_numbers.append(self.line_numbers[prev] + 1)
        return self.line_numbers[i]

    def push(self, n):
        self.line_numbers.append(n)
`,
	"languages/loader.py": `class LocaleDataLoader:
    """Loads the locale data of the languages asked for."""

    def get_locales(self, languages=None, locales=None):
        return list(self._load_data(languages, locales))

    def _load_data(self, languages=None, locales=None):
        loaded = []
        for lang in languages or []:
            data = self._read(lang)
            if data is None:
                continue
            for locale in locales or [lang]:
                loaded.append((lang, locale, data))
        return loaded

    def _read(self, lang):
        return {"name": lang}
`,
	"tests/test_loading.py": `class TestLoading:
    def load_data(self, languages, locales):
        self.locales = LocaleDataLoader().get_locales(languages, locales)
`,
	"number.go": `package humanize

// FormatFloat produces a formatted number as string based on a format
// string giving the thousands separator, the decimal point and the
// precision.
func FormatFloat(format string, n float64) string {
	if format == "" {
		format = "#,###.##"
	}
	sep, dec, prec := parseFormat(format)
	whole := int64(n)
	frac := n - float64(whole)
	out := groupDigits(whole, sep)
	if prec > 0 {
		out += dec + fractionDigits(frac, prec)
	}
	return out
}

// FormatInteger produces a formatted number as string. See FormatFloat.
func FormatInteger(format string, n int) string {
	return FormatFloat(format, float64(n))
}
`,
	"iterutils.py": `def remap_keys(root, visit):
    """Walk a nested structure and rebuild it with each key visited."""
    out = {}
    for key, value in root.items():
        new_key = visit(key)
        if isinstance(value, dict):
            value = remap_keys(value, visit)
        out[new_key] = value
    return out
`,
	"more.py": `class peekable:
    """Wrap an iterator to allow lookahead."""

    def __init__(self, iterable):
        self._it = iter(iterable)
        self._cache = []

    def peek(self, default=None):
        """Return the item that will be next returned from next()."""
        if not self._cache:
            try:
                self._cache.append(next(self._it))
            except StopIteration:
                return default
        return self._cache[0]


class seekable:
    """Wrap an iterator to allow seeking backward and forward."""

    def __init__(self, iterable):
        self._source = iter(iterable)
        self._cache = []
        self._index = None

    def peek(self, default=None):
        """Return the next item without advancing."""
        try:
            item = next(self)
        except StopIteration:
            return default
        self._index -= 1
        return item
`,
	"english/words.go": `package english

// PluralWord builds the plural form of singular for quantity, or uses
// plural when it is given: it knows the irregular nouns and the endings
// that take -es or -ies.
func PluralWord(quantity int, singular, plural string) string {
	if quantity == 1 {
		return singular
	}
	if plural != "" {
		return plural
	}
	if p, ok := irregular[singular]; ok {
		return p
	}
	if hasSuffixAny(singular, "s", "x", "z", "ch", "sh") {
		return singular + "es"
	}
	return singular + "s"
}

// Plural formats an integer and a noun into one pluralized string.
func Plural(quantity int, singular, plural string) string {
	return fmt.Sprintf("%d %s", quantity, PluralWord(quantity, singular, plural))
}
`,
	"dictutils.py": `def remap_keys(mapping, table):
    """Rename the keys of a flat mapping by a table of old to new names."""
    out = {}
    for key, value in mapping.items():
        out[table.get(key, key)] = value
    return out
`,
}

// In a code query every word is a name: "LineNumbers get" asks for the
// method get of LineNumbers, not the class, and "LocaleDataLoader
// _load_data" for the private method with its underscore (the test's
// load_data is another name). A thin wrapper the code query names is the
// answer, not the function it hands its work to; "iterutils remap_keys"
// is the remap_keys of iterutils.py.
func TestCodeQueryNamesAMember(t *testing.T) {
	t.Parallel()
	s := fixture(t, codeQueryCorpus)
	for _, c := range []struct{ q, path, name string }{
		{"LineNumbers get", "wrap/optimal_fit.py", "LineNumbers.get"},
		{"LocaleDataLoader _load_data", "languages/loader.py", "LocaleDataLoader._load_data"},
		{"humanize FormatInteger", "number.go", "FormatInteger"},
		{"iterutils remap_keys", "iterutils.py", "remap_keys"},
		// two plain words: a member and its class or module
		{"peekable peek", "more.py", "peekable.peek"},
		{"seekable peek", "more.py", "seekable.peek"},
		{"english Plural", "english/words.go", "Plural("},
	} {
		rs := top(t, s, c.q, RankerHybrid, 5)
		if len(rs) == 0 || rs[0].Path != c.path || !strings.HasPrefix(rs[0].Name, c.name) {
			t.Errorf("%q: want %s %s first, got %v", c.q, c.path, c.name, names(rs))
		}
	}
	// a sentence is no code query: the wrapper still hands its lift on
	rs := top(t, s, "format a float number with thousands separator and precision", RankerHybrid, 5)
	if rankOf(rs, "number.go", "FormatFloat") != 1 {
		t.Errorf("descriptive question: want FormatFloat first, got %v", names(rs))
	}
}

func TestIdentifiersOfACodeQuery(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		q    string
		code bool
		want []string
	}{
		{"LineNumbers get", true, []string{"LineNumbers", "get"}},
		{"LocaleDataLoader _load_data", true, []string{"LocaleDataLoader", "_load_data"}},
		{"__init__", true, []string{"__init__"}},
		// stop words stay out; a sentence keeps only code-like and long words
		{"HashMap is resize", true, []string{"HashMap", "resize"}},
		{"how do I get the LineNumbers", false, []string{"LineNumbers"}},
	} {
		var got []string
		for _, id := range identifierQueries(c.q, true, c.code) {
			got = append(got, id.Name)
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: identifiers %v, want %v", c.q, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: identifiers %v, want %v", c.q, got, c.want)
				break
			}
		}
	}
}

// A word that names a directory qualifies a definition of no type in a
// code query only: in a sentence ("v3 compatibility error types and
// ZodError", zod) it lifted v3/'s ZodError class above the file asked for.
func TestModuleQualifiesInCodeQueriesOnly(t *testing.T) {
	t.Parallel()
	hp := DefaultHybridParams()
	r := Result{Path: "v3/ZodError.ts", Type: chunk.KindClass, sym: chunk.Symbol{Name: "ZodError"}}
	idents := []Identifier{{"", "v3"}, {"", "ZodError"}}
	if got := nameBoost(r, "", idents, false, hp); got != hp.NameExact {
		t.Errorf("sentence: boost %v, want NameExact %v", got, hp.NameExact)
	}
	if got := nameBoost(r, "", idents, true, hp); got != hp.NameExact+hp.NameQualified {
		t.Errorf("code query: boost %v, want NameExact+NameQualified %v", got, hp.NameExact+hp.NameQualified)
	}
	for p, want := range map[string]bool{"boltons/iterutils.py": true, "english/words.go": true, "a/b.go": false} {
		name := "iterutils"
		if p == "english/words.go" {
			name = "English"
		}
		if got := namesModule(p, name); got != want {
			t.Errorf("namesModule(%s, %s) = %v, want %v", p, name, got, want)
		}
	}
}

// A query of two plain words names a member and what it is a member of
// only when a definition's name is one word and its owner, or its file or
// directory, the other.
func TestPairQuery(t *testing.T) {
	t.Parallel()
	for q, want := range map[string][2]string{
		"peekable peek":   {"peekable", "peek"},
		"english Plural":  {"english", "Plural"},
		"how peek":        {}, // a stop word: a sentence
		"peek":            {},
		"peek the stream": {},
		"errors.Is wrap":  {}, // a code query's business
	} {
		if got := plainPair(q); got != want {
			t.Errorf("plainPair(%q) = %q, want %q", q, got, want)
		}
	}
	method := Result{Path: "more.py", Type: chunk.KindMethod, sym: chunk.Symbol{Name: "peek", Owner: "peekable"}}
	other := Result{Path: "more.py", Type: chunk.KindMethod, sym: chunk.Symbol{Name: "peek", Owner: "seekable"}}
	fn := Result{Path: "english/words.go", Type: chunk.KindFunction, sym: chunk.Symbol{Name: "Plural"}}
	for _, c := range []struct {
		r    Result
		pair [2]string
		want bool
	}{
		{method, [2]string{"peekable", "peek"}, true},
		{method, [2]string{"peek", "peekable"}, true},
		{other, [2]string{"peekable", "peek"}, false},
		{fn, [2]string{"english", "plural"}, true},
		{fn, [2]string{"french", "plural"}, false},
		{method, [2]string{}, false},
	} {
		if got := pairBoost(c.r, c.pair); got != c.want {
			t.Errorf("pairBoost(%s.%s, %q) = %v, want %v", c.r.sym.Owner, c.r.sym.Name, c.pair, got, c.want)
		}
	}
}

// The summary agents read names the query's words as written, and each
// Chinese word with its English, not the index's stems ("dayj", "pars").
func TestShownKeywords(t *testing.T) {
	t.Parallel()
	opts := DefaultHybridParams().QueryOptions
	for q, want := range map[string]string{
		"how does dayjs parse a date string": "dayjs, parse, date, string",
		"where is FormatInteger of humanize": "FormatInteger, humanize",
		"编码和解码":                              "编码 (encode, encoder), 解码 (decode, decoder)",
		"hostname 是在哪里解析的":                   "hostname, 解析 (parse, parser)",
	} {
		if got := strings.Join(AnalyzeQuery(nil, q, opts).ShownKeywords(), ", "); got != want {
			t.Errorf("ShownKeywords(%q) = %q, want %q", q, got, want)
		}
	}
}
