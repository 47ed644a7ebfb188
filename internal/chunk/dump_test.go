package chunk

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/lang"
	sitter "github.com/tree-sitter/go-tree-sitter"
)

var dumpFile = flag.String("dump", "", "print the tree-sitter tree of this file and exit (debug aid)")

// TestDump prints the syntax tree of -dump FILE; it is a debugging aid and is
// skipped unless the flag is given.
func TestDump(t *testing.T) {
	t.Parallel()
	if *dumpFile == "" {
		t.Skip("no -dump file")
	}
	src, err := os.ReadFile(*dumpFile)
	if err != nil {
		t.Fatal(err)
	}
	l := lang.Detect(*dumpFile)
	fn := grammarFuncs[l]
	if fn == nil {
		t.Fatalf("no grammar for %q", l)
	}
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(sitter.NewLanguage(fn())); err != nil {
		t.Fatal(err)
	}
	tree := p.Parse(src, nil)
	defer tree.Close()
	var walk func(n *sitter.Node, depth int, field string)
	walk = func(n *sitter.Node, depth int, field string) {
		txt := ""
		if n.ChildCount() == 0 || n.Kind() == "identifier" {
			txt = " " + fmt.Sprintf("%q", n.Utf8Text(src))
		}
		if field != "" {
			field += ": "
		}
		if n.IsNamed() || n.ChildCount() == 0 && len(txt) < 2 {
			fmt.Printf("%*s%s%s [%d]%s\n", depth*2, "", field, n.Kind(), n.StartPosition().Row+1, txt)
		}
		for i := uint(0); i < n.ChildCount(); i++ {
			walk(n.Child(i), depth+1, n.FieldNameForChild(uint32(i)))
		}
	}
	walk(tree.RootNode(), 0, "")
}

var chunksOf = flag.String("chunks", "", "print the chunks and relations of these files (comma-separated; debug aid)")

// TestChunksOf prints what Parse makes of -chunks FILE,...; it is a
// debugging aid and is skipped unless the flag is given.
func TestChunksOf(t *testing.T) {
	t.Parallel()
	if *chunksOf == "" {
		t.Skip("no -chunks file")
	}
	for _, f := range strings.Split(*chunksOf, ",") {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Parse(f, src)
		if err != nil {
			t.Fatal(err)
		}
		g := render(res)
		fmt.Printf("== %s %s fallback=%v\n", f, res.Language, res.Fallback)
		for _, c := range g.Chunks {
			fmt.Println(c)
		}
		for _, r := range g.Relations {
			fmt.Println("  ", r)
		}
	}
}
