package serve

import (
	"fmt"
	"html/template"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/coderag/coderag/internal/relate"
)

// Layout of the drawn call graph: callers in the columns on the left (the
// direct ones nearest), the definition in the middle, callees on the
// right; one row per distinct neighbour, at most maxGraphRows per column
// (the rest counted in a last "N more" box).
const (
	nodeW        = 250
	nodeH        = 30
	rowH         = 40
	colGap       = 110
	margin       = 20
	maxGraphRows = 20
	labelChars   = 32
)

// gnode is one box of the drawing.
type gnode struct {
	label, title, href string
	qual, file         string // the label qualified by package, and by file: to tell apart boxes whose labels are the same
	text               string // the text drawn, fitted to the box (distinctLabels); "" to fit label
	key                string // the definition (or unresolved name) it stands for
	calls              int    // call sites it stands for
	loose              bool   // guessed, ambiguous or unresolved: dashed
	parent             int    // index of the box it is linked to in the column nearer the middle; -1: the middle
	more               bool   // the "N more" box
}

// drawGraph draws g as a self-contained SVG (no script, no external
// reference): g.Depth columns of callers and of callees around the
// definition. Each box of a function links to its own graph (the same
// depth); the middle box links to its code. Guessed calls are left out
// unless guesses is set (the page counts them).
func drawGraph(g *Graph, guesses bool) template.HTML {
	depth := max(g.Depth, 1)
	callers := graphSide(g, g.Callers, true, guesses)
	callees := graphSide(g, g.Callees, false, guesses)
	start := gnode{label: g.Query, title: g.Query}
	if g.Start != nil {
		start = defNode(g, g.Start)
		start.href = fileURL(g.Root, g.Start.Path, g.Start.StartLine, g.Start.EndLine)
	}
	distinctLabels(callers, callees)
	rows := 1
	for _, c := range append(callers, callees...) {
		rows = max(rows, len(c))
	}
	w := 2*margin + (2*depth+1)*nodeW + 2*depth*colGap
	h := 2*margin + rows*rowH
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`, w, h, w, h)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>`)
	colX := func(c int) int { return margin + (depth+c)*(nodeW+colGap) } // c: -depth..depth
	yOf := func(i, n int) int { return margin + (rows*rowH-n*rowH)/2 + i*rowH }
	cy := yOf(0, 1)
	for d, col := range callers {
		x := colX(-d - 1)
		for i, n := range col {
			y := yOf(i, len(col))
			if !n.more {
				px, py := colX(0), cy
				if n.parent >= 0 {
					px, py = colX(-d), yOf(n.parent, len(callers[d-1]))
				}
				edge(&b, x+nodeW, y+nodeH/2, px, py+nodeH/2, n.loose)
			}
			box(&b, x, y, n, "caller")
		}
	}
	for d, col := range callees {
		x := colX(d + 1)
		for i, n := range col {
			y := yOf(i, len(col))
			if !n.more {
				px, py := colX(0), cy
				if n.parent >= 0 {
					px, py = colX(d), yOf(n.parent, len(callees[d-1]))
				}
				edge(&b, px+nodeW, py+nodeH/2, x, y+nodeH/2, n.loose)
			}
			box(&b, x, y, n, "callee")
		}
	}
	box(&b, colX(0), cy, start, "start")
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text is escaped by box
}

// graphSide turns a walk into columns of boxes: column d holds the
// distinct definitions (or unresolved names) at depth d+1, in walk order,
// each linked to the box it was reached from; guesses are left out unless
// guesses is set. A column longer than maxGraphRows ends in a "N more" box.
func graphSide(g *Graph, w *relate.Walk, callers, guesses bool) [][]gnode {
	depth := max(g.Depth, 1)
	if w == nil {
		return nil
	}
	cols := make([][]gnode, depth)
	at := make([]map[string]int, depth)
	for i := range at {
		at[i] = map[string]int{}
	}
	for _, e := range w.Edges {
		if e.Depth < 1 || e.Depth > depth || e.Guess && !guesses {
			continue
		}
		lvl := e.Depth - 1
		d, from := e.Target, e.Caller // the box, and the one it was reached from
		if callers {
			d, from = e.Caller, e.Target
		}
		var n gnode
		if d != nil && e.Resolution != relate.ResAmbiguous {
			n = defNode(g, d)
		} else {
			n = gnode{label: e.To, title: e.To + " (" + e.Resolution + ")", key: "?" + e.To}
			if callers {
				n.label, n.title, n.key = e.From, e.From+" ("+e.Resolution+")", "?"+e.From
			}
		}
		n.loose = e.Guess || !e.Resolved()
		n.parent = -1
		if lvl > 0 {
			froms := []*relate.Def{from}
			if from == nil {
				froms = e.Candidates // an ambiguous caller: one of them was reached
			}
			found := false
			for _, f := range froms {
				if i, ok := at[lvl-1][defKey(f)]; f != nil && ok {
					n.parent, found = i, true
					break
				}
			}
			if !found {
				continue // reached from a box left out (a guess, a cut column)
			}
		}
		if i, ok := at[lvl][n.key]; ok {
			cols[lvl][i].calls++
			continue
		}
		n.calls = 1
		if len(cols[lvl]) < maxGraphRows-1 {
			at[lvl][n.key] = len(cols[lvl])
		}
		cols[lvl] = append(cols[lvl], n)
	}
	for lvl, col := range cols {
		if len(col) > maxGraphRows {
			more := len(col) - (maxGraphRows - 1)
			cols[lvl] = append(col[:maxGraphRows-1], gnode{label: fmt.Sprintf("%d more", more),
				title: fmt.Sprintf("%d more (see the list below)", more), more: true, parent: -1})
		}
	}
	for len(cols) > 0 && len(cols[len(cols)-1]) == 0 {
		cols = cols[:len(cols)-1]
	}
	return cols
}

// defKey identifies a definition among the boxes.
func defKey(d *relate.Def) string {
	if d == nil {
		return ""
	}
	return fmt.Sprintf("%s  %s:%d", d.Name, d.Path, d.StartLine)
}

// defNode is the box of a definition: a function or method links to its
// own call graph at the depth of g, anything else to its code.
func defNode(g *Graph, d *relate.Def) gnode {
	dir := path.Dir(d.Path)
	if dir == "." {
		dir = g.Root
	}
	n := gnode{label: d.Name, title: defKey(d), key: defKey(d),
		qual: path.Base(filepath.ToSlash(dir)) + "." + d.Name, file: d.Path + ":" + d.Name}
	if d.Type == "function" || d.Type == "method" {
		n.href = graphURLDepth(g.Root, g.selector(d), g.Depth)
	} else {
		n.href = fileURL(g.Root, d.Path, d.StartLine, d.EndLine)
	}
	return n
}

// cutLabel cuts a label to labelChars (labelWidth): the head and "…",
// or, with middle, the head, "…" and the tail (where overloads and owners
// differ).
func cutLabel(label string, middle bool) string { return cutTo(label, labelChars, middle) }

// cutTo cuts label to at most w of labelWidth.
func cutTo(label string, w int, middle bool) string {
	if labelWidth(label) <= w {
		return label
	}
	r := []rune(label)
	head := w - 1
	if middle {
		head = w / 3
	}
	var b strings.Builder
	n := 0
	for _, c := range r {
		if n+runeWidth(c) > head {
			break
		}
		b.WriteRune(c)
		n += runeWidth(c)
	}
	b.WriteString("…")
	n++
	if middle {
		tail := len(r)
		for tail > 0 && n+runeWidth(r[tail-1]) <= w {
			tail--
			n += runeWidth(r[tail])
		}
		b.WriteString(string(r[tail:]))
	}
	return b.String()
}

// labelWidth is the width of a label in Latin characters: a wide (CJK)
// character counts two.
func labelWidth(s string) int {
	n := 0
	for _, c := range s {
		n += runeWidth(c)
	}
	return n
}

func runeWidth(c rune) int {
	if c >= 0x1100 && c <= 0x115F || c >= 0x2E80 && c <= 0xA4CF || c >= 0xAC00 && c <= 0xD7A3 ||
		c >= 0xF900 && c <= 0xFAFF || c >= 0xFE30 && c <= 0xFE4F || c >= 0xFF00 && c <= 0xFF60 || c >= 0x20000 {
		return 2
	}
	return 1
}

// fitLabel is the text of a box: the label cut so that it and the call
// count (" ×3") and the number of a box otherwise read the same (" #2")
// fit labelChars.
func fitLabel(label string, calls int, middle bool, num int) string {
	suffix := ""
	if num > 1 {
		suffix = fmt.Sprintf(" #%d", num)
	}
	if calls > 1 {
		suffix += fmt.Sprintf(" ×%d", calls)
	}
	return cutTo(label, labelChars-labelWidth(suffix), middle) + suffix
}

// distinctLabels sets every box's text, fitted to labelChars, so that
// different boxes never read the same: boxes of different definitions
// with the same label are labelled with their package (or, if that is the
// same, their file) before the cut; a cut that would make two labels read
// the same keeps their tails instead, and if they still read the same
// they are numbered.
func distinctLabels(sides ...[][]gnode) {
	var all []*gnode
	for _, side := range sides {
		for _, col := range side {
			for i := range col {
				if !col[i].more {
					all = append(all, &col[i])
				}
			}
		}
	}
	keys := map[string]map[string]bool{} // label -> the keys of its boxes
	for _, n := range all {
		if keys[n.label] == nil {
			keys[n.label] = map[string]bool{}
		}
		keys[n.label][n.key] = true
	}
	quals := map[string]map[string]bool{} // label -> the qualified labels of its boxes
	for _, n := range all {
		if len(keys[n.label]) > 1 && n.qual != "" {
			if quals[n.label] == nil {
				quals[n.label] = map[string]bool{}
			}
			quals[n.label][n.qual] = true
		}
	}
	for _, n := range all {
		if len(keys[n.label]) > 1 && n.qual != "" {
			if len(quals[n.label]) == len(keys[n.label]) {
				n.label = n.qual
			} else {
				n.label = n.file
			}
		}
	}
	full := map[string]map[string]bool{} // cut label -> the full labels cut to it
	for _, n := range all {
		c := cutLabel(n.label, false)
		if full[c] == nil {
			full[c] = map[string]bool{}
		}
		full[c][n.label] = true
	}
	seen := map[string]string{} // text shown (without the call count) -> the key it stands for
	for _, n := range all {
		middle := len(full[cutLabel(n.label, false)]) > 1
		num := 1
		for {
			l := fitLabel(n.label, 1, middle, num)
			if k, ok := seen[l]; !ok || k == n.key {
				seen[l] = n.key
				break
			}
			num++
		}
		n.text = fitLabel(n.label, n.calls, middle, num)
	}
}

// box draws one node; kind is a CSS class (caller, callee, start).
func box(b *strings.Builder, x, y int, n gnode, kind string) {
	label := n.text // the columns' labels are fitted already (distinctLabels)
	if label == "" {
		label = fitLabel(n.label, n.calls, false, 1)
	}
	if n.href != "" {
		fmt.Fprintf(b, `<a href="%s">`, template.HTMLEscapeString(n.href))
	}
	dash := ""
	if n.loose {
		dash = ` stroke-dasharray="4 3"`
	}
	if n.more {
		kind += " more"
	}
	fmt.Fprintf(b, `<g class="node %s"><title>%s</title><rect x="%d" y="%d" width="%d" height="%d" rx="5"%s/><text x="%d" y="%d">%s</text></g>`,
		kind, template.HTMLEscapeString(n.title), x, y, nodeW, nodeH, dash, x+8, y+nodeH/2+4, template.HTMLEscapeString(label))
	if n.href != "" {
		b.WriteString(`</a>`)
	}
}

// edge draws an arrow from (x1,y1) to (x2,y2) as a smooth curve.
func edge(b *strings.Builder, x1, y1, x2, y2 int, loose bool) {
	dash := ""
	if loose {
		dash = ` stroke-dasharray="4 3"`
	}
	mx := (x1 + x2) / 2
	fmt.Fprintf(b, `<path class="edge" d="M%d,%d C%d,%d %d,%d %d,%d" fill="none" stroke="#555"%s marker-end="url(#arrow)"/>`, x1, y1, mx, y1, mx, y2, x2, y2, dash)
}

// fileURL is the page link to a file view at lines start..end.
func fileURL(root, path string, start, end int) string {
	q := url.Values{"project": {root}, "path": {path}}
	if start > 0 {
		q.Set("line", fmt.Sprint(start))
	}
	if end > start {
		q.Set("end", fmt.Sprint(end))
	}
	u := "/file?" + q.Encode()
	if start > 0 {
		u += fmt.Sprintf("#L%d", start)
	}
	return u
}

// graphURL is the page link to the call graph of name in root.
func graphURL(root, name string) string { return graphURLDepth(root, name, 1) }

// graphURLDepth is graphURL with the depth of the walks (1 is the default
// and left out of the URL).
func graphURLDepth(root, name string, depth int) string {
	q := url.Values{"project": {root}, "name": {name}}
	if depth > 1 {
		q.Set("depth", fmt.Sprint(depth))
	}
	return "/graph?" + q.Encode()
}
