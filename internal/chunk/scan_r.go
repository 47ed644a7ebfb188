package chunk

import (
	"strings"
)

var (
	rFnRe     = lazyRegexp("^([A-Za-z._][\\w.]*|`[^`\\n]+`)\\s*(?:<<?-|=)\\s*function\\s*\\(")
	rImportRe = lazyRegexp(`^(?:library|require|requireNamespace)\(\s*["']?([A-Za-z][\w.]*)`)
	rStop     = set("function", "if", "for", "while", "return", "repeat", "switch", "in", "else", "library", "require", "requireNamespace")
	rBase     = set("base", "stats", "utils", "methods", "graphics", "grDevices", "datasets", "tools", "parallel", "grid", "compiler", "splines", "stats4", "tcltk")
)

// maskR: # comments, "...", '...' and `...` names.
func maskR(src []byte) []byte {
	m := newMasker(src)
	for i := 0; i < len(src); {
		switch c := src[i]; c {
		case '#':
			i = m.toEOL(i)
		case '"', '\'', '`':
			i = m.quoted(i, c, false)
		default:
			i++
		}
	}
	return m.out
}

// scanR finds functions assigned to a name at the start of a line
// ("name <- function(x) {...}", "name = function(x) ...", "obj$m <- ...");
// a body without braces ends with its line. Functions defined inside
// functions stay in their enclosing chunk.
func scanR(s *scan) {
	code := s.code
	s.lineStarts(func(at int, w string) {
		if m := rImportRe().FindSubmatchIndex(code[at:]); m != nil {
			s.imp(string(s.src[at+m[2]:at+m[3]]), at)
			return
		}
		m := rFnRe().FindSubmatchIndex(code[at:])
		if m == nil {
			return
		}
		name := strings.Trim(string(s.src[at+m[2]:at+m[3]]), "`")
		open := at + m[1] - 1
		close := s.matchClose(open)
		end := lineEnd(code, close)
		if b := skipSpace(code, close); b < len(code) && code[b] == '{' {
			end = s.matchClose(b)
		}
		s.add(KindFunction, name, at, end, at+m[2], s.codeText(open, close), "")
	})
	s.calls(0, len(code), rStop)
	for i := range s.rels { // R names hold dots: is.null(x) calls is.null
		if r := &s.rels[i]; r.kind == RelCalls && r.recv != "" && s.code[int(r.start)-1] == '.' {
			r.text, r.recv, r.recvIsName = r.recv+"."+r.text, "", false
		}
	}
}
