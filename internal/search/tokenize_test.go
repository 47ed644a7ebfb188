package search

import (
	"slices"
	"testing"
)

func TestTokenize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		query string
		want  []string
	}{
		{"上下文是怎么压缩的", []string{"上下文", "压缩"}},
		{"处理登录超时的地方", []string{"处理", "登录", "超时", "地方"}},
		{"Agent.run 怎么实现的", []string{"Agent.run"}},
		{"MemoryManager.compress 如何 处理 user_id", []string{"MemoryManager.compress", "处理", "user_id"}},
		{"ask-codex current.md don't", []string{"ask-codex", "current.md", "don"}},
		{"a b c 的 是", nil},
		{"", nil},
		// order of appearance across scripts, duplicates dropped
		{"超时 retry 超时 Retry retry 重试", []string{"超时", "retry", "Retry", "重试"}},
		{"压缩compress压缩", []string{"压缩", "compress"}},
		// question words are dropped
		{"怎么 如何 什么 哪些 一下 实现 一个 可以 这里 那里", nil},
	}
	for _, c := range cases {
		if got := Tokenize(c.query); !slices.Equal(got, c.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", c.query, got, c.want)
		}
	}
	got := Tokenize("重跑gen-itgc后50条悬空引用清零")
	for _, w := range []string{"悬空", "gen-itgc"} {
		if !slices.Contains(got, w) {
			t.Errorf("Tokenize(重跑gen-itgc后50条悬空引用清零) = %q, want it to contain %q", got, w)
		}
	}
	if i, j := slices.Index(got, "gen-itgc"), slices.Index(got, "悬空"); i > j {
		t.Errorf("Tokenize(重跑gen-itgc后50条悬空引用清零) = %q: order of appearance lost", got)
	}
}

func BenchmarkTokenizeChinese(b *testing.B) {
	Tokenize("预热")
	for b.Loop() {
		Tokenize("调度器本地运行队列为空时怎么从别的处理器那里偷协程来跑")
	}
}
