package chunk

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/lines"
	sitter "github.com/tree-sitter/go-tree-sitter"
)

var (
	macroQueryOnce sync.Once
	macroQuery     *sitter.Query
)

// rustMacroQuery is the reference for the macro arguments the language
// query's @macro.args captures record: a query of its own for the macro
// invocations of a Rust tree with their argument token tree.
func rustMacroQuery(t *testing.T, sp *spec) *sitter.Query {
	macroQueryOnce.Do(func() {
		q, err := sitter.NewQuery(sp.lang, `(macro_invocation macro: (_) @name (token_tree) @args)`)
		if err != nil {
			panic("rust macro query: " + err.Error())
		}
		macroQuery = q
	})
	return macroQuery
}

// referenceMacroArgs lists, by rustMacroQuery, the (...) and [...]
// arguments of the macro invocations under roots but macro_rules, sorted.
func referenceMacroArgs(t *testing.T, sp *spec, buf []byte, roots []*sitter.Node) [][2]uint {
	q := rustMacroQuery(t, sp)
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	var spans [][2]uint
	for _, root := range roots {
		ms := qc.Matches(q, root, buf)
		for m := ms.Next(); m != nil; m = ms.Next() {
			var name string
			var args *sitter.Node
			for _, c := range m.Captures {
				if q.CaptureNames()[c.Index] == "name" {
					name = string(buf[c.Node.StartByte():c.Node.EndByte()])
				} else {
					n := c.Node
					args = &n
				}
			}
			if args == nil || name == "macro_rules" {
				continue
			}
			a, b := args.StartByte(), args.EndByte()
			if a > 0 && (buf[a] == '(' || buf[a] == '[') && b-a >= 3 {
				spans = append(spans, [2]uint{a, b})
			}
		}
	}
	slices.SortFunc(spans, func(x, y [2]uint) int { return cmp.Compare(x[0], y[0]) })
	return spans
}

// rustSources returns the Rust testdata files and a small file of nested
// macros, by name.
func rustSources(t *testing.T) map[string][]byte {
	srcs := map[string][]byte{"nested.rs": []byte("fn f() {\n    let v = vec![g(1), h!(k(2))];\n    assert_eq!(m(x),\n        n(y));\n    tri!(self.parse()); println!(\"{}\", z(3));\n}\nmacro_rules! q { () => {} }\ncfg_rt! {\n    fn inner() { w!(a(1)); }\n    cfg_io! { struct S; }\n}\nimpl S {\n    cfg_fs! {\n        pub fn open(&self) -> io::Result<()> { self.inner.open(p(1)) }\n    }\n}\nthread_local! { static X: u8 = 0; }\nlazy_static! { static ref Y: u8 = 1; }\nfn g() { let v = json!{ \"a\": f(1) }; }\n")}
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
	return srcs
}

// blankedMacroArgs is the reference macroArgsTree is checked against: the
// whole buffer blanked outside the spans (newlines kept), a ';' in place
// of the blank before each span, parsed from scratch.
func blankedMacroArgs(p *sitter.Parser, buf []byte, spans [][2]uint) *sitter.Tree {
	sub := blankOutside(buf, spans)
	for _, s := range spans {
		if sub[s[0]-1] == ' ' || sub[s[0]-1] == '\n' {
			sub[s[0]-1] = ';'
		}
	}
	return p.ParseWithOptions(readChunks(sub), nil, nil)
}

// blankOutside returns a copy of buf with every byte outside the spans
// blanked but its newlines.
func blankOutside(buf []byte, spans [][2]uint) []byte {
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
	return sub
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
	srcs := rustSources(t)
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
			spans := referenceMacroArgs(t, sp, buf, roots)
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

// The language query's @macro.name/@macro.args captures record, during
// collect, the macro arguments a query of their own finds
// (referenceMacroArgs), level after level, in the file's tree and its item
// macros' trees; and macroCalls takes them.
func TestCollectRecordsMacroArgs(t *testing.T) {
	t.Parallel()
	sp, err := specFor("rust")
	if err != nil {
		t.Fatal(err)
	}
	levels := 0
	for name, src := range rustSources(t) {
		p := sitter.NewParser()
		if err := p.SetLanguage(sp.lang); err != nil {
			t.Fatal(err)
		}
		buf := parseBuffer(src)
		ps := &parsed{sp: sp, src: src, buf: buf, idx: lines.NewIndex(src), alias: map[string]bool{}}
		tree := parseTree(p, buf, time.Now().Add(time.Minute))
		ps.collect(tree.RootNode(), time.Now().Add(parseTimeout))
		budget := maxMacroParses
		items := ps.macroItems(p, tree.RootNode(), 0, &budget, time.Now().Add(time.Minute))
		roots := []*sitter.Node{tree.RootNode()}
		for _, it := range items {
			roots = append(roots, it.RootNode())
		}
		trees := append([]*sitter.Tree{tree}, items...)
		for depth := 0; depth < maxMacroCallDepth; depth++ {
			want := referenceMacroArgs(t, sp, buf, roots)
			got := slices.Clone(ps.macroArgs)
			slices.SortFunc(got, func(x, y [2]uint) int { return cmp.Compare(x[0], y[0]) })
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s level %d: collect recorded %v, the macro query finds %v", name, depth, got, want)
			}
			if len(want) == 0 {
				break
			}
			levels++
			ps.macroArgs = nil
			next := ps.macroArgsTree(p, want, time.Now().Add(time.Minute))
			if next == nil {
				t.Fatalf("%s: no tree", name)
			}
			trees = append(trees, next)
			ps.collectCalls(next.RootNode(), time.Now().Add(parseTimeout))
			roots = []*sitter.Node{next.RootNode()}
		}
		if got := ps.macroCalls(p, 0, time.Now().Add(time.Minute)); len(ps.macroArgs) != 0 {
			t.Errorf("%s: macroCalls left %d spans", name, len(ps.macroArgs))
		} else {
			for _, x := range got {
				x.Close()
			}
		}
		for _, x := range trees {
			x.Close()
		}
		p.Close()
	}
	if levels < 5 {
		t.Fatalf("only %d macro levels compared", levels)
	}
}

// blankedMacroBody is the reference macroBodyTree is checked against: the
// whole buffer blanked outside buf[a:b] (newlines kept), parsed from
// scratch.
func blankedMacroBody(p *sitter.Parser, buf []byte, a, b uint) *sitter.Tree {
	return p.ParseWithOptions(readChunks(blankOutside(buf, [][2]uint{{a, b}})), nil, nil)
}

// An item macro's body parsed over its own range gives the tree the
// blanked whole buffer gave: the same nodes at the same offsets and points
// (the root aside), for every brace-delimited macro of the Rust testdata.
func TestMacroBodyTreeEqualsBlankedBuffer(t *testing.T) {
	t.Parallel()
	sp, err := specFor("rust")
	if err != nil {
		t.Fatal(err)
	}
	q, qerr := sitter.NewQuery(sp.lang, `(macro_invocation (token_tree) @args)`)
	if qerr != nil {
		t.Fatal(qerr)
	}
	defer q.Close()
	bodies := 0
	for name, src := range rustSources(t) {
		p := sitter.NewParser()
		if err := p.SetLanguage(sp.lang); err != nil {
			t.Fatal(err)
		}
		buf := parseBuffer(src)
		ps := &parsed{sp: sp, src: src, buf: buf, idx: lines.NewIndex(src)}
		tree := parseTree(p, buf, time.Now().Add(time.Minute))
		qc := sitter.NewQueryCursor()
		ms := qc.Matches(q, tree.RootNode(), buf)
		for m := ms.Next(); m != nil; m = ms.Next() {
			n := m.Captures[0].Node
			a, b := n.StartByte(), n.EndByte()
			if buf[a] != '{' || b-a < 3 {
				continue
			}
			got := ps.macroBodyTree(p, a+1, b-1, time.Now().Add(time.Minute))
			want := blankedMacroBody(p, buf, a+1, b-1)
			if got == nil {
				t.Fatalf("%s: no tree", name)
			}
			g, w := nodesOf(got)[1:], nodesOf(want)[1:]
			if strings.Join(g, "\n") != strings.Join(w, "\n") {
				t.Errorf("%s at %d: %d nodes, blanked buffer %d; first: %v / %v", name, a, len(g), len(w), g[:min(3, len(g))], w[:min(3, len(w))])
			}
			if got.RootNode().HasError() != want.RootNode().HasError() {
				t.Errorf("%s at %d: HasError %v, blanked buffer %v", name, a, got.RootNode().HasError(), want.RootNode().HasError())
			}
			bodies++
			got.Close()
			want.Close()
		}
		qc.Close()
		tree.Close()
		p.Close()
	}
	if bodies < 5 {
		t.Fatalf("only %d macro bodies compared", bodies)
	}
}
