package chunk

import (
	"fmt"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Splitting of long and carved definitions.
//
// A function's chunk holds its own lines: those of the definition less the
// lines of the definitions nested in it that are units of their own
// (spec.nestedUnits). When those lines form one run of at most maxDefLines
// lines the function is one chunk, as before. Otherwise every run holding
// a letter or digit is cut into pieces of at most maxDefLines lines, at
// the shallowest statement boundary near an even share (see cut): the
// first piece is the definition's chunk (its EndLine the piece's end, its
// DeclEndLine the definition's end, as for a class chunk), and the others
// are text chunks named "Owner.name (part k of n)" with the definition's
// owner. The idea is the one of code-aware splitters such as LlamaIndex's
// CodeSplitter and Sweep's chunker: break at syntax-node boundaries, never
// inside a line, and let no chunk grow past a budget.

// pieces returns the line ranges [a, b] of definition d's own lines, cut
// to at most maxDefLines lines each; kids are the definitions nested in d
// that have chunks of their own.
func (ps *parsed) pieces(t *texter, d *def, kids []*def) [][2]int {
	a, b := d.startLine, d.endLine
	if len(kids) == 0 && b-a+1 <= maxDefLines {
		return [][2]int{{a, b}}
	}
	own := make([]bool, b-a+1)
	for i := range own {
		own[i] = true
	}
	for _, k := range kids {
		for l := max(k.startLine, a+1); l <= k.endLine && l <= b; l++ {
			own[l-a] = false
		}
	}
	minGap := minGapLines
	if ps.errors > 0 {
		minGap = 1 // around syntax errors nothing may be lost
	}
	var depth map[int]int
	var out [][2]int
	for l := a; l <= b; {
		if !own[l-a] {
			l++
			continue
		}
		s, sig := l, 0
		for l <= b && own[l-a] {
			if significant(t.line(l)) {
				sig++
			}
			l++
		}
		e := l - 1
		for s < e && t.blank(s) {
			s++
		}
		for e > s && t.blank(e) {
			e--
		}
		if s != a && sig < minGap {
			continue // "}, ips: {" between nested definitions: fillGaps joins it to a neighbour
		}
		if e-s+1 > maxDefLines && depth == nil {
			depth = ps.breakDepths(t, d)
		}
		out = append(out, cut(t, s, e, depth)...)
	}
	return out
}

// cut splits lines a..b into the fewest pieces of at most maxDefLines
// lines: each piece ends before the line, among those from two thirds of
// an even share to maxDefLines lines after its start, whose syntax node is
// shallowest (depth; a line missing from depth is a poor break), nearest
// to the even share on ties. Blank lines at the edges of a piece are left
// out.
func cut(t *texter, a, b int, depth map[int]int) [][2]int {
	var out [][2]int
	emit := func(s, e int) {
		for s < e && t.blank(s) {
			s++
		}
		for e > s && t.blank(e) {
			e--
		}
		out = append(out, [2]int{s, e})
	}
	for b-a+1 > maxDefLines {
		n := (b - a + maxDefLines) / maxDefLines // ceil(len / maxDefLines)
		share := (b - a + n) / n                 // ceil(len / n)
		best, bestD, bestDist := a+maxDefLines, 1<<30, 1<<30
		for l := a + max(1, share*2/3); l <= a+maxDefLines && l <= b; l++ {
			dp, ok := depth[l]
			if !ok {
				dp = 1 << 20
			}
			dist := l - (a + share)
			if dist < 0 {
				dist = -dist
			}
			if dp < bestD || dp == bestD && dist < bestDist {
				best, bestD, bestDist = l, dp, dist
			}
		}
		emit(a, best-1)
		a = best
	}
	emit(a, b)
	return out
}

// breakDepths maps a line of d to the depth (below d's node) of the
// shallowest named node that starts the line, its first non-blank
// character. For definitions found by a scanner (no tree) the depth is the
// line's indentation, a line after a blank line one better.
func (ps *parsed) breakDepths(t *texter, d *def) map[int]int {
	m := map[int]int{}
	if ps.scanned {
		for l := d.startLine; l <= d.endLine; l++ {
			s := t.line(l)
			if !significant(s) {
				continue
			}
			ind := len(s) - len(strings.TrimLeft(s, " \t"))
			if l > d.startLine && t.blank(l-1) {
				ind--
			}
			m[l] = ind
		}
		return m
	}
	var walk func(n *sitter.Node, depth int)
	walk = func(n *sitter.Node, depth int) {
		if depth > 24 {
			return
		}
		kids := children(n, true)
		for i := range kids {
			c := &kids[i]
			l := int(c.StartPosition().Row) + 1
			if ps.startsLine(c.StartByte()) {
				if cur, ok := m[l]; !ok || depth < cur {
					m[l] = depth
				}
			}
			if c.EndPosition().Row > c.StartPosition().Row {
				walk(c, depth+1)
			}
		}
	}
	walk(&d.node, 0)
	return m
}

// startsLine reports whether only blanks precede byte off on its line.
func (ps *parsed) startsLine(off uint) bool {
	for i := int(off) - 1; i >= 0; i-- {
		switch ps.buf[i] {
		case '\n':
			return true
		case ' ', '\t':
			continue
		}
		return false
	}
	return true
}

// partName names the k-th (1-based) of n pieces of a definition whose
// qualified name is qual: "fastify (part 3 of 9)".
func partName(qual string, k, n int) string {
	return fmt.Sprintf("%s (part %d of %d)", qual, k, n)
}
