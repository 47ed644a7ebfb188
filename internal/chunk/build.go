package chunk

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/coderag/coderag/internal/lang"
)

// chunks turns the resolved definitions into chunks, then covers the
// remaining significant lines with text chunks.
func (ps *parsed) chunks() []Chunk {
	t := newTexter(ps.path, ps.sp.name, ps.src)
	var out []Chunk
	kids := map[*def][]*def{} // kept definitions by their parent
	for _, d := range ps.defs {
		if !d.dropped && d.parent != nil && !d.ownerOnly {
			kids[d.parent] = append(kids[d.parent], d)
		}
	}
	for _, d := range ps.defs {
		if d.dropped {
			continue
		}
		switch d.kind {
		case KindClass:
			if d.ownerOnly {
				continue
			}
			end := max(ps.line(d.start)+classHeadLines-1, ps.line(d.nameStart))
			end = min(end, d.endLine)
			if k := kids[d]; len(k) > 0 && k[0].startLine <= end {
				// a class head or an impl block's head stops before its
				// first member: the header "impl From<ParserNumber> for
				// Number {" and the method under it are not returned
				// twice. (Measured on the semble dev subset, where labels
				// of a class often start at its first member: 0.831
				// with 6-line heads, 0.832 with heads cut.)
				end = max(k[0].startLine-1, ps.line(d.nameStart))
			}
			for end > ps.line(d.nameStart) && !significant(t.line(end)) && strings.TrimSpace(t.line(end)) == "" {
				end--
			}
			kind, name := KindClass, d.qual
			if d.header != "" {
				kind, name = KindImpl, d.header
			}
			// a doc comment of hundreds of lines (gson's JsonReader) leaves
			// the head its last maxDefLines lines; the rest is gap text
			start := max(d.startLine, end-maxDefLines+1)
			c := t.chunk(kind, name, d.ownerName, start, end, d.endLine)
			c.Doc = d.doc
			d.chunkName = c.Name
			out = append(out, c)
		case KindFunction:
			kind := KindFunction
			if d.ownerName != "" {
				kind = KindMethod
			}
			sig := signature(d.name, d.params)
			name := sig
			if d.ownerName != "" {
				name = d.ownerName + "." + sig
			}
			if d.accessor != "" {
				name = accessorName(d.qual, d.accessor)
			}
			if !ps.scanned && d.node.Kind() == "macro_definition" {
				kind, name, sig = KindMacro, d.name+"!", ""
			}
			ps := ps.pieces(t, d, kids[d])
			c := t.chunk(kind, name, d.ownerName, ps[0][0], ps[0][1], d.endLine)
			c.Signature, c.Doc = sig, d.doc
			d.chunkName = c.Name
			out = append(out, c)
			for k, p := range ps[1:] {
				out = append(out, t.chunk(KindText, partName(d.qual, k+2, len(ps)), d.ownerName, p[0], p[1], p[1]))
			}
		case KindText:
			before := len(t.out)
			t.split(d.startLine, d.endLine, d.name, "")
			for _, c := range t.out[before:] {
				c.Doc = d.doc
				out = append(out, c)
			}
		}
	}
	ps.fillGaps(t, &out)
	if len(out) == 0 {
		return TextChunks(ps.path, ps.sp.name, ps.src)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].StartLine != out[j].StartLine {
			return out[i].StartLine < out[j].StartLine
		}
		return out[i].DeclEndLine > out[j].DeclEndLine
	})
	return out
}

var licenseRe = lazyRegexp(`(?i)copyright|license|spdx-`)

// fillGaps emits text chunks for runs of uncovered lines holding at least
// minGapLines significant lines (a letter or digit); a shorter run joins the
// chunk next to it (joinGap). Package clauses, import blocks (@skip) and a
// leading license comment are deliberately not chunked.
func (ps *parsed) fillGaps(t *texter, out *[]Chunk) {
	n := ps.idx.Count()
	if n == 0 {
		return
	}
	covered := make([]bool, n+2)
	mark := func(a, b int) {
		for l := max(a, 1); l <= b && l <= n; l++ {
			covered[l] = true
		}
	}
	for _, c := range *out {
		mark(c.StartLine, c.EndLine)
	}
	for _, s := range ps.skips {
		mark(ps.line(s[0]), ps.endLine(s[0], s[1]))
	}
	mark(1, ps.licenseHeader(t))
	t.n = 0
	minGap := minGapLines
	var e *edges // built at the first small paragraph
	if ps.errors > 0 {
		minGap = 1 // around syntax errors nothing may be lost
	}
	// text emits lines a..b as text chunks, known to e once it is built
	text := func(a, b int) {
		before, from := len(t.out), len(*out)
		t.split(a, b, "", ps.classAt(ps.idx.Start(a)))
		*out = append(*out, t.out[before:]...)
		for i := from; e != nil && i < len(*out); i++ {
			e.add(*out, i, (*out)[i])
		}
	}
	for l := 1; l <= n; {
		if covered[l] {
			l++
			continue
		}
		a := l
		sig := 0
		for l <= n && !covered[l] {
			if significant(t.line(l)) {
				sig++
			}
			l++
		}
		if sig == 0 {
			continue
		}
		b := l - 1
		for !significant(t.line(a)) {
			a++
		}
		for !significant(t.line(b)) {
			b--
		}
		if sig < minGap {
			if e == nil {
				e = newEdges(*out)
			}
			// each paragraph on its own: a comment that ends one
			// function and a comment that leads the next are apart
			for p := a; p <= b; {
				q := p
				for q < b && !t.blank(q+1) {
					q++
				}
				if !joinGap(t, *out, e, p, q) && prose(t, p, q) {
					// a doc comment with no chunk beside it (a module
					// docstring or package comment next to the imports)
					// is a chunk of its own: it says what the file is for
					for p > 1 && !covered[p-1] && !t.blank(p-1) && !significant(t.line(p-1)) {
						p-- // its opening `/**` or `"""`
					}
					for q < n && !covered[q+1] && !t.blank(q+1) && !significant(t.line(q+1)) {
						q++
					}
					p, q = blockSpan(t, covered, p, q)
					text(p, q)
				}
				for p = q + 1; p <= b && !significant(t.line(p)); p++ {
				}
			}
			continue
		}
		text(a, b)
	}
}

// edges indexes chunks by their first and last lines, so that joinGap
// finds a region's neighbours without a scan of every chunk. Of chunks
// sharing a line, the innermost is kept (the later start, the earlier end).
type edges struct {
	startAt, endAt map[int]int // line -> index into the chunk slice
}

func newEdges(out []Chunk) *edges {
	e := &edges{startAt: map[int]int{}, endAt: map[int]int{}}
	for i, c := range out {
		e.add(out, i, c)
	}
	return e
}

func (e *edges) add(out []Chunk, i int, c Chunk) {
	if k, ok := e.endAt[c.EndLine]; !ok || c.StartLine > out[k].StartLine {
		e.endAt[c.EndLine] = i
	}
	if k, ok := e.startAt[c.StartLine]; !ok || c.EndLine < out[k].EndLine {
		e.startAt[c.StartLine] = i
	}
}

// joinGap grows the chunk nearest to a small uncovered paragraph (its
// significant lines a..b, fewer than minGapLines of them) over it, so that
// every significant line is in some chunk without a chunk of a line or two
// of its own: a section comment, a trailing comment, a one-line statement
// between two definitions, the last fields of a struct longer than its class
// head. A neighbour is a chunk whose last line comes before a, or whose first
// line comes after b, with only lines without a letter or digit between; the
// one fewer lines away wins, the next one on a tie (a comment leads what
// follows it). It reports false when neither neighbour is a chunk (an import
// block, a licence header, the file's edge); the paragraph is then left out,
// as before joining: a line or two beside imports is not worth a chunk.
func joinGap(t *texter, out []Chunk, e *edges, a, b int) bool {
	prev, next := -1, -1
	for l := a - 1; l > 0; l-- {
		if k, ok := e.endAt[l]; ok {
			prev = k
			break
		}
		if significant(t.line(l)) {
			break
		}
	}
	for l, n := b+1, t.idx.Count(); l <= n; l++ {
		if k, ok := e.startAt[l]; ok {
			next = k
			break
		}
		if significant(t.line(l)) {
			break
		}
	}
	k := next
	if next < 0 || prev >= 0 && a-out[prev].EndLine < out[next].StartLine-b {
		k = prev
	}
	if k < 0 {
		return false
	}
	c := out[k]
	start, end := min(c.StartLine, a), max(c.EndLine, b)
	g := t.chunk(c.Type, c.Name, c.Owner, start, end, max(c.DeclEndLine, end))
	g.Signature, g.Doc = c.Signature, c.Doc
	out[k] = g
	e.add(out, k, g)
	return true
}

// prose reports whether the paragraph of lines a..b is a doc comment or
// docstring: its first line opens with a comment marker or a string quote
// (or follows a line that is only an opener such as `"""` or `/**`), and it
// holds at least minProseWords words of two or more letters, or Han text.
// Compiler directives (`//go:build`, `//nolint`, `#include`, `#!`) are not
// prose: a `//` or `#` is followed by a space there.
func prose(t *texter, a, b int) bool {
	first := strings.TrimSpace(t.line(a))
	doc := false
	for _, m := range []string{"///", "//!", "// ", "/*", "*", "# ", "## ", "-- ", "--[[", "{-", "(*", ";", "%",
		`"""`, "'''", `r"""`, `"`, "'", "<!--", "=begin"} {
		if strings.HasPrefix(first, m) {
			doc = true
			break
		}
	}
	if !doc && a > 1 {
		prev := strings.TrimSpace(t.line(a - 1))
		for _, m := range []string{`"""`, "'''", "/*", "{-", "(*", "<!--", "--[[", "=begin"} {
			if strings.HasPrefix(prev, m) {
				doc = true
				break
			}
		}
	}
	if !doc {
		doc = inBlockComment(t, a)
	}
	if !doc {
		return false
	}
	words := 0
	for l := a; l <= b; l++ {
		run := 0
		for _, r := range t.line(l) {
			switch {
			case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
				run++
				continue
			case unicode.Is(unicode.Han, r):
				return true
			}
			if run >= 2 {
				words++
			}
			run = 0
		}
		if run >= 2 {
			words++
		}
	}
	return words >= minProseWords
}

// blockComments pairs the openers of block comments with their closers,
// for inBlockComment.
// ("(*" is left out: a C line may start "(*p).x").
var blockComments = [][2]string{{"/*", "*/"}, {"{-", "-}"}, {"<!--", "-->"}, {"--[[", "]]"}, {"=begin", "=end"}}

// inBlockComment reports whether line a lies inside a block comment
// opened on an earlier line and not closed before a, looking back at most
// 40 lines: a paragraph that a blank line parts from its comment's
// opening (jsondiffpatch's lcs.ts starts "/*", a blank line, then "LCS
// implementation that supports arrays or strings") is prose too.
func inBlockComment(t *texter, a int) bool {
	for l := a - 1; l >= 1 && l >= a-40; l-- {
		s := strings.TrimSpace(t.line(l))
		for _, bc := range blockComments {
			o, c := strings.LastIndex(s, bc[0]), strings.LastIndex(s, bc[1])
			if c >= 0 && (o < 0 || c >= o+len(bc[0])) {
				return false // closed before a
			}
			if o == 0 {
				return true
			}
		}
	}
	return false
}

// blockSpan widens the prose paragraph p..q to its whole block comment
// when it lies inside one whose other lines no chunk covers (blank lines
// and other paragraphs included): from the opener's line to the closer's,
// so that the comment is one chunk, not one per paragraph. Otherwise it
// returns p, q.
func blockSpan(t *texter, covered []bool, p, q int) (int, int) {
	if !inBlockComment(t, p) {
		return p, q
	}
	a := p
	for a > 1 && !covered[a-1] {
		a--
		if closer := closerOf(strings.TrimSpace(t.line(a))); closer != "" {
			b, n := q, len(covered)-2 // covered has lines 1..n and a sentinel
			for ; b < n && !covered[b+1] && !strings.Contains(t.line(b), closer); b++ {
			}
			if strings.Contains(t.line(b), closer) {
				return a, b
			}
			return p, q
		}
	}
	return p, q
}

// closerOf returns the closer of the block comment s starts
// (blockComments), or "".
func closerOf(s string) string {
	for _, bc := range blockComments {
		if strings.HasPrefix(s, bc[0]) {
			return bc[1]
		}
	}
	return ""
}

// licenseHeader returns the last line of a leading comment block that
// mentions a copyright or license, or 0. The block is the file's first run
// of comment lines (`//`, `#`, `*`, or any line inside a `/* ... */`); it
// ends at a blank line outside a block comment or before the first line of
// code (`#include` is code).
func (ps *parsed) licenseHeader(t *texter) int {
	n, l := ps.idx.Count(), 1
	for l <= n && strings.TrimSpace(t.line(l)) == "" {
		l++
	}
	a := l
	var text strings.Builder
	inBlock := false
scan:
	for ; l <= n; l++ {
		s := strings.TrimSpace(t.line(l))
		switch {
		case inBlock:
			inBlock = !strings.Contains(s, "*/")
		case s == "":
			break scan
		case strings.HasPrefix(s, "/*"):
			inBlock = !strings.Contains(s[2:], "*/")
		case strings.HasPrefix(s, "//") || strings.HasPrefix(s, "*") ||
			strings.HasPrefix(s, "#") && !strings.HasPrefix(s, "#include"):
		default:
			break scan // code: the block ended on the line before
		}
		text.WriteString(s)
		text.WriteByte('\n')
	}
	if l == a || !licenseRe().MatchString(text.String()) {
		return 0
	}
	return l - 1
}

func significant(s string) bool {
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127 {
			return true
		}
	}
	return false
}

// classAt returns the simple name of the innermost kept class whose whole
// declaration holds byte offset off, or "".
func (ps *parsed) classAt(off int) string {
	if d := ps.classDefAt(uint(off)); d != nil {
		return d.name
	}
	return ""
}

func (ps *parsed) classDefAt(off uint) *def {
	var best *def
	for _, d := range ps.defs {
		if d.kind == KindClass && !d.dropped && d.extStart <= off && off < d.end {
			if best == nil || d.extStart >= best.extStart {
				best = d
			}
		}
	}
	return best
}

// relations resolves the raw captures into relations, deduplicated per
// (kind, from, to) and capped at maxRelations.
func (ps *parsed) relations() []Relation {
	var funcs []*def
	classByName := map[string]*def{}
	localFuncs := map[string]bool{}
	for _, d := range ps.defs {
		if d.dropped {
			continue
		}
		switch d.kind {
		case KindFunction:
			funcs = append(funcs, d)
			localFuncs[d.name] = true
		case KindClass:
			if _, ok := classByName[d.name]; !ok {
				classByName[d.name] = d
			}
		}
	}
	seen := map[[3]string]bool{}
	var out []Relation
	form := lang.CallBare // set around a call: plain Go, on the method's receiver, on another value
	var args lang.Arity   // set around a counted call
	add := func(kind, from, to string, off uint) {
		if from == "" || to == "" || len(out) >= maxRelations {
			return
		}
		k := [3]string{kind, from, to}
		if kind == RelCalls {
			// overloads share their caller name (A.foo for foo(int) and
			// foo(String); cereal's 17 processImpl(T const & t)): each
			// keeps its own calls, told apart by the line (relate's
			// callerOf)
			if d := ps.callerDef(funcs, off); d != nil {
				k[1] += "@" + strconv.FormatUint(uint64(d.start), 10)
			}
		}
		if form != lang.CallBare {
			k[0] += "|" + form.String()
		}
		if args > 0 {
			// insert(a) and insert(a, b) may reach two overloads
			k[0] += "|" + strconv.Itoa(int(args))
		}
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, Relation{Path: ps.path, From: from, To: to, Kind: kind, Line: ps.line(off), Form: form, Args: args})
	}
	for _, d := range ps.defs {
		if d.dropped {
			continue
		}
		var from string
		switch {
		case d.kind == KindClass && d.parent != nil && d.parent.kind == KindClass:
			from = d.parent.qual
		case d.kind == KindFunction && d.ownerName != "":
			from = d.ownerName
			if c := enclosingClass(d); c != nil {
				from = c.qual
			} else if c := classByName[d.ownerName]; c != nil {
				from = c.qual
			}
		default:
			continue
		}
		to := d.qual
		if d.chunkName != "" {
			to = d.chunkName
		}
		add(RelContains, from, to, d.nameStart)
	}
	supers := map[*def]int{}
	for _, r := range ps.rels {
		if r.kind == "super" {
			c := ps.classDefAt(r.start)
			if c == nil || ps.sp.superKind == nil {
				continue
			}
			r.kind = ps.sp.superKind(c.node.Kind(), supers[c], r.text)
			supers[c]++
		}
		switch r.kind {
		case RelImports:
			if r.text != "" && !ps.sp.isStd(r.text) {
				add(RelImports, ps.path, r.text, r.start)
			}
		case RelExtends, RelImplements:
			if c := ps.classDefAt(r.start); c != nil {
				to := collapse(stripGenerics(r.text))
				if to != "object" && to != c.name {
					add(r.kind, c.qual, to, r.start)
				}
			}
		case RelCalls:
			to := collapse(r.text)
			if ps.sp.name == "ruby" && to == "new" && (r.recv == "" || r.recv == "self") {
				// new(...) or self.new(...) in a class's own methods makes
				// an instance of that class, as Foo.new makes a Foo: its
				// constructor, not whichever project method is named new
				if c := ps.classDefAt(r.start); c != nil {
					to, r.recv = c.name, ""
					if i := strings.LastIndex(to, "::"); i >= 0 {
						to = to[i+2:] // class A::Foo: Foo, as Foo.new is stored
					}
				}
			}
			if r.path {
				to = strings.ReplaceAll(stripGenerics(to), " ", "")
				if parts := strings.Split(to, "::"); len(parts) > 2 {
					to = strings.Join(parts[len(parts)-2:], "::")
				}
			} else if ps.sp.qualifyCalls && r.recvIsName && ps.alias[r.recv] {
				to = r.recv + "." + to
			}
			if ps.sp.localCallsOnly && !localFuncs[to] && !r.imported {
				continue
			}
			if ps.sp.name == "go" && r.recv == "" && !r.path {
				form = lang.CallPlain
			}
			if r.recv != "" && !r.path && !strings.Contains(to, ".") {
				self := false
				switch ps.sp.name {
				case "go":
					self = r.recvIsName && r.recv == ps.goReceiverName(ps.callerDef(funcs, r.start))
				case "python":
					self = r.recv == "self" || r.recv == "cls"
				case "javascript", "typescript", "tsx", "kotlin", "java", "csharp", "scala", "cpp":
					self = r.recv == "this"
				case "php":
					self = r.recv == "$this"
				case "rust", "ruby", "zig", "swift", "lua":
					// Zig's "self: *Self" and Lua's "function M:f()" by
					// convention, Swift's and Rust's keyword
					self = r.recv == "self"
				}
				switch {
				case self:
					form = lang.CallSelf
				case r.recv == "super" || ps.sp.name == "python" && strings.HasPrefix(r.recv, "super("):
					// super.m(), super().m(): the base class's m, not the
					// caller's own (relate resolves "super::m")
					to = "super::" + to
				case r.recvStatic:
					// EnglishLanguage.GetTranslation(key): the class's
					// method, wherever the class is (relate.resolveQualified)
					to = r.recv + "." + to
				case r.recvConst:
					// Foo.new(...) makes a Foo; Foo.bar(...) and
					// A::Foo.bar(...) call Foo's singleton method bar
					cls := r.recv
					if i := strings.LastIndex(cls, "::"); i >= 0 {
						cls = cls[i+2:]
					}
					if to == "new" {
						to = cls
					} else {
						to = cls + "." + to
						form = lang.CallValue
					}
				case r.recv != "super" && (ps.sp.name != "python" || !strings.HasPrefix(r.recv, "super(")):
					form = lang.CallValue
					if t, ok := ps.typed[r.start]; ok {
						to = t // the receiver's type is known: "T.m", "pkg.T.m"
					}
				}
			}
			if r.onValue {
				form = lang.CallValue
			}
			if t, ok := ps.typed[r.start]; ok && r.value != "" {
				// Java and C#: the receiver's declared class is known,
				// "T.m" (declaredTypes); a capitalised name so declared
				// is a field or property, not a class
				to, form = t, lang.CallValue
			}
			if ps.classAlias != nil {
				// PHP: a class imported under another name
				head, rest, _ := strings.Cut(to, ".")
				if real, ok := ps.classAlias[head]; ok {
					if rest == "" {
						to = real
					} else {
						to = real + "." + rest
					}
				}
			}
			args = r.args
			add(RelCalls, ps.caller(funcs, r.start), to, r.start)
			form, args = lang.CallBare, 0
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

func enclosingClass(d *def) *def {
	for p := d.parent; p != nil; p = p.parent {
		if p.kind == KindClass {
			return p
		}
	}
	return nil
}

// caller names the innermost kept function holding off ("Owner.name" or
// "name"), else the innermost class, else the file path.
// callerDef returns the function or method whose chunk holds byte off, or
// nil (top-level code, a class body).
func (ps *parsed) callerDef(funcs []*def, off uint) *def {
	i := sort.Search(len(funcs), func(i int) bool { return funcs[i].extStart > off }) - 1
	if i < 0 {
		return nil
	}
	// the last function starting before off holds it, or one of the
	// functions it is nested in does (spec.nestedUnits)
	for d := funcs[i]; d != nil; d = d.parent {
		if d.kind == KindFunction && d.extStart <= off && off < d.end {
			return d
		}
	}
	return nil
}

// goReceiverName returns the receiver variable of a Go method ("c" of
// "func (c *conn) serve()"), or "" for a function, an unnamed receiver or
// nil.
func (ps *parsed) goReceiverName(d *def) string {
	if d == nil || d.node.Kind() != "method_declaration" {
		return ""
	}
	recv := d.node.ChildByFieldName("receiver")
	if recv == nil {
		return ""
	}
	for i := uint(0); i < recv.NamedChildCount(); i++ {
		p := recv.NamedChild(i)
		if p == nil || p.Kind() != "parameter_declaration" {
			continue
		}
		if n := p.ChildByFieldName("name"); n != nil {
			return ps.text(n)
		}
	}
	return ""
}

func (ps *parsed) caller(funcs []*def, off uint) string {
	if d := ps.callerDef(funcs, off); d != nil {
		return d.qual
	}
	if c := ps.classDefAt(off); c != nil {
		return c.qual
	}
	return ps.path
}

// lazyRegexp returns a function that compiles expr on its first call and
// returns the same *regexp.Regexp after: the scanners' expressions cost
// nothing at process start (every command links this package, and most
// never chunk a Zig or Haskell file). It panics on a bad expression, as
// regexp.MustCompile does.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
