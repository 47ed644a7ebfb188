package search

import (
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/go-ego/gse"

	"github.com/coderag/coderag/internal/analyze"
)

// identifierRE is the seed's identifier pattern (RagQueryTokenizer).
var identifierRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_.$-]{1,}`)

// StopWords are the seed's Chinese question words, dropped from queries.
var StopWords = map[string]bool{
	"怎么": true, "如何": true, "什么": true, "哪些": true, "一下": true, "实现": true,
	"的是": true, "一个": true, "可以": true, "这里": true, "那里": true,
}

var (
	segOnce sync.Once
	seg     gse.Segmenter
	segErr  error
)

// segmenter loads the Chinese dictionary on first use only, so queries
// without Chinese text never pay for it.
func segmenter() (*gse.Segmenter, error) {
	segOnce.Do(func() {
		seg.SkipLog = true
		segErr = seg.LoadDictEmbed("zh_s")
	})
	return &seg, segErr
}

func hasHan(s string) bool {
	for _, r := range s {
		if analyze.IsHan(r) {
			return true
		}
	}
	return false
}

// Tokenize is the seed's query tokenizer (RagQueryTokenizer): Chinese word
// segmentation (gse, a Go port of jieba) plus identifiers matched by
// [A-Za-z][A-Za-z0-9_.$-]{1,}; single characters and question words are
// dropped; order of first appearance is kept; duplicates removed.
func Tokenize(query string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		t = strings.TrimSpace(t)
		if len([]rune(t)) < 2 || StopWords[t] || seen[t] {
			return
		}
		seen[t] = true
		out = append(out, t)
	}
	// Walk the query left to right so order is the order of appearance.
	type span struct {
		at  int
		tok string
	}
	var spans []span
	for _, m := range identifierRE.FindAllStringIndex(query, -1) {
		spans = append(spans, span{m[0], query[m[0]:m[1]]})
	}
	if hasHan(query) {
		if sg, err := segmenter(); err == nil {
			pos := 0
			for _, w := range sg.Cut(query, true) {
				i := strings.Index(query[pos:], w)
				at := pos
				if i >= 0 {
					at = pos + i
					pos = at + len(w)
				}
				if hasHan(w) && isAllHan(w) {
					spans = append(spans, span{at, w})
				}
			}
		} else {
			// no dictionary: fall back to whole Han runs
			for _, m := range hanRunRE.FindAllStringIndex(query, -1) {
				spans = append(spans, span{m[0], query[m[0]:m[1]]})
			}
		}
	}
	sortSpans := func() {
		for i := 1; i < len(spans); i++ {
			for j := i; j > 0 && spans[j].at < spans[j-1].at; j-- {
				spans[j], spans[j-1] = spans[j-1], spans[j]
			}
		}
	}
	sortSpans()
	for _, s := range spans {
		add(s.tok)
	}
	return out
}

var hanRunRE = regexp.MustCompile(`\p{Han}+`)

func isAllHan(s string) bool {
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}
