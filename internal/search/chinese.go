package search

// The Chinese analysis shared by the keyword route (QueryTerms,
// ExpandQuery), the local embedder (TranslateHan, for queries and
// documents alike) and --explain: segmentation by CutChinese, translation
// by the hand glossary and, when installed, CC-CEDICT (package zh).

import (
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/zh"
)

// dictState is one configuration of the dictionary: how to load it and,
// once loaded, the result.
type dictState struct {
	load func() (*zh.Dict, error)
	once sync.Once
	d    *zh.Dict
	err  error
}

var dictCur atomic.Pointer[dictState]

// UseDictionary sets how the bilingual dictionary is loaded: load runs once,
// on the first Chinese text analysed, and may return (nil, nil) for "no
// dictionary" or an error saying why there is none (shown by
// ChineseStatus); either way analysis continues with the glossary only.
// nil, the default, means no dictionary. Safe to call concurrently with
// searches, which see the old or the new setting.
func UseDictionary(load func() (*zh.Dict, error)) {
	dictCur.Store(&dictState{load: load})
}

// dictionary returns the dictionary (loading it once), the load error, and
// whether a loader is configured.
func dictionary() (*zh.Dict, error, bool) {
	st := dictCur.Load()
	if st == nil || st.load == nil {
		return nil, nil, false
	}
	st.once.Do(func() { st.d, st.err = st.load() })
	return st.d, st.err, true
}

// Dictionary returns the bilingual dictionary, loading it on first call;
// nil when there is none.
func Dictionary() *zh.Dict {
	d, _, _ := dictionary()
	return d
}

// ChineseStatus says in one line what translates Chinese words: the
// dictionary and the glossary, or the glossary only and why.
func ChineseStatus() string {
	d, err, configured := dictionary()
	why := ""
	switch {
	case d != nil:
	case err != nil:
		why = err.Error()
	case !configured:
		why = "no dictionary configured"
	default:
		why = "dictionary disabled"
	}
	return Chinese.Status(why) + " (" + strconv.Itoa(GlossarySize()) + " glossary entries)"
}

var (
	vocabOnce sync.Once
	vocab     map[string]bool
)

// codeVocabulary reports whether w is one of the glossary's English terms.
func codeVocabulary(w string) bool {
	vocabOnce.Do(func() {
		loadGlossary()
		vocab = map[string]bool{}
		for _, ts := range glossMap {
			for _, t := range ts {
				vocab[t] = true
			}
		}
	})
	return vocab[w]
}

// skipWord reports the Chinese words that are not translated: question and
// function words.
func skipWord(w string) bool {
	if StopWords[w] || zhQuestionWords[w] {
		return true
	}
	rs := []rune(w)
	return len(rs) == 1 && (particles[rs[0]] || endParticles[rs[0]])
}

// Chinese is the analyzer of Chinese text used everywhere in coderag.
var Chinese = &zh.Analyzer{
	Cut:      CutChinese,
	Skip:     skipWord,
	Glossary: func(w string) []string { return glossaryLookup(w) },
	Known:    codeVocabulary,
	Dict:     Dictionary,
}

// ChineseWords returns the translated Chinese words of a query (see
// zh.Analyzer.Words), for --explain.
func ChineseWords(query string) []zh.Word { return Chinese.Words(query) }

// TranslateHan maps a run of Han characters to weighted English terms for
// the local embedder (embed.Options.Translate): the same words and terms
// as the keyword route, with their weights, weak ones included.
func TranslateHan(run string) []embed.Expansion {
	var out []embed.Expansion
	for _, w := range Chinese.Words(run) {
		for _, t := range w.Terms {
			out = append(out, embed.Expansion{Term: t.Text, Weight: t.Weight})
		}
	}
	return out
}
