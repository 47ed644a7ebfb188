package chunk

import (
	"embed"
	"fmt"
	"strings"
	"sync"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// queries holds one tree-sitter query per language, queries/<lang>.scm,
// and the fragments they include (querySource).
//
// Capture names understood by the chunker (anything starting with '_' is a
// helper for predicates and ignored):
//
//	@class        a class-like definition (class, interface, enum, record,
//	              struct, type, trait, impl, object, module)
//	@function     a function, method or constructor (method when it has an owner)
//	@text         a top-level declaration kept whole as text (Go var/const)
//	@name         the definition's name (for @class/@function/@text)
//	@params       the parameter list (first one wins)
//	@owner        an explicit owner type: a Go receiver type, a C++ "Foo::" scope
//	@declarator   C/C++: the declarator of a function_definition; name,
//	              params and scope owner are read from it
//	@import       an imported module/package/file (cleaned per language)
//	@import.name  for Python "from . import x": the name appended to the dots
//	@import.alias Go: the local name of an import
//	@extends      a super type of the innermost enclosing class
//	@implements   an implemented interface/trait of the innermost enclosing class
//	@super        a base type whose kind (extends or implements) the spec
//	              decides from its position (C#, Scala)
//	@call         the called name (bare)
//	@call.recv    the receiver/operand of @call; a Go/Python imported package
//	              name makes the callee "pkg.Func"
//	@call.path    a scoped call written as a path (Rust Vec::new, C++ std::move)
//	@skip         a node deliberately not chunked (package clause, imports)
//
//go:embed queries/*.scm
var queries embed.FS

// spec is the per-language knowledge that a query cannot express.
type spec struct {
	name  string
	lang  *sitter.Language
	query *sitter.Query
	roles []string // capture index -> capture name

	// wrappers are parent kinds whose whole node belongs to the definition
	// they wrap (Python decorated_definition, JS export_statement, C++
	// template_declaration). singleWrappers are taken only when the parent
	// holds exactly one child of the definition's kind (Go "type X struct"
	// but not a "type ( ... )" group).
	wrappers       map[string]bool
	singleWrappers map[string]bool
	// comments are comment node kinds; attributes are preceding-sibling kinds
	// that belong to the next definition (Rust #[derive]). Both extend a
	// chunk upwards when they touch it.
	comments   map[string]bool
	attributes map[string]bool
	// anonParents are kinds whose class body is anonymous (Java `new X() {}`,
	// enum constant bodies); methods there stay in their enclosing chunk.
	anonParents map[string]bool
	// isStd reports whether a cleaned import is the language's standard
	// library (dropped from relations).
	isStd func(string) bool
	// cleanImport turns an @import node text into a module name.
	cleanImport func(string) string
	// qualifyCalls: a @call.recv naming an imported package yields "pkg.Func".
	qualifyCalls bool
	// ownerClean, if set, rewrites an @owner text (JS "Layer.prototype" ->
	// "Layer"); "" means no owner.
	ownerClean func(string) string
	// localCallsOnly keeps only calls to functions defined in the file (Bash,
	// where every command is a "call").
	localCallsOnly bool
	// qualifiedOwners: a method's owner is the qualified path of its class
	// (Elixir: functions of a nested module read "App.Outer.Inner.f(x)").
	qualifiedOwners bool
	// docstrings: Python-style docstrings (first string statement of a body).
	docstrings bool
	// nestedUnits: definitions nested in a function of at least
	// minNestedLines lines are units of their own (JavaScript factories and
	// closures: function fastify() { function addHook() {...} }); the
	// enclosing function's chunk keeps only its own lines (see pieces).
	nestedUnits bool
	// superKind classifies the i-th @super (0-based) of a class whose node
	// kind is classKind as RelExtends or RelImplements.
	superKind func(classKind string, i int, name string) string
}

// langTable lists every language with a grammar. Keys are lang.Detect names.
var langTable = map[string]*spec{
	"go": {
		singleWrappers: set("type_declaration"),
		comments:       set("comment"),
		isStd:          func(s string) bool { return !strings.Contains(strings.SplitN(s, "/", 2)[0], ".") },
		cleanImport:    unquote,
		qualifyCalls:   true,
	},
	"java": {
		comments:    set("line_comment", "block_comment"),
		anonParents: set("object_creation_expression", "enum_constant"),
		isStd:       prefixes("java.", "javax.", "jdk.", "sun.", "com.sun.", "org.w3c.dom.", "org.xml.sax."),
		cleanImport: cleanStatement("import", "static"),
	},
	"kotlin": {
		comments:    set("line_comment", "block_comment"),
		anonParents: set("object_literal"),
		isStd:       prefixes("kotlin.", "java.", "javax."),
		cleanImport: cleanStatement("import"),
	},
	"scala": {
		comments: set("comment", "block_comment"),
		superKind: func(_ string, i int, _ string) string {
			if i == 0 {
				return RelExtends
			}
			return RelImplements
		},
		anonParents: set("instance_expression"),
		isStd:       prefixes("scala.", "java.", "javax."),
		cleanImport: cleanStatement("import"),
	},
	"python": {
		wrappers:     set("decorated_definition"),
		comments:     set("comment"),
		isStd:        func(s string) bool { return pythonStdlib.has(strings.SplitN(s, ".", 2)[0]) },
		cleanImport:  collapse,
		qualifyCalls: true,
		docstrings:   true,
	},
	"javascript": {
		nestedUnits: true,
		wrappers:    set("export_statement"),
		ownerClean:  jsOwner,
		comments:    set("comment"),
		isStd:       isNodeBuiltin,
		cleanImport: unquote,
	},
	"typescript": {
		nestedUnits: true,
		wrappers:    set("export_statement", "ambient_declaration"),
		ownerClean:  jsOwner,
		comments:    set("comment"),
		isStd:       isNodeBuiltin,
		cleanImport: unquote,
	},
	"tsx": {
		nestedUnits: true,
		wrappers:    set("export_statement", "ambient_declaration"),
		ownerClean:  jsOwner,
		comments:    set("comment"),
		isStd:       isNodeBuiltin,
		cleanImport: unquote,
	},
	"rust": {
		comments:    set("line_comment", "block_comment"),
		attributes:  set("attribute_item"),
		isStd:       prefixes("std::", "core::", "alloc::", "std", "core", "alloc"),
		cleanImport: collapse,
	},
	"c": {
		singleWrappers: set("type_definition"),
		comments:       set("comment"),
		isStd:          isCHeader,
		cleanImport:    unquote,
	},
	"cpp": {
		wrappers:       set("template_declaration"),
		singleWrappers: set("type_definition"),
		comments:       set("comment"),
		isStd:          isCHeader,
		cleanImport:    unquote,
	},
	"csharp": {
		comments:    set("comment"),
		superKind:   csharpSuper,
		isStd:       func(s string) bool { return s == "System" || strings.HasPrefix(s, "System.") },
		cleanImport: cleanStatement("global", "using", "static"),
	},
	"ruby": {
		comments:    set("comment"),
		isStd:       func(s string) bool { return rubyStdlib.has(s) },
		cleanImport: unquote,
	},
	"php": {
		comments:    set("comment"),
		attributes:  set("attribute_list"),
		isStd:       func(string) bool { return false },
		cleanImport: func(s string) string { return strings.TrimPrefix(unquote(s), `\`) },
	},
	"bash": {
		comments:       set("comment"),
		isStd:          func(string) bool { return false },
		cleanImport:    unquote,
		localCallsOnly: true,
	},
}

var specOnce sync.Map // language -> *onceSpec

type onceSpec struct {
	once sync.Once
	s    *spec
	err  error
}

// specFor returns the compiled spec of a language, or nil when the language
// has no grammar. Queries are compiled once per process and shared (a
// tree-sitter Query is read-only once built); they live as long as the
// process and are therefore never closed.
func specFor(language string) (*spec, error) {
	base, ok := langTable[language]
	if !ok {
		return nil, nil
	}
	v, _ := specOnce.LoadOrStore(language, &onceSpec{})
	o := v.(*onceSpec)
	o.once.Do(func() { o.s, o.err = compileSpec(language, base) })
	return o.s, o.err
}

// Prepare compiles the tree-sitter query of language (a lang.Detect
// name) now, unless it is compiled already or the language has no
// grammar, so that the first parse of a file of that language does not
// wait for it: 1-60 ms of CPU per language (Scala, TypeScript, C# and
// C++ the dearest; bench/PROFILE.md, session 14). The query is the one
// every later parse of the process uses (specFor); the error is the
// query's, which every parse of the language reports too. Safe for
// concurrent use with parses.
func Prepare(language string) error {
	_, err := specFor(language)
	return err
}

func compileSpec(language string, base *spec) (*spec, error) {
	fn := grammarFuncs[language]
	if fn == nil {
		return nil, fmt.Errorf("grammar %s: not linked", language)
	}
	file := language
	if language == "tsx" {
		file = "typescript" // one query serves both TypeScript grammars
	}
	src, err := querySource(file)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", language, err)
	}
	s := *base
	s.name = language
	s.lang = sitter.NewLanguage(fn())
	q, qerr := sitter.NewQuery(s.lang, src)
	if qerr != nil {
		return nil, fmt.Errorf("query %s: %w", language, qerr)
	}
	s.query = q
	s.roles = q.CaptureNames()
	return &s, nil
}

// includePrefix starts a query line that stands for a fragment,
// queries/NAME.scm: "; include NAME" (a comment to tree-sitter).
const includePrefix = "; include "

// querySource returns the query of queries/<file>.scm with every line
// "; include NAME" replaced by the lines of queries/NAME.scm. JavaScript
// and TypeScript share their import, call, CommonJS-method and bound-
// function patterns this way (queries/ecmascript_*.scm), each file
// including them where it had them, so its patterns keep their order.
func querySource(file string) (string, error) {
	src, err := queries.ReadFile("queries/" + file + ".scm")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(src), "\n") {
		name, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), includePrefix)
		if !ok {
			b.WriteString(line)
			continue
		}
		frag, err := queries.ReadFile("queries/" + name + ".scm")
		if err != nil {
			return "", fmt.Errorf("include %s: %w", name, err)
		}
		b.Write(frag)
	}
	return b.String(), nil
}

func set(kinds ...string) map[string]bool {
	m := make(map[string]bool, len(kinds))
	for _, k := range kinds {
		m[k] = true
	}
	return m
}

func prefixes(ps ...string) func(string) bool {
	return func(s string) bool {
		for _, p := range ps {
			if s == p || strings.HasPrefix(s, p) && (strings.HasSuffix(p, ".") || strings.HasSuffix(p, "::")) {
				return true
			}
		}
		return false
	}
}

func isNodeBuiltin(s string) bool {
	return strings.HasPrefix(s, "node:") || nodeBuiltins.has(s)
}

func isCHeader(s string) bool {
	if !strings.HasPrefix(s, "<") {
		return false
	}
	h := strings.Trim(s, "<>")
	return cHeaders.has(h) || strings.HasPrefix(h, "sys/") || strings.HasPrefix(h, "netinet/") ||
		strings.HasPrefix(h, "arpa/") || strings.HasPrefix(h, "bits/")
}

// unquote strips surrounding quotes of a string literal.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 {
		switch s[0] {
		case '"', '\'', '`':
			if s[len(s)-1] == s[0] {
				return s[1 : len(s)-1]
			}
		}
	}
	return s
}

// cleanStatement strips leading keywords and a trailing ';' from a whole
// import/using statement and collapses whitespace.
func cleanStatement(keywords ...string) func(string) string {
	return func(s string) string {
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ";"))
		for again := true; again; {
			again = false
			for _, k := range keywords {
				if strings.HasPrefix(s, k+" ") {
					s = strings.TrimSpace(s[len(k):])
					again = true
				}
			}
		}
		return collapse(s)
	}
}

// collapse folds every run of whitespace into one space and trims.
func collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// csharpSuper: an interface extends its bases; a class or record extends
// its first base unless it is named like an interface (IFoo); structs and
// the remaining bases implement.
func csharpSuper(classKind string, i int, name string) string {
	switch classKind {
	case "interface_declaration":
		return RelExtends
	case "class_declaration", "record_declaration":
		n := cleanType(name)
		if i == 0 && !(len(n) > 1 && n[0] == 'I' && n[1] >= 'A' && n[1] <= 'Z') {
			return RelExtends
		}
	}
	return RelImplements
}

// cleanOwner applies the language's ownerClean to an @owner text.
func (sp *spec) cleanOwner(o string) string {
	if sp.ownerClean != nil {
		return sp.ownerClean(o)
	}
	return o
}

// jsOwner turns the object of a CommonJS method assignment into an owner:
// "Layer.prototype" -> "Layer", "res" -> "res"; exports objects and this
// give none (a module function, or a constructor's own field).
func jsOwner(o string) string {
	o = strings.TrimSuffix(strings.TrimSpace(o), ".prototype")
	switch o {
	case "exports", "module.exports", "this", "window", "globalThis":
		return ""
	}
	if strings.ContainsAny(o, "()[]`'\" \n") {
		return "" // a computed object: no stable owner name
	}
	return o
}
