package chunk

import (
	"strings"
)

var (
	zigFnRe        = lazyRegexp(`^(?:pub\s+)?(?:(?:export|extern(?:\s+"[^"\n]*")?|inline|noinline)\s+)*fn\s+([A-Za-z_]\w*)\s*\(`)
	zigContainerRe = lazyRegexp(`^(?:pub\s+)?(?:const|var)\s+([A-Za-z_]\w*)\s*(?::[^=\n]*)?=\s*(?:extern\s+|packed\s+)?(struct|enum|union|opaque)\b`)
	zigTestRe      = lazyRegexp(`^test\s*("[^"\n]*"|[A-Za-z_]\w*)?\s*\{`)
	zigTypeBraces  = set("error", "struct", "enum", "union", "opaque")
	zigStop        = set("if", "while", "for", "switch", "return", "try", "catch", "orelse", "fn", "and", "or",
		"comptime", "test", "defer", "errdefer", "struct", "union", "enum", "error", "align", "callconv",
		"linksection", "addrspace", "else", "break", "continue", "suspend", "resume", "nosuspend", "asm", "volatile")
)

func isZigStd(s string) bool { return s == "std" || s == "builtin" || s == "root" }

// scanZig finds Zig functions, tests and container declarations
// (const Name = struct/enum/union/opaque { ... }). A function returning
// `type` (a generic type constructor) is a class whose inner functions are
// its methods. Functions without a body (extern) are not chunked.
func scanZig(s *scan) {
	code := s.code
	s.lineStarts(func(at int, w string) {
		switch w {
		case "pub", "fn", "export", "extern", "inline", "noinline":
			if m := zigFnRe().FindSubmatchIndex(code[at:]); m != nil {
				zigFn(s, at, shift(m, at))
				return
			}
		case "test":
			if m := zigTestRe().FindSubmatchIndex(code[at:]); m != nil {
				m = shift(m, at)
				params := ""
				if m[2] >= 0 {
					params = string(s.src[m[2]:m[3]]) // test "name" reads test("name")
				}
				s.add(KindFunction, "test", at, s.matchClose(m[1]-1), at, params, "")
			}
			return
		}
		if w == "pub" || w == "const" || w == "var" {
			if m := zigContainerRe().FindSubmatchIndex(code[at:]); m != nil {
				zigContainer(s, at, shift(m, at))
			}
		}
	})
	alias := map[string]string{} // const Editor = @import("Image/Editor.zig") -> Editor: Editor
	for i := 0; ; {
		k := indexFrom(code, i, "@import(")
		if k < 0 {
			break
		}
		q := skipSpace(code, k+len("@import("))
		if q < len(code) && code[q] == '"' {
			if e := indexFrom(s.src, q+1, `"`); e > q {
				imp := string(s.src[q+1 : e])
				s.imp(imp, k)
				if strings.HasSuffix(imp, ".zig") {
					ls := s.idx.Start(s.idx.Line(k))
					if m := zigImportRe().FindSubmatch(code[ls:k]); m != nil {
						stem := imp[strings.LastIndexByte(imp, '/')+1:]
						alias[string(m[1])] = strings.TrimSuffix(stem, ".zig")
					}
				}
			}
		}
		i = k + 1
	}
	from := len(s.rels)
	s.calls(0, len(code), zigStop)
	// Editor.flipVertically(...) after const Editor =
	// @import("Image/Editor.zig"): the function of that file, as a
	// required Lua module's is (luaModuleCalls)
	for i := range s.rels[from:] {
		r := &s.rels[from+i]
		if r.kind == RelCalls && r.recvIsName && alias[r.recv] != "" {
			r.text, r.recv, r.recvIsName = alias[r.recv]+"."+r.text, "", false
		}
	}
}

// zigImportRe reads the name an import is bound to: the text of its line
// before "@import(" ("pub const Editor = ").
var zigImportRe = lazyRegexp(`^\s*(?:pub\s+)?const\s+([A-Za-z_]\w*)\s*=\s*$`)

// shift adds off to every matched (non-negative) index of m.
func shift(m []int, off int) []int {
	for i := range m {
		if m[i] >= 0 {
			m[i] += off
		}
	}
	return m
}

// zigFn adds the function whose declaration zigFnRe matched at start.
func zigFn(s *scan, start int, m []int) {
	code := s.code
	open := m[1] - 1
	close := s.matchClose(open)
	body, isType := zigBody(code, close)
	if body < 0 {
		return // extern or otherwise body-less
	}
	kind := KindFunction
	if isType {
		kind = KindClass
	}
	s.add(kind, string(code[m[2]:m[3]]), start, s.matchClose(body), m[2], s.codeText(open, close), "")
}

// zigContainer adds "const Name = struct/enum/union/opaque { ... };".
func zigContainer(s *scan, start int, m []int) {
	code := s.code
	i := m[1]
	for i < len(code) && code[i] != '{' && code[i] != ';' {
		if code[i] == '(' {
			i = s.matchClose(i)
			continue
		}
		i++
	}
	if i >= len(code) || code[i] != '{' {
		return
	}
	end := s.matchClose(i)
	if j := skipSpace(code, end); j < len(code) && code[j] == ';' {
		end = j + 1
	}
	s.add(KindClass, string(code[m[2]:m[3]]), start, end, m[2], "", "")
}

// zigBody returns the offset of the '{' opening a function body that
// follows the parameter list ending at i, or -1 for a body-less
// declaration; isType reports a function returning `type`. Braces of
// error{...}, struct{...} and the like in the return type are skipped.
func zigBody(code []byte, i int) (int, bool) {
	for i < len(code) {
		switch code[i] {
		case ';', '=':
			return -1, false
		case '(', '[':
			i = matchClose(code, i)
			continue
		case '{':
			w := wordBefore(code, i)
			if zigTypeBraces[w] {
				i = matchClose(code, i)
				continue
			}
			return i, w == "type"
		}
		i++
	}
	return -1, false
}

// wordBefore returns the identifier just before offset i, skipping spaces
// and one parenthesised group ("union(enum) {" gives "union").
func wordBefore(code []byte, i int) string {
	j := prevNonSpace(code, i)
	if j >= 0 && code[j] == ')' {
		depth := 0
		for ; j >= 0; j-- {
			if code[j] == ')' {
				depth++
			} else if code[j] == '(' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		j = prevNonSpace(code, j)
	}
	e := j + 1
	for j >= 0 && isIdentByte(code[j]) {
		j--
	}
	return strings.TrimSpace(string(code[j+1 : max(e, j+1)]))
}
