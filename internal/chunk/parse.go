package chunk

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/lines"
)

// parseTimeout bounds tree-sitter on one file, its parse and its query's
// matching together; on timeout the file is chunked as text. A variable
// so that a test can shorten it.
var parseTimeout = 10 * time.Second

// Errors returned by Parse. A caller that gets an error text-chunks the file
// with TextChunks.
var (
	// ErrPanic wraps a panic recovered while parsing one file.
	ErrPanic = errors.New("panic while parsing")
	// ErrQuery means a language's embedded query does not compile (a bug).
	ErrQuery = errors.New("bad chunk query")
)

// Tunables. They are documented here because they decide what the index holds.
const (
	// classHeadLines is how many lines of a class-like declaration its chunk
	// holds (counted from the declaration's first line; never less than what
	// is needed to include the name line).
	classHeadLines = 6
	// minGapLines: an uncovered region (top-level statements, fields between
	// methods, comments) becomes text chunks when it has at least this many
	// lines containing a letter or digit. A smaller region joins the chunk
	// beside it (joinGap); with none, it is dropped unless it is prose.
	minGapLines = 3
	// minProseWords: a doc comment with no chunk beside it is kept as a
	// text chunk when it holds at least this many words (prose).
	minProseWords = 3
	// maxRelations caps the relations kept per file (minified or generated
	// code can hold hundreds of thousands of calls).
	maxRelations = 20000
	// A file of at least minifiedBytes whose average line is longer than
	// minifiedLine characters is minified/generated: it is text-chunked
	// without parsing (a 900 KB one-line bundle becomes one chunk).
	minifiedBytes = 64 << 10
	minifiedLine  = 500
	// errorFallback: when ERROR nodes span more than this fraction of the
	// file, only the definitions that parsed whole and outside ERROR nodes
	// are kept (the rest is text); a file without one is text-chunked.
	// Below it, AST chunks are kept and the broken regions are still covered
	// by gap text chunks.
	errorFallback = 0.30
	// maxDefLines is the size limit of a definition chunk in lines: a
	// function or method longer than this is split into parts of at most
	// maxDefLines lines that keep its name and owner (see splitDef). One
	// vector cannot stand for 800 lines, and an agent cannot read them.
	// 200, not 100: at 100 the first part of a long orchestrator
	// (findRunnable, serveContent) is as short as an ordinary function, so
	// BM25's length normalisation no longer holds it back, and the golden
	// sets fell (Go MRR@10 0.609 to 0.581, Java 0.526 to 0.510); at 200
	// they are 0.589 and 0.526 (bench/quality.py, hashing embedder).
	// Since the first part's keyword body is the whole definition
	// (index.isSplitHead), Go is back at 0.609 at 200; 100 is not
	// measured again.
	maxDefLines = 200
	// minNestedLines: a definition nested in a function (JavaScript and
	// TypeScript, spec.nestedUnits) is a unit of its own when it spans at
	// least this many lines; shorter closures stay in the enclosing chunk.
	minNestedLines = 3
)

// Parse chunks one file and extracts its relations from the same parse.
// path is root-relative with '/', src the raw bytes from disk (BOM and CRLF
// allowed). Files without a grammar, minified files and files whose parse is
// mostly errors come back text-chunked with Fallback set. Parse is safe for
// concurrent use. A panic is recovered and returned wrapped in ErrPanic; an
// error means the caller should fall back to TextChunks.
func Parse(path string, src []byte) (res *FileResult, err error) {
	return ParseInPackage(path, src, nil)
}

// ParseInPackage is Parse with the declarations of the Go package the file
// belongs to (see NewGoPackage), used to type the receivers of Go calls on
// other values; pkg may be nil (the file's own declarations only) and is
// ignored for other languages.
func ParseInPackage(path string, src []byte, pkg *GoPackage) (res *FileResult, err error) {
	return ParseWith(path, src, Options{Go: pkg})
}

// Options is what a caller knows about a file beyond its bytes.
type Options struct {
	// Go is the declarations of the Go package the file belongs to (see
	// NewGoPackage); nil means the file's own declarations only.
	Go *GoPackage
	// CppHeader says a .h file is C++ whatever its text (the project's
	// evidence: C++ sources beside it). Without it a .h file is C++ when
	// its text has C++-only syntax (lang.HeaderLanguage).
	CppHeader bool
}

// ParseWith is Parse with what the caller knows about the file (Options).
func ParseWith(path string, src []byte, o Options) (res *FileResult, err error) {
	pkg := o.Go
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("parse %s: %w: %v\n%s", path, ErrPanic, r, debug.Stack())
		}
	}()
	if testHookParse != nil {
		testHookParse(path)
	}
	language := lang.Detect(path)
	if language == "c" && strings.EqualFold(filepath.Ext(path), ".h") && (o.CppHeader || lang.HeaderLanguage(src) == "cpp") {
		language = "cpp"
	}
	sp, err := specFor(language)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w: %w", path, ErrQuery, err)
	}
	if language == "" {
		language = "text"
	}
	if sl := scanSpecs[language]; sl != nil && sp == nil && !looksMinified(src) {
		return parseScanned(sl, path, src), nil
	}
	if sp == nil || looksMinified(src) {
		r := &FileResult{Language: language, Chunks: TextChunks(path, language, src), Fallback: true}
		if sp != nil || scanSpecs[language] != nil {
			r.FallbackReason = ReasonMinified
		}
		return r, nil
	}
	return parseAST(sp, path, src, pkg), nil
}

// testHookParse, when set by a test, runs at the start of every Parse.
var testHookParse func(path string)

// looksMinified reports a large file with very long lines on average.
func looksMinified(src []byte) bool {
	if len(src) < minifiedBytes {
		return false
	}
	n := 1
	for _, b := range src {
		if b == '\n' {
			n++
		}
	}
	return len(src)/n > minifiedLine
}

// def is one definition found by the query.
type def struct {
	kind       string // "class", "function", "text"
	node       sitter.Node
	start, end uint // node bytes
	name       string
	nameStart  uint
	params     string
	owner      string // explicit owner (Go receiver, C++ scope)
	parent     *def
	dropped    bool // nested in a function, or in an anonymous class
	// ownerOnly: a class-like block that owns its methods but is not a
	// declaration of its own (a Swift extension): no chunk, no graph node.
	ownerOnly bool
	qual      string // class: Outer.Inner; function: Owner.name
	ownerName string // simple name of the owner class
	chunkName string // name of its chunk ("" if none)
	extStart  uint   // first byte of the chunk (decorators, comments)
	startLine int    // chunk start (after wrappers, attributes, comments)
	endLine   int    // last line of the (wrapped) declaration
	doc       string
	// header is the "Trait for Type" name of a Rust impl block ("" for
	// other definitions).
	header string
	// accessor is "get" or "set" for a JavaScript/TypeScript getter or
	// setter (see jsMembers), "" otherwise.
	accessor string
}

type rawRel struct {
	kind       string
	text       string // import text, type text, callee
	recv       string // call receiver text (identifier) if any
	recvIsName bool
	// recvConst: the receiver is a Ruby constant (Foo, A::Foo), a class
	// or module, so the call is Foo's own method (build.go); or, with
	// recvStatic, a capitalised name in Java, C# or Scala: a class's
	// static method or an object's ("OtherLang.Translate(key)")
	recvConst  bool
	recvStatic bool
	path       bool // callee written as a path
	// imported: a call of a name the file imports by name, kept where
	// the language keeps only calls of the file's own functions
	// (spec.localCallsOnly; Haskell's "import M (f)" and "M.f")
	imported bool
	start    uint
	name     string // Python "from . import name"
	// args: how many arguments the call passes, in the languages of
	// lang.ArityCounted (callArity); zero, not counted, elsewhere
	args lang.Arity
	// onValue: a Java, C# or Scala call of a platformMethods name on a
	// value, stored as lang.CallValue
	onValue bool
	// value: Java and C#, the receiver of a call on a value as written,
	// a name ("executor") or a field of this ("this.executor"), for
	// declaredTypes; "" otherwise
	value string
}

type parsed struct {
	sp    *spec
	path  string
	src   []byte // original
	buf   []byte // parse buffer: BOM and '\r' blanked, same offsets
	idx   *lines.Index
	defs  []*def
	rels  []rawRel
	skips [][2]uint
	alias map[string]bool // Go/Python imported package local names
	// classAlias: PHP, a class imported under another name (use X as Y):
	// Y -> X's last segment
	classAlias map[string]string
	errors     int // ERROR/MISSING nodes in the tree
	// scanned: defs come from a definition scanner (no tree); their chunk
	// ranges and docs are already set.
	scanned bool
	// typed: Go, Python, Java and C#, byte offset of a called method name
	// -> its typed callee ("T.m", "pkg.T.m"), see goTypes, pyTypes and
	// declaredTypes
	typed map[uint]string
	// annots: Python, Java and C#, the names declared or annotated with a
	// class (pyTypes, declaredTypes)
	annots []annot
	// tparams: C++, the names of the file's template type parameters
	// (template <class Archive>), which no declaration of that type
	// resolves to a class (declaredTypes)
	tparams map[string]bool
	// macroArgs: Rust only, the byte ranges of the (...) and [...]
	// arguments of the macro invocations collect met since macroCalls last
	// took them (addMacroArgs)
	macroArgs [][2]uint
	// sibs: the children of the parents extend has looked into, for the
	// node before a definition
	sibs siblings
}

func parseAST(sp *spec, path string, src []byte, pkg *GoPackage) *FileResult {
	res := &FileResult{Language: sp.name}
	buf := parseBuffer(src)
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(sp.lang); err != nil {
		panic(fmt.Sprintf("set language %s: %v", sp.name, err))
	}
	deadline := time.Now().Add(parseTimeout)
	var tree *sitter.Tree
	if sp.name == "c" || sp.name == "cpp" {
		tree, buf = parseCMasked(p, buf, deadline)
		if tree != nil && tree.RootNode().HasError() {
			// a function's head split over #if branches (pruneCBranches):
			// the last branches read alone, then the first, each kept
			// only when its tree has fewer errors
			for _, last := range []bool{true, false} {
				if pruned, n := pruneCBranches(buf, last); n > 0 {
					tree, buf = parseBetter(p, tree, buf, pruned, deadline)
				}
				if !tree.RootNode().HasError() {
					break
				}
			}
		}
	} else {
		tree = parseTree(p, buf, deadline)
	}
	if tree == nil { // timed out
		res.Chunks, res.Fallback, res.FallbackReason = TextChunks(path, sp.name, src), true, ReasonTimeout
		return res
	}
	if sp.name == "kotlin" && tree.RootNode().HasError() {
		if joined, n := joinKotlinConstructors(buf); n > 0 {
			tree, buf = parseBetter(p, tree, buf, joined, deadline)
		}
	}
	defer tree.Close()
	root := tree.RootNode()
	broken := false
	if root.HasError() {
		n, span := countErrors(root)
		res.ParseErrors = n
		broken = float64(span) > errorFallback*float64(len(src))
	}
	ps := &parsed{sp: sp, path: path, src: src, buf: buf, idx: lines.NewIndex(src), alias: map[string]bool{}, errors: res.ParseErrors}
	if !ps.collect(root, deadline) {
		// the query's matching ran past the deadline too: deeply nested
		// closures make it superlinear (20,000 nested arrow functions, a
		// 280 KB file, took 35 s of CPU)
		res.Chunks, res.Fallback, res.FallbackReason = TextChunks(path, sp.name, src), true, ReasonTimeout
		return res
	}
	if broken {
		// mostly errors (macros a grammar cannot read): keep the
		// definitions that parsed whole; the rest
		// of the file becomes text around them. Only a file without one
		// is text-chunked whole.
		ps.keepClean()
		ps.skips = nil // nothing may be lost: imports stay in the text
		if len(ps.defs) == 0 {
			res.Chunks, res.Fallback, res.FallbackReason = TextChunks(path, sp.name, src), true, ReasonErrors
			return res
		}
	}
	if sp.name == "rust" {
		budget := maxMacroParses
		for _, t := range ps.macroItems(p, root, 0, &budget, deadline) {
			defer t.Close()
		}
		for _, t := range ps.macroCalls(p, 0, deadline) {
			defer t.Close()
		}
	}
	if sp.nestedUnits {
		ps.jsMembers()
	}
	if sp.name == "scala" {
		ps.scalaDetachedBodies()
	}
	ps.resolve()
	if sp.name == "typescript" || sp.name == "tsx" {
		ps.foldOverloads()
	}
	res.Chunks = ps.chunks()
	switch sp.name {
	case "go":
		ps.typed = goTypes(src, pkg)
	case "python":
		ps.typed = ps.pyTypes()
	case "java", "csharp", "cpp", "php":
		ps.typed = ps.declaredTypes()
	}
	res.Relations = ps.relations()
	return res
}

// parseTree parses buf with p, giving up at deadline (nil).
func parseTree(p *sitter.Parser, buf []byte, deadline time.Time) *sitter.Tree {
	return p.ParseWithOptions(readChunks(buf), nil, &sitter.ParseOptions{ProgressCallback: func(sitter.ParseState) bool { return time.Now().After(deadline) }})
}

// readBack is the most bytes readChunks hands tree-sitter when its lexer
// goes back.
const readBack = 512

// readChunks returns the read callback of one parse of buf. A read past
// the previous one gets the rest of the buffer; a read at or before it
// (the lexer went back: error recovery, ambiguous grammars such as
// Scala's) gets at most readBack bytes, ending on a UTF-8 character
// boundary when one is near. go-tree-sitter copies every slice the
// callback returns into a new C string and frees them all only when the
// parse ends, so handing the rest of the buffer at every step back copied
// and kept it thousands of times: circe's Decoder.scala (56 KB) made 9,809
// reads and 264 MB of copies, and its 26 files took 2.6 s of CPU and 380 MB
// to index. Go and TypeScript files go back rarely and read as before.
func readChunks(buf []byte) func(int, sitter.Point) []byte {
	last := -1
	return func(i int, _ sitter.Point) []byte {
		if i >= len(buf) {
			return nil
		}
		back := i <= last
		last = i
		end := i + readBack
		if !back || end >= len(buf) {
			return buf[i:]
		}
		// end at a character's first byte, unless the slice would be
		// only continuation bytes (invalid UTF-8: any cut will do)
		for k := end; k > end-utf8.UTFMax && k > i; k-- {
			if utf8.RuneStart(buf[k]) {
				end = k
				break
			}
		}
		return buf[i:end]
	}
}

// parseCMasked parses a C or C++ buffer, with its macro annotations
// blanked (maskCMacros) when it has any, and returns the tree and the
// buffer it read (nil when the parse timed out). A masked buffer whose tree
// has no error is kept: in C++ trees the buffer as written mostly has
// errors where masking blanks something (abseil-cpp: 405 of the 688 files
// with annotations parse clean only masked, 32 clean as written), so
// parsing the masked buffer first saves the second parse of most of them.
// A masked tree with errors is compared with a parse of the buffer as
// written, and the one with the smaller error span (then the fewer errors)
// is kept, the buffer as written on a tie.
//
// The second parse is incremental: a copy of the first tree is edited at
// each blanked span (maskEdits) and handed to tree-sitter as the old
// tree, so only the parts around the spans are parsed again. On the Linux
// kernel's fs/, drivers/net/ethernet/intel and kernel/ (484 files parsed
// twice) it took 0.23-0.34x the time of a parse from scratch, and gave
// the same tree for every file (TestMaskedParseIncrementalEqualsFull).
func parseCMasked(p *sitter.Parser, buf []byte, deadline time.Time) (*sitter.Tree, []byte) {
	masked, n := maskCMacros(buf)
	if n == 0 {
		return parseTree(p, buf, deadline), buf
	}
	mt := parseTree(p, masked, deadline)
	if mt == nil || !mt.RootNode().HasError() {
		return mt, masked
	}
	wt := parseMaskedIncremental(p, mt, masked, buf, deadline)
	if wt == nil {
		return mt, masked
	}
	cw, sw := countErrors(wt.RootNode())
	cm, sm := countErrors(mt.RootNode())
	if sm < sw || sm == sw && cm < cw {
		wt.Close()
		return mt, masked
	}
	mt.Close()
	return wt, buf
}

// parseBetter parses masked, a rewrite of buf of the same length, and
// returns the tree and buffer with the smaller error span (then the fewer
// errors): masked's only when the rewrite removed errors. The tree not
// returned is closed. Lines and chunk text are read from the file's own
// bytes by offset, so a rewrite that keeps every offset changes no line
// number.
func parseBetter(p *sitter.Parser, tree *sitter.Tree, buf, masked []byte, deadline time.Time) (*sitter.Tree, []byte) {
	t2 := parseMaskedIncremental(p, tree, buf, masked, deadline)
	if t2 == nil {
		return tree, buf
	}
	c1, s1 := countErrors(tree.RootNode())
	c2, s2 := countErrors(t2.RootNode())
	if s2 < s1 || s2 == s1 && c2 < c1 {
		tree.Close()
		return t2, masked
	}
	t2.Close()
	return tree, buf
}

// parseMaskedIncremental parses masked, which is buf with some bytes
// rewritten in place (same length, same newlines: blanked macros, or the
// macros put back), reusing tree, buf's tree: tree is copied, the copy
// edited at every span where the buffers differ, and parsed again from it.
// tree is left as it was. Nil when the parse timed out.
func parseMaskedIncremental(p *sitter.Parser, tree *sitter.Tree, buf, masked []byte, deadline time.Time) *sitter.Tree {
	old := tree.Clone()
	defer old.Close()
	for _, e := range maskEdits(buf, masked) {
		old.Edit(&e)
	}
	return p.ParseWithOptions(readChunks(masked), old, &sitter.ParseOptions{ProgressCallback: func(sitter.ParseState) bool { return time.Now().After(deadline) }})
}

// maskEdits returns tree-sitter's edits that turn buf into masked, two
// buffers of one length that differ only in bytes other than newlines:
// one edit per run of differing bytes, its old and new ends equal, its
// points in rows and byte columns.
func maskEdits(buf, masked []byte) []sitter.InputEdit {
	var edits []sitter.InputEdit
	row, col := uint(0), uint(0)
	for i := 0; i < len(buf) && i < len(masked); {
		if buf[i] == masked[i] {
			if buf[i] == '\n' {
				row, col = row+1, 0
			} else {
				col++
			}
			i++
			continue
		}
		j := i
		for j < len(buf) && j < len(masked) && buf[j] != masked[j] {
			j++
		}
		start := sitter.Point{Row: row, Column: col}
		end := sitter.Point{Row: row, Column: col + uint(j-i)}
		edits = append(edits, sitter.InputEdit{StartByte: uint(i), OldEndByte: uint(j), NewEndByte: uint(j),
			StartPosition: start, OldEndPosition: end, NewEndPosition: end})
		col = end.Column
		i = j
	}
	return edits
}

// keepClean drops the definitions whose node holds a syntax error. One
// that parsed whole inside an ERROR node is kept: a macro the grammar
// cannot read (FMT_BEGIN_NAMESPACE) often leaves the whole file under one
// ERROR node, with complete definitions in it.
//
// A class is kept when its errors are inside members of its body and its
// head parsed whole: a macro the grammar cannot read in one method's
// template parameters (FMT_ENABLE_IF(!...)) drops that method, not the
// class that owns the others.
func (ps *parsed) keepClean() {
	kept := ps.defs[:0]
	for _, d := range ps.defs {
		if !d.node.HasError() || d.kind == KindClass && errorsInMembers(&d.node) {
			kept = append(kept, d)
		}
	}
	ps.defs = kept
}

// errorsInMembers reports whether every syntax error of a class-like node
// lies inside a named member of its body (a field or a method), not in
// its head or loose in the body, and the members with errors are at most
// a quarter of the body's.
func errorsInMembers(n *sitter.Node) bool {
	body := n.ChildByFieldName("body")
	if body == nil {
		return false
	}
	for _, c := range children(n, false) {
		if c.Id() != body.Id() && (c.HasError() || c.IsError() || c.IsMissing()) {
			return false
		}
	}
	bad, all := 0, 0
	members := children(body, true)
	for i := range members {
		c := &members[i]
		if c.Kind() == "comment" {
			continue
		}
		if c.IsError() || c.IsMissing() {
			return false
		}
		all++
		if c.HasError() {
			bad++
		}
	}
	return all > 0 && 4*bad <= all
}

// countErrors returns the number of ERROR and MISSING nodes and the bytes
// spanned by the outermost ERROR nodes.
func countErrors(n *sitter.Node) (count int, span uint) {
	if n.IsError() {
		count++
		span += n.EndByte() - n.StartByte()
		c, _ := countErrorsIn(n)
		return count + c, span
	}
	if n.IsMissing() {
		return 1, 0
	}
	return countErrorsIn(n)
}

func countErrorsIn(n *sitter.Node) (count int, span uint) {
	kids := children(n, false)
	for i := range kids {
		c := &kids[i]
		if !c.HasError() && !c.IsMissing() {
			continue
		}
		k, s := countErrors(c)
		count += k
		span += s
	}
	return count, span
}

// collect runs the language query once over the tree, halting at
// deadline (the one the parse had: parseTimeout bounds parse and query
// together); it reports whether the query ran to its end.
func (ps *parsed) collect(root *sitter.Node, deadline time.Time) bool {
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	left := time.Until(deadline)
	if left <= 0 {
		return false
	}
	// tree-sitter checks the clock every few hundred steps of its
	// matching and halts past it. (The progress-callback form,
	// MatchesWithOptions, keeps every call's options in go-pointer's table
	// for good in go-tree-sitter 0.25: a leak per parsed file.)
	qc.SetTimeoutMicros(uint64(left.Microseconds()))
	seen := map[uintptr]*def{}
	matches := qc.Matches(ps.sp.query, root, ps.buf)
	for m := matches.Next(); m != nil; m = matches.Next() {
		var d *def
		var rel *rawRel
		var nameNode, paramsNode, declNode *sitter.Node
		var owner, importName, alias, implTrait string
		var recvNode, macroName, macroArgs, callName, annotName, annotType *sitter.Node
		for i := range m.Captures {
			c := &m.Captures[i]
			n := c.Node
			switch ps.sp.roles[c.Index] {
			case "class", "function", "text":
				if d == nil {
					d = &def{kind: ps.sp.roles[c.Index], node: n, start: n.StartByte(), end: ps.codeEnd(&n)}
				}
			case "name":
				nameNode = &n
			case "impl.trait":
				implTrait = collapse(ps.text(&n))
			case "params":
				if paramsNode == nil {
					paramsNode = &n
				}
			case "declarator":
				declNode = &n
			case "owner":
				owner = ps.sp.cleanOwner(ps.text(&n))
			case "skip":
				ps.skips = append(ps.skips, [2]uint{n.StartByte(), n.EndByte()})
			case "import":
				rel = &rawRel{kind: RelImports, text: ps.text(&n), start: n.StartByte()}
			case "import.name":
				importName = ps.text(&n)
			case "import.alias":
				alias = ps.text(&n)
			case "bound.name":
				if ps.alias != nil {
					ps.alias[ps.text(&n)] = true
				}
			case "extends":
				rel = &rawRel{kind: RelExtends, text: ps.text(&n), start: n.StartByte()}
			case "super":
				rel = &rawRel{kind: "super", text: ps.text(&n), start: n.StartByte()}
			case "implements":
				rel = &rawRel{kind: RelImplements, text: ps.text(&n), start: n.StartByte()}
			case "call":
				rel = &rawRel{kind: RelCalls, text: ps.text(&n), start: n.StartByte()}
				callName = &n
			case "call.path":
				text := ps.text(&n)
				if ps.sp.name == "cpp" {
					text = dropTemplateArgs(text) // ns::swap_bytes<4> calls ns::swap_bytes
				}
				rel = &rawRel{kind: RelCalls, text: text, start: n.StartByte(), path: true}
				callName = &n
			case "call.recv":
				recvNode = &n
			case "annot.name":
				annotName = &n
			case "annot.type":
				annotType = &n
			case "annot.tparam":
				if ps.tparams == nil {
					ps.tparams = map[string]bool{}
				}
				ps.tparams[ps.text(&n)] = true
			case "macro.name":
				macroName = &n
			case "macro.args":
				macroArgs = &n
			}
		}
		if macroName != nil && macroArgs != nil {
			ps.addMacroArgs(macroName, macroArgs)
			continue
		}
		if annotName != nil && annotType != nil {
			c := ""
			if ps.sp.name == "python" {
				c = pyAnnotatedClassText(ps.text(annotType))
			} else {
				c = declaredClassText(ps.text(annotType), ps.sp.name)
			}
			if c != "" {
				ps.annots = append(ps.annots, annot{name: strings.TrimPrefix(ps.text(annotName), "$"), class: c, at: annotName.StartByte()})
			}
			continue
		}
		if rel != nil {
			if callName != nil && lang.ArityCounted[ps.sp.name] {
				rel.args = ps.callArity(callName)
			}
			if recvNode != nil {
				rel.recv = ps.text(recvNode)
				rel.recvIsName = recvNode.Kind() == "identifier" || recvNode.Kind() == "package_identifier"
				rel.recvConst = ps.sp.name == "ruby" && (recvNode.Kind() == "constant" || recvNode.Kind() == "scope_resolution") ||
					(staticReceivers[ps.sp.name] && rel.recvIsName || ps.sp.name == "kotlin" && isIdent(rel.recv)) &&
						rel.recv != "" && rel.recv[0] >= 'A' && rel.recv[0] <= 'Z'
				switch {
				case rel.recvConst && ps.sp.name != "ruby":
					rel.recvStatic = true
				case ps.sp.name == "php":
					phpReceiver(rel, recvNode.Kind())
				case ps.sp.name == "cpp" && rel.recv != "this":
					// as Java's below: a call on a value stays a call by
					// name unless its receiver's declaration names the
					// class (declaredTypes) or it names a method of the
					// standard library's strings and containers (a guess
					// when a project method has that name, else the
					// library's)
					rel.onValue = cppStdMethods.has(rel.text)
					if rel.recvIsName {
						rel.value = rel.recv
					}
					rel.recv, rel.recvIsName = "", false
				case staticReceivers[ps.sp.name] && rel.recv != "this" && rel.recv != "super":
					// a call on a value: unless declaredTypes finds the
					// type of the name or field it is called on (Java and
					// C#), it stays a call by name, as it was before
					// receivers were read (a guess on every field's call
					// would cut the walks through them), or, when it names
					// a method every object or collection of the platform
					// has (x.toString(), map.size()), a call on a value (a
					// guess when a project method has that name, else the
					// platform's)
					rel.onValue = platformMethods.has(rel.text)
					if declaresTypes[ps.sp.name] && (rel.recvIsName || isThisField(rel.recv)) {
						rel.value = rel.recv
					}
					rel.recv, rel.recvIsName = "", false
				}
				if rel.recvStatic && declaresTypes[ps.sp.name] {
					// a capitalised name may still be a field or property
					// (C#'s "Rules.Add(rule)"): declaredTypes decides
					rel.value = rel.recv
				}
			}
			if rel.kind == RelImports {
				rel.text = ps.sp.cleanImport(rel.text)
				if importName != "" && strings.Trim(rel.text, ".") == "" {
					rel.text += importName
				}
				if ps.sp.qualifyCalls {
					ps.addAlias(rel.text, alias)
				}
				if ps.sp.name == "php" && alias != "" {
					// use App\Reason\NoDNSRecord as ReasonNoDNSRecord:
					// new ReasonNoDNSRecord() makes a NoDNSRecord
					if ps.classAlias == nil {
						ps.classAlias = map[string]string{}
					}
					ps.classAlias[alias] = rel.text[strings.LastIndexByte(rel.text, '\\')+1:]
				}
			}
			if len(ps.rels) < 4*maxRelations {
				ps.rels = append(ps.rels, *rel)
			}
		}
		if d == nil {
			continue
		}
		if declNode != nil {
			nameNode, paramsNode, owner = cDeclarator(declNode, ps)
			if nameNode == nil {
				continue
			}
		}
		if prev := seen[d.node.Id()]; prev != nil {
			continue
		}
		if nameNode != nil {
			d.name = collapse(ps.text(nameNode))
			if d.kind == KindClass {
				d.name = cleanType(d.name)
			}
			d.nameStart = nameNode.StartByte()
		} else {
			d.nameStart = d.start
		}
		if d.name == "" && d.kind != KindText || ps.plainField(d) {
			continue
		}
		if paramsNode != nil {
			d.params = ps.text(paramsNode)
		}
		d.owner = cleanType(owner)
		if d.node.Kind() == "impl_item" && nameNode != nil {
			d.header = collapse(ps.text(nameNode))
			if implTrait != "" {
				d.header = implTrait + " for " + d.header
			}
		}
		seen[d.node.Id()] = d
		ps.defs = append(ps.defs, d)
	}
	// matching ends early, with nothing to tell it from the end, only
	// past the deadline
	return time.Now().Before(deadline)
}

// callNodes are the node kinds of a call in the grammars of the
// lang.ArityCounted languages: Java's method invocation and instance
// creation (C#'s too), C#'s invocation.
var callNodes = map[string]bool{"method_invocation": true, "object_creation_expression": true,
	"invocation_expression": true}

// callArity counts the arguments of the call whose callee name is name:
// the named children, comments aside, of the arguments of the nearest
// call node at most three levels up (C#'s generic name -> member access
// -> invocation). Zero (not counted) when there is none or when its
// arguments do not follow the name.
func (ps *parsed) callArity(name *sitter.Node) lang.Arity {
	n := name
	for range 3 {
		if n = n.Parent(); n == nil {
			return 0
		}
		if !callNodes[n.Kind()] {
			continue
		}
		args := n.ChildByFieldName("arguments")
		if args == nil || args.StartByte() < name.EndByte() {
			return 0
		}
		count := 0
		for i := range args.NamedChildCount() {
			if c := args.NamedChild(i); c != nil && !ps.sp.comments[c.Kind()] {
				count++
			}
		}
		return lang.ArityOf(count)
	}
	return 0
}

// codeEnd is the end of n without the comments and blank space it ends
// with: tree-sitter-scala closes a definition whose body is indented on
// the lines after "=" only at the next definition, so the doc comment of
// the next one ("def a(x: Int): Int =⏎  x + 1⏎⏎  /** Doubles y. */⏎  def
// b") was the end of a's chunk, and b's first line its last.
func (ps *parsed) codeEnd(n *sitter.Node) uint {
	end := n.EndByte()
	if ps.sp.name != "scala" {
		return end
	}
	for i := int(n.ChildCount()) - 1; i >= 0; i-- {
		c := n.Child(uint(i))
		if c == nil {
			continue
		}
		if !ps.sp.comments[c.Kind()] {
			return lastCodeEnd(ps, c)
		}
	}
	return end
}

// lastCodeEnd is codeEnd for a child: the end of its last descendant that
// is not a comment (an indented block ends with the comments after it).
func lastCodeEnd(ps *parsed, n *sitter.Node) uint {
	for n.ChildCount() > 0 {
		var last *sitter.Node
		for i := int(n.ChildCount()) - 1; i >= 0; i-- {
			if c := n.Child(uint(i)); c != nil && !ps.sp.comments[c.Kind()] {
				last = c
				break
			}
		}
		switch {
		case last == nil: // comments only
			return n.StartByte()
		case last.EndByte() < n.EndByte():
			return last.EndByte() // what follows it is comments and blank space
		}
		n = last
	}
	return n.EndByte()
}

// platformMethods are the methods every object, string or collection of
// the JVM and .NET has (java.lang.Object's, Collection's and Map's,
// String's and the stream's; .NET's Object and collection methods): on a
// value of unknown type such a call is the platform's far more often than
// a project method of that name (mybatis-3's "most called" was headed by
// ResultLoaderMap.size() and StrictMap.containsKey(Object), the targets
// of every list.size() and map.containsKey(k), and StrictMap.put had the
// calls of every HashMap's put). A project method of such a name is still
// a candidate, as a guess: cache.put(k, v) on a project Cache is listed,
// dashed, and walks follow it with --include-guesses.
var platformMethods = setOf(`equals hashCode toString getClass clone notify notifyAll wait finalize compareTo
	size isEmpty get put add remove contains clear containsKey containsValue keySet entrySet values iterator hasNext next stream forEach
	getOrDefault putIfAbsent computeIfAbsent addAll removeAll retainAll length charAt substring startsWith
	endsWith trim toLowerCase toUpperCase isBlank isPresent orElse orElseGet orElseThrow ifPresent
	Equals GetHashCode ToString GetType Add Remove Contains Clear ContainsKey TryGetValue GetEnumerator MoveNext CompareTo`)

// dropTemplateArgs returns a C++ qualified name without its template
// argument lists: "detail::swap_bytes<DataSize>" is "detail::swap_bytes",
// "std::vector<int>::size" "std::vector::size". An operator's name
// (operator<, operator<<=) is left as it is.
func dropTemplateArgs(s string) string {
	if !strings.Contains(s, "<") || strings.Contains(s, "operator") {
		return s
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '<':
			depth++
		case c == '>' && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	if depth != 0 {
		return s // unbalanced: not a template argument list
	}
	return strings.TrimSpace(b.String())
}

// phpReceiver reads the receiver of a PHP call (kind: its node's): $this
// and self:: or static:: are the class's own (self, recv "$this"), a
// property of $this or a variable is a value whose declaration
// declaredTypes reads (value "this.x" or "x"), parent:: makes the call
// "parent::m" (relate resolves it to the base class's method), and a
// class name (Foo::m, \App\Foo::m) a static call of that class.
func phpReceiver(rel *rawRel, kind string) {
	recv := rel.recv
	switch {
	case kind == "relative_scope" && recv == "parent":
		rel.text, rel.recv, rel.path = "parent::"+rel.text, "", true
	case kind == "relative_scope":
		rel.recv = "$this"
	case kind == "name" || kind == "qualified_name":
		rel.recv = recv[strings.LastIndexByte(recv, '\\')+1:]
		rel.recvStatic = true
	case recv == "$this":
	case strings.HasPrefix(recv, "$this->") && isIdent(recv[len("$this->"):]):
		rel.value = "this." + recv[len("$this->"):]
	case kind == "variable_name" && isIdent(recv[1:]):
		rel.value = recv[1:]
	}
}

// cppStdMethods are the member functions of the C++ standard library's
// strings, containers, smart pointers and streams that a call on a value
// of unknown type most often means (s.size(), map.find(k),
// v.push_back(x)): cereal's "most called" was headed by rapidxml's
// file::size, the target of every string's size() (platformMethods is
// the same for the JVM and .NET).
var cppStdMethods = setOf(`size length empty clear begin end cbegin cend rbegin rend front back data c_str
	push_back pop_back emplace_back push_front pop_front emplace_front emplace emplace_hint insert erase find count
	contains at reserve resize capacity shrink_to_fit swap substr append compare starts_with ends_with
	lower_bound upper_bound equal_range get reset release use_count lock expired first second
	str good bad fail eof flush read write seekg tellg seekp tellp getline put peek ignore close open is_open
	load store exchange fetch_add fetch_sub wait notify_one notify_all join detach joinable`)

// staticReceivers are the languages whose calls on a capitalised name
// are calls of a class's static method or of an object's
// ("EnglishLanguage.GetTranslation(key)", Scala's "Decoder.instance(f)"),
// not calls on a value: a value's name starts in lower case there.
// Kotlin's capitalised receivers are read so too (an object's or a
// companion's "CommandLineParser.tokenize(argv)"), its other calls on
// values staying calls on a value.
var staticReceivers = map[string]bool{"java": true, "csharp": true, "scala": true}

// plainField reports a Scala val or var of one line whose value is not a
// function ("private val entries = mutable.LinkedHashMap.empty[K, V]"): a
// field, left to its class head or the text around it as Java's fields
// are. A longer value (an instance, "new Decoder[Json] { ... }") or a
// lambda is a definition.
func (ps *parsed) plainField(d *def) bool {
	if k := d.node.Kind(); k != "val_definition" && k != "var_definition" {
		return false
	}
	if v := d.node.ChildByFieldName("value"); v != nil && v.Kind() == "lambda_expression" {
		return false
	}
	return d.node.StartPosition().Row == d.node.EndPosition().Row
}

// addAlias records the local name under which an import is referenced.
func (ps *parsed) addAlias(imp, alias string) {
	if alias != "" {
		ps.alias[alias] = true
		return
	}
	if ps.sp.name == "python" {
		ps.alias[strings.SplitN(strings.Fields(imp + " ")[0], ".", 2)[0]] = true
		if i := strings.LastIndex(imp, " as "); i >= 0 {
			ps.alias[strings.TrimSpace(imp[i+4:])] = true
		}
		return
	}
	// Go: the package name is usually the last element, minus "go-"/".vN".
	last := imp[strings.LastIndex(imp, "/")+1:]
	if len(last) >= 2 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" && strings.Contains(imp, "/") {
		p := strings.TrimSuffix(imp, "/"+last)
		last = p[strings.LastIndex(p, "/")+1:]
	}
	if i := strings.Index(last, ".v"); i > 0 {
		last = last[:i]
	}
	last = strings.TrimPrefix(strings.TrimSuffix(last, "-go"), "go-")
	ps.alias[last] = true
}

// cDeclarator finds the function_declarator under a C/C++ declarator
// (through pointer/reference declarators) and returns its name, parameters
// and, for "Foo::bar", the scope as owner.
func cDeclarator(n *sitter.Node, ps *parsed) (name, params *sitter.Node, owner string) {
	for depth := 0; n != nil && depth < 8; depth++ {
		switch n.Kind() {
		case "function_declarator":
			name, params = n.ChildByFieldName("declarator"), n.ChildByFieldName("parameters")
			for name != nil && name.Kind() == "qualified_identifier" {
				if sc := name.ChildByFieldName("scope"); sc != nil {
					owner = ps.text(sc)
				}
				name = name.ChildByFieldName("name")
			}
			if name != nil && (name.Kind() == "parenthesized_declarator" || strings.HasSuffix(name.Kind(), "_declarator")) {
				return nil, nil, "" // function pointer, not a definition name
			}
			return name, params, owner
		case "pointer_declarator", "reference_declarator", "attributed_declarator":
			c := n.ChildByFieldName("declarator")
			if c == nil && n.NamedChildCount() > 0 {
				c = n.NamedChild(n.NamedChildCount() - 1)
			}
			n = c
		default:
			return nil, nil, ""
		}
	}
	return nil, nil, ""
}

func (ps *parsed) text(n *sitter.Node) string {
	s, e := n.StartByte(), n.EndByte()
	if e > uint(len(ps.buf)) || s > e {
		return ""
	}
	return string(ps.buf[s:e])
}

// line returns the 1-based line of byte offset off.
func (ps *parsed) line(off uint) int { return ps.idx.Line(int(off)) }

// endLine is the line of the last byte of [start,end).
func (ps *parsed) endLine(start, end uint) int {
	if end > start {
		end--
	}
	return ps.line(end)
}

// resolve links definitions to their enclosing definitions, drops nested
// functions and anonymous-class methods, and computes names and chunk ranges.
// scalaDetachedBodies gives a Scala class its body when the grammar read
// the body as a block of its own: a class whose extends clause ends a
// line and whose '{' opens the next one (scala-parser-combinators'
// PagedSeq) has no template_body, and the block after it held its
// members, which were chunked as functions of no class. The class's
// range then runs to the block's end, so its members are its own.
func (ps *parsed) scalaDetachedBodies() {
	for _, d := range ps.defs {
		if d.kind != KindClass || d.node.Kind() != "class_definition" || d.node.ChildByFieldName("body") != nil {
			continue
		}
		next := d.node.NextNamedSibling()
		for next != nil && (next.Kind() == "comment" || next.Kind() == "block_comment") {
			next = next.NextNamedSibling()
		}
		if next == nil || next.Kind() != "block" || strings.TrimSpace(string(ps.buf[d.node.EndByte():next.StartByte()])) != "" {
			continue
		}
		d.end = next.EndByte()
	}
}

// maxDefNesting is the deepest a definition may be nested in others and
// still be a unit of its own. Each nested class's name holds its
// enclosers' ("A.A.A"), so 60,000 nested classes in a 600 KB file (a
// hostile file; real code nests a few levels) made names of quadratic
// size, gigabytes of them, and the index run died out of memory; the
// walk up a deep tree for each definition was quadratic in time too.
const maxDefNesting = 24

func (ps *parsed) resolve() {
	sort.SliceStable(ps.defs, func(i, j int) bool {
		a, b := ps.defs[i], ps.defs[j]
		if a.start != b.start {
			return a.start < b.start
		}
		return a.end > b.end
	})
	var stack []*def
	for _, d := range ps.defs {
		for len(stack) > 0 && stack[len(stack)-1].end <= d.start {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].end >= d.end {
			d.parent = stack[len(stack)-1]
		}
		if len(stack) >= maxDefNesting {
			// its lines are its enclosing definition's text
			d.dropped = true
		}
		stack = append(stack, d)
	}
	for _, d := range ps.defs {
		if p := d.parent; p != nil && (p.kind == KindFunction || p.dropped) {
			// parents are resolved first: dropped propagates down
			d.dropped = p.dropped || !ps.sp.nestedUnits || d.kind == KindText ||
				ps.endLine(d.start, d.end)-ps.line(d.start)+1 < minNestedLines
		}
		if !d.dropped && d.kind == KindFunction && !ps.scanned && ps.inAnonymousBody(d) {
			d.dropped = true
		}
		if d.dropped {
			continue
		}
		cls := d.parent
		for cls != nil && cls.kind != KindClass {
			if cls.kind == KindFunction {
				// a definition nested in a function (spec.nestedUnits) is
				// lexically scoped: a function, not a method of a class
				// around the function
				cls = nil
				break
			}
			cls = cls.parent
		}
		switch d.kind {
		case KindClass:
			d.qual = d.name
			if cls != nil {
				d.qual = cls.qual + "." + d.name
				d.ownerName = cls.name
			}
		case KindFunction:
			d.ownerName = d.owner
			if d.ownerName == "" && cls != nil {
				d.ownerName = cls.name
				if ps.sp.qualifiedOwners {
					d.ownerName = cls.qual
				}
			}
			d.qual = d.name
			if d.ownerName != "" {
				d.qual = d.ownerName + "." + d.name
			}
		}
		if !ps.scanned {
			ps.extend(d)
		}
	}
}

// inAnonymousBody reports a method whose class body belongs to an anonymous
// class (Java `new Runnable() { ... }`, an enum constant body).
func (ps *parsed) inAnonymousBody(d *def) bool {
	if len(ps.sp.anonParents) == 0 {
		return false
	}
	n := d.node.Parent()
	for i := 0; n != nil && i < 2; i++ {
		if ps.sp.anonParents[n.Kind()] {
			return true
		}
		n = n.Parent()
	}
	return false
}

// extend moves a definition's start up over its wrappers, attributes and
// touching comments, and records the doc comment.
func (ps *parsed) extend(d *def) {
	n := d.node
	for {
		p := ps.sibs.parentOf(&n)
		if p == nil {
			break
		}
		if ps.sp.wrappers[p.Kind()] {
			n = *p
			continue
		}
		if ps.sp.singleWrappers[p.Kind()] && countKind(p, n.Kind()) == 1 {
			n = *p
			continue
		}
		break
	}
	end := n.EndByte()
	if n.Id() == d.node.Id() {
		end = d.end // without the comments it ends with (codeEnd)
	}
	d.endLine = ps.endLine(n.StartByte(), end)
	first := n
	var docs []string
	for s := ps.prevSibling(&first); s != nil; s = ps.prevSibling(s) {
		isComment := ps.sp.comments[s.Kind()]
		if !isComment && !ps.sp.attributes[s.Kind()] {
			break
		}
		if gap := int(first.StartPosition().Row) - int(s.EndPosition().Row); gap > 1 &&
			!(gap == 2 && len(docs) == 0 && isComment && ps.blockDoc(s)) {
			break
		}
		if pp := ps.sibs.prev(s); pp != nil && pp.EndPosition().Row == s.StartPosition().Row &&
			!ps.sp.comments[pp.Kind()] && !ps.sp.attributes[pp.Kind()] {
			break // a trailing comment of the previous statement
		}
		first = *s
		if isComment {
			docs = append(docs, ps.text(s))
		}
	}
	d.extStart = ps.overMasked(first.StartByte())
	d.startLine = ps.line(d.extStart)
	for i, j := 0, len(docs)-1; i < j; i, j = i+1, j-1 {
		docs[i], docs[j] = docs[j], docs[i]
	}
	d.doc = docText(strings.Join(docs, "\n"))
	if d.doc == "" && ps.sp.docstrings {
		d.doc = ps.docstring(&d.node)
	}
}

// blockDoc reports whether comment s is a documentation block ("/** ...
// */": JSDoc, Javadoc, PHPDoc, Doxygen) that is neither a licence nor a
// file's own (@file, @fileoverview, @overview, @module): such a block
// documents the declaration after it even across one blank line, as
// express writes its methods and as JSDoc and Javadoc read them; any other
// comment must touch the declaration.
func (ps *parsed) blockDoc(s *sitter.Node) bool {
	t := ps.text(s)
	return strings.HasPrefix(t, "/**") && !strings.HasPrefix(t, "/**/") && !licenseRe().MatchString(t) &&
		!fileDocRe().MatchString(t)
}

// fileDocRe matches the tags of a documentation block about its file.
var fileDocRe = lazyRegexp(`@(file|fileoverview|overview|module)\b`)

// overMasked moves a definition's first byte up over the lines just above
// it that macro masking blanked whole (maskCMacros: "ALLOC_FUNC" on the
// line before "void *curl_dbg_malloc(...)"): the annotation belongs to the
// definition's chunk, not to a text chunk of its own.
func (ps *parsed) overMasked(start uint) uint {
	cur := int(start)
	for {
		ls := cur
		for ls > 0 && ps.buf[ls-1] != '\n' {
			ls--
		}
		if strings.TrimSpace(string(ps.src[ls:cur])) != "" || ls == 0 {
			break // not the first token of its line, or the first line
		}
		prev := ls - 1 // the newline ending the line above
		ps0 := prev
		for ps0 > 0 && ps.buf[ps0-1] != '\n' {
			ps0--
		}
		orig := string(ps.src[ps0:prev])
		if strings.TrimSpace(string(ps.buf[ps0:prev])) != "" || strings.TrimSpace(orig) == "" {
			break
		}
		cur = ps0 + len(orig) - len(strings.TrimLeft(orig, " \t"))
	}
	return uint(cur)
}

// prevSibling is n's previous sibling or, when n opens its parent (a Python
// block starts at its first statement, leaving a leading comment outside),
// the parent's previous sibling.
func (ps *parsed) prevSibling(n *sitter.Node) *sitter.Node {
	if s := ps.sibs.prev(n); s != nil {
		return s
	}
	if p := ps.sibs.parentOf(n); p != nil && p.StartByte() == n.StartByte() {
		return ps.sibs.prev(p)
	}
	return nil
}

func countKind(p *sitter.Node, kind string) int {
	n := 0
	for _, c := range children(p, true) {
		if c.Kind() == kind {
			n++
		}
	}
	return n
}

// docstring returns a Python docstring: the first statement of the body when
// it is a string.
func (ps *parsed) docstring(n *sitter.Node) string {
	body := n.ChildByFieldName("body")
	if body == nil || body.NamedChildCount() == 0 {
		return ""
	}
	st := body.NamedChild(0)
	if st == nil || st.Kind() != "expression_statement" || st.NamedChildCount() == 0 {
		return ""
	}
	s := st.NamedChild(0)
	if s == nil || s.Kind() != "string" {
		return ""
	}
	t := ps.text(s)
	t = strings.TrimLeft(t, "rRbBuUfF")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(t, q) && strings.HasSuffix(t, q) && len(t) >= 2*len(q) {
			t = t[len(q) : len(t)-len(q)]
			break
		}
	}
	return dedentDoc(t)
}

// docText strips comment markers from a run of comments.
func docText(s string) string {
	if s == "" {
		return ""
	}
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"/**", "/*!", "/*", "*/", "///", "//!", "//", "#", "*"} {
			if strings.HasPrefix(l, p) {
				l = l[len(p):]
				break
			}
		}
		l = strings.TrimSuffix(strings.TrimSpace(l), "*/")
		out = append(out, strings.TrimSpace(l))
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func dedentDoc(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	for i := range ls {
		ls[i] = strings.TrimSpace(ls[i])
	}
	return strings.Join(ls, "\n")
}

// cleanType reduces a type expression to a simple type name: "*List[T]" ->
// "List", "Foo<T>::" -> "Foo", "a.b.Outer" stays qualified only through the
// last element.
func cleanType(s string) string {
	s = stripGenerics(strings.TrimSpace(s))
	s = strings.TrimRight(strings.TrimLeft(s, "*&( "), ":) ")
	if i := strings.LastIndex(s, "::"); i >= 0 {
		s = s[i+2:]
	}
	if i := strings.LastIndexAny(s, ". *&"); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// stripGenerics removes <...> and [...] parts (type arguments) of a type.
func stripGenerics(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch r {
		case '<', '[':
			depth++
			continue
		case '>', ']':
			if depth > 0 {
				depth--
				continue
			}
		}
		if depth == 0 {
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}

// signature is name + parameter list with whitespace collapsed.
func signature(name, params string) string {
	params = collapse(params)
	if params == "" {
		params = "()"
	} else if !strings.HasPrefix(params, "(") {
		params = "(" + params + ")"
	}
	params = strings.ReplaceAll(strings.ReplaceAll(params, "( ", "("), " )", ")")
	params = strings.ReplaceAll(params, " ,", ",")
	// a list written one parameter a line keeps its trailing comma
	// ("(\n  context,\n)"): it says nothing in one line
	if strings.HasSuffix(params, ",)") {
		params = params[:len(params)-2] + ")"
	}
	if len(params) > maxSignatureParams {
		cut := maxSignatureParams
		for cut > 0 && !utf8.RuneStart(params[cut]) {
			cut-- // never split a character: the cut ends before the rune that crosses it
		}
		params = params[:cut] + "…)"
	}
	return name + params
}

// maxSignatureParams is the longest parameter list, in bytes, a
// signature keeps; a longer one is cut at the last character boundary at
// or before it and ends in "…)".
const maxSignatureParams = 400

// maxMacroParses bounds the sub-parses of Rust item macros per file;
// maxMacroDepth their nesting.
const (
	maxMacroParses = 64
	maxMacroDepth  = 3
)

// macroItems parses the brace-delimited body of every item-position Rust
// macro invocation (cfg_rt! { ... }, cfg_net! { ... }) under n as Rust items
// and collects their definitions as if written outside the macro: the body
// is parsed over its own byte range of the file (macroBodyTree), so byte
// offsets and lines stay those of the file, and a macro inside an impl block still
// gives methods of that impl. Bodies that do not parse as items (mostly
// errors) are left as text, and so are all bodies once the file's parse
// deadline has passed. The returned trees must be closed after the
// definitions are used.
func (ps *parsed) macroItems(p *sitter.Parser, n *sitter.Node, depth int, budget *int, deadline time.Time) []*sitter.Tree {
	var trees []*sitter.Tree
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		kids := children(n, true)
		for i := range kids {
			c := &kids[i]
			switch c.Kind() {
			case "declaration_list":
				walk(c)
			case "impl_item", "mod_item", "trait_item":
				if b := c.ChildByFieldName("body"); b != nil {
					walk(b)
				}
			case "macro_invocation":
				if *budget <= 0 || depth >= maxMacroDepth {
					continue
				}
				m := c.ChildByFieldName("macro")
				tt := c.NamedChild(c.NamedChildCount() - 1)
				if m == nil || tt == nil || tt.Kind() != "token_tree" || ps.text(m) == "macro_rules" {
					continue
				}
				a, b := tt.StartByte(), tt.EndByte()
				if b-a < 2 || ps.buf[a] != '{' {
					continue
				}
				*budget--
				t := ps.macroBodyTree(p, a+1, b-1, deadline)
				if t == nil {
					continue // out of time: the macro stays text
				}
				r := t.RootNode()
				if r.HasError() {
					if _, span := countErrors(r); float64(span) > errorFallback*float64(b-a) {
						t.Close()
						continue
					}
				}
				trees = append(trees, t)
				ps.collect(r, deadline) // past the deadline, what was found so far
				trees = append(trees, ps.macroItems(p, r, depth+1, budget, deadline)...)
			}
		}
	}
	walk(n)
	return trees
}

// macroBodyTree parses ps.buf[a:b], the inside of an item macro's braces,
// as a file of its own: over that range only (the parser's included
// ranges), so the rest of the file is not lexed and the nodes keep the
// file's offsets and points. It gives the tree a parse of the whole buffer
// blanked outside the range gave (TestMacroBodyTreeEqualsBlankedBuffer).
// Nil when the parse ran out of time or the range is empty.
func (ps *parsed) macroBodyTree(p *sitter.Parser, a, b uint, deadline time.Time) *sitter.Tree {
	if b <= a {
		return nil
	}
	if err := p.SetIncludedRanges([]sitter.Range{{StartByte: a, EndByte: b, StartPoint: ps.point(a), EndPoint: ps.point(b)}}); err != nil {
		return nil
	}
	t := p.ParseWithOptions(readChunks(ps.buf), nil, &sitter.ParseOptions{ProgressCallback: func(sitter.ParseState) bool { return time.Now().After(deadline) }})
	_ = p.SetIncludedRanges(nil) // the whole document again, for the parser's next use
	return t
}

// foldOverloads folds TypeScript overload signatures into the
// implementation that follows them: "function f(a: string): T;" directly
// followed by more signatures and "function f(a: any) {...}" of the same
// name and owner make one chunk, starting at the first signature (whose doc
// it takes when the implementation has none). The signatures are then
// neither chunks nor graph nodes, so `callers f` finds one definition. A
// signature without an implementation (a .d.ts declaration) stays a chunk.
func (ps *parsed) foldOverloads() {
	var next *def // the next kept top-level-or-sibling definition after i
	for i := len(ps.defs) - 1; i >= 0; i-- {
		d := ps.defs[i]
		if d.dropped {
			continue
		}
		if d.kind == KindFunction && d.node.Kind() == "function_signature" && next != nil &&
			next.kind == KindFunction && next.name == d.name && next.ownerName == d.ownerName && next.parent == d.parent {
			next.extStart, next.startLine = d.extStart, d.startLine
			if d.doc != "" && (next.doc == "" || next.startLine == d.startLine) {
				next.doc = d.doc
			}
			d.dropped = true
			continue
		}
		if d.parent == nil || next == nil || next.parent == d.parent || next.start >= d.end {
			next = d
		}
	}
}

// parseBuffer returns a copy of src for tree-sitter with a UTF-8 BOM and
// every '\r' turned into spaces, so that byte offsets and line numbers stay
// those of the file on disk while CRLF files parse like LF ones.
func parseBuffer(src []byte) []byte {
	buf := make([]byte, len(src))
	copy(buf, src)
	if len(buf) >= 3 && string(buf[:3]) == lines.BOM {
		buf[0], buf[1], buf[2] = ' ', ' ', ' '
	}
	for i, b := range buf {
		if b == '\r' {
			buf[i] = ' '
		}
	}
	return buf
}

// joinKotlinConstructors returns buf with the line break before a primary
// constructor written on the line after its class header made a space:
//
//	public class Builder
//	internal constructor(val name: String) {
//
// is Kotlin, but tree-sitter-kotlin ends the class declaration at the line
// break, and the class, its members and the classes nested in it are
// lost (square/kotlinpoet's FileSpec, TypeSpec and PropertySpec). The
// length and every offset stay, and n counts the breaks joined.
func joinKotlinConstructors(buf []byte) (out []byte, n int) {
	for i := 0; i < len(buf); {
		j := bytes.IndexByte(buf[i:], '\n')
		if j < 0 {
			break
		}
		eol := i + j
		next := eol + 1
		k := bytes.IndexByte(buf[next:], '\n')
		end := len(buf)
		if k >= 0 {
			end = next + k
		}
		if kotlinCtorLine(buf[next:end]) && kotlinClassHeader(buf[i:eol]) {
			if out == nil {
				out = slices.Clone(buf)
			}
			out[eol] = ' '
			if eol > 0 && out[eol-1] == '\r' {
				out[eol-1] = ' '
			}
			n++
		}
		i = next
	}
	if out == nil {
		return buf, 0
	}
	return out, n
}

// kotlinCtorLine reports whether line starts (after blanks, modifiers and
// annotations) with the keyword constructor and its parameter list.
func kotlinCtorLine(line []byte) bool {
	s := strings.TrimSpace(string(line))
	for {
		switch {
		case strings.HasPrefix(s, "constructor"):
			return strings.HasPrefix(strings.TrimSpace(s[len("constructor"):]), "(")
		case strings.HasPrefix(s, "@"):
			w := strings.IndexAny(s, " \t(")
			if w < 0 {
				return false
			}
			if s[w] == '(' {
				e := strings.IndexByte(s, ')')
				if e < 0 {
					return false
				}
				w = e + 1
			}
			s = strings.TrimSpace(s[w:])
		default:
			w := strings.IndexAny(s, " \t")
			if w < 0 || !kotlinVisibility[s[:w]] {
				return false
			}
			s = strings.TrimSpace(s[w:])
		}
	}
}

var kotlinVisibility = set("private", "internal", "protected", "public")

// kotlinClassHeader reports whether line is a class header that the next
// line may continue with its primary constructor: it declares a class
// (or an enum, data, value, annotation or sealed class) and ends with its
// name or type parameters, not with a body, a parenthesis or a comma.
func kotlinClassHeader(line []byte) bool {
	s := strings.TrimSpace(string(line))
	if s == "" || strings.HasPrefix(s, "//") || strings.HasPrefix(s, "*") {
		return false
	}
	if c := s[len(s)-1]; c == '{' || c == '(' || c == ',' || c == ')' || c == '}' || c == '=' {
		return false
	}
	f := strings.Fields(s)
	for i, w := range f {
		if w == "class" && i+1 < len(f) {
			return true
		}
	}
	return false
}
