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

// siblings caches the children of the nodes whose children a parse asks
// for repeatedly, by the parent's id. Node.PrevSibling rescans its parent's
// children from the first, so asking it for the node before each
// definition of a block was quadratic in the block's length: extend's
// calls were 11% of tokio's index CPU, most of them over impl blocks and
// module roots of hundreds of items.
type siblings map[uintptr][]sitter.Node

// prev returns the sibling before n among its parent's children, anonymous
// ones included, as n.PrevSibling() does (TestSiblingsPrevEqualsPrevSibling);
// nil when n is the first child or the root. A nil cache is made on
// first use.
func (s *siblings) prev(n *sitter.Node) *sitter.Node {
	p := n.Parent()
	if p == nil {
		return nil
	}
	if *s == nil {
		*s = siblings{}
	}
	kids, ok := (*s)[p.Id()]
	if !ok {
		kids = children(p, false)
		(*s)[p.Id()] = kids
	}
	start, id := n.StartByte(), n.Id()
	// the first child starting at or after n's start, then n among the
	// children that start there (zero-width nodes share a start)
	i, j := 0, len(kids)
	for i < j {
		h := int(uint(i+j) >> 1)
		if kids[h].StartByte() < start {
			i = h + 1
		} else {
			j = h
		}
	}
	for ; i < len(kids) && kids[i].StartByte() == start; i++ {
		if kids[i].Id() == id {
			if i == 0 {
				return nil
			}
			return &kids[i-1]
		}
	}
	return n.PrevSibling() // not found among the cached children: ask the tree
}
