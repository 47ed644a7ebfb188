package analyze

// The bilingual glossary lets Chinese questions reach English code: it maps
// Chinese programming words (登录, 超时, 上下文, 压缩, ...) to the English
// words that code uses for them (login signin auth, timeout deadline,
// context ctx, compress ...), and a few English abbreviations to their
// spellings (ctx context, conn connection, ...).
//
// Data: data/glossary.tsv, embedded. Format: one entry a line,
// KEY<TAB>TERM TERM ...; lines starting with '#' are comments; blank lines
// are ignored. Han keys are Chinese entries; lower-case ASCII keys are the
// English synonym section. Terms are lower-case ASCII words. The file's
// header documents its sources; entries were curated by hand from Chinese
// programming vocabulary and the identifiers of the Go, Java and Python
// standard libraries. The Chinese keys are also part of the segmentation
// dictionary (see internal/gendict), so Analyzer.Cut keeps them whole.

import (
	_ "embed"
	"strings"
	"sync"
)

//go:embed data/glossary.tsv
var glossaryData string

// GlossaryExpand maps a term (a Chinese word or an English sub-word) to
// extra English terms from the bilingual glossary: an exact,
// case-sensitive lookup of the key (English keys are lower case); nil when
// the term is not in the glossary. The returned slice is shared: callers
// must not modify its elements.
func GlossaryExpand(term string) []string { return glossaryLookup(term) }

var (
	glossOnce sync.Once
	glossMap  map[string][]string // all keys
	glossZh   int                 // number of Chinese keys
)

func loadGlossary() {
	glossOnce.Do(func() {
		glossMap = make(map[string][]string, 1024)
		for _, line := range strings.Split(glossaryData, "\n") {
			if line == "" || line[0] == '#' {
				continue
			}
			key, rest, ok := strings.Cut(line, "\t")
			key = strings.TrimSpace(key)
			if !ok || key == "" {
				continue
			}
			terms := strings.Fields(rest)
			if len(terms) == 0 {
				continue
			}
			if _, dup := glossMap[key]; dup {
				continue // first entry wins; the tests forbid duplicates
			}
			glossMap[key] = terms[:len(terms):len(terms)]
			if HasHan(key) {
				glossZh++
			}
		}
	})
}

func glossaryLookup(term string) []string {
	loadGlossary()
	return glossMap[term]
}

// GlossarySize returns the number of Chinese entries of the glossary (the
// English synonym section is not counted).
func GlossarySize() int {
	loadGlossary()
	return glossZh
}

// ExpandQuery returns the English terms for the Chinese words of query, in
// order of appearance, without duplicates: each Han run is segmented by
// Cut and each word translated by the glossary, else the bilingual
// dictionary, else its parts (see Chinese and package zh); dictionary terms
// weaker than zh.MinQueryWeight are left out. It returns nil when the query
// has no Chinese word that translates.
func (a *Analyzer) ExpandQuery(query string) []string {
	if !HasHan(query) {
		return nil
	}
	return a.or().zh.QueryTerms(query)
}
