package relate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/coderag/coderag/internal/english"
)

// Output formats understood by Render.
const (
	FormatTree    = "tree"    // indented text grouped by the from side, as /graph prints it
	FormatJSON    = "json"    // the result struct, indented
	FormatDot     = "dot"     // Graphviz digraph (render with dot -Tsvg)
	FormatMermaid = "mermaid" // Mermaid flowchart, for Markdown
)

// Formats lists the output formats, for flag help and validation.
var Formats = []string{FormatTree, FormatJSON, FormatDot, FormatMermaid}

// Result is a query result Render can print: *GraphResult, *Walk or
// *PathResult.
type Result interface {
	tree(w *bufio.Writer)
	view() *view
}

var (
	_ Result = (*GraphResult)(nil)
	_ Result = (*Walk)(nil)
	_ Result = (*PathResult)(nil)
)

// Render writes res to w in format (one of Formats).
func Render(w io.Writer, res Result, format string) error {
	bw := bufio.NewWriter(w)
	switch format {
	case FormatTree, "":
		res.tree(bw)
	case FormatJSON:
		enc := json.NewEncoder(bw)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return fmt.Errorf("render json: %w", err)
		}
	case FormatDot:
		res.view().dot(bw)
	case FormatMermaid:
		res.view().mermaid(bw)
	default:
		return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render %s: %w", format, err)
	}
	return nil
}

// ---- tree ----

func defSpan(d *Def) string {
	if d.EndLine > d.StartLine {
		return fmt.Sprintf("%s:%d-%d", d.Path, d.StartLine, d.EndLine)
	}
	return d.Loc()
}

// callerAmbiguity describes, in a callers tree, an ambiguous call that
// may reach the definition: "ambiguous: calls pop, 3 candidates", with
// "guess, " before it for a call on a value of unknown type; a guessed
// call whose name has one definition reads as a guess of it, not as
// "ambiguous" with one candidate (as target does for callees).
func (e Edge) callerAmbiguity() string {
	total := max(e.CandidatesTotal, len(e.Candidates))
	switch {
	case e.Guess && total == 1:
		return "guess: calls " + e.To + ", the only definition of the name; the value's type is unknown"
	case e.Guess:
		return fmt.Sprintf("guess, ambiguous: calls %s, %d candidates", e.To, total)
	}
	return fmt.Sprintf("ambiguous: calls %s, %d candidates", e.To, total)
}

// ambiguous reports whether an edge resolved ResAmbiguous is counted as
// ambiguous: a guess of the one definition of its name is a guess, not an
// ambiguity (as callerAmbiguity and target say).
func (e Edge) ambiguous() bool {
	return e.Resolution == ResAmbiguous && (!e.Guess || max(e.CandidatesTotal, len(e.Candidates)) > 1)
}

// stepHow is how a step of a path was resolved: e.how(), or for an
// ambiguous call the path went through one of the candidates of,
// "ambiguous, 1 of N candidates" ("guess, " before it for a call on a
// value of unknown type), and a guess of the only definition of the name
// as that.
func (e Edge) stepHow() string {
	if e.Resolution != ResAmbiguous {
		return e.how()
	}
	total := max(e.CandidatesTotal, len(e.Candidates))
	switch {
	case e.Guess && total == 1:
		return "guess: the only definition of the name; the value's type is unknown"
	case e.Guess:
		return fmt.Sprintf("guess, ambiguous, 1 of %d candidates", total)
	}
	return fmt.Sprintf("ambiguous, 1 of %d candidates", total)
}

// treeCandidates is how many candidates of an ambiguous call the tree
// format names (JSON has up to maxCandidates).
const treeCandidates = 3

// target describes the callee side of a call edge.
func (e *Edge) target() string {
	switch {
	case e.Resolution == ResAmbiguous:
		var names []string
		for i, c := range e.Candidates {
			if i == treeCandidates {
				break
			}
			names = append(names, c.Name+" "+c.Loc())
		}
		total := max(e.CandidatesTotal, len(e.Candidates))
		if total > len(names) {
			names = append(names, fmt.Sprintf("and %d more", total-len(names)))
		}
		if e.Guess && total == 1 {
			// one definition of the name, on a value whose type is unknown
			return "guess: " + names[0] + " (the only definition of the name; the value's type is unknown)"
		}
		if e.Guess {
			return "guess, ambiguous: " + strings.Join(names, ", ")
		}
		return "ambiguous: " + strings.Join(names, ", ")
	case e.Target != nil:
		return e.Target.Name + " " + e.Target.Loc() + " (" + e.how() + ")"
	case e.Kind == "calls" && e.typedGo():
		// cfg.Next(c) with cfg a Config: a field of func type, or a
		// method of an interface or type the project does not declare
		return "unresolved: " + e.To[:strings.LastIndexByte(e.To, '.')] + " has no method " + e.To[strings.LastIndexByte(e.To, '.')+1:] + " in the project (a func-typed field or an interface's method)"
	case e.Kind == "calls":
		return "unresolved: not defined in the project"
	}
	return ""
}

// how is the edge's resolution, with ", guess" for a guess.
func (e *Edge) how() string {
	if e.Guess {
		return e.Resolution + ", guess"
	}
	return e.Resolution
}

func (g *GraphResult) tree(w *bufio.Writer) {
	fmt.Fprintf(w, "Graph of %s", g.Query)
	if len(g.Defs) == 1 {
		d := g.Defs[0]
		fmt.Fprintf(w, ": %s %s (%s)", d.Type, d.Name, defSpan(d))
	}
	if total := len(g.Edges) + g.More; g.More > 0 {
		fmt.Fprintf(w, "\n%d %s, %d shown:\n\n", total, english.Plural(total, "relation"), len(g.Edges))
	} else {
		fmt.Fprintf(w, "\n%d %s:\n\n", total, english.Plural(total, "relation"))
	}
	// group by from side, keeping first-appearance order
	var order []string
	groups := map[string][]Edge{}
	for _, e := range g.Edges {
		if _, ok := groups[e.From]; !ok {
			order = append(order, e.From)
		}
		groups[e.From] = append(groups[e.From], e)
	}
	for _, from := range order {
		es := groups[from]
		fmt.Fprintf(w, "%s\n", from)
		for _, e := range es {
			fmt.Fprintf(w, "    %s --> [%s]", e.Kind, e.To)
			switch {
			case e.Kind == "calls":
				fmt.Fprintf(w, " = %s", e.target())
			case e.Target != nil && e.Target.Name != e.To:
				fmt.Fprintf(w, " = %s %s", e.Target.Name, e.Target.Loc())
			}
			fmt.Fprintf(w, "  @ %s:%d\n", e.Path, e.Line)
		}
	}
	if g.More > 0 {
		fmt.Fprintf(w, "\n… %d more %s (raise --limit, or --limit 0 for all)\n", g.More, english.Plural(g.More, "relation"))
	}
	if g.Library > 0 {
		fmt.Fprintf(w, "\n(%d %s to builtins and other packages not listed)\n", g.Library, english.Plural(g.Library, "call"))
	}
	if g.OmittedAmbiguous > 0 {
		fmt.Fprintf(w, "\n(%d more %s may reach it through a name shared by over %d definitions; not listed)\n", g.OmittedAmbiguous, english.Plural(g.OmittedAmbiguous, "call"), maxCandidates)
	}
	if g.OmittedGuesses > 0 {
		fmt.Fprintf(w, "\n(%d more guessed %s; --include-guesses shows them)\n", g.OmittedGuesses, english.Plural(g.OmittedGuesses, "call"))
	}
}

func (wk *Walk) tree(w *bufio.Writer) {
	fmt.Fprintf(w, "%s of %s (%s), depth %d\n", wk.Direction, wk.Root.Name, defSpan(wk.Root), wk.Depth)
	callers := wk.Direction == "callers"
	// children of a node: the edges discovered from it
	kids := map[*Def][]int{}
	expanded := map[*Def]bool{}
	for i, e := range wk.Edges {
		parent := e.parent
		kids[parent] = append(kids[parent], i)
		expanded[parent] = true
	}
	w.WriteString(wk.Root.Name + "\n")
	printed := map[*Def]bool{wk.Root: true}
	var rec func(d *Def, prefix string)
	rec = func(d *Def, prefix string) {
		ks := kids[d]
		for j, i := range ks {
			e := wk.Edges[i]
			branch, next := "├── ", "│   "
			if j == len(ks)-1 {
				branch, next = "└── ", "    "
			}
			n := e.Target
			if callers {
				n = e.Caller
			}
			site := fmt.Sprintf("call at %s:%d", e.Path, e.Line)
			switch {
			case callers && e.Resolution == ResAmbiguous:
				fmt.Fprintf(w, "%s%s%s %s  [%s; %s]\n", prefix, branch, n.Name, n.Loc(), e.callerAmbiguity(), site)
				continue
			case !callers && e.Resolution == ResAmbiguous:
				fmt.Fprintf(w, "%s%s%s  [%s; %s]\n", prefix, branch, e.To, e.target(), site)
				continue
			case n == nil:
				fmt.Fprintf(w, "%s%s%s  [unresolved; %s]\n", prefix, branch, e.To, site)
				continue
			}
			fmt.Fprintf(w, "%s%s%s %s  [%s; %s]", prefix, branch, n.Name, n.Loc(), e.how(), site)
			if printed[n] {
				if expanded[n] {
					w.WriteString(" …")
				}
				w.WriteString("\n")
				continue
			}
			printed[n] = true
			w.WriteString("\n")
			rec(n, prefix+next)
		}
	}
	rec(wk.Root, "")
	var amb, unres, guess int
	for _, e := range wk.Edges {
		switch e.Resolution {
		case ResAmbiguous:
			if e.ambiguous() {
				amb++
			}
		case ResUnresolved:
			unres++
		}
		if e.Guess {
			guess++
		}
	}
	fmt.Fprintf(w, "%d %s (%d ambiguous, %d unresolved, %d %s not followed)", len(wk.Edges), english.Plural(len(wk.Edges), "call"), amb, unres, guess, english.Plural(guess, "guess"))
	if wk.Library > 0 {
		fmt.Fprintf(w, "; %d %s to builtins and other packages not listed", wk.Library, english.Plural(wk.Library, "call"))
	}
	if wk.Truncated {
		fmt.Fprintf(w, "; truncated at %d calls", maxEdges)
	}
	if wk.OmittedAmbiguous > 0 {
		fmt.Fprintf(w, "; %d %s through names shared by over %d definitions not listed", wk.OmittedAmbiguous, english.Plural(wk.OmittedAmbiguous, "call"), maxCandidates)
	}
	if wk.OmittedGuesses > 0 {
		fmt.Fprintf(w, "\n%d more guessed %s; --include-guesses shows them", wk.OmittedGuesses, english.Plural(wk.OmittedGuesses, strings.TrimSuffix(wk.Direction, "s")))
	}
	if wk.Direction == "callers" && len(wk.Edges) == 0 && wk.OmittedGuesses == 0 && wk.OmittedAmbiguous == 0 && wk.Root.method != "" {
		// spawn(self.heartbeat_worker), return app.defaultRequestHandler:
		// a function handed on as a value is called where no call names it
		fmt.Fprintf(w, "\nno call names %s; it may be passed as a value (a callback, a handler, a method value): `coderag grep '\\b%s\\b'` lists every mention", wk.Root.method, regexp.QuoteMeta(wk.Root.method))
	}
	w.WriteString("\n")
}

func (p *PathResult) tree(w *bufio.Writer) {
	if !p.Found {
		fmt.Fprintf(w, "no call path from %s to %s\n", p.From.Name, p.To.Name)
		if p.Hint != "" {
			fmt.Fprintf(w, "%s\n", p.Hint)
		}
		return
	}
	fmt.Fprintf(w, "path from %s to %s: %d %s", p.From.Name, p.To.Name, len(p.Edges), english.Plural(len(p.Edges), "call"))
	if p.Ambiguous {
		w.WriteString(" (through ambiguous calls: no path over resolved calls alone)")
	}
	fmt.Fprintf(w, "\n%s %s\n", p.From.Name, p.From.Loc())
	n := len(p.Edges)
	for i, e := range p.Edges {
		if n > pathShownHead+pathShownTail && i == pathShownHead {
			elided := n - pathShownHead - pathShownTail
			fmt.Fprintf(w, "%s… %d more %s … (--format json lists every step)\n", strings.Repeat("    ", pathIndentMax), elided, english.Plural(elided, "step"))
		}
		if n > pathShownHead+pathShownTail && i >= pathShownHead && i < n-pathShownTail {
			continue
		}
		how := e.stepHow()
		indent := strings.Repeat("    ", min(i, pathIndentMax))
		if i >= pathIndentMax {
			indent += fmt.Sprintf("%d ", i+1) // the step's depth, where the indentation stops
		}
		fmt.Fprintf(w, "%s└── %s %s  [%s; call at %s:%d]\n", indent, e.Target.Name, e.Target.Loc(), how, e.Path, e.Line)
	}
}

// The tree of a path is bounded whatever its length (a generated chain
// of 20,000 calls made 800 MB of indentation): a step is indented one
// level deeper than the one before up to pathIndentMax levels, after
// which its depth is printed instead of more spaces; a path of more than
// pathShownHead+pathShownTail steps shows its first pathShownHead and
// last pathShownTail steps around one line counting the rest. The JSON,
// DOT and Mermaid formats list every step.
const (
	pathIndentMax = 8
	pathShownHead = 24
	pathShownTail = 8
)

// ---- graph views for dot and mermaid ----

type vnode struct {
	label    string
	external bool // not a definition of the project
	root     bool
}

type vedge struct {
	from, to int
	label    string
	dashed   bool
}

type view struct {
	nodes []vnode
	edges []vedge
	ids   map[any]int
	seen  map[vedge]bool
}

func newView() *view { return &view{ids: map[any]int{}, seen: map[vedge]bool{}} }

func (v *view) def(d *Def) int {
	if i, ok := v.ids[d]; ok {
		return i
	}
	v.ids[d] = len(v.nodes)
	v.nodes = append(v.nodes, vnode{label: d.Name + "\n" + d.Loc()})
	return len(v.nodes) - 1
}

func (v *view) ext(name string) int {
	k := "ext:" + name
	if i, ok := v.ids[k]; ok {
		return i
	}
	v.ids[k] = len(v.nodes)
	v.nodes = append(v.nodes, vnode{label: name, external: true})
	return len(v.nodes) - 1
}

func (v *view) edge(from, to int, label string, dashed bool) {
	e := vedge{from, to, label, dashed}
	if !v.seen[e] {
		v.seen[e] = true
		v.edges = append(v.edges, e)
	}
}

// add draws one relation: resolved sides as definitions, others as external
// names; an ambiguous call as a dashed edge to each candidate.
func (v *view) add(e Edge) {
	var from int
	if e.Caller != nil {
		from = v.def(e.Caller)
	} else {
		from = v.ext(e.From)
	}
	switch {
	case e.Resolution == ResAmbiguous:
		for _, c := range e.Candidates {
			v.edge(from, v.def(c), e.Kind+"?", true)
		}
	case e.Target != nil && e.Guess:
		v.edge(from, v.def(e.Target), e.Kind+" (guess)", true)
	case e.Target != nil:
		v.edge(from, v.def(e.Target), e.Kind, false)
	default:
		v.edge(from, v.ext(e.To), e.Kind, e.Kind == "calls")
	}
}

func (g *GraphResult) view() *view {
	v := newView()
	for _, d := range g.Defs {
		v.nodes[v.def(d)].root = true
	}
	for _, e := range g.Edges {
		v.add(e)
	}
	return v
}

func (wk *Walk) view() *view {
	v := newView()
	v.nodes[v.def(wk.Root)].root = true
	for _, e := range wk.Edges {
		v.add(e)
	}
	return v
}

func (p *PathResult) view() *view {
	v := newView()
	v.nodes[v.def(p.From)].root = true
	v.nodes[v.def(p.To)].root = true
	for _, e := range p.Edges {
		label := e.Kind
		if e.Guess {
			label += " (guess)"
		}
		v.edge(v.def(e.Caller), v.def(e.Target), label, e.Resolution == ResAmbiguous || e.Guess)
	}
	return v
}

func dotQuote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	return `"` + strings.ReplaceAll(s, "\n", `\n`) + `"`
}

func (v *view) dot(w *bufio.Writer) {
	w.WriteString("digraph coderag {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n")
	for i, n := range v.nodes {
		attrs := "label=" + dotQuote(n.label)
		switch {
		case n.root:
			attrs += ", style=\"bold,filled\", fillcolor=\"#eef4ff\""
		case n.external:
			attrs += ", style=dashed, fontcolor=\"#666666\""
		}
		fmt.Fprintf(w, "  n%d [%s];\n", i, attrs)
	}
	for _, e := range v.edges {
		attrs := "label=" + dotQuote(e.label)
		if e.dashed {
			attrs += ", style=dashed"
		}
		fmt.Fprintf(w, "  n%d -> n%d [%s];\n", e.from, e.to, attrs)
	}
	w.WriteString("}\n")
}

var mermaidEsc = strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "|", "#124;", "\n", "<br/>")

func (v *view) mermaid(w *bufio.Writer) {
	w.WriteString("flowchart LR\n")
	for i, n := range v.nodes {
		fmt.Fprintf(w, "  n%d[\"%s\"]\n", i, mermaidEsc.Replace(n.label))
		switch {
		case n.root:
			fmt.Fprintf(w, "  style n%d stroke-width:3px\n", i)
		case n.external:
			fmt.Fprintf(w, "  style n%d stroke-dasharray: 4 4\n", i)
		}
	}
	for _, e := range v.edges {
		arrow := "-->"
		if e.dashed {
			arrow = "-.->"
		}
		fmt.Fprintf(w, "  n%d %s|%s| n%d\n", e.from, arrow, mermaidEsc.Replace(e.label), e.to)
	}
}
