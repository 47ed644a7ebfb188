package chunk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// flatC is a C buffer whose translation unit has n children, the last of
// them a syntax error, as the kernel's generated tables are.
func flatC(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "#define REG_%d 0x%x\n", i, i)
	}
	b.WriteString("static const int tbl[] = { 1, 2, @ };\n")
	return []byte(b.String())
}

func parseC(tb testing.TB, src []byte) (*sitter.Parser, *sitter.Tree) {
	tb.Helper()
	sp, err := specFor("c")
	if err != nil {
		tb.Fatal(err)
	}
	p := sitter.NewParser()
	if err := p.SetLanguage(sp.lang); err != nil {
		tb.Fatal(err)
	}
	return p, parseTree(p, src, time.Now().Add(time.Minute))
}

// children gives the nodes Child(i) and NamedChild(i) give, in order.
func TestChildrenEqualsChildByIndex(t *testing.T) {
	t.Parallel()
	src := append(flatC(300), []byte("struct s { int a; /* c */ int b; };\nint f(int x) { return g(x, 2) + h(); }\n")...)
	p, tree := parseC(t, src)
	defer p.Close()
	defer tree.Close()
	var check func(n *sitter.Node, depth int)
	nodes := 0
	check = func(n *sitter.Node, depth int) {
		all, named := children(n, false), children(n, true)
		if uint(len(all)) != n.ChildCount() || uint(len(named)) != n.NamedChildCount() {
			t.Fatalf("%s: %d and %d children, want %d and %d", n.Kind(), len(all), len(named), n.ChildCount(), n.NamedChildCount())
		}
		for i := range all {
			if c := n.Child(uint(i)); c == nil || c.Id() != all[i].Id() || c.Kind() != all[i].Kind() {
				t.Fatalf("%s: child %d differs", n.Kind(), i)
			}
			nodes++
		}
		for i := range named {
			if c := n.NamedChild(uint(i)); c == nil || c.Id() != named[i].Id() {
				t.Fatalf("%s: named child %d differs", n.Kind(), i)
			}
			if depth < 8 {
				check(&named[i], depth+1)
			}
		}
	}
	check(tree.RootNode(), 0)
	if nodes < 300 {
		t.Fatalf("only %d nodes compared", nodes)
	}
	if c, _ := countErrors(tree.RootNode()); c == 0 {
		t.Fatal("the buffer's error was not counted")
	}
}

// initializerRows is a C fragment of n initializer rows outside any
// declaration, as the kernel's generated tools/perf/arch/x86/tests/
// insn-x86-dat-64.c is (it is #included inside an array): the whole
// buffer parses as ERROR nodes with thousands of children.
func initializerRows(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{{0x0f, 0x%02x, }, 2, 0, \"\", \"\",\n\"0f %02x \\trdtsc\",},\n", i%256, i%256)
	}
	return []byte(b.String())
}

// BenchmarkCountErrorsFlat counts the errors of a buffer of 4,000
// initializer rows outside a declaration (children: one cursor pass per
// node; by index, Node.Child(i) walks from the first child each time).
func BenchmarkCountErrorsFlat(b *testing.B) {
	p, tree := parseC(b, initializerRows(4000))
	defer p.Close()
	defer tree.Close()
	b.ResetTimer()
	for range b.N {
		if c, _ := countErrors(tree.RootNode()); c == 0 {
			b.Fatal("no error counted")
		}
	}
}

// siblings.prev gives the node Node.PrevSibling gives, and siblings.parentOf
// the node Node.Parent gives, for every node of the
// testdata trees of every tree-sitter language (anonymous, hidden-rule and
// zero-width nodes included), with the cache shared across a tree.
func TestSiblingsPrevEqualsPrevSibling(t *testing.T) {
	t.Parallel()
	ents, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sp, err := specFor(e.Name())
		if err != nil || sp == nil || sp.lang == nil {
			continue // a scanner language or not a language directory
		}
		files, err := os.ReadDir(filepath.Join("testdata", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			src, err := os.ReadFile(filepath.Join("testdata", e.Name(), f.Name()))
			if err != nil || f.IsDir() {
				continue
			}
			p := sitter.NewParser()
			if err := p.SetLanguage(sp.lang); err != nil {
				t.Fatal(err)
			}
			tree := p.Parse(src, nil)
			var s siblings
			c := tree.Walk()
			for n := 0; n < 20000; n++ {
				node := c.Node()
				want, got := node.PrevSibling(), s.prev(node)
				if (want == nil) != (got == nil) || want != nil && want.Id() != got.Id() {
					t.Errorf("%s/%s: %s at %d: prev %v, PrevSibling %v", e.Name(), f.Name(), node.Kind(), node.StartByte(), got, want)
				}
				// the cached parent is the tree's
				wantP, gotP := node.Parent(), s.parentOf(node)
				if (wantP == nil) != (gotP == nil) || wantP != nil && (wantP.Id() != gotP.Id() || wantP.StartByte() != gotP.StartByte() || wantP.Kind() != gotP.Kind() || wantP.EndByte() != gotP.EndByte()) {
					t.Errorf("%s/%s: %s at %d: parentOf %v, Parent %v", e.Name(), f.Name(), node.Kind(), node.StartByte(), gotP, wantP)
				}
				checked++
				if c.GotoFirstChild() {
					continue
				}
				done := false
				for !c.GotoNextSibling() {
					if !c.GotoParent() {
						done = true
						break
					}
				}
				if done {
					break
				}
			}
			c.Close()
			tree.Close()
			p.Close()
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d nodes checked", checked)
	}
}
