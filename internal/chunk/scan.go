package chunk

import (
	"regexp"
	"strings"

	"github.com/coderag/coderag/internal/lines"
)

// Scanned languages: Zig, Swift, Lua, Elixir and Haskell have no tree-sitter
// grammar that links next to the official go-tree-sitter runtime (the Go
// module proxy refuses their grammar modules, and smacker/go-tree-sitter
// bundles a second copy of the C runtime: duplicate symbols at link time).
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
	// docPrefixes are masked-line prefixes of lines that belong to the next
	// definition (Swift/Elixir attributes "@"); comment-only lines always do.
	docPrefixes []string
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
	if end <= start || name == "" {
		return nil
	}
	d := &def{kind: kind, start: uint(start), end: uint(end), name: name, nameStart: uint(nameStart), params: params, owner: owner}
	first := s.idx.Line(start)
	var docs []string
	for l := first - 1; l >= 1; l-- {
		orig := strings.TrimSpace(s.origLine(l))
		if orig == "" {
			break
		}
		m := strings.TrimSpace(s.line(l))
		if m != "" && !hasAnyPrefix(m, s.docPrefixes) {
			break
		}
		if m == "" {
			docs = append(docs, orig)
		}
		first = l
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
		for _, p := range []string{"///", "//!", "//", "---", "-- |", "-- ^", "--", "/**", "/*", "*/", "*", "#", "{-|", "{-", "-}"} {
			if strings.HasPrefix(l, p) {
				l = l[len(p):]
				break
			}
		}
		l = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(l), "*/"), "-}"))
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

// imp records an import of text at byte off.
func (s *scan) imp(text string, off int) {
	if text != "" && len(s.rels) < 4*maxRelations {
		s.rels = append(s.rels, rawRel{kind: RelImports, text: text, start: uint(off)})
	}
}

// matchClose returns the offset just past the bracket closing the one at
// code[open], or len(code) when it is never closed. Only the bracket pair at
// code[open] is counted (comments and strings are already masked).
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
	"defdelegate", "defn", "defnp", "case", "init", "subscript", "spec", "callback", "macrocallback", "type", "typep", "opaque")

var callRe = regexp.MustCompile(`(?:([A-Za-z_][\w]*)\s*[.:]\s*)?\b([A-Za-z_][\w]*[!?]?)\s*\(`)

// calls records every "name(" and "recv.name(" in code[a:b] whose name is
// not in stop.
func (s *scan) calls(a, b int, stop map[string]bool) {
	for _, m := range callRe.FindAllSubmatchIndex(s.code[a:b], -1) {
		name := string(s.code[a+m[4] : a+m[5]])
		if stop[name] || a+m[4] > 0 && (s.code[a+m[4]-1] == '@' || s.code[a+m[4]-1] == '#') {
			continue // a keyword, a Zig builtin, a Swift attribute or directive
		}
		// a call on a member chain x.y.z(): only z is the callee
		if m[4] > 0 && a+m[4]-1 >= 0 {
			if p := prevNonSpace(s.code, a+m[4]); p >= 0 && s.code[p] == '.' && m[2] < 0 {
				s.call(name, "", a+m[4])
				continue
			}
		}
		if head := a + m[4]; m[2] >= 0 {
			head = a + m[2]
			if declKeywords[wordBefore(s.code, head)] {
				continue
			}
		} else if declKeywords[wordBefore(s.code, head)] {
			continue // the name of a definition or declaration, not a call
		}
		recv := ""
		if m[2] >= 0 {
			recv = string(s.code[a+m[2] : a+m[3]])
			if stop[recv] {
				recv = ""
			}
		}
		s.call(name, recv, a+m[4])
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
	idx := lines.NewIndex(src)
	s := &scan{src: buf, code: sl.mask(buf), idx: idx}
	sl.run(s)
	sp := sl.spec
	ps := &parsed{sp: &sp, path: path, src: src, buf: buf, idx: idx, alias: map[string]bool{}, defs: s.defs, rels: s.rels, scanned: true}
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
