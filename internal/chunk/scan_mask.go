package chunk

import "bytes"

// Maskers for the scanned languages. Each returns a copy of src of the same
// length in which comments and the contents of string and character
// literals are spaces; newlines are kept (so lines and offsets match) and
// string delimiters stay, so `test "name"` still shows where the name is.

// masker is the shared state of the maskers.
type masker struct {
	src, out []byte
}

func newMasker(src []byte) *masker {
	out := make([]byte, len(src))
	copy(out, src)
	return &masker{src: src, out: out}
}

// blank replaces [a,b) with spaces, keeping newlines.
func (m *masker) blank(a, b int) {
	b = min(b, len(m.out))
	for i := a; i < b; i++ {
		if m.out[i] != '\n' {
			m.out[i] = ' '
		}
	}
}

// toEOL blanks from i to the end of the line and returns the newline offset.
func (m *masker) toEOL(i int) int {
	e := lineEnd(m.src, i)
	m.blank(i, e)
	return e
}

// quoted blanks the interior of a literal opened by the quote at src[i]
// ('\\' escapes; ends at the quote or, when oneLine, at a newline) and
// returns the offset just past it.
func (m *masker) quoted(i int, q byte, oneLine bool) int {
	j := i + 1
	for j < len(m.src) {
		c := m.src[j]
		if c == '\\' {
			j += 2
			continue
		}
		if c == q || oneLine && c == '\n' {
			break
		}
		j++
	}
	m.blank(i+1, min(j, len(m.src)))
	return min(j+1, len(m.src))
}

// until blanks from i to just past the first occurrence of end (or to the
// end of src) and returns that offset. keep characters at the start stay.
func (m *masker) until(i, keep int, end string) int {
	j := indexFrom(m.src, i+keep, end)
	if j < 0 {
		m.blank(i+keep, len(m.src))
		return len(m.src)
	}
	m.blank(i+keep, j)
	return j + len(end)
}

// indexFrom returns the offset of the first s in b at or after i, or -1.
func indexFrom(b []byte, i int, s string) int {
	if i < 0 || i > len(b) {
		return -1
	}
	j := bytes.Index(b[i:], []byte(s))
	if j < 0 {
		return -1
	}
	return i + j
}

func hasAt(b []byte, i int, s string) bool {
	return i+len(s) <= len(b) && string(b[i:i+len(s)]) == s
}

// nestedComment blanks a nestable block comment opened at i.
func (m *masker) nestedComment(i int, open, close string) int {
	depth := 0
	j := i
	for j < len(m.src) {
		switch {
		case hasAt(m.src, j, open):
			depth++
			j += len(open)
		case hasAt(m.src, j, close):
			depth--
			j += len(close)
			if depth == 0 {
				m.blank(i, j)
				return j
			}
		default:
			j++
		}
	}
	m.blank(i, len(m.src))
	return len(m.src)
}

// maskZig: // comments (and /// docs), "..." strings, '.' chars, \\ lines.
func maskZig(src []byte) []byte {
	m := newMasker(src)
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == '/' && hasAt(src, i, "//"):
			i = m.toEOL(i)
		case c == '\\' && hasAt(src, i, `\\`):
			i = m.toEOL(i)
		case c == '"' || c == '\'':
			i = m.quoted(i, c, true)
		default:
			i++
		}
	}
	return m.out
}

// maskSwift: // and nested /* */ comments, "...", """...""" and raw
// #"..."# strings (interpolations are blanked with their string).
func maskSwift(src []byte) []byte {
	m := newMasker(src)
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case hasAt(src, i, "//"):
			i = m.toEOL(i)
		case hasAt(src, i, "/*"):
			i = m.nestedComment(i, "/*", "*/")
		case c == '#' && (hasAt(src, i, `#"`) || hasAt(src, i, `##"`)):
			h := 0
			for i+h < len(src) && src[i+h] == '#' {
				h++
			}
			q := `"`
			if hasAt(src, i+h, `"""`) {
				q = `"""`
			}
			end := q
			for k := 0; k < h; k++ {
				end += "#"
			}
			i = m.until(i, h+len(q), end)
		case hasAt(src, i, `"""`):
			i = m.swiftString(i, `"""`)
		case c == '"':
			i = m.swiftString(i, `"`)
		default:
			i++
		}
	}
	return m.out
}

// swiftString blanks a Swift string, but not the code of its \( ... )
// interpolations ("\(text.escapingHTMLEntities())" calls a function),
// whose own strings it blanks.
func (m *masker) swiftString(i int, q string) int {
	from := i + len(q) // the start of the text not blanked yet
	j := from
	for j < len(m.src) {
		switch {
		case m.src[j] == '\\' && j+1 < len(m.src) && m.src[j+1] == '(':
			m.blank(from, j+2) // the text before, and "\("
			depth := 0
			for j++; j < len(m.src); j++ {
				if m.src[j] == '"' {
					e := indexFrom(m.src, j+1, `"`)
					if e < 0 {
						e = len(m.src) - 1
					}
					m.blank(j+1, e)
					j = e
					continue
				}
				if m.src[j] == '(' {
					depth++
				} else if m.src[j] == ')' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			// the closing ")" is blanked with the text after it
			from = j
			j++
		case m.src[j] == '\\':
			j += 2
		case hasAt(m.src, j, q):
			m.blank(from, j)
			return j + len(q)
		case q == `"` && m.src[j] == '\n':
			m.blank(from, j)
			return j
		default:
			j++
		}
	}
	m.blank(from, len(m.src))
	return len(m.src)
}

// luaLong returns the level of a long bracket "[==[" at i, or -1.
func luaLong(src []byte, i int) int {
	if i >= len(src) || src[i] != '[' {
		return -1
	}
	j := i + 1
	for j < len(src) && src[j] == '=' {
		j++
	}
	if j < len(src) && src[j] == '[' {
		return j - i - 1
	}
	return -1
}

func luaClose(level int) string {
	s := "]"
	for k := 0; k < level; k++ {
		s += "="
	}
	return s + "]"
}

// maskLua: -- and --[[ ]] comments, '...', "..." and [[...]] strings.
func maskLua(src []byte) []byte {
	m := newMasker(src)
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case hasAt(src, i, "--"):
			if lv := luaLong(src, i+2); lv >= 0 {
				e := indexFrom(src, i+2, luaClose(lv))
				if e < 0 {
					m.blank(i, len(src))
					return m.out
				}
				m.blank(i, e+lv+2)
				i = e + lv + 2
				continue
			}
			i = m.toEOL(i)
		case c == '"' || c == '\'':
			i = m.quoted(i, c, true)
		case c == '[' && luaLong(src, i) >= 0:
			lv := luaLong(src, i)
			i = m.until(i, lv+2, luaClose(lv))
		default:
			i++
		}
	}
	return m.out
}

// maskElixir: # comments, "..."/'...' with #{...} interpolation, """ and ”'
// heredocs, sigils (~r/.../, ~s(...), ~S"""...""") and ?x characters.
func maskElixir(src []byte) []byte {
	m := newMasker(src)
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '#':
			i = m.toEOL(i)
		case hasAt(src, i, `"""`) || hasAt(src, i, `'''`):
			i = m.until(i, 3, string(src[i:i+3]))
		case c == '"' || c == '\'':
			i = m.exString(i, c)
		case c == '~' && i+2 < len(src) && (src[i+1] >= 'a' && src[i+1] <= 'z' || src[i+1] >= 'A' && src[i+1] <= 'Z'):
			j := i + 1
			for j < len(src) && (src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z') {
				j++
			}
			if j >= len(src) {
				return m.out
			}
			d := src[j]
			var e int
			switch {
			case hasAt(src, j, `"""`) || hasAt(src, j, `'''`):
				e = m.until(j, 3, string(src[j:j+3]))
			case d == '(' || d == '[' || d == '{' || d == '<':
				e = matchCloseByte(src, j, d, map[byte]byte{'(': ')', '[': ']', '{': '}', '<': '>'}[d])
				m.blank(j+1, e-1)
			case d == '/' || d == '|' || d == '"' || d == '\'':
				e = m.quoted(j, d, false)
			default:
				e = j
			}
			m.blank(i, j)
			i = e
		case c == '?' && i+1 < len(src) && (i == 0 || !isIdentByte(src[i-1])):
			if src[i+1] == '\\' {
				m.blank(i, min(i+3, len(src)))
				i += 3
			} else {
				m.blank(i, i+2)
				i += 2
			}
		default:
			i++
		}
	}
	return m.out
}

func matchCloseByte(src []byte, i int, o, c byte) int {
	depth := 0
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case o:
			depth++
		case c:
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(src)
}

// exString blanks an Elixir string with #{...} interpolations.
func (m *masker) exString(i int, q byte) int {
	j := i + 1
	for j < len(m.src) {
		switch {
		case m.src[j] == '\\':
			j += 2
		case hasAt(m.src, j, "#{"):
			j = matchCloseByte(m.src, j+1, '{', '}')
		case m.src[j] == q:
			m.blank(i+1, j)
			return j + 1
		default:
			j++
		}
	}
	m.blank(i+1, len(m.src))
	return len(m.src)
}

func isHsSymbol(b byte) bool {
	switch b {
	case '!', '#', '$', '%', '&', '*', '+', '.', '/', '<', '=', '>', '?', '@', '\\', '^', '|', '-', '~', ':':
		return true
	}
	return false
}

// maskHaskell: -- and nested {- -} comments, "..." strings, 'c' characters
// (a quote after an identifier character is a prime and stays).
func maskHaskell(src []byte) []byte {
	m := newMasker(src)
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case hasAt(src, i, "{-") && !hasAt(src, i, "{-#"):
			i = m.nestedComment(i, "{-", "-}")
		case hasAt(src, i, "--") && (i == 0 || !isHsSymbol(src[i-1])):
			j := i
			for j < len(src) && src[j] == '-' {
				j++
			}
			if j < len(src) && isHsSymbol(src[j]) {
				i = j
				continue
			}
			i = m.toEOL(i)
		case c == '"':
			i = m.quoted(i, '"', false)
		case c == '\'' && (i == 0 || !isIdentByte(src[i-1]) && src[i-1] != '\''):
			if i+2 < len(src) && src[i+1] != '\\' && src[i+2] == '\'' {
				m.blank(i+1, i+2)
				i += 3
			} else if i+1 < len(src) && src[i+1] == '\\' {
				e := indexFrom(src, i+2, "'")
				if e < 0 || e-i > 12 {
					i++
					continue
				}
				m.blank(i+1, e)
				i = e + 1
			} else {
				i++
			}
		default:
			i++
		}
	}
	return m.out
}
