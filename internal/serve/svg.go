package serve

import (
	"fmt"
	"html/template"
	"net/url"
	"strings"

	"github.com/coderag/coderag/internal/relate"
)

// Layout of the drawn call graph: callers in the left column, the
// definition in the middle, callees on the right; one row per distinct
// neighbour, at most maxGraphRows per side (the rest counted in a last box).
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
	calls              int  // call sites it stands for
	loose              bool // guessed, ambiguous or unresolved: dashed
}

// drawGraph draws g as a self-contained SVG (no script, no external
// reference); each box links to the file view of its definition.
func drawGraph(g *Graph) template.HTML {
	callers := neighbours(g, g.Callers, true)
	callees := neighbours(g, g.Callees, false)
	rows := max(len(callers), len(callees), 1)
	w := 2*margin + 3*nodeW + 2*colGap
	h := 2*margin + rows*rowH
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`, w, h, w, h)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>`)
	cx := margin + nodeW + colGap
	cy := margin + (rows*rowH-rowH)/2
	start := gnode{label: g.Query, title: g.Query}
	if g.Start != nil {
		start = defNode(g.Root, g.Start)
	}
	yOf := func(i, n int) int { return margin + (rows*rowH-n*rowH)/2 + i*rowH }
	for i, n := range callers {
		y := yOf(i, len(callers))
		edge(&b, margin+nodeW, y+nodeH/2, cx, cy+nodeH/2, n.loose)
		box(&b, margin, y, n, "caller")
	}
	for i, n := range callees {
		y := yOf(i, len(callees))
		edge(&b, cx+nodeW, cy+nodeH/2, cx+nodeW+colGap, y+nodeH/2, n.loose)
		box(&b, cx+nodeW+colGap, y, n, "callee")
	}
	box(&b, cx, cy, start, "start")
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text is escaped by box
}

// neighbours turns the depth-1 edges of a walk into boxes, one per
// distinct definition (or unresolved name), in walk order.
func neighbours(g *Graph, w *relate.Walk, callers bool) []gnode {
	if w == nil {
		return nil
	}
	var out []gnode
	at := map[string]int{}
	for _, e := range w.Edges {
		if e.Depth != 1 {
			continue
		}
		d := e.Target
		if callers {
			d = e.Caller
		}
		var n gnode
		if d != nil && e.Resolution != relate.ResAmbiguous {
			n = defNode(g.Root, d)
		} else {
			n = gnode{label: e.To, title: e.To + " (" + e.Resolution + ")"}
			if callers {
				n.label, n.title = e.From, e.From+" ("+e.Resolution+")"
			}
		}
		n.loose = e.Guess || !e.Resolved()
		key := n.title
		if i, ok := at[key]; ok {
			out[i].calls++
			continue
		}
		n.calls = 1
		at[key] = len(out)
		out = append(out, n)
	}
	if len(out) > maxGraphRows {
		more := len(out) - (maxGraphRows - 1)
		out = append(out[:maxGraphRows-1], gnode{label: fmt.Sprintf("%d more", more), title: fmt.Sprintf("%d more (see the list below)", more)})
	}
	return out
}

// defNode is the box of a definition, linking to its file view.
func defNode(root string, d *relate.Def) gnode {
	return gnode{label: d.Name, title: fmt.Sprintf("%s  %s:%d", d.Name, d.Path, d.StartLine), href: fileURL(root, d.Path, d.StartLine, d.EndLine)}
}

// box draws one node; kind is a CSS class (caller, callee, start).
func box(b *strings.Builder, x, y int, n gnode, kind string) {
	label := n.label
	if r := []rune(label); len(r) > labelChars {
		label = string(r[:labelChars-1]) + "…"
	}
	if n.calls > 1 {
		label += fmt.Sprintf(" ×%d", n.calls)
	}
	if n.href != "" {
		fmt.Fprintf(b, `<a href="%s">`, template.HTMLEscapeString(n.href))
	}
	dash := ""
	if n.loose {
		dash = ` stroke-dasharray="4 3"`
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
func graphURL(root, name string) string {
	return "/graph?" + url.Values{"project": {root}, "name": {name}}.Encode()
}
