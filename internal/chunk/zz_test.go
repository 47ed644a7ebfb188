package chunk

import (
	"fmt"
	"os"
	"testing"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

func TestZZRJ(t *testing.T) {
	src, _ := os.ReadFile("/tmp/s33/rj/document.h")
	p := sitter.NewParser()
	p.SetLanguage(sitter.NewLanguage(grammarFuncs["cpp"]()))
	src, n := maskCMacros(src)
	fmt.Println("masked", n)
	tr := p.Parse(src, nil)
	var walk func(n *sitter.Node, depth int)
	walk = func(n *sitter.Node, depth int) {
		for i := uint(0); i < n.ChildCount(); i++ {
			c := n.Child(i)
			sl, el := c.StartPosition().Row+1, c.EndPosition().Row+1
			if el < 580 || sl > 2100 {
				continue
			}
			if c.IsError() || c.Kind() == "ERROR" || depth < 2 {
				fmt.Printf("%*s%s %d-%d err=%v\n", depth*2, "", c.Kind(), sl, el, c.HasError())
			}
			if depth < 2 {
				walk(c, depth+1)
			}
		}
	}
	walk(tr.RootNode(), 0)
	tr.Close()
	p.Close()
}
