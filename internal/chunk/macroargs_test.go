package chunk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/lines"
	sitter "github.com/tree-sitter/go-tree-sitter"
)

// blankedMacroArgs is the reference macroArgsTree is checked against: the
// whole buffer blanked outside the spans (newlines kept), a ';' in place
// of the blank before each span, parsed from scratch.
func blankedMacroArgs(p *sitter.Parser, buf []byte, spans [][2]uint) *sitter.Tree {
	sub := make([]byte, len(buf))
	for k, c := range buf {
		if c == '\n' {
			sub[k] = '\n'
		} else {
			sub[k] = ' '
		}
	}
	for _, s := range spans {
		copy(sub[s[0]:s[1]], buf[s[0]:s[1]])
	}
	for _, s := range spans {
		if sub[s[0]-1] == ' ' || sub[s[0]-1] == '\n' {
			sub[s[0]-1] = ';'
		}
	}
	return p.ParseWithOptions(readChunks(sub), nil, nil)
}

// nodesOf lists every node of t with its kind and position.
func nodesOf(t *sitter.Tree) []string {
	var out []string
	c := t.Walk()
	defer c.Close()
	for {
		n := c.Node()
		out = append(out, fmt.Sprintf("%s %d-%d %v-%v", n.Kind(), n.StartByte(), n.EndByte(), n.StartPosition(), n.EndPosition()))
		if c.GotoFirstChild() {
			continue
		}
		for !c.GotoNextSibling() {
			if !c.GotoParent() {
				return out
			}
		}
	}
}

// The macro arguments parsed over included ranges give the tree the
// blanked whole buffer gave: the same nodes at the same offsets and
// points (the root aside, which spans the ranges only), level after level.
func TestMacroArgsTreeEqualsBlankedBuffer(t *testing.T) {
	t.Parallel()
	sp, err := specFor("rust")
	if err != nil {
		t.Fatal(err)
	}
	srcs := map[string][]byte{"nested.rs": []byte("fn f() {\n    let v = vec![g(1), h!(k(2))];\n    assert_eq!(m(x),\n        n(y));\n    tri!(self.parse()); println!(\"{}\", z(3));\n}\nmacro_rules! q { () => {} }\n")}
	ents, err := os.ReadDir(filepath.Join("testdata", "rust"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".rs") {
			b, err := os.ReadFile(filepath.Join("testdata", "rust", e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			srcs[e.Name()] = b
		}
	}
	levels := 0
	for name, src := range srcs {
		p := sitter.NewParser()
		if err := p.SetLanguage(sp.lang); err != nil {
			t.Fatal(err)
		}
		buf := parseBuffer(src)
		ps := &parsed{sp: sp, src: src, buf: buf, idx: lines.NewIndex(src)}
		tree := parseTree(p, buf, time.Now().Add(time.Minute))
		roots := []*sitter.Node{tree.RootNode()}
		var trees []*sitter.Tree
		for depth := 0; depth < maxMacroCallDepth; depth++ {
			var spans [][2]uint
			q := rustMacroQuery(sp)
			qc := sitter.NewQueryCursor()
			for _, root := range roots {
				ms := qc.Matches(q, root, buf)
				for m := ms.Next(); m != nil; m = ms.Next() {
					for _, c := range m.Captures {
						if q.CaptureNames()[c.Index] == "args" && c.Node.StartByte() > 0 && (buf[c.Node.StartByte()] == '(' || buf[c.Node.StartByte()] == '[') && c.Node.EndByte()-c.Node.StartByte() >= 3 {
							spans = append(spans, [2]uint{c.Node.StartByte(), c.Node.EndByte()})
						}
					}
				}
			}
			qc.Close()
			if len(spans) == 0 {
				break
			}
			want := blankedMacroArgs(p, buf, spans)
			got := ps.macroArgsTree(p, append([][2]uint(nil), spans...), time.Now().Add(time.Minute))
			if got == nil {
				t.Fatalf("%s: no tree", name)
			}
			g, w := nodesOf(got)[1:], nodesOf(want)[1:]
			if strings.Join(g, "\n") != strings.Join(w, "\n") {
				t.Errorf("%s level %d: %d nodes, blanked buffer %d; first: %v / %v", name, depth, len(g), len(w), g[:min(3, len(g))], w[:min(3, len(w))])
			}
			levels++
			want.Close()
			trees = append(trees, got)
			roots = []*sitter.Node{got.RootNode()}
		}
		for _, x := range trees {
			x.Close()
		}
		tree.Close()
		p.Close()
	}
	if levels < 4 {
		t.Fatalf("only %d macro levels compared", levels)
	}
}
