package chunk

import "bytes"

// pruneCBranches returns a copy of buf (C or C++, after maskCMacros) in
// which every conditional group whose first branch is a fragment of a
// declaration reads as that branch alone, and how many groups it so
// rewrote. Library headers split one function's head over the branches
// and write its body once after #endif:
//
//	#ifndef RAPIDJSON_DOXYGEN_RUNNING
//	    template <typename T> explicit GenericValue(T b, ENABLEIF(...))
//	#else
//	    explicit GenericValue(bool b)
//	#endif
//	        : data_() { ... }
//
// A compiler sees one branch; tree-sitter sees both and a body without a
// head, and the class around it becomes an error (cereal's vendored
// rapidjson lost GenericValue, its 150 methods read as free functions).
// A group is rewritten when it spans at most maxSplitLines lines, has
// an #else or #elif, and its first
// branch opens more braces or parentheses than it closes, or the code
// after its #endif goes on with '{' or ':' (a body or an initialiser
// list); its directive lines and the other branches become spaces, as
// the preprocessor would leave them with the first condition true (with
// keepLast, with every condition false: the #else branch, often the
// plainer head, without the first branch's macros).
// Groups whose branches are whole (a function per platform) stay as
// they are, and so does every byte of them. Offsets and newlines are
// kept; comments and literals are not read (maskCCode).
func pruneCBranches(buf []byte, keepLast bool) ([]byte, int) {
	if !bytes.Contains(buf, []byte("#el")) {
		return buf, 0
	}
	code := maskCCode(buf)
	var starts []int // line start offsets
	for i := 0; i < len(code); {
		starts = append(starts, i)
		j := bytes.IndexByte(code[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	lineEnd := func(l int) int {
		if l+1 < len(starts) {
			return starts[l+1] - 1
		}
		return len(code)
	}
	type group struct{ start, firstElse, lastElse, end int }
	var stack []group
	var groups []group
	for l, a := range starts {
		line := bytes.TrimLeft(code[a:lineEnd(l)], " \t")
		if len(line) == 0 || line[0] != '#' {
			continue
		}
		word := bytes.TrimLeft(line[1:], " \t")
		switch {
		case hasWord(word, "ifdef"), hasWord(word, "ifndef"), hasWord(word, "if"):
			stack = append(stack, group{start: l, firstElse: -1})
		case hasWord(word, "elif"), hasWord(word, "else"), hasWord(word, "elifdef"), hasWord(word, "elifndef"):
			if n := len(stack); n > 0 {
				if stack[n-1].firstElse < 0 {
					stack[n-1].firstElse = l
				}
				stack[n-1].lastElse = l
			}
		case hasWord(word, "endif"):
			if n := len(stack); n > 0 {
				g := stack[n-1]
				stack = stack[:n-1]
				g.end = l
				if g.firstElse >= 0 {
					groups = append(groups, g)
				}
			}
		}
	}
	var out []byte
	n := 0
	for _, g := range groups {
		if g.end-g.start > maxSplitLines {
			continue // a block of whole definitions per platform, not a head
		}
		braces, parens := 0, 0
		for _, c := range code[starts[g.start]:starts[g.firstElse]] {
			switch c {
			case '{':
				braces++
			case '}':
				braces--
			case '(':
				parens++
			case ')':
				parens--
			}
		}
		after := bytes.TrimLeft(code[min(lineEnd(g.end)+1, len(code)):], " \t\r\n")
		goesOn := len(after) > 0 && (after[0] == '{' || after[0] == ':' && (len(after) < 2 || after[1] != ':'))
		if braces == 0 && parens == 0 && !goesOn {
			continue
		}
		if out == nil {
			out = append([]byte(nil), buf...)
		}
		if keepLast {
			// the last branch alone: from the #if to its directive, and
			// the #endif
			blankKeepNewlines(out, starts[g.start], lineEnd(g.lastElse))
			blankKeepNewlines(out, starts[g.end], lineEnd(g.end))
		} else {
			blankKeepNewlines(out, starts[g.start], lineEnd(g.start))
			blankKeepNewlines(out, starts[g.firstElse], lineEnd(g.end))
		}
		n++
	}
	if n == 0 {
		return buf, 0
	}
	return out, n
}

// maxSplitLines bounds the groups pruneCBranches rewrites, from #if to
// #endif: a head split over branches is a few lines each, while a group
// of hundreds of lines holds whole definitions (curl's lib537.c puts its
// every function under one #if whose #else is a stub), which a rewrite
// would blank.
const maxSplitLines = 16

// hasWord reports whether b starts with the word w (followed by a
// non-identifier byte or the end).
func hasWord(b []byte, w string) bool {
	return bytes.HasPrefix(b, []byte(w)) && (len(b) == len(w) || !isIdentByte(b[len(w)]))
}

// maskCCode returns a copy of C or C++ src in which comments and the
// contents of string and character literals are spaces (newlines kept),
// for counting brackets. A quote after a letter or digit is a digit
// separator (1'000), not a literal.
func maskCCode(src []byte) []byte {
	m := newMasker(src)
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			i = m.toEOL(i)
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i = m.until(i, 0, "*/")
		case c == '"':
			i = m.quoted(i, '"', true)
		case c == '\'' && (i == 0 || !isIdentByte(src[i-1])):
			i = m.quoted(i, '\'', true)
		default:
			i++
		}
	}
	return m.out
}
