package chunk

import (
	"strings"
)

var (
	jlNamedRe   = lazyRegexp(`^(function|macro)\s+((?:[A-Za-z_][\w!]*\.)*[A-Za-z_][\w!]*|\([^)]*\))\s*(?:\{[^}]*\}\s*)?\(`)
	jlTypeRe    = lazyRegexp(`^(?:mutable\s+struct|struct|module|baremodule|abstract\s+type|primitive\s+type)\s+([A-Za-z_]\w*)`)
	jlShortRe   = lazyRegexp(`^((?:[A-Za-z_]\w*\.)*[A-Za-z_][\w!]*)(?:\{[^}\n]*\})?(\([^=\n]*\))\s*(?:::[^=\n]+)?(?:\s+where\s+[^=\n]+)?\s*=[^=>]`)
	jlImportRe  = lazyRegexp(`^(?:using|import)\s+([A-Za-z_][\w.]*)`)
	jlOpeners   = set("function", "macro", "module", "baremodule", "struct", "if", "for", "while", "let", "begin", "quote", "do", "try")
	jlStop      = set("function", "macro", "if", "elseif", "for", "while", "return", "end", "in", "isa", "where", "let", "do", "begin", "quote", "try", "catch", "struct", "module")
	jlStdModule = set("Base", "Core", "LinearAlgebra", "Statistics", "Random", "Printf", "Test", "Dates", "Distributed",
		"SparseArrays", "Sockets", "Serialization", "SharedArrays", "Logging", "Markdown", "InteractiveUtils", "Pkg", "UUIDs", "Unicode")
)

func isJuliaStd(s string) bool { return jlStdModule[strings.SplitN(s, ".", 2)[0]] }

// maskJulia: # and nested #= =# comments, "..." and """...""" strings with
// $(...) interpolation, 'c' characters (a quote after an identifier or a
// closing bracket is the adjoint operator and stays).
func maskJulia(src []byte) []byte {
	m := newMasker(src)
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case hasAt(src, i, "#="):
			i = m.nestedComment(i, "#=", "=#")
		case c == '#':
			i = m.toEOL(i)
		case hasAt(src, i, `"""`):
			i = m.until(i, 3, `"""`)
		case c == '"':
			i = m.quoted(i, '"', false)
		case c == '\'' && (i == 0 || !isIdentByte(src[i-1]) && !strings.ContainsRune(")]}.'", rune(src[i-1]))):
			i = m.quoted(i, '\'', true)
		default:
			i++
		}
	}
	return m.out
}

// jlFrame is one open block of a Julia file.
type jlFrame struct {
	kind, name, owner, params string
	start, nm                 int
}

// scanJulia finds functions and macros (long form "function f(x) ... end"
// and short form "f(x) = ..." at the start of a line), structs and
// abstract/primitive types (classes) and modules (classes owning their
// functions: "MyPkg.f(x)"). Blocks are matched by keyword nesting; keywords
// inside () and [] are not block keywords (a[end], comprehensions).
func scanJulia(s *scan) {
	s.docPrefixes = []string{"@doc"}
	code := s.code
	var stack []jlFrame
	depth := 0 // () and [] nesting
	for i := 0; i < len(code); {
		c := code[i]
		switch c {
		case '(', '[':
			depth++
			i++
			continue
		case ')', ']':
			if depth > 0 {
				depth--
			}
			i++
			continue
		}
		if !isIdentByte(c) || i > 0 && (isIdentByte(code[i-1]) || code[i-1] == '.' || code[i-1] == ':' || code[i-1] == '@') {
			i++
			continue
		}
		w := identAt(code, i)
		if w == "" {
			for i < len(code) && isIdentByte(code[i]) {
				i++
			}
			continue
		}
		if depth > 0 {
			i += len(w)
			continue
		}
		atLineStart := strings.TrimSpace(string(code[s.idx.Start(s.idx.Line(i)):i])) == ""
		switch {
		case w == "end":
			if n := len(stack); n > 0 {
				f := stack[n-1]
				stack = stack[:n-1]
				if f.kind != "" {
					s.add(f.kind, f.name, f.start, i+len(w), f.nm, f.params, f.owner)
				}
			}
		case w == "abstract" || w == "primitive":
			// "abstract type T end" holds its own end: consume it
			if m := jlTypeRe().FindSubmatchIndex(code[i:]); m != nil {
				if e := indexFrom(code, i+m[1], "end"); e >= 0 {
					if atLineStart {
						s.add(KindClass, string(code[i+m[2]:i+m[3]]), i, e+3, i+m[2], "", "")
					}
					i = e + 3
					continue
				}
			}
		case jlOpeners[w] || w == "mutable":
			f := jlFrame{}
			if atLineStart {
				if m := jlNamedRe().FindSubmatchIndex(code[i:]); m != nil && (w == "function" || w == "macro") {
					full := string(code[i+m[4] : i+m[5]])
					f.kind, f.start, f.nm = KindFunction, i, i+m[4]
					if k := strings.LastIndex(full, "."); k > 0 && full[0] != '(' {
						f.owner, full = full[:k], full[k+1:]
					}
					if w == "macro" {
						full = "@" + full
					}
					f.name = full
					open := i + m[1] - 1
					f.params = s.codeText(open, s.matchClose(open))
				} else if m := jlTypeRe().FindSubmatchIndex(code[i:]); m != nil {
					f.kind, f.name, f.start, f.nm = KindClass, string(code[i+m[2]:i+m[3]]), i, i+m[2]
				}
			}
			if w == "mutable" && f.kind == "" {
				break // "mutable" alone opens nothing
			}
			if w == "mutable" {
				i += len("mutable")
				i = skipSpace(code, i) + len("struct")
				stack = append(stack, f)
				continue
			}
			stack = append(stack, f)
		default:
			if atLineStart && (len(stack) == 0 || stack[len(stack)-1].kind == KindClass) {
				if m := jlShortRe().FindSubmatchIndex(code[i:]); m != nil {
					full := string(code[i+m[2] : i+m[3]])
					owner := ""
					if k := strings.LastIndex(full, "."); k > 0 {
						owner, full = full[:k], full[k+1:]
					}
					e := lineEnd(code, i)
					s.add(KindFunction, full, i, e, i+m[2], s.codeText(i+m[4], i+m[5]), owner)
					i = e
					continue
				}
			}
			if (w == "using" || w == "import") && atLineStart {
				if m := jlImportRe().FindSubmatchIndex(code[i:]); m != nil {
					s.imp(string(code[i+m[2]:i+m[3]]), i)
				}
			}
		}
		i += len(w)
	}
	s.calls(0, len(code), jlStop)
}
