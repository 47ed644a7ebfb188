package chunk

import sitter "github.com/tree-sitter/go-tree-sitter"

// children returns n's children (only the named ones when named), read
// with one tree cursor. Node.Child(i) and Node.NamedChild(i) walk the
// children from the first each time, so a loop over them by index is
// quadratic in the child count: a generated C header of 20,000 #defines
// under one translation unit made countErrorsIn alone take seconds, and
// the Linux kernel's index ended with minutes of it on one core.
func children(n *sitter.Node, named bool) []sitter.Node {
	if n.ChildCount() == 0 {
		return nil
	}
	cur := n.Walk()
	defer cur.Close()
	if named {
		return n.NamedChildren(cur)
	}
	return n.Children(cur)
}
