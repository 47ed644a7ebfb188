package chunk

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/lines"
)

// fuzzNames are the file names FuzzParse picks from: every tree-sitter
// grammar family, the definition scanners, Markdown and plain text.
var fuzzNames = []string{
	"a.go", "a.py", "A.java", "a.js", "a.ts", "a.tsx", "a.c", "a.cpp", "a.cs", "a.rs", "a.rb",
	"a.php", "a.kt", "a.scala", "a.sh", "a.swift", "a.ex", "a.hs", "a.jl", "a.lua", "a.r",
	"a.zig", "README.md", "a.yaml", "a.txt",
}

// FuzzParse checks the chunker on any bytes under any of fuzzNames (seeds:
// f.Add and testdata/fuzz/FuzzParse): Parse returns no error (a recovered
// panic is ErrPanic); every chunk is one of the four kinds, covers whole
// lines inside the file with its byte range on those lines, and its Content
// is those bytes without '\r' or a BOM; relations are of a known kind, on a
// line of the file, with both ends named, at most maxRelations; and a second
// Parse of the same input gives the same result.
func FuzzParse(f *testing.F) {
	f.Add(uint8(0), []byte("package p\n\n// F doubles.\nfunc F(x int) int { return g(x) * 2 }\n\ntype T struct{}\n\nfunc (t *T) M() { t.M() }\n"))
	f.Add(uint8(1), []byte("\xef\xbb\xbf@deco\r\nclass A(B):\r\n    def m(self, x):\r\n        return self.n(x)\r\n"))
	f.Add(uint8(2), []byte("class A extends B implements C {\n  class Inner { void f() { g(); } }\n  int x;\n}\n"))
	f.Add(uint8(3), []byte("function f( {\n  return [1, 2,\n}\nclass { m() { this.q() } }\n"))
	f.Add(uint8(9), []byte("impl Store {\n    fn new() -> Self { Store::default() }\n}\nfn main() { Store::new(); }\n"))
	f.Add(uint8(15), []byte("extension Foo {\n  func bar() { baz() }\n}\n"))
	f.Add(uint8(22), []byte("# Title\n\ntext\n\n## Section\n\nmore text\n"))
	f.Add(uint8(24), []byte("\x00\xff\xfe\n\r\r\n\n\n"))
	f.Fuzz(func(t *testing.T, which uint8, src []byte) {
		if len(src) > 64<<10 {
			return
		}
		name := fuzzNames[int(which)%len(fuzzNames)]
		r, err := Parse(name, src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		idx := lines.NewIndex(src)
		n := idx.Count()
		kinds := []string{KindClass, KindMethod, KindFunction, KindText, KindImpl, KindMacro}
		for _, c := range r.Chunks {
			if !slices.Contains(kinds, c.Type) || c.Name == "" || c.Path != name {
				t.Fatalf("%s: chunk type %q name %q path %q", name, c.Type, c.Name, c.Path)
			}
			if c.StartLine < 1 || c.StartLine > c.EndLine || c.EndLine > c.DeclEndLine || c.DeclEndLine > n {
				t.Fatalf("%s: chunk %q lines %d-%d (decl %d) in a file of %d lines", name, c.Name, c.StartLine, c.EndLine, c.DeclEndLine, n)
			}
			if c.StartByte < 0 || c.StartByte > c.EndByte || c.EndByte > len(src) ||
				idx.Line(c.StartByte) != c.StartLine || c.EndByte > c.StartByte && idx.Line(c.EndByte-1) != c.EndLine {
				t.Fatalf("%s: chunk %q bytes %d-%d do not lie on lines %d-%d", name, c.Name, c.StartByte, c.EndByte, c.StartLine, c.EndLine)
			}
			want := strings.ReplaceAll(strings.TrimPrefix(string(src[c.StartByte:c.EndByte]), lines.BOM), "\r", "")
			if c.Content != want {
				t.Fatalf("%s: chunk %q content %q, want the bytes %q", name, c.Name, c.Content, want)
			}
		}
		if len(r.Relations) > maxRelations {
			t.Fatalf("%s: %d relations", name, len(r.Relations))
		}
		rels := []string{RelImports, RelExtends, RelImplements, RelContains, RelCalls}
		for _, rel := range r.Relations {
			if !slices.Contains(rels, rel.Kind) || rel.From == "" || rel.To == "" || rel.Line < 1 || rel.Line > n {
				t.Fatalf("%s: relation %+v in a file of %d lines", name, rel, n)
			}
		}
		again, err := Parse(name, src)
		if err != nil {
			t.Fatalf("%s: second parse: %v", name, err)
		}
		if r.FallbackReason != ReasonTimeout && again.FallbackReason != ReasonTimeout && !reflect.DeepEqual(r, again) {
			t.Fatalf("%s: two parses differ:\n%+v\n%+v", name, r, again)
		}
	})
}
