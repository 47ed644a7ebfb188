package search

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzAnalyzeQuery: the query analysis never panics; its terms and seed
// keywords are non-empty, valid UTF-8 and distinct; it is deterministic
// (a second analysis of the same text is equal); its symbol, analysed
// again, is a symbol query naming itself; a code or symbol query has no
// Chinese. The seed corpus is in testdata/fuzz/FuzzAnalyzeQuery.
func FuzzAnalyzeQuery(f *testing.F) {
	for _, q := range []string{
		"how are routes grouped and registered", "gin.Context", "HashMap resize", "errors.Is", "`ShouldBindQuery`",
		"Foo::bar", "Router#match", "路由是怎么匹配的", "WaitGroup 计数器变成负数时在哪里 panic", "扩容", "$ZodType",
		"parseHTTPRequestLine user_id", "a,b?c\u3000d", "\xff\xfe", "的的的", "x", strings.Repeat("重试", 100),
	} {
		f.Add(q)
	}
	opts := DefaultHybridParams().QueryOptions
	opts.ExpandEnglish = true // cover the English expansion too
	f.Fuzz(func(t *testing.T, text string) {
		text = strings.TrimSpace(text)
		q := AnalyzeQuery(nil, text, opts)
		for name, ws := range map[string][]string{"terms": q.Terms, "keywords": q.Keywords} {
			seen := map[string]bool{}
			for _, w := range ws {
				if w == "" || !utf8.ValidString(w) || seen[w] {
					t.Fatalf("%q: %s %q: empty, invalid UTF-8 or repeated term %q", text, name, ws, w)
				}
				seen[w] = true
			}
		}
		if again := AnalyzeQuery(nil, text, opts); !reflect.DeepEqual(exported(q), exported(again)) {
			t.Fatalf("%q: two analyses differ:\n%+v\n%+v", text, exported(q), exported(again))
		}
		if q.Symbol != "" {
			if s := AnalyzeQuery(nil, q.Symbol, opts).Symbol; s != q.Symbol {
				t.Fatalf("%q: symbol %q analysed again is %q", text, q.Symbol, s)
			}
		}
		if (q.Code || q.Symbol != "") && q.HasHan || q.Chinese != nil && !q.HasHan || q.ContentWords < 0 {
			t.Fatalf("%q: inconsistent analysis %+v", text, exported(q))
		}
	})
}

// exported is q without its memo.
func exported(q *Query) Query {
	c := *q
	c.runs = nil
	return c
}
