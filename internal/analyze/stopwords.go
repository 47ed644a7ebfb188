package analyze

import "github.com/kljensen/snowball/english"

// The stop words, every list in one place: words a query or a document
// holds that name nothing in code. Each list serves one reader, and they
// differ on purpose (a query's English words, a document's keywords,
// Chinese question words); merging them would change what is searched
// and embedded.

// StopWords are Chinese question words (how, what, which, ...), dropped
// from queries: they name no code.
var StopWords = map[string]bool{
	"怎么": true, "如何": true, "什么": true, "哪些": true, "一下": true, "实现": true,
	"的是": true, "一个": true, "可以": true, "这里": true, "那里": true,
}

// zhQuestionWords are Chinese function and question words that carry no
// code meaning, beyond StopWords.
var zhQuestionWords = map[string]bool{
	"哪里": true, "在哪": true, "在哪里": true, "哪个": true, "什么样": true, "时候": true, "什么时候": true,
	"为什么": true, "是否": true, "怎样": true, "怎么样": true, "多少": true, "如何": true, "的话": true,
	"是不是": true, "这个": true, "那个": true, "这些": true, "那些": true, "以及": true,
	"或者": true, "还是": true, "然后": true, "进行": true, "地方": true, "代码": true,
	"逻辑": true, "方法": true, "函数": true,
}

// zhFunctionWords are connectives of Chinese questions whose dictionary
// senses ("after", "together", "according to") are English function words
// and only add noise to a code search.
var zhFunctionWords = map[string]bool{
	"以后": true, "之后": true, "之前": true, "以前": true, "的时候": true, "全部": true, "一起": true,
	"出现": true, "直接": true, "根据": true, "通过": true, "需要": true, "能够": true, "之间": true,
	"所有": true, "各种": true, "不同": true, "其中": true, "或者": true, "并且": true, "而且": true,
	"只有": true, "才能": true, "还有": true, "已经": true, "现在": true, "正在": true, "应该": true,
	// "if", "for example", "maybe", "this way", "besides", "a bit": English
	// stop words or filler in a question (起来 is a verb complement,
	// "get up" in the dictionary)
	"如果": true, "比如": true, "例如": true, "可能": true, "这样": true, "那样": true, "起来": true,
	"另外": true, "一下": true,
}

// englishStop are frequent English words that carry no code meaning in a
// query (some as their stems: "doe", "whi"); EnglishStop reads it.
var englishStop = map[string]bool{
	"the": true, "a": true, "an": true, "of": true, "to": true, "in": true, "is": true, "it": true,
	"and": true, "or": true, "for": true, "on": true, "by": true, "be": true, "are": true, "at": true,
	"as": true, "with": true, "that": true, "this": true, "from": true, "when": true, "where": true,
	"which": true, "what": true, "how": true, "doe": true, "do": true, "does": true, "its": true, "into": true,
	"there": true, "whi": true, "who": true, "can": true, "so": true, "if": true, "then": true, "than": true,
	"find": true, "code": true, "function": true, "method": true, "handl": false,
}

// EnglishStop reports whether the lower-case word w is a frequent English
// word that carries no code meaning in a query (englishStop): the query
// analysis does not search for it.
func EnglishStop(w string) bool { return englishStop[w] }

// codeStop are keywords and filler common across languages, weighted like
// English stop words: present, but not what a chunk is about.
var codeStop = map[string]bool{}

func init() {
	for _, w := range []string{
		"func", "function", "def", "fn", "var", "let", "const", "return", "returns",
		"public", "private", "protected", "static", "final", "void", "new", "class",
		"import", "package", "true", "false", "nil", "null", "none", "self", "this",
		"else", "elif", "then", "end", "int", "string", "bool", "boolean", "err",
		"struct", "type", "interface", "extends", "implements", "override", "async",
		"await", "try", "catch", "throw", "throws", "get", "set", "todo", "fixme",
	} {
		codeStop[w] = true
	}
}

// CodeStop reports whether the word b (lower-case) is a keyword or filler
// common across languages (codeStop) or an English stop word of the
// Snowball list: the local embedder weights such words down.
func CodeStop(b []byte) bool {
	return codeStop[string(b)] || english.IsStopWord(string(b))
}
