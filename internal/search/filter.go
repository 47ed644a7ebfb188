package search

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/english"
	"github.com/coderag/coderag/internal/lang"
)

// Filters inside the query, after zoekt's query syntax: a query word of
// the form name:value whose name is one of FilterNames restricts the
// results instead of being searched. ParseQuery takes them out once, at
// the top of Searcher.Search and SearchProjects, so the CLI, the JSON
// API, the page and MCP's search_code read the same filters from the
// same text.
//
//	lang:go          the chunk's language (lang.Lookup: go, js, ts, py, rb, c++ ...); several are ORed
//	file:*_test.go   the chunk's path: a glob (*, ?, [..], ** across '/'; without '/' it
//	path:src/**      matches the base name), a regex written /re/, or a plain substring
//	                 (case-insensitive); several are ANDed
//	-file:vendor/**  excludes the paths a file: value would keep
//	sym:Name         definitions only (chunks that are not text); Name is searched too
//	case:yes         the chunk's text holds a query word as written (case-sensitive)
//	repo:gin         only the projects whose root the value matches, as file: matches a
//	project:gin      path (with several projects: --all, several --project)
//
// A word whose name is not a filter is an error (ErrUnknownFilter),
// unless it is written like code or a URL: "std::vec", "http://x",
// "TODO:" (nothing after the colon) and "Foo:bar" (an upper-case name)
// stay words. A query of filters only is an error too (ErrOnlyFilters):
// the ranking needs words, and listing every chunk of a language is
// glob_files' job.

// FilterNames are the filter names ParseQuery knows, in the order error
// messages list them.
var FilterNames = []string{"lang", "file", "path", "-file", "sym", "case", "repo", "project"}

// Query errors. ErrBadQuery wraps every error of ParseQuery (a 400 in the
// API, exit status 2 in the CLI); ErrUnknownFilter and ErrOnlyFilters
// are two of them.
var (
	ErrBadQuery      = errors.New("bad query")
	ErrUnknownFilter = fmt.Errorf("%w: unknown filter", ErrBadQuery)
	ErrOnlyFilters   = fmt.Errorf("%w: only filters", ErrBadQuery)
)

// queryError is an ErrBadQuery whose message is msg alone: the sentinel
// it wraps stays out of the text people read.
type queryError struct {
	msg  string
	kind error
}

func (e *queryError) Error() string { return e.msg }
func (e *queryError) Unwrap() error { return e.kind }

func badQuery(kind error, format string, a ...any) error {
	return &queryError{msg: fmt.Sprintf(format, a...), kind: kind}
}

// Filter is the filters of one query (see ParseQuery). The zero Filter
// keeps every result.
type Filter struct {
	// Langs are the languages a result may be in (any of them); nil = any.
	Langs []string
	// Files must all match a result's path; NotFiles must none.
	Files, NotFiles []Pattern
	// Sym keeps definitions only: chunks whose type is not "text".
	Sym bool
	// Case keeps the chunks whose name or text holds at least one of
	// CaseWords exactly as written.
	Case      bool
	CaseWords []string
	// Projects are the patterns a project root must match (any of them);
	// nil = every project searched.
	Projects []Pattern
	// text is the filters as written, in order, for Response.Filter.
	text []string
	// AsWords are the words written like a filter ("prefix:name") whose
	// name is no filter nor near one: they are searched as words, and the
	// answer says so (Note).
	AsWords []string
}

// Note says which filter-like words were searched as words, "" when
// none: "`prefix:name` searched as words (no filter prefix:; filters:
// lang:, ...)".
func (f *Filter) Note() string {
	if len(f.AsWords) == 0 {
		return ""
	}
	names := make([]string, len(f.AsWords))
	for i, w := range f.AsWords {
		names[i] = "`" + w + "`"
	}
	first := f.AsWords[0][:strings.IndexByte(f.AsWords[0], ':')+1]
	return fmt.Sprintf("%s searched as words (no filter %s; filters: %s:)", strings.Join(names, ", "), first, strings.Join(FilterNames, ":, "))
}

// Pattern is one file:, -file: or repo: value compiled: Src as written,
// Re the regular expression it stands for, Base when it is matched
// against the base name (a glob without '/').
type Pattern struct {
	Src  string
	Re   *regexp.Regexp
	Base bool
}

// Match reports whether p matches the slash-separated path p2.
func (p Pattern) Match(p2 string) bool {
	if p.Base {
		return p.Re.MatchString(path.Base(p2))
	}
	return p.Re.MatchString(p2)
}

// Empty reports whether f keeps every result.
func (f *Filter) Empty() bool { return len(f.text) == 0 }

// Narrows reports whether f drops chunks of a project (anything but a
// repo: filter), so the routes must read a larger candidate pool.
func (f *Filter) Narrows() bool {
	return len(f.Langs) > 0 || len(f.Files) > 0 || len(f.NotFiles) > 0 || f.Sym || f.Case
}

// String returns the filters as written, space-separated ("" for none).
func (f *Filter) String() string { return strings.Join(f.text, " ") }

// Keep reports whether result r passes every chunk filter of f (the
// project filter is applied to the searchers, see MatchProject).
func (f *Filter) Keep(r *Result) bool {
	if len(f.Langs) > 0 {
		ok := false
		for _, l := range f.Langs {
			ok = ok || r.Language == l
		}
		if !ok {
			return false
		}
	}
	for _, p := range f.Files {
		if !p.Match(r.Path) {
			return false
		}
	}
	for _, p := range f.NotFiles {
		if p.Match(r.Path) {
			return false
		}
	}
	if f.Sym && r.Type == chunk.KindText {
		return false
	}
	if f.Case && len(f.CaseWords) > 0 {
		ok := false
		for _, w := range f.CaseWords {
			ok = ok || strings.Contains(r.content, w) || strings.Contains(r.Name, w)
		}
		if !ok {
			return false
		}
	}
	return true
}

// MatchProject reports whether the project at root passes f's repo: and
// project: filters (true without one).
func (f *Filter) MatchProject(root string) bool {
	if len(f.Projects) == 0 {
		return true
	}
	for _, p := range f.Projects {
		if p.Match(root) {
			return true
		}
	}
	return false
}

// nearestFilter returns the filter name within edit distance 2 of name
// (the nearest, first in FilterNames on a tie), or "" when none is: a
// misspelt filter ("lnag:go") is an error that names the filter meant,
// while any other "word:value" of a question ("prefix:name") is text.
func nearestFilter(name string) string {
	best, bd := "", 3
	for _, n := range FilterNames {
		if d := english.EditDistance(strings.TrimPrefix(name, "-"), strings.TrimPrefix(n, "-")); d < bd && d < len(n) {
			best, bd = n, d
		}
	}
	return best
}

// filterRE matches a word written like a filter: a lower-case name, a
// colon, the value.
var filterRE = regexp.MustCompile(`^(-?[a-z]+):(.*)$`)

// ParseQuery splits text into the words to search and the filters (see
// the comment at the top of this file). Errors wrap ErrBadQuery and are
// one line: an unknown filter name, a filter without a value, a bad
// lang:, case: or regex value, or a query of filters only.
func ParseQuery(text string) (string, Filter, error) {
	var (
		f     Filter
		words []string
	)
	filters := 0
	for _, w := range strings.Fields(text) {
		m := filterRE.FindStringSubmatch(w)
		if m == nil {
			words = append(words, w)
			continue
		}
		name, val := m[1], m[2]
		if slices.Contains(FilterNames, name) {
			if filters++; filters > maxFilters {
				return "", Filter{}, badQuery(ErrBadQuery, "more than %d filters in one query", maxFilters)
			}
			if len(val) > MaxQueryBytes {
				return "", Filter{}, badQuery(ErrBadQuery, "the value of %s is %d bytes; a filter value is at most %d", name+":", len(val), MaxQueryBytes)
			}
		}
		known := false
		for _, n := range FilterNames {
			known = known || n == name
		}
		if !known {
			near := nearestFilter(name)
			if near == "" || val == "" || strings.HasPrefix(val, "//") || strings.Contains(val, ":") {
				// "TODO:", "std::vec", "http://host", "hh:mm:ss", and
				// a word such as "prefix:name" in a question that no
				// filter is spelt like: text, not a filter; the last
				// kind is named in the answer's note, so a filter the
				// user believed in is never dropped silently
				words = append(words, w)
				if near == "" && val != "" && !strings.HasPrefix(val, "//") && !strings.Contains(val, ":") {
					f.AsWords = append(f.AsWords, w)
				}
				continue
			}
			return "", Filter{}, badQuery(ErrUnknownFilter, "unknown filter %q (did you mean %q?); known: %s", name+":", near+":", strings.Join(FilterNames, ", "))
		}
		if val == "" {
			return "", Filter{}, badQuery(ErrBadQuery, "filter %q needs a value (%s)", name+":", filterExample(name))
		}
		switch name {
		case "lang":
			ls := lang.Lookup(val)
			if ls == nil {
				return "", Filter{}, badQuery(ErrBadQuery, "unknown language %q in lang:%s; known: %s and the aliases js, ts, py, rb, c++", val, val, strings.Join(lang.Names(), ", "))
			}
			f.Langs = append(f.Langs, ls...)
		case "file", "path", "-file":
			p, err := compilePattern(val)
			if err != nil {
				return "", Filter{}, badQuery(ErrBadQuery, "bad %s%s: %v", name+":", val, err)
			}
			if name == "-file" {
				f.NotFiles = append(f.NotFiles, p)
			} else {
				f.Files = append(f.Files, p)
			}
		case "repo", "project":
			p, err := compilePattern(val)
			if err != nil {
				return "", Filter{}, badQuery(ErrBadQuery, "bad %s%s: %v", name+":", val, err)
			}
			f.Projects = append(f.Projects, p)
		case "sym":
			f.Sym = true
			words = append(words, val)
		case "case":
			switch strings.ToLower(val) {
			case "yes":
				f.Case = true
			case "no", "auto":
				f.Case = false
			default:
				return "", Filter{}, badQuery(ErrBadQuery, "case:%s: want case:yes or case:no", val)
			}
		}
		f.text = append(f.text, w)
	}
	if len(words) == 0 && !f.Empty() {
		return "", Filter{}, badQuery(ErrOnlyFilters, "the query %q has only filters; add the words to search for, e.g. %q", strings.TrimSpace(text), "retry "+f.String())
	}
	if f.Case {
		for _, w := range words {
			w = strings.Trim(w, "\"'`()[]{},;:?!")
			if len(w) >= 2 && !analyze.EnglishStop(strings.ToLower(w)) {
				f.CaseWords = append(f.CaseWords, w)
			}
		}
	}
	return strings.Join(words, " "), f, nil
}

// maxFilters is the most filters one query may hold (ParseQuery): a
// query of thousands of file: globs would compile each.
const maxFilters = 64

// keepCaseWords drops from f.CaseWords the words no longer in words (a
// query whose words were cut, Searcher.Search).
func (f *Filter) keepCaseWords(words string) {
	kept := strings.Fields(words)
	f.CaseWords = slices.DeleteFunc(f.CaseWords, func(w string) bool {
		return !slices.ContainsFunc(kept, func(k string) bool { return strings.Contains(k, w) })
	})
}

// filterExample is an example value of a filter, for error messages.
func filterExample(name string) string {
	switch name {
	case "lang":
		return "lang:go"
	case "file", "path":
		return name + ":*_test.go"
	case "-file":
		return "-file:vendor/**"
	case "sym":
		return "sym:ParseQuery"
	case "case":
		return "case:yes"
	}
	return name + ":NAME"
}

// compilePattern compiles a file: or repo: value: "/re/" is a regular
// expression searched anywhere in the path; a value with *, ? or [ is a
// glob, anchored, over the base name when it has no '/'; anything else
// is a case-insensitive substring.
func compilePattern(v string) (Pattern, error) {
	if len(v) > 2 && strings.HasPrefix(v, "/") && strings.HasSuffix(v, "/") {
		re, err := regexp.Compile(v[1 : len(v)-1])
		if err != nil {
			return Pattern{}, fmt.Errorf("regex: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		return Pattern{Src: v, Re: re}, nil
	}
	if !utf8.ValidString(v) {
		return Pattern{}, errors.New("not valid UTF-8")
	}
	if !strings.ContainsAny(v, "*?[") {
		return Pattern{Src: v, Re: regexp.MustCompile("(?i)" + regexp.QuoteMeta(v))}, nil
	}
	re, err := globRegexp(v)
	if err != nil {
		return Pattern{}, err
	}
	return Pattern{Src: v, Re: re, Base: !strings.Contains(v, "/")}, nil
}

// globRegexp translates a glob to an anchored regular expression: "**/"
// is any number of directories, "**" anything, "*" anything but '/', "?"
// one character but '/', "[...]" a class ("[!...]" negated).
func globRegexp(g string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			if i+1 < len(g) && g[i+1] == '*' {
				i++
				if i+1 < len(g) && g[i+1] == '/' {
					i++
					b.WriteString("(?:.*/)?")
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		case '[':
			j := strings.IndexByte(g[i+1:], ']')
			if j < 0 {
				return nil, fmt.Errorf("glob: unclosed [ in %q", g)
			}
			class := g[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("glob %q: %v", g, err)
	}
	return re, nil
}

// filterPoolFactor multiplies the candidates each route reads when a
// query has chunk filters (Filter.Narrows): the filters run over the
// pool before the per-file cap and the top-k cut, and a language or a
// directory that holds a fifth of the project still leaves about the
// unfiltered pool's depth.
const filterPoolFactor = 5

// filterMaxCandidates bounds how deep the hybrid ranker reads each route
// when the filters kept fewer than k candidates of a pool the routes cut
// short: it multiplies the pool by filterPoolFactor until it has k or
// reaches this many (a BM25 read of 20,000 rows of one project's table
// takes tens of milliseconds).
const filterMaxCandidates = 20000

// projectFilterText is f's repo: and project: filters as written.
func projectFilterText(f *Filter) string {
	var out []string
	for _, t := range f.text {
		if strings.HasPrefix(t, "repo:") || strings.HasPrefix(t, "project:") {
			out = append(out, t)
		}
	}
	return strings.Join(out, " ")
}
