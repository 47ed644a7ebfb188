package chunk

import (
	"strings"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/coderag/coderag/internal/lang"
)

// Span classes returned by Highlight.
const (
	ClassComment  = "comment"  // line and block comments
	ClassString   = "string"   // string, character, raw and template literals
	ClassNumber   = "number"   // numeric literals
	ClassKeyword  = "keyword"  // reserved words and true/false/nil
	ClassType     = "type"     // type identifiers and class-like definition names
	ClassFunction = "function" // names of function and method definitions
)

// Highlight bounds.
const (
	// MaxHighlightBytes: larger files get no spans.
	MaxHighlightBytes = 512 << 10
	// highlightTimeout bounds tree-sitter on one file; on timeout no spans.
	highlightTimeout = time.Second
)

// Span is one highlighted range of a source: bytes [Start,End) of the src
// given to Highlight, with Class one of the Class* constants.
type Span struct {
	Start, End int
	Class      string
}

// classes indexes the span classes; 0 is "no class".
var classes = [...]string{"", ClassComment, ClassString, ClassNumber, ClassKeyword, ClassType, ClassFunction}

const (
	cNone byte = iota
	cComment
	cString
	cNumber
	cKeyword
	cType
	cFunction
)

// Highlight returns the syntax classes of src, a file (or part of one) named
// path: spans sorted by Start, non-overlapping, non-empty and within src.
// Languages with a tree-sitter grammar get comments, strings, numbers,
// keywords, types and definition names; scanned languages get comments and
// strings; other languages, and files over MaxHighlightBytes, get none.
// Highlight never panics on bad input (a recovered panic yields no spans).
func Highlight(path string, src []byte) (spans []Span) {
	if len(src) == 0 || len(src) > MaxHighlightBytes {
		return nil
	}
	defer func() {
		if recover() != nil {
			spans = nil
		}
	}()
	return highlight(path, src)
}

// highlight is Highlight without the size cap and the recover.
func highlight(path string, src []byte) []Span {
	language := lang.Detect(path)
	if fn := grammarFuncs[language]; fn != nil {
		return highlightTree(sitter.NewLanguage(fn()), src)
	}
	if sl := scanSpecs[language]; sl != nil {
		return highlightMask(language, src, sl.mask(src))
	}
	return nil
}

// paintSpans turns a per-byte class array into spans.
func paintSpans(paint []byte) []Span {
	var out []Span
	for i := 0; i < len(paint); {
		c := paint[i]
		j := i + 1
		for j < len(paint) && paint[j] == c {
			j++
		}
		if c != cNone {
			out = append(out, Span{Start: i, End: j, Class: classes[c]})
		}
		i = j
	}
	return out
}

// highlightTree parses src and paints its nodes; inner nodes overwrite
// outer ones (a template substitution inside a string is code again).
func highlightTree(language *sitter.Language, src []byte) []Span {
	buf := parseBuffer(src)
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(language); err != nil {
		return nil
	}
	deadline := time.Now().Add(highlightTimeout)
	tree := p.ParseWithOptions(readChunks(buf), nil, &sitter.ParseOptions{ProgressCallback: func(sitter.ParseState) bool { return time.Now().After(deadline) }})
	if tree == nil {
		return nil
	}
	defer tree.Close()
	c := tree.Walk()
	defer c.Close()

	paint := make([]byte, len(src))
	set := func(a, b uint, cl byte) {
		for i := min(int(a), len(paint)); i < min(int(b), len(paint)); i++ {
			paint[i] = cl
		}
	}
	// stack holds, per open node, whether its children are opaque (inside a
	// literal: only interpolations are walked) and its kind.
	type frame struct {
		kind   string
		opaque bool
	}
	stack := []frame{{}}
	for {
		n := c.Node()
		top := stack[len(stack)-1]
		descend, opaque := false, false
		kind := n.Kind()
		a, b := n.StartByte(), n.EndByte()
		switch {
		case top.opaque:
			if isInterpolation(kind) {
				set(a, b, cNone)
				descend = true
			}
		case n.IsNamed() && strings.Contains(kind, "comment"):
			set(a, b, cComment)
		case n.IsNamed() && isStringKind(kind):
			set(a, b, cString)
			descend, opaque = true, true
		case n.IsNamed() && isNumberKind(kind):
			set(a, b, cNumber)
		case !n.IsNamed():
			if b > a && int(b) <= len(src) && isWord(src[a:b]) {
				set(a, b, cKeyword)
			}
		case keywordKinds[kind]:
			set(a, b, cKeyword)
		case typeKinds[kind]:
			set(a, b, cType)
		case n.ChildCount() == 0 && (kind == "identifier" || strings.HasSuffix(kind, "_identifier")):
			set(a, b, nameClass(c.FieldName(), top.kind))
		default:
			descend = true
		}
		if descend && c.GotoFirstChild() {
			stack = append(stack, frame{kind: kind, opaque: opaque})
			continue
		}
		for !c.GotoNextSibling() {
			if !c.GotoParent() {
				return paintSpans(paint)
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// nameClass classifies a leaf identifier from its field in its parent and
// the parent's kind: a definition's name, or a name in a type position.
func nameClass(field, parent string) byte {
	switch {
	case field == "name" && isFuncKind(parent):
		return cFunction
	case field == "declarator" && parent == "function_declarator":
		return cFunction
	case field == "name" && isClassKind(parent):
		return cType
	case parent == "type" || field == "type" || field == "return_type":
		return cType
	}
	return cNone
}

func isFuncKind(k string) bool {
	return strings.Contains(k, "function") || strings.Contains(k, "method") || strings.Contains(k, "constructor")
}

func isClassKind(k string) bool {
	for _, s := range []string{"class", "struct", "interface", "enum", "trait", "type_spec", "type_alias", "object_declaration", "record"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// isStringKind reports string-like literal node kinds across the grammars.
func isStringKind(k string) bool {
	if strings.Contains(k, "string") || strings.HasPrefix(k, "heredoc") || k == "nowdoc" {
		return !strings.HasSuffix(k, "_content") && k != "string_start" && k != "string_end"
	}
	switch k {
	case "char_literal", "character_literal", "rune_literal", "character", "regex", "regex_literal", "symbol", "simple_symbol", "delimited_symbol":
		return true
	}
	return false
}

// isInterpolation reports the code parts inside a literal.
func isInterpolation(k string) bool {
	return strings.Contains(k, "interpolat") || strings.Contains(k, "substitution") || strings.Contains(k, "expansion")
}

var numberKinds = map[string]bool{
	"integer": true, "float": true, "number": true, "rational": true, "complex": true,
	"int_literal": true, "float_literal": true, "imaginary_literal": true, "integer_literal": true,
	"number_literal": true, "real_literal": true, "floating_point_literal": true, "hex_literal": true,
	"bin_literal": true, "long_literal": true, "unsigned_literal": true, "decimal_integer_literal": true,
	"hex_integer_literal": true, "octal_integer_literal": true, "binary_integer_literal": true,
	"decimal_floating_point_literal": true, "hex_floating_point_literal": true,
}

func isNumberKind(k string) bool { return numberKinds[k] }

// keywordKinds are named nodes shown as keywords (literal constants).
var keywordKinds = set("true", "false", "nil", "null", "none", "null_literal", "boolean_literal", "this", "self", "super", "iota")

// typeKinds are named type nodes.
var typeKinds = set("type_identifier", "primitive_type", "predefined_type", "builtin_type", "integral_type",
	"floating_point_type", "boolean_type", "void_type", "sized_type_specifier")

// isWord reports an ASCII word, optionally after one '#' or '@' (C
// preprocessor directives, annotations).
func isWord(b []byte) bool {
	if len(b) > 0 && (b[0] == '#' || b[0] == '@') {
		b = b[1:]
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		return false
	}
	for _, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// maskOpeners are the comment openers of the scanned languages.
var maskOpeners = map[string][]string{
	"zig": {"//"}, "swift": {"//", "/*"}, "lua": {"--"}, "elixir": {"#"},
	"haskell": {"--", "{-"}, "julia": {"#"}, "r": {"#"},
}

// maskDelims are the characters that open or close a string literal.
var maskDelims = map[string]string{
	"zig": `"'`, "swift": `"#`, "lua": `"'[]=`, "elixir": `"'`,
	"haskell": `"'`, "julia": `"`, "r": "\"'`",
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// highlightMask derives comment and string spans from a scanner mask (out:
// src with comments and string contents blanked, delimiters kept). A masked
// region that follows an unconsumed string delimiter is a string (grown over
// its delimiters); one that starts with a comment opener is a comment; any
// other (a Lua long string, an Elixir sigil or ?c) is a string.
func highlightMask(language string, src, out []byte) []Span {
	if len(out) != len(src) {
		return nil
	}
	delims := maskDelims[language]
	masked := func(i int) bool { return out[i] != src[i] }
	var spans []Span
	last := 0 // end of the last span: delimiters before it are consumed
	for i := 0; i < len(src); {
		if !masked(i) {
			i++
			continue
		}
		j := i
		for j < len(src) && (masked(j) || isSpace(src[j])) {
			j++
		}
		for j > i+1 && !masked(j-1) {
			j--
		}
		p := i - 1
		for p >= last && isSpace(src[p]) {
			p--
		}
		a, b, cl := i, j, ClassString
		switch {
		case p >= last && strings.IndexByte(delims, src[p]) >= 0:
			for a = p; a-1 >= last && a > p-8 && strings.IndexByte(delims, src[a-1]) >= 0; a-- {
			}
		case hasOpener(src[i:], maskOpeners[language]):
			cl = ClassComment
		}
		if cl == ClassString {
			q := b
			for q < len(src) && isSpace(src[q]) && !masked(q) {
				q++
			}
			if q < len(src) && strings.IndexByte(delims, src[q]) >= 0 {
				for b = q; b < len(src) && b < q+8 && strings.IndexByte(delims, src[b]) >= 0 && !masked(b); b++ {
				}
			}
		}
		if n := len(spans); n > 0 && spans[n-1].Class == cl && spans[n-1].End == a {
			spans[n-1].End = b
		} else {
			spans = append(spans, Span{Start: a, End: b, Class: cl})
		}
		last, i = b, b
	}
	return spans
}

func hasOpener(b []byte, openers []string) bool {
	for _, o := range openers {
		if strings.HasPrefix(string(b[:min(len(b), len(o))]), o) {
			return true
		}
	}
	return false
}
