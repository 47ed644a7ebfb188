package lang

import (
	"bytes"
	"regexp"
)

// sniffBytes is how much of a header DetectSource reads: C++ shows itself in
// the first declarations, and reading further only costs time.
const sniffBytes = 64 << 10

// cppMarkers are line-initial constructs that C does not have: templates,
// namespaces, access specifiers, and std:: names. A header that has one of
// them is C++ whatever its extension.
var cppMarkers = regexp.MustCompile(`(?m)^[ \t]*(?:template[ \t]*<|namespace[ \t]+[\w:]+[ \t]*\{|(?:public|private|protected)[ \t]*:|using[ \t]+namespace[ \t]|class[ \t]+\w+[ \t]*(?:final[ \t]*)?[:{])|\bstd::\w`)

// DetectSource is Detect refined by the file's content, for the one extension
// two languages share: a ".h" header is C unless it holds C++ (templates,
// namespaces, classes with access specifiers, std:: names), as C++ libraries
// commonly name their headers .h. Parsing a C++ header with the C grammar
// loses every class and template to text chunks; parsing C with the C++
// grammar is harmless, so the test leans towards C++.
func DetectSource(name string, src []byte) string {
	l := Detect(name)
	if l != "c" || !isHeader(name) {
		return l
	}
	if len(src) > sniffBytes {
		src = src[:sniffBytes]
	}
	if cppMarkers.Match(stripCComments(src)) {
		return "cpp"
	}
	return l
}

func isHeader(name string) bool {
	n := len(name)
	return n >= 2 && (name[n-2:] == ".h" || name[n-2:] == ".H")
}

// stripCComments blanks /* */ and // comments so that prose such as
// "namespace foo {" in a comment does not count as code. Newlines are kept,
// so line-anchored patterns still see line starts.
func stripCComments(src []byte) []byte {
	if !bytes.Contains(src, []byte("/")) {
		return src
	}
	out := make([]byte, len(src))
	copy(out, src)
	for i := 0; i+1 < len(out); i++ {
		switch {
		case out[i] == '/' && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case out[i] == '/' && out[i+1] == '*':
			j := i
			for ; j < len(out); j++ {
				if j >= i+3 && src[j-1] == '*' && src[j] == '/' {
					out[j] = ' '
					break
				}
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			i = j
		}
	}
	return out
}
