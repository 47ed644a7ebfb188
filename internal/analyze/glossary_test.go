package analyze

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/zh"
)

var glossTermRE = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

func TestGlossarySize(t *testing.T) {
	if n := GlossarySize(); n < 300 {
		t.Fatalf("GlossarySize() = %d, want >= 300", n)
	}
	t.Logf("glossary: %d Chinese entries, %d keys in all", GlossarySize(), len(glossMap))
}

// TestGlossaryFormat checks the data file itself: KEY<TAB>TERMS, Han or
// lower-case ASCII keys, lower-case ASCII word terms, no duplicates.
func TestGlossaryFormat(t *testing.T) {
	keys := map[string]int{}
	for i, line := range strings.Split(glossaryData, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, rest, ok := strings.Cut(line, "\t")
		if !ok {
			t.Errorf("line %d: no tab: %q", i+1, line)
			continue
		}
		if prev, dup := keys[key]; dup {
			t.Errorf("line %d: key %q already on line %d", i+1, key, prev)
		}
		keys[key] = i + 1
		if runs := zh.HanRuns(key); len(runs) != 1 || runs[0] != key {
			if !glossTermRE.MatchString(key) {
				t.Errorf("line %d: key %q is neither Han nor a lower-case ASCII word", i+1, key)
			}
		}
		terms := strings.Fields(rest)
		if len(terms) == 0 {
			t.Errorf("line %d: key %q has no terms", i+1, key)
		}
		seen := map[string]bool{}
		for _, term := range terms {
			if !glossTermRE.MatchString(term) {
				t.Errorf("line %d: term %q of %q is not a lower-case ASCII word", i+1, term, key)
			}
			if seen[term] {
				t.Errorf("line %d: term %q repeated in %q", i+1, term, key)
			}
			seen[term] = true
		}
	}
	if len(keys) != len(glossMapLoaded()) {
		t.Errorf("file has %d keys, loaded map %d", len(keys), len(glossMap))
	}
}

func glossMapLoaded() map[string][]string { loadGlossary(); return glossMap }

// TestGlossaryKeysSegmented checks that data/zhdict.txt was regenerated
// after the glossary changed: every Chinese key is a dictionary word.
func TestGlossaryKeysSegmented(t *testing.T) {
	for key := range glossMapLoaded() {
		if !HasHan(key) {
			continue
		}
		if f, _ := zhLookup(key); f == 0 {
			t.Errorf("glossary key %q missing from data/zhdict.txt: run go generate ./internal/analyze", key)
		}
	}
}

func TestGlossaryExpand(t *testing.T) {
	for term, want := range map[string]string{
		"登录": "login", "超时": "timeout", "压缩": "compress", "上下文": "context",
		"锁": "mutex", "扩容": "grow", "ctx": "context", "conn": "connection",
		"邮箱": "email", // CC-CEDICT's first sense is "mailbox"; code says email
	} {
		if got := GlossaryExpand(term); !slices.Contains(got, want) {
			t.Errorf("GlossaryExpand(%q) = %v, want it to contain %q", term, got, want)
		}
	}
	for _, term := range []string{"", "的", "zzz", "Login", "登录超时的地方"} {
		if got := GlossaryExpand(term); got != nil {
			t.Errorf("GlossaryExpand(%q) = %v, want nil", term, got)
		}
	}
}

// containsInOrder reports whether all of want occur in got, in that order.
func containsInOrder(got []string, want ...string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// expandCase is a Chinese query and English terms its glossary-only
// expansion must hold, in this order.
type expandCase struct {
	query string
	want  []string
}

// checkExpandsInOrder fails t for each case whose glossaryOnly.ExpandQuery
// lacks its terms in order, and returns each case's expansion.
func checkExpandsInOrder(t *testing.T, cases []expandCase) [][]string {
	t.Helper()
	out := make([][]string, len(cases))
	for i, c := range cases {
		got := glossaryOnly.ExpandQuery(c.query)
		if !containsInOrder(got, c.want...) {
			t.Errorf("ExpandQuery(%q) = %v, want %v in order", c.query, got, c.want)
		}
		out[i] = got
	}
	return out
}

func TestGlossaryExpandQuery(t *testing.T) {
	cases := []expandCase{
		{"上下文是怎么压缩的", []string{"context", "compress"}},
		{"处理登录超时的地方", []string{"login", "timeout"}},
		{"ArrayList 扩容是在哪里实现的", []string{"grow", "resize"}},
		{"互斥锁什么时候切换到饥饿模式", []string{"mutex", "starvation", "mode"}},
		{"调度器本地运行队列为空时怎么从别的处理器那里偷协程来跑", []string{"scheduler", "runq", "processor", "steal", "goroutine"}},
		{"lru_cache 的缓存淘汰是怎么实现的", []string{"cache", "evict"}},
		{"HTTP 服务器是怎么解析请求行和请求头的", []string{"server", "parse", "requestline", "header"}},
		{"子进程退出后如何回收僵尸进程", []string{"subprocess", "exit", "reclaim", "zombie"}},
		{"读取环境变量", []string{"read", "env", "environment"}}, // longest key 环境变量, not 环境
	}
	for i, got := range checkExpandsInOrder(t, cases) {
		c := cases[i]
		seen := map[string]bool{}
		for _, g := range got {
			if seen[g] {
				t.Errorf("ExpandQuery(%q) = %v: %q repeated", c.query, got, g)
			}
			seen[g] = true
		}
	}
	// Forward maximum matching: 子进程 is one key, so "child" comes from it
	// and 进程 alone is not matched inside it.
	if got := glossaryOnly.ExpandQuery("子进程"); !slices.Equal(got, GlossaryExpand("子进程")) {
		t.Errorf("ExpandQuery(子进程) = %v, want the 子进程 entry %v", got, GlossaryExpand("子进程"))
	}
	for _, q := range []string{"", "how is the context compressed", "Agent.run", "ctx conn 123"} {
		if got := glossaryOnly.ExpandQuery(q); got != nil {
			t.Errorf("ExpandQuery(%q) = %v, want nil", q, got)
		}
	}
	if got := glossaryOnly.ExpandQuery("的的的"); got != nil {
		t.Errorf("ExpandQuery(的的的) = %v, want nil", got)
	}
}

func BenchmarkExpandQuery(b *testing.B) {
	loadGlossary()
	for b.Loop() {
		glossaryOnly.ExpandQuery("调度器本地运行队列为空时怎么从别的处理器那里偷协程来跑")
	}
}

// TestSingleCharacterVerbs: a one-character verb that segmentation leaves
// alone (写对象, 数一下) reaches its English verb, so a question keeps what
// the function does; the characters the glossary leaves out because a
// question more often uses them otherwise (比 "than", 算 "count as") add
// nothing.
func TestSingleCharacterVerbs(t *testing.T) {
	cases := []expandCase{
		{"写对象之前先数一下有几个键", []string{"write", "count", "key"}},
		{"表达式求值器里读下一个记号", []string{"read"}},
		{"把 20 字节摘要转成 base64", []string{"convert"}},
		{"除数是零就抛异常", []string{"throw", "exception"}},
		{"从缓冲区里取一个字节", []string{"buffer", "get"}},
	}
	checkExpandsInOrder(t, cases)
	for _, ch := range []string{"比", "算", "去", "回"} {
		if got := GlossaryExpand(ch); got != nil {
			t.Errorf("GlossaryExpand(%q) = %v, want nil: the character is more often not the verb", ch, got)
		}
	}
}

// TestQuestionPositionWords: the everyday words of a question whose
// dictionary senses miss the programming one reach the word code uses
// (当前 "current", not "present"; 小数 "decimal"; 末尾 "trailing"), and none
// of those entries brings a plain English word (after, end, other) into the
// code vocabulary, which would lift every dictionary sense that spells it.
func TestQuestionPositionWords(t *testing.T) {
	cases := []expandCase{
		{"取当前的配置", []string{"current", "config"}},
		{"把小数部分截断", []string{"decimal", "truncate"}},
		{"去掉末尾的空白", []string{"remove", "trailing", "whitespace"}},
		{"两个日期的差值", []string{"date", "difference"}},
	}
	checkExpandsInOrder(t, cases)
	for _, w := range []string{"after", "before", "end", "other", "front", "last", "empty"} {
		if codeVocabulary(w) {
			t.Errorf("%q is a glossary term: a plain English word would count as code vocabulary", w)
		}
	}
}

// TestEverydayProgrammingWords: words of programming questions that the
// dictionary leaves without their programming sense, or without any
// (session 28: 最小 had none, 最大 only "big", 布尔值 lost 布尔's "bool" to
// bigrams, 分隔符 none, 舍入 "enter", 填充 "stuff", 抛出 "toss"), reach the
// words code uses.
func TestEverydayProgrammingWords(t *testing.T) {
	checkExpandsInOrder(t, []expandCase{
		{"求最小的元素", []string{"min"}},
		{"取最大的那个", []string{"max"}},
		{"把字符串转成布尔值", []string{"string", "bool"}},
		{"按分隔符切分", []string{"separator", "split"}},
		{"舍入到整数", []string{"round", "integer"}},
		{"左边用空格填充", []string{"pad"}},
		{"校验失败就抛出异常", []string{"throw", "exception"}},
		{"算 2 的幂", []string{"pow"}},
		{"十六进制和二进制", []string{"hex"}},
		{"按连字符拆开", []string{"hyphen"}},
		{"周数是怎么计算的", []string{"week"}},
		{"队列入队和出队", []string{"queue", "enqueue", "dequeue"}},
		{"弹出栈顶元素", []string{"pop"}},
		{"把数组打乱", []string{"array", "shuffle"}},
		{"用并查集合并两个集合", []string{"unionfind"}},
		{"读下一个记号", []string{"read", "token"}},
		{"词法规则", []string{"lex"}},
	})
}
