package chunk

import (
	"strings"

	"github.com/coderag/coderag/internal/lines"
)

// Scanned languages: Zig, Swift, Lua, Elixir, Haskell, Julia and R have no
// tree-sitter grammar that links next to the official go-tree-sitter runtime
// (the Go module proxy refuses their grammar modules, and
// smacker/go-tree-sitter bundles a second copy of the C runtime: duplicate
// symbols at link time; the repository holds no vendored C sources).
// They are chunked by definition scanners written here, in Go. A scanner
// first masks comments and string contents with spaces (same byte offsets,
// newlines kept), then finds definitions on the masked text with the
// language's block structure (braces, do/end, function/end, layout) and
// hands them to the same resolve/chunks/relations code as the AST path, so
// names, owners, gap text chunks and relations follow one convention.

// scanner finds the definitions and raw relations of one file. src is the
// parse buffer (BOM and '\r' blanked), code its masked copy.
type scanner func(s *scan)

// scanSpecs lists every scanned language. Keys are lang.Detect names.
var scanSpecs = map[string]*scanLang{
	"zig":     {spec: spec{name: "zig", isStd: isZigStd, cleanImport: unquote}, mask: maskZig, run: scanZig},
	"swift":   {spec: spec{name: "swift", isStd: isSwiftStd, cleanImport: collapse}, mask: maskSwift, run: scanSwift},
	"lua":     {spec: spec{name: "lua", isStd: func(string) bool { return false }, cleanImport: unquote}, mask: maskLua, run: scanLua},
	"elixir":  {spec: spec{name: "elixir", qualifiedOwners: true, isStd: isElixirStd, cleanImport: collapse}, mask: maskElixir, run: scanElixir},
	"haskell": {spec: spec{name: "haskell", isStd: isHaskellStd, cleanImport: collapse, localCallsOnly: true}, mask: maskHaskell, run: scanHaskell},
	"julia":   {spec: spec{name: "julia", qualifiedOwners: true, isStd: isJuliaStd, cleanImport: collapse}, mask: maskJulia, run: scanJulia},
	"r":       {spec: spec{name: "r", isStd: func(s string) bool { return rBase[s] }, cleanImport: collapse}, mask: maskR, run: scanR},
}

type scanLang struct {
	spec spec
	mask func(src []byte) []byte
	run  scanner
}

// scan is the state of one scanned file.
type scan struct {
	src  []byte // parse buffer
	code []byte // masked: comments and string contents are spaces
	idx  *lines.Index
	defs []*def
	rels []rawRel
	// skips are byte ranges deliberately not chunked (import lines), as
	// @skip captures are for grammars.
	skips [][2]uint
	// docPrefixes are masked-line prefixes of lines that belong to the next
	// definition (Swift/Elixir attributes "@"); comment-only lines always do.
	docPrefixes []string
	// closeAt: the brackets' matches (bracketTable), made at the first
	// matchClose
	closeAt []int32
}

// line returns line l (1-based) of the masked text, without its newline.
func (s *scan) line(l int) string {
	a, b := s.idx.Start(l), s.idx.End(l, s.code)
	return string(s.code[a:b])
}

// origLine returns line l of the source without its newline.
func (s *scan) origLine(l int) string {
	a, b := s.idx.Start(l), s.idx.End(l, s.src)
	return string(s.src[a:b])
}

// add records a definition over bytes [start,end) whose name starts at
// nameStart; its chunk extends upwards over touching comment and attribute
// lines.
func (s *scan) add(kind, name string, start, end, nameStart int, params, owner string) *def {
	if end > len(s.src) {
		end = len(s.src)
	}
	// a definition left open runs to the end of the file: its last line is
	// the last one with text, not an empty line after it (whose bytes the
	// chunk would not hold)
	for end > start && strings.ContainsRune(" \t\r\n", rune(s.src[end-1])) {
		end--
	}
	if end <= start || name == "" {
		return nil
	}
	d := &def{kind: kind, start: uint(start), end: uint(end), name: name, nameStart: uint(nameStart), params: params, owner: owner}
	first := s.idx.Line(start)
	var docs []string
	// heredoc: inside a triple-quoted string met from its closing line
	// (@doc """ ... """ in Elixir, a docstring in Julia), whose blank
	// lines are the doc's paragraphs; it is the doc when its opening line
	// is a bare """ or a doc prefix's (@doc """), else (@moduledoc """, a
	// literal) the walk goes back to where it stood before it (at*)
	heredoc, atFirst, atDocs := false, 0, 0
	for l := first - 1; l >= 1; l-- {
		orig := strings.TrimSpace(s.origLine(l))
		m := strings.TrimSpace(s.line(l))
		if heredoc {
			if m == "" { // a line of the string, blank or not
				docs = append(docs, orig)
				first = l
				continue
			}
			heredoc = false
			if !isHeredocDelim(m) && (!hasAnyPrefix(m, s.docPrefixes) || !isHeredocDelim(m[len(m)-min(3, len(m)):])) {
				first, docs = atFirst, docs[:atDocs]
				break
			}
			if isHeredocDelim(m) {
				docs = append(docs, orig) // a bare opening quote, as below
			}
			first = l
			continue
		}
		if orig == "" || separatorLine(orig) {
			break // a blank line, or a banner ("-----", "#####") ending the section above
		}
		quoted := m != "" && strings.Trim(m, "\"'` \t") == "" // a line of a docstring
		if m != "" && !quoted && !hasAnyPrefix(m, s.docPrefixes) {
			break
		}
		if quoted && isHeredocDelim(m) {
			heredoc, atFirst, atDocs = true, first, len(docs)
		}
		if m == "" || quoted {
			docs = append(docs, orig)
		}
		first = l
	}
	if heredoc { // the file's first line is inside the string: no doc
		first, docs = atFirst, docs[:atDocs]
	}
	for i, j := 0, len(docs)-1; i < j; i, j = i+1, j-1 {
		docs[i], docs[j] = docs[j], docs[i]
	}
	d.extStart = uint(s.idx.Start(first))
	d.startLine = first
	d.endLine = s.idx.Line(max(end-1, start))
	d.doc = scanDoc(docs)
	s.defs = append(s.defs, d)
	return d
}

// isHeredocDelim reports a triple quote, which opens or closes a
// multi-line string in Elixir, Julia and Python.
func isHeredocDelim(s string) bool { return s == `"""` || s == "'''" }

func hasAnyPrefix(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// scanDoc strips comment markers of the scanned languages from doc lines.
func scanDoc(ls []string) string {
	var out []string
	for _, l := range ls {
		for _, p := range []string{"///", "//!", "//", "---", "-- |", "-- ^", "--", "/**", "/*", "*/", "*", "#'", "#", "{-|", "{-", "-}", `"""`} {
			if strings.HasPrefix(l, p) {
				l = l[len(p):]
				break
			}
		}
		l = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(l), "*/"), "-}"))
		if strings.HasSuffix(l, `"""`) {
			l = strings.TrimSpace(strings.TrimSuffix(l, `"""`))
		} else if len(l) >= 2 && l[0] == '"' && l[len(l)-1] == '"' {
			l = l[1 : len(l)-1] // a one-line docstring
		}
		l = strings.TrimSpace(strings.TrimPrefix(l, "|"))
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// call records a call of name at byte off, with an optional receiver.
func (s *scan) call(name, recv string, off int) {
	if len(s.rels) < 4*maxRelations {
		s.rels = append(s.rels, rawRel{kind: RelCalls, text: name, recv: recv, recvIsName: recv != "", start: uint(off)})
	}
}

// imp records an import of text at byte off. When the import is the whole
// statement of its line (a top-level "import X", "const x =
// @import(...)", "local x = require(...)"), the line is not chunked, as
// imports are not for grammar languages.
func (s *scan) imp(text string, off int) {
	if text != "" && len(s.rels) < 4*maxRelations {
		s.rels = append(s.rels, rawRel{kind: RelImports, text: text, start: uint(off)})
	}
	l := s.idx.Line(off)
	a, b := s.idx.Start(l), s.idx.End(l, s.code)
	line := strings.TrimSpace(string(s.code[a:b]))
	if a == 0 || s.code[a] != ' ' && s.code[a] != '\t' || hasAnyPrefix(line, []string{"import ", "local "}) {
		if !strings.Contains(line, "{") && !strings.Contains(line, "function") {
			s.skips = append(s.skips, [2]uint{uint(a), uint(b)})
		}
	}
}

// separatorLine reports a comment line of at least 8 characters made of
// one repeated punctuation character and spaces ("------------" in
// Haskell, "########" in a shell script): a banner between sections, not
// documentation of what follows.
func separatorLine(line string) bool {
	if len(line) < 8 {
		return false
	}
	c := line[0]
	if !strings.ContainsRune("-=#*/~+_", rune(c)) {
		return false
	}
	for i := 1; i < len(line); i++ {
		if line[i] != c && line[i] != ' ' {
			return false
		}
	}
	return true
}

// matchClose returns the offset just past the bracket closing the one at
// code[open], or len(code) when it is never closed. Only the bracket pair at
// code[open] is counted (comments and strings are already masked).
// matchClose returns the offset just past the bracket closing the one at
// s.code[open] (matchClose's answer), from a table of every bracket's
// match made in one pass at the first call: a scanner asks once per block,
// and a file of unclosed blocks made each ask read to the end (a hostile
// 1 MB Swift file of "func f() {" lines took 47 s).
func (s *scan) matchClose(open int) int {
	if s.closeAt == nil {
		s.closeAt = bracketTable(s.code)
	}
	switch s.code[open] {
	case '(', '[', '{':
		return int(s.closeAt[open])
	}
	return open + 1
}

// bracketTable returns, for each offset of code holding an opening
// bracket, the offset just past its closing one, each kind of bracket
// counted on its own as matchClose counts them (len(code) when unclosed).
func bracketTable(code []byte) []int32 {
	t := make([]int32, len(code))
	var stacks [3][]int32
	kind := func(c byte) (int, bool) {
		switch c {
		case '(':
			return 0, true
		case '[':
			return 1, true
		case '{':
			return 2, true
		case ')':
			return 0, false
		case ']':
			return 1, false
		case '}':
			return 2, false
		}
		return -1, false
	}
	for i, c := range code {
		k, open := kind(c)
		switch {
		case k < 0:
		case open:
			stacks[k] = append(stacks[k], int32(i))
		case len(stacks[k]) > 0:
			t[stacks[k][len(stacks[k])-1]] = int32(i + 1)
			stacks[k] = stacks[k][:len(stacks[k])-1]
		}
	}
	for _, st := range stacks {
		for _, o := range st {
			t[o] = int32(len(code))
		}
	}
	return t
}

func matchClose(code []byte, open int) int {
	o := code[open]
	var c byte
	switch o {
	case '(':
		c = ')'
	case '[':
		c = ']'
	case '{':
		c = '}'
	default:
		return open + 1
	}
	depth := 0
	for i := open; i < len(code); i++ {
		switch code[i] {
		case o:
			depth++
		case c:
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(code)
}

// declKeywords precede a definition's name: "fn push(", "func read(",
// "function M.open(", "def check(", "case notFound(" are not calls.
var declKeywords = set("fn", "func", "function", "def", "defp", "defmacro", "defmacrop", "defguard", "defguardp",
	"defdelegate", "defn", "defnp", "case", "init", "subscript", "macro", "spec", "callback", "macrocallback", "type", "typep", "opaque")

// calls records every "name(" and "recv.name(" (or "recv:name(") in
// code[a:b] whose name is not in stop and that does not name a definition
// (declKeywords before it). It is a hand-written pass: regular expressions
// over whole files cost more than the rest of a scan.
func (s *scan) calls(a, b int, stop map[string]bool) {
	code := s.code
	for i := a; i < b; {
		c := code[i]
		if !isIdentByte(c) || c >= '0' && c <= '9' {
			i++
			continue
		}
		j := i
		for j < b && isIdentByte(code[j]) {
			j++
		}
		if j < b && (code[j] == '!' || code[j] == '?') && j+1 < b && code[j+1] == '(' {
			j++ // Elixir/Ruby-style names: valid?(x), put!(x)
		}
		name, start := string(code[i:j]), i
		k := j
		for k < b && (code[k] == ' ' || code[k] == '\t') {
			k++
		}
		i = j
		if k >= b || code[k] != '(' || stop[name] || start > 0 && (code[start-1] == '@' || code[start-1] == '#') {
			continue // not a call, a keyword, a Zig builtin, a Swift attribute or directive
		}
		recv, head := "", start
		// a receiver before '.', or before a ':' written against both the
		// receiver and the name (Lua's obj:method()); a ':' followed by
		// a space ends a keyword or label ("delay: integer_opt!(opts)",
		// Swift's "f(by: g(x))"), after which the call is plain
		if p := prevNonSpace(code, start); p >= 0 && (code[p] == '.' || code[p] == ':' && p == start-1 && (p == 0 || code[p-1] != ':')) {
			q := p
			for q > 0 && (code[q-1] == ' ' || code[q-1] == '\t') {
				q--
			}
			r := q
			for r > 0 && isIdentByte(code[r-1]) {
				r--
			}
			if r < q {
				recv, head = string(code[r:q]), r
			}
			if code[p] == ':' && recv == "" {
				continue // an Elixir atom or keyword ":name(" is not a call
			}
		}
		if declKeywords[wordBefore(code, head)] {
			continue // the name of a definition or declaration, not a call
		}
		if stop[recv] {
			recv = ""
		}
		s.call(name, recv, start)
	}
}

// lineStarts calls fn with the offset of every line's first non-blank byte
// and the word there ("" when it does not start with an identifier).
func (s *scan) lineStarts(fn func(at int, word string)) {
	for l := 1; l <= s.idx.Count(); l++ {
		a := s.idx.Start(l)
		for a < len(s.code) && (s.code[a] == ' ' || s.code[a] == '\t') {
			a++
		}
		if a < len(s.code) && s.code[a] != '\n' {
			fn(a, identAt(s.code, a))
		}
	}
}

func prevNonSpace(code []byte, i int) int {
	for i--; i >= 0; i-- {
		if code[i] != ' ' && code[i] != '\t' && code[i] != '\n' {
			return i
		}
	}
	return -1
}

// parseScanned chunks one file of a scanned language.
func parseScanned(sl *scanLang, path string, src []byte) *FileResult {
	buf := parseBuffer(src)
	idx := lines.NewIndex(src)
	s := &scan{src: buf, code: sl.mask(buf), idx: idx}
	sl.run(s)
	s.dropDefinitionNames()
	sp := sl.spec
	ps := &parsed{sp: &sp, path: path, src: src, buf: buf, idx: idx, alias: map[string]bool{}, defs: s.defs, rels: s.rels, skips: s.skips, scanned: true}
	ps.resolve()
	res := &FileResult{Language: sp.name}
	res.Chunks = ps.chunks()
	res.Relations = ps.relations()
	return res
}

// identAt returns the identifier starting at code[i] ("" if none).
func identAt(code []byte, i int) string {
	j := i
	for j < len(code) && isIdentByte(code[j]) {
		j++
	}
	if j == i || code[i] >= '0' && code[i] <= '9' {
		return ""
	}
	return string(code[i:j])
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

func skipSpace(code []byte, i int) int {
	for i < len(code) && (code[i] == ' ' || code[i] == '\t' || code[i] == '\n') {
		i++
	}
	return i
}

// lineEnd returns the offset of the '\n' ending the line holding i (or len).
func lineEnd(code []byte, i int) int {
	for i < len(code) && code[i] != '\n' {
		i++
	}
	return i
}

// codeText returns src[a:b] without its comments: on every line only the
// text up to the last byte that is code in the masked copy is kept (what
// follows it there was masked, and an unclosed-string-free tail that was
// masked is a comment), and lines holding no code are dropped. Used for
// parameter lists, which may hold doc comments ("fn f(a: u8, /// the
// count\n b: u8)").
func (s *scan) codeText(a, b int) string {
	var out []string
	for a < b {
		e := a
		for e < b && s.code[e] != '\n' {
			e++
		}
		last := -1
		for i := a; i < e; i++ {
			if s.code[i] != ' ' && s.code[i] != '\t' {
				last = i
			}
		}
		if last >= 0 {
			out = append(out, string(s.src[a:last+1]))
		}
		a = e + 1
	}
	return strings.Join(out, "\n")
}

// dropDefinitionNames removes the calls found at the name of a definition
// ("width(x) = ..." in Julia is a definition, not a call of width).
func (s *scan) dropDefinitionNames() {
	names := make(map[uint]bool, len(s.defs))
	for _, d := range s.defs {
		names[d.nameStart] = true
	}
	out := s.rels[:0]
	for _, r := range s.rels {
		if r.kind != RelCalls || !names[r.start] {
			out = append(out, r)
		}
	}
	s.rels = out
}
