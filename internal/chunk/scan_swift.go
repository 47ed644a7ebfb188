package chunk

import (
	"slices"
	"strings"
)

var (
	swiftDeclRe   = lazyRegexp(`^(?:@\w+(?:\([^)\n]*\))?\s+)*(?:(?:public|private|fileprivate|internal|open|final|static|class|override|mutating|nonmutating|convenience|required|indirect|dynamic|nonisolated|distributed|package|(?:private|fileprivate|internal|public|package)\(set\))\s+)*(func|init|deinit|subscript|class|struct|enum|protocol|extension|actor)\b`)
	swiftImportRe = lazyRegexp(`^(?:@\w+(?:\([^)\n]*\))?\s+)*import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([\w.]+)`)
	swiftTypeName = lazyRegexp(`^\s+([A-Za-z_][\w.]*)`)
	swiftFuncName = lazyRegexp("^\\s+(`?[A-Za-z_]\\w*`?|[^\\s(<A-Za-z_]+)")
	swiftStop     = set("if", "guard", "switch", "while", "for", "return", "catch", "throw", "try", "await", "repeat",
		"case", "let", "var", "in", "where", "as", "is", "some", "any", "func", "subscript", "else", "defer")
	// swiftLineWords are the words a line holding a declaration or an import
	// starts with (a line may also start with an @attribute).
	swiftLineWords = set("public", "private", "fileprivate", "internal", "open", "final", "static", "class", "override",
		"mutating", "nonmutating", "convenience", "required", "indirect", "dynamic", "nonisolated", "distributed",
		"package", "func", "init", "deinit", "subscript", "struct", "enum", "protocol", "extension", "actor", "import")
	// swiftStdProtocols are protocols of the standard library and
	// Foundation a class often lists first (developer.apple.com/documentation/swift)
	swiftStdProtocols = set("Codable", "Encodable", "Decodable", "Equatable", "Hashable", "Comparable", "Identifiable",
		"Error", "Sendable", "CustomStringConvertible", "CustomDebugStringConvertible", "Sequence", "Collection",
		"IteratorProtocol", "RawRepresentable", "CaseIterable", "ObservableObject", "NSObjectProtocol", "AnyObject")
	swiftStdMods = set("Foundation", "Swift", "UIKit", "AppKit", "Darwin", "Glibc", "Dispatch", "XCTest", "Combine",
		"SwiftUI", "os", "CoreFoundation", "CoreGraphics", "ObjectiveC", "Observation", "Musl", "WinSDK", "_Concurrency", "Testing")
)

func isSwiftStd(s string) bool { return swiftStdMods[strings.SplitN(s, ".", 2)[0]] }

// scanSwift finds Swift functions, initializers, subscripts and type
// declarations (class, struct, enum, protocol, extension, actor). An
// extension owns its methods ("Type.method(...)") but is not a chunk of its
// own: the type is declared once, where `class Type` is (its other lines
// become text chunks owned by the type). Protocol requirements without a body are left to
// the protocol's chunk.
func scanSwift(s *scan) {
	s.docPrefixes = []string{"@"}
	code := s.code
	var decls [][]int
	s.lineStarts(func(at int, w string) {
		if w == "" && code[at] != '@' || w != "" && !swiftLineWords[w] {
			return
		}
		if w == "import" || code[at] == '@' {
			if m := swiftImportRe().FindSubmatchIndex(code[at:]); m != nil {
				m = shift(m, at)
				s.imp(string(code[m[2]:m[3]]), m[2])
				return
			}
		}
		if m := swiftDeclRe().FindSubmatchIndex(code[at:]); m != nil {
			m = shift(m, at)
			if n := len(decls); n > 0 && decls[n-1][2] == m[2] {
				// the keyword's own line after an attribute line that
				// already led to it ("@main\nstruct Math"): one
				// declaration, starting at its attribute
				return
			}
			decls = append(decls, m)
		}
	})
	// the protocols the file declares: a class listing one first conforms
	// to it rather than inheriting from it (swiftInherits)
	protocols := map[string]bool{}
	for _, m := range decls {
		if string(code[m[2]:m[3]]) == "protocol" {
			if n := swiftTypeName().FindSubmatchIndex(code[m[1]:]); n != nil {
				protocols[string(code[m[1]+n[2]:m[1]+n[3]])] = true
			}
		}
	}
	for _, m := range decls {
		start := m[0]
		kw := string(code[m[2]:m[3]])
		i := m[1]
		switch kw {
		case "class", "struct", "enum", "protocol", "extension", "actor":
			n := swiftTypeName().FindSubmatchIndex(code[i:])
			if n == nil {
				continue
			}
			name := string(code[i+n[2] : i+n[3]])
			if swiftStop[name] || name == "init" || name == "deinit" {
				continue // "class func", "class var"
			}
			j := i + n[1]
			for j < len(code) && code[j] != '{' && code[j] != '}' && code[j] != ';' {
				j++
			}
			if j >= len(code) || code[j] != '{' {
				continue
			}
			if k := strings.LastIndex(name, "."); k >= 0 {
				name = name[k+1:]
			}
			if d := s.add(KindClass, name, start, s.matchClose(j), i+n[2], "", ""); d != nil && kw == "extension" {
				d.ownerOnly = true // owns its methods; the type is declared elsewhere
			}
			s.swiftInherits(kw, i+n[1], j, protocols)
		default:
			name, nameAt := kw, m[2]
			if kw == "func" {
				n := swiftFuncName().FindSubmatchIndex(code[i:])
				if n == nil {
					continue
				}
				name, nameAt = strings.Trim(string(code[i+n[2]:i+n[3]]), "`"), i+n[2]
				i += n[1]
			}
			for i < len(code) && (code[i] == '?' || code[i] == '!' || code[i] == ' ') {
				i++
			}
			if i < len(code) && code[i] == '<' {
				i = matchAngle(code, i)
			}
			params := ""
			if i < len(code) && code[i] == '(' {
				e := s.matchClose(i)
				params = s.codeText(i, e)
				i = e
			}
			body := swiftBody(code, i)
			if body < 0 {
				continue
			}
			s.add(KindFunction, name, start, s.matchClose(body), nameAt, params, "")
		}
	}
	from := len(s.rels)
	s.calls(0, len(code), swiftStop)
	// "#if os(iOS)", "#elseif canImport(UIKit)": conditions of the
	// compiler, not calls
	s.rels = append(s.rels[:from], slices.DeleteFunc(s.rels[from:], func(r rawRel) bool {
		if r.kind != RelCalls {
			return false
		}
		l := strings.TrimSpace(s.line(s.idx.Line(int(r.start))))
		return strings.HasPrefix(l, "#if ") || strings.HasPrefix(l, "#elseif ")
	})...)
}

// matchAngle returns the offset past the '>' closing the '<' at i ("->"
// inside does not count).
func matchAngle(code []byte, i int) int {
	depth := 0
	for j := i; j < len(code); j++ {
		switch code[j] {
		case '<':
			depth++
		case '>':
			if j > 0 && code[j-1] == '-' {
				continue
			}
			depth--
			if depth == 0 {
				return j + 1
			}
		case '{', ';':
			return j
		}
	}
	return len(code)
}

// swiftBody returns the offset of the '{' opening the body of a function
// whose parameters end at i, or -1 when it has none (a protocol
// requirement): the declaration ends at a newline not followed by a
// continuation (->, throws, async, where, ...).
func swiftBody(code []byte, i int) int {
	for i < len(code) {
		switch c := code[i]; c {
		case '{':
			return i
		case '}', ';':
			return -1
		case '(', '[':
			i = matchClose(code, i)
			continue
		case '\n':
			p := prevNonSpace(code, i)
			n := skipSpace(code, i)
			if p >= 0 && strings.IndexByte(",>&:(", code[p]) >= 0 {
				break
			}
			rest := string(code[n:min(n+9, len(code))])
			if !hasAnyPrefix(rest, []string{"{", "->", "throws", "rethrows", "async", "where", "&", ".", ","}) {
				return -1
			}
		}
		i++
	}
	return -1
}

// swiftInherits records the inheritance clause between a type's name and
// its body, code[a:b] (": Base, Proto1, Proto2 where ..."), as relations of
// the type declared there: a protocol's are the protocols it refines
// (extends); a class's first is its superclass when it has one (extends,
// as Swift requires it first; a class conforming to protocols only has
// its first protocol recorded so), the others protocols it conforms to
// (implements); a struct's, enum's, actor's and extension's are all
// conformances (implements). A class's first is a protocol when the file
// declares a protocol of that name (protocols) or the standard library
// has one (swiftStdProtocols).
func (s *scan) swiftInherits(kw string, a, b int, protocols map[string]bool) {
	clause := string(s.code[a:b])
	if strings.HasPrefix(strings.TrimSpace(clause), "<") {
		// generic parameters first: "struct Box<T: Equatable>: Codable";
		// blanked, so offsets stay the code's
		k := strings.IndexByte(clause, '<')
		e := matchAngle([]byte(clause), k)
		clause = clause[:k] + strings.Repeat(" ", e-k) + clause[e:]
	}
	c := strings.IndexByte(clause, ':')
	if c < 0 || strings.TrimSpace(clause[:c]) != "" {
		return
	}
	list := clause[c+1:]
	if w := strings.Index(list, " where "); w >= 0 {
		list = list[:w]
	}
	off, depth, start := a+c+1, 0, 0
	var names [][2]int // byte ranges of the listed types
	for k := 0; k <= len(list); k++ {
		if k < len(list) {
			switch list[k] {
			case '<', '(', '[':
				depth++
				continue
			case '>', ')', ']':
				depth--
				continue
			case ',':
				if depth != 0 {
					continue
				}
			default:
				continue
			}
		}
		names = append(names, [2]int{off + start, off + k})
		start = k + 1
	}
	for idx, r := range names {
		text := strings.TrimSpace(stripGenerics(string(s.code[r[0]:r[1]])))
		if text == "" || !isIdent(strings.ReplaceAll(text, ".", "_")) {
			continue
		}
		kind := RelImplements
		if kw == "protocol" || kw == "class" && idx == 0 && !protocols[text] && !swiftStdProtocols[text] {
			kind = RelExtends
		}
		if len(s.rels) < 4*maxRelations {
			s.rels = append(s.rels, rawRel{kind: kind, text: text, start: uint(r[0] + strings.Index(string(s.code[r[0]:r[1]]), text))})
		}
	}
}
