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
// for repeatedly, by the parent's id, and the parent of every child it has
// listed. Node.PrevSibling rescans its parent's children from the first, so
// asking it for the node before each definition of a block was quadratic in
// the block's length: extend's calls were 11% of tokio's index CPU, most of
// them over impl blocks and module roots of hundreds of items. Node.Parent
// descends from the root and scans each level's children for the one that
// holds the node, quadratic in the same way (5% of tokio's index CPU in
// session 18); a definition whose siblings were listed finds its parent in
// the cache. The nodes must belong to trees that stay open while the cache
// is used (ids are subtree addresses).
type siblings struct {
	kids   map[uintptr][]sitter.Node
	parent map[uintptr]sitter.Node
}

// parentOf returns n's parent, as n.Parent() does (TestSiblingsPrevEqualsPrevSibling),
// from the cache when n's parent has had its children listed.
func (s *siblings) parentOf(n *sitter.Node) *sitter.Node {
	if p, ok := s.parent[n.Id()]; ok {
		return &p
	}
	return n.Parent()
}

// prev returns the sibling before n among its parent's children, anonymous
// ones included, as n.PrevSibling() does (TestSiblingsPrevEqualsPrevSibling);
// nil when n is the first child or the root. The zero value is ready to use.
func (s *siblings) prev(n *sitter.Node) *sitter.Node {
	p := s.parentOf(n)
	if p == nil {
		return nil
	}
	if s.kids == nil {
		s.kids, s.parent = map[uintptr][]sitter.Node{}, map[uintptr]sitter.Node{}
	}
	kids, ok := s.kids[p.Id()]
	if !ok {
		kids = children(p, false)
		s.kids[p.Id()] = kids
		for _, k := range kids {
			s.parent[k.Id()] = *p
		}
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
