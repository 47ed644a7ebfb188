package chunk

import (
	"unsafe"

	tskotlin "github.com/tree-sitter-grammars/tree-sitter-kotlin/bindings/go"
	sitter "github.com/tree-sitter/go-tree-sitter"
	tsbash "github.com/tree-sitter/tree-sitter-bash/bindings/go"
	tscsharp "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tsphp "github.com/tree-sitter/tree-sitter-php/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsscala "github.com/tree-sitter/tree-sitter-scala/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// grammarFuncs maps a lang.Detect language name to its tree-sitter grammar.
var grammarFuncs = map[string]func() unsafe.Pointer{
	"java":       tsjava.Language,
	"kotlin":     tskotlin.Language,
	"python":     tspython.Language,
	"go":         tsgo.Language,
	"javascript": tsjs.Language,
	"typescript": tsts.LanguageTypescript,
	"tsx":        tsts.LanguageTSX,
	"rust":       tsrust.Language,
	"c":          tsc.Language,
	"cpp":        tscpp.Language,
	"csharp":     tscsharp.Language,
	"ruby":       tsruby.Language,
	"php":        tsphp.LanguagePHP,
	"scala":      tsscala.Language,
	"bash":       tsbash.Language,
}

var _ = sitter.NewLanguage
