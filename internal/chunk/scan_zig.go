package chunk

import (
	"regexp"
	"strings"
)

var (
	zigFnRe        = regexp.MustCompile(`(?m)^[ \t]*(?:pub\s+)?(?:(?:export|extern(?:\s+"[^"\n]*")?|inline|noinline)\s+)*fn\s+([A-Za-z_]\w*)\s*\(`)
	zigContainerRe = regexp.MustCompile(`(?m)^[ \t]*(?:pub\s+)?(?:const|var)\s+([A-Za-z_]\w*)\s*(?::[^=\n]*)?=\s*(?:extern\s+|packed\s+)?(struct|enum|union|opaque)\b`)
	zigTestRe      = regexp.MustCompile(`(?m)^[ \t]*test\s*("[^"\n]*"|[A-Za-z_]\w*)?\s*\{`)
	zigImportRe    = regexp.MustCompile(`@import\(\s*"`)
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
	for _, m := range zigFnRe.FindAllSubmatchIndex(code, -1) {
		start := skipSpace(code, m[0])
		name := string(code[m[2]:m[3]])
		open := m[1] - 1
		close := matchClose(code, open)
		body, isType := zigBody(code, close)
		if body < 0 {
			continue
		}
		end := matchClose(code, body)
		kind := "function"
		if isType {
			kind = "class"
		}
		s.add(kind, name, start, end, m[2], string(s.src[open:close]), "")
	}
	for _, m := range zigContainerRe.FindAllSubmatchIndex(code, -1) {
		start := skipSpace(code, m[0])
		i := m[1]
		for i < len(code) && code[i] != '{' && code[i] != ';' {
			if code[i] == '(' {
				i = matchClose(code, i)
				continue
			}
			i++
		}
		if i >= len(code) || code[i] != '{' {
			continue
		}
		end := matchClose(code, i)
		if j := skipSpace(code, end); j < len(code) && code[j] == ';' {
			end = j + 1
		}
		s.add("class", string(code[m[2]:m[3]]), start, end, m[2], "", "")
	}
	for _, m := range zigTestRe.FindAllSubmatchIndex(code, -1) {
		start := skipSpace(code, m[0])
		params := ""
		if m[2] >= 0 {
			params = string(s.src[m[2]:m[3]]) // test "name" reads test("name")
		}
		s.add("function", "test", start, matchClose(code, m[1]-1), start, params, "")
	}
	for _, m := range zigImportRe.FindAllIndex(code, -1) {
		q := m[1] - 1
		e := indexFrom(s.src, q+1, `"`)
		if e > q {
			s.imp(string(s.src[q+1:e]), m[0])
		}
	}
	s.calls(0, len(code), zigStop)
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
