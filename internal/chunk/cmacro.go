package chunk

// C and C++ code wraps its declarations in macros the grammar cannot
// expand: export and inline annotations (FMT_API, LEVELDB_EXPORT,
// FMT_CONSTEXPR20 void f()), attribute macros (FMT_NO_UNIQUE_ADDRESS
// Allocator alloc_;) and namespace brackets on lines of their own
// (FMT_BEGIN_NAMESPACE ... FMT_END_NAMESPACE). tree-sitter reads the
// macro as a type and the real type as an error; a class after
// FMT_BEGIN_EXPORT becomes the "type" of a function definition, and its
// methods lose their owner. maskCMacros blanks such annotations so the
// declarations read as the compiler sees them once the macros expand to
// nothing or to a keyword; parseAST parses the masked buffer first, keeps
// its tree when it has no error, and else parses the buffer as written too
// and keeps the tree with fewer errors (see parseCMasked).

// maskCMacros returns a copy of buf in which macro annotations are
// spaces, and how many it blanked. A macro-like identifier (macroLike:
// FMT_API, LEVELDB_EXPORT) is an annotation when the file shows it used
// as one at least once:
//   - alone on its line (FMT_BEGIN_NAMESPACE);
//   - before a declaration keyword or '~' (FMT_CONSTEXPR20 void,
//     FMT_CONSTEXPR20 ~buffer());
//   - between class, struct, union or enum and the name (class FMT_API
//     format_error);
//   - before two identifiers (FMT_NO_UNIQUE_ADDRESS Allocator alloc_).
//
// Every occurrence of such an identifier that stands alone on its line or
// is followed by an identifier, a keyword or '~' is then blanked, so
// "FMT_CONSTEXPR basic_memory_buffer(...)" reads as a constructor too.
// A type spelled in capitals (DWORD n;, FILE f) shows none of these uses
// and stays; a call of a function-like macro (FMT_ASSERT(x)) is followed
// by '(' and stays. Comments, string and character literals and
// preprocessor lines are never changed. Offsets and newlines are kept.
func maskCMacros(buf []byte) ([]byte, int) {
	type occ struct {
		start, end  int
		alone       bool   // nothing else on its line
		next, next2 string // the identifiers after it ("" = not an identifier)
		tilde       bool   // '~' follows
		prev        string // the identifier before it on the same line
		// trailing: after a parameter list's ')' (or its const), before
		// what may follow one: '{', ':', ';', '=', '->' or a trailing
		// specifier (Foo() RAPIDJSON_NOEXCEPT { ... }); strong: before a
		// body or a specifier, which a cast's operand never is
		trailing, strong bool
	}
	var occs []occ
	var toks []ctok
	lineStart := true
	for i := 0; i < len(buf); {
		c := buf[i]
		switch {
		case c == '\n':
			lineStart = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '#' && lineStart: // a preprocessor line, with its continuations
			for i < len(buf) && buf[i] != '\n' {
				if buf[i] == '\\' && i+1 < len(buf) && buf[i+1] == '\n' {
					i++
				}
				i++
			}
			continue
		case c == '/' && i+1 < len(buf) && buf[i+1] == '/':
			for i < len(buf) && buf[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(buf) && buf[i+1] == '*':
			j := indexFrom(buf, i+2, "*/")
			if j < 0 {
				i = len(buf)
				continue
			}
			i = j + 2
			continue
		case c == '"' || c == '\'':
			j := skipCLiteral(buf, i)
			toks = append(toks, ctok{start: i, end: j, punct: '"'})
			i = j
			lineStart = false
			continue
		case isIdentStart(c):
			j := i
			for j < len(buf) && isIdentByte(buf[j]) {
				j++
			}
			if j < len(buf) && buf[j] == '"' { // R"(...)", u8"...": a literal follows
				i = j
				lineStart = false
				continue
			}
			toks = append(toks, ctok{start: i, end: j, ident: true, first: lineStart})
			i = j
			lineStart = false
			continue
		}
		toks = append(toks, ctok{start: i, end: i + 1, punct: c})
		lineStart = false
		i++
	}
	for k, t := range toks {
		if !t.ident || !macroLike(buf[t.start:t.end]) {
			continue
		}
		o := occ{start: t.start, end: t.end}
		o.alone = t.first && (k+1 == len(toks) || lineGap(buf, t.end, toks[k+1].start) > 0)
		if k+1 < len(toks) {
			n := toks[k+1]
			if n.ident && lineGap(buf, t.end, n.start) <= 1 {
				o.next = string(buf[n.start:n.end])
				if k+2 < len(toks) && toks[k+2].ident {
					o.next2 = string(buf[toks[k+2].start:toks[k+2].end])
				}
			}
			o.tilde = n.punct == '~'
		}
		if k > 0 && toks[k-1].ident && !t.first {
			o.prev = string(buf[toks[k-1].start:toks[k-1].end])
		}
		if afterParams(buf, toks, k) && k+1 < len(toks) {
			n := toks[k+1]
			switch {
			case n.punct == '{' || n.ident && cTrailingSpecifiers[string(buf[n.start:n.end])]:
				o.trailing, o.strong = true, true
			case n.punct == ':' || n.punct == ';' || n.punct == '=' || n.punct == '-' && k+2 < len(toks) && toks[k+2].punct == '>':
				o.trailing = true
			}
		}
		occs = append(occs, o)
	}
	annot := map[string]bool{}
	for _, o := range occs {
		id := string(buf[o.start:o.end])
		switch {
		case o.alone, o.tilde, cDeclKeywords[o.next],
			o.next != "" && (o.prev == "class" || o.prev == "struct" || o.prev == "union" || o.prev == "enum"),
			o.next != "" && o.next2 != "" && !cDeclKeywords[o.next2], o.strong:
			annot[id] = true
		}
	}
	out := make([]byte, len(buf))
	copy(out, buf)
	n := 0
	// a function-like macro between class and the name (class
	// FMT_SO_VISIBILITY("default") format_error), or a call of one that
	// is a line of its own, without a semicolon (FMT_PRAGMA_CLANG(...),
	// Q_DECLARE_METATYPE(T)): blanked with its arguments
	for k, t := range toks {
		if !t.ident || k+1 >= len(toks) || toks[k+1].punct != '(' || !macroLike(buf[t.start:t.end]) {
			continue
		}
		e := closeParenTok(toks, k+1)
		if e < 0 {
			continue
		}
		prev := ""
		if k > 0 && toks[k-1].ident {
			prev = string(buf[toks[k-1].start:toks[k-1].end])
		}
		// (not before a '{': TEST_F(Suite, Name) and PHP_FUNCTION(f)
		// on a line of their own open a definition)
		// nor before a chained call on the next line: BENCHMARK(BM_A)⏎
		// ->Arg(0);)
		ownLine := t.first && (e+1 == len(toks) || lineGap(buf, toks[e].end, toks[e+1].start) > 0 &&
			toks[e+1].punct != '{' && toks[e+1].punct != '-' && toks[e+1].punct != '.')
		switch {
		case prev == "class" || prev == "struct" || prev == "union" || ownLine:
			blankKeepNewlines(out, t.start, toks[e].end)
			n++
		case k > 0 && (toks[k-1].punct == ',' || toks[k-1].punct == '<') && e+1 < len(toks) &&
			(toks[e+1].punct == ',' || toks[e+1].punct == '>'):
			// a constraint in template parameters (template <typename
			// T, FMT_ENABLE_IF(!is_signed<T>::value)>): its arguments are
			// an expression the grammar reads as types; the empty call
			// reads as an unnamed parameter
			blankKeepNewlines(out, toks[k+1].end, toks[e].start)
			n++
		case prev == "if" && annot[string(buf[t.start:t.end])]:
			// if FMT_CONSTEXPR20 (cond): the macro stands for constexpr
			blankKeepNewlines(out, t.start, t.end)
			n++
		}
	}
	for _, o := range occs {
		if annot[string(buf[o.start:o.end])] && (o.alone || o.tilde || o.next != "" || o.trailing) {
			for k := o.start; k < o.end; k++ {
				out[k] = ' '
			}
			n++
		}
	}
	return out, n
}

// afterParams reports whether toks[k] follows a parameter list: a ')'
// right before it, or "const" (or "&", "&&") after one.
func afterParams(buf []byte, toks []ctok, k int) bool {
	for j := k - 1; j >= 0 && j >= k-3; j-- {
		t := toks[j]
		switch {
		case t.punct == ')':
			return true
		case t.punct == '&', t.ident && string(buf[t.start:t.end]) == "const":
		default:
			return false
		}
	}
	return false
}

// cTrailingSpecifiers are the C++ words that may follow a function's
// parameter list before its body or semicolon.
var cTrailingSpecifiers = map[string]bool{
	"const": true, "override": true, "final": true, "noexcept": true, "throw": true, "try": true, "requires": true,
}

// ctok is a token of maskCMacros' scan: an identifier (ident; first when
// only blanks precede it on its line) or one punctuation byte (a literal
// is the punct '"').
type ctok struct {
	start, end   int
	ident, first bool
	punct        byte
}

// cDeclKeywords are the C and C++ keywords that start or continue a
// declaration's specifiers.
var cDeclKeywords = map[string]bool{
	"void": true, "auto": true, "bool": true, "char": true, "int": true, "long": true, "short": true,
	"unsigned": true, "signed": true, "float": true, "double": true, "const": true, "constexpr": true,
	"consteval": true, "constinit": true, "static": true, "inline": true, "extern": true, "virtual": true,
	"explicit": true, "friend": true, "typename": true, "template": true, "class": true, "struct": true,
	"union": true, "enum": true, "volatile": true, "register": true, "thread_local": true, "mutable": true,
	"typedef": true, "using": true, "namespace": true, "operator": true,
}

// lineGap counts the newlines in buf[a:b].
func lineGap(buf []byte, a, b int) int {
	n := 0
	for _, c := range buf[a:b] {
		if c == '\n' {
			n++
		}
	}
	return n
}

// skipCLiteral returns the offset just past the string or character
// literal opened at buf[i] (a raw string R"d(...)d" included when buf[i]
// is its quote).
func skipCLiteral(buf []byte, i int) int {
	q := buf[i]
	if q == '"' && i > 0 && buf[i-1] == 'R' {
		// R"delim( ... )delim"
		j := i + 1
		for j < len(buf) && buf[j] != '(' && buf[j] != '\n' && j-i < 20 {
			j++
		}
		if j < len(buf) && buf[j] == '(' {
			end := ")" + string(buf[i+1:j]) + `"`
			if k := indexFrom(buf, j+1, end); k >= 0 {
				return k + len(end)
			}
			return len(buf)
		}
	}
	for j := i + 1; j < len(buf); j++ {
		switch buf[j] {
		case '\\':
			j++
		case q, '\n':
			return j + 1
		}
	}
	return len(buf)
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// macroLike reports an identifier spelled as C macros are: at least 3
// characters, upper-case letters, digits and '_', starting with a letter
// and with a letter after the first character.
func macroLike(id []byte) bool {
	if len(id) < 3 || id[0] < 'A' || id[0] > 'Z' {
		return false
	}
	letters := 0
	for _, c := range id {
		switch {
		case c >= 'A' && c <= 'Z':
			letters++
		case c == '_' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letters >= 2
}

// closeParenTok returns the index of the token that closes the '(' token
// at toks[k], or -1.
func closeParenTok(toks []ctok, k int) int {
	depth := 0
	for j := k; j < len(toks); j++ {
		switch toks[j].punct {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
}

// blankKeepNewlines turns b[a:e] into spaces, keeping newlines.
func blankKeepNewlines(b []byte, a, e int) {
	for i := a; i < e && i < len(b); i++ {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
}
