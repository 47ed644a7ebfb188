package search

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed/local"
	"github.com/coderag/coderag/internal/zh"
)

func TestAnalyzeQuery(t *testing.T) {
	t.Parallel()
	opts := DefaultHybridParams().QueryOptions
	cases := []struct {
		text    string
		kind    string
		symbol  string
		idents  []Identifier
		content int
	}{
		{"gin.Context", KindSymbol, "Context", []Identifier{{"gin", "Context"}}, 1},
		// plain words of 6+ letters count as names (PlainWordNames)
		{"HashMap resize", KindCode, "", []Identifier{{"", "HashMap"}, {"", "resize"}}, 2},
		{"how are routes grouped and registered", KindDescriptive, "", []Identifier{{"", "routes"}, {"", "grouped"}, {"", "registered"}}, 3},
		{"` foo`", KindSymbol, "foo", nil, 1}, // a symbol, though two fields and no code-like word
	}
	for _, c := range cases {
		q := AnalyzeQuery(nil, c.text, opts)
		if q.Kind() != c.kind || q.Symbol != c.symbol || !reflect.DeepEqual(q.Identifiers, c.idents) || q.ContentWords != c.content {
			t.Errorf("AnalyzeQuery(nil, %q) = kind %s, symbol %q, identifiers %v, %d content words; want %s, %q, %v, %d",
				c.text, q.Kind(), q.Symbol, q.Identifiers, q.ContentWords, c.kind, c.symbol, c.idents, c.content)
		}
	}
	// Chinese: the words and translations --explain shows are those of
	// analyze.Analyzer.Words, their glossary terms are keyword terms, and a
	// one-word translation names code.
	q := AnalyzeQuery(nil, "切片怎么扩容", opts)
	if !q.HasHan || q.Kind() != KindDescriptive || !reflect.DeepEqual(q.Chinese, (*analyze.Analyzer)(nil).Words(q.Text)) {
		t.Fatalf("切片怎么扩容: %+v", q)
	}
	if !slices.Contains(q.Terms, "grow") || !slices.Contains(q.Identifiers, Identifier{"", "grow"}) {
		t.Errorf("扩容 -> grow missing: terms %v, identifiers %v", q.Terms, q.Identifiers)
	}
	if !slices.ContainsFunc(q.Chinese, func(w zh.Word) bool { return w.Text == "扩容" && w.Source == zh.FromGlossary }) {
		t.Errorf("扩容 not translated by the glossary: %v", q.Chinese)
	}
	// the options are honoured
	off := opts
	off.Glossary = false
	if q := AnalyzeQuery(nil, "切片怎么扩容", off); slices.Contains(q.Terms, "grow") || slices.Contains(q.Identifiers, Identifier{"", "grow"}) {
		t.Errorf("without the glossary: terms %v, identifiers %v", q.Terms, q.Identifiers)
	}
}

// TestQueryEmbeddingUnchanged: embedding an analysed query with its own
// translations gives the very vector EmbedQuery gives, with the
// dictionary and without.
func TestQueryEmbeddingUnchanged(t *testing.T) {
	t.Parallel()
	plain, err := local.New(local.Options{Expand: analyze.GlossaryExpand})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	check := func(an *analyze.Analyzer) {
		e, err := local.New(local.Options{Expand: analyze.GlossaryExpand, Analyzer: an})
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{"丢弃过期的连接", "WaitGroup 计数器变成负数时在哪里 panic", "sync.Pool 本地为空时从哪里拿对象", "かな漢字 混在", "parse the request line"} {
			q := AnalyzeQuery(an, text, DefaultHybridParams().QueryOptions)
			for _, emb := range []*local.Embedder{e, plain} {
				want, err := emb.EmbedQuery(ctx, text)
				if err != nil {
					t.Fatal(err)
				}
				got, err := emb.EmbedQueryTranslated(ctx, text, q.TranslateHan)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%q: the analysed query's vector differs from EmbedQuery's", text)
				}
			}
		}
	}
	check(analyze.New(nil))
	check(withRealDictionary(t))
}
