package serve

import (
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/relate"
)

// bigGraph is a graph of Reply.send with n exact callers (two of them with
// names alike in their first 40 characters), guesses guessed callers and
// one callee that calls on, at depth 2.
func bigGraph(n, guesses int) *Graph {
	start := &relate.Def{Name: "Reply.send(payload)", Type: "method", Path: "reply.js", StartLine: 10, EndLine: 30}
	callers := &relate.Walk{Root: start}
	for i := range n {
		name := fmt.Sprintf("handler%02d()", i)
		switch i {
		case 0:
			name = "VeryLongControllerNameForTheRoutes.handleRequest(a)"
		case 1:
			name = "VeryLongControllerNameForTheRoutes.handleRequest(a, b)"
		}
		d := &relate.Def{Name: name, Type: "function", Path: fmt.Sprintf("h%02d.js", i), StartLine: 1, EndLine: 5}
		callers.Edges = append(callers.Edges, relate.Edge{Kind: "calls", From: name, To: "send", Path: d.Path, Line: 3, Caller: d, Target: start, Resolution: "receiver", Depth: 1})
	}
	for i := range guesses {
		d := &relate.Def{Name: fmt.Sprintf("maybe%d()", i), Type: "function", Path: "g.js", StartLine: 10 * (i + 1), EndLine: 10*(i+1) + 2}
		callers.Edges = append(callers.Edges, relate.Edge{Kind: "calls", From: d.Name, To: "send", Path: "g.js", Line: d.StartLine, Caller: d, Target: start, Resolution: "unique", Depth: 1, Guess: true})
	}
	mid := &relate.Def{Name: "serialize(v)", Type: "function", Path: "ser.js", StartLine: 1, EndLine: 9}
	deep := &relate.Def{Name: "escapeJSON(s)", Type: "function", Path: "ser.js", StartLine: 20, EndLine: 29}
	callees := &relate.Walk{Root: start, Edges: []relate.Edge{
		{Kind: "calls", From: "Reply.send", To: "serialize", Path: "reply.js", Line: 12, Caller: start, Target: mid, Resolution: "unique", Depth: 1},
		{Kind: "calls", From: "serialize", To: "escapeJSON", Path: "ser.js", Line: 4, Caller: mid, Target: deep, Resolution: "unique", Depth: 2},
	}}
	return &Graph{Root: "/src/app", Query: "Reply.send", Depth: 2, Start: start, Callers: callers, Callees: callees}
}

// TestGraphDrawing: a large fan-in is capped at maxGraphRows boxes with
// "N more"; guesses are not drawn unless asked; boxes of functions link to
// their own graph at the same depth; depth-2 callees get their own column;
// labels cut to fit stay distinct.
func TestGraphDrawing(t *testing.T) {
	t.Parallel()
	g := bigGraph(205, 3)
	svg := string(drawGraph(g, false))
	if n := strings.Count(svg, `class="node caller"`); n != maxGraphRows-1 {
		t.Errorf("%d caller boxes, want %d and a more box", n, maxGraphRows-1)
	}
	if !strings.Contains(svg, fmt.Sprintf(">%d more<", 205-(maxGraphRows-1))) {
		t.Errorf("no %q box", fmt.Sprintf("%d more", 205-(maxGraphRows-1)))
	}
	if strings.Contains(string(drawGraph(bigGraph(5, 3), false)), "maybe0") {
		t.Errorf("a guess is drawn by default")
	}
	if !strings.Contains(string(drawGraph(bigGraph(5, 3), true)), "maybe0") {
		t.Errorf("guesses=1 does not draw the guess")
	}
	if !strings.Contains(svg, html.EscapeString(graphURLDepth("/src/app", "handler05()", 2))) {
		t.Errorf("a caller's box does not link to its graph at depth 2")
	}
	if !strings.Contains(svg, "escapeJSON(s)") {
		t.Errorf("the depth-2 callee is not drawn")
	}
	labels := map[string]bool{}
	for _, m := range regexp.MustCompile(`<text [^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
		l := html.UnescapeString(m[1])
		if labels[l] {
			t.Errorf("two boxes read %q", l)
		}
		labels[l] = true
		if n := labelWidth(l); n > labelChars {
			t.Errorf("label %q is %d characters", l, n)
		}
	}
	for _, l := range []string{"VeryLongControllerNameForTheRoutes.handleRequest(a)", "VeryLongControllerNameForTheRoutes.handleRequest(a, b)"} {
		if cut := cutLabel(l, true); !labels[cut] {
			t.Errorf("no box reads %q (%q cut at the middle)", cut, l)
		}
	}
}

// TestGraphPage: the graph page has a depth control (a bad depth is a
// 400), lists at most maxListed callers before "N more", keeps guesses
// collapsed unless asked, and links each caller to its own graph.
func TestGraphPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	base := "/graph?project=httptest&name=" + url.QueryEscape("ResponseRecorder.writeHeader")
	code, page := f.do(t, "GET", base+"&depth=2", "", "")
	if code != 200 || !strings.Contains(page, `<option value="2" selected>`) || !strings.Contains(page, `class="gl" href="/graph?depth=2&amp;`) {
		t.Errorf("depth=2: %d\n%s", code, page)
	}
	for _, bad := range []string{"0", "4", "x"} {
		if code, body := f.do(t, "GET", base+"&depth="+bad, "", ""); code != 400 || !strings.Contains(body, "depth must be") {
			t.Errorf("depth=%s: %d", bad, code)
		}
	}
	var g Graph
	f.getJSON(t, "/api/graph?project=httptest&depth=2&name="+url.QueryEscape("ResponseRecorder.writeHeader"), &g)
	if g.Depth != 2 || g.Callers == nil || g.Callers.Depth != 2 {
		t.Errorf("API depth: %+v", g)
	}
	l := listEdges(bigGraph(205, 3), bigGraph(205, 3).Callers, true)
	if len(l.Shown) != maxListed || len(l.More) != 205-maxListed || len(l.Guessed) != 3 {
		t.Errorf("list: %d shown, %d more, %d guessed", len(l.Shown), len(l.More), len(l.Guessed))
	}
}

// cgiFiles is a project where two packages declare a method of the same
// name, response.writeCGIHeader(p []byte), both calling SetHeader.
var cgiFiles = map[string]string{
	"go.mod":    "module example.com/web\n\ngo 1.22\n",
	"header.go": "package web\n\n// SetHeader sets a header line.\nfunc SetHeader(k, v string) string { return k + \": \" + v }\n",
	"cgi/child.go": "package cgi\n\nimport \"example.com/web\"\n\ntype response struct{ out []string }\n\n" +
		"func (r *response) writeCGIHeader(p []byte) {\n\tr.out = append(r.out, web.SetHeader(\"Status\", string(p)))\n}\n",
	"fcgi/child.go": "package fcgi\n\nimport \"example.com/web\"\n\ntype response struct{ out []string }\n\n// the fcgi one\n" +
		"func (r *response) writeCGIHeader(p []byte) {\n\tr.out = append(r.out, web.SetHeader(\"Status\", string(p)))\n}\n",
}

// graphLinks returns the /graph links of a page (boxes and lists).
func graphLinks(page string) []string {
	var links []string
	for _, m := range regexp.MustCompile(`href="(/graph\?[^"]*)"`).FindAllStringSubmatch(page, -1) {
		links = append(links, html.UnescapeString(m[1]))
	}
	return links
}

// TestGraphLinksSelectOneDefinition: a caller whose name two packages
// share links (box and list) to a name that selects it alone, so
// following the link opens its graph (not a 409), and the two boxes read
// differently.
func TestGraphLinksSelectOneDefinition(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	f.indexDir(t, "web", cgiFiles)
	code, page := f.do(t, "GET", graphURL("web", "SetHeader"), "", "")
	if code != 200 {
		t.Fatalf("graph of SetHeader: %d\n%s", code, page)
	}
	svg := page[strings.Index(page, "<svg"):strings.Index(page, "</svg>")]
	seen := map[string]bool{}
	for _, link := range graphLinks(page) {
		u, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		name := u.Query().Get("name")
		if !strings.Contains(name, "writeCGIHeader") || seen[link] {
			continue
		}
		seen[link] = true
		code, body := f.do(t, "GET", link, "", "")
		if code != 200 {
			t.Errorf("following %s: %d %.300s", link, code, body)
		}
	}
	names := map[string]bool{}
	for l := range seen {
		u, _ := url.Parse(l)
		names[u.Query().Get("name")] = true
	}
	if len(names) != 2 {
		t.Errorf("links to writeCGIHeader carry names %v, want two different ones", names)
	}
	var texts []string
	for _, m := range regexp.MustCompile(`<text [^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
		if strings.Contains(m[1], "writeCGI") || strings.Contains(m[1], "response") {
			texts = append(texts, html.UnescapeString(m[1]))
		}
	}
	if len(texts) != 2 || texts[0] == texts[1] {
		t.Errorf("the two writeCGIHeader boxes read %q", texts)
	}
	for _, l := range texts {
		if n := boxWidth(l); n > labelChars {
			t.Errorf("box text %q is %d wide, more than %d", l, n, labelChars)
		}
	}
}

// boxWidth is the width of a box's text, as the drawing counts it.
func boxWidth(s string) int { return labelWidth(s) }

// TestGraphLabelFitsWithCount: a caller reached by three calls reads
// "…×3" within the box's width, and a wide (CJK) name is cut by width.
func TestGraphLabelFitsWithCount(t *testing.T) {
	t.Parallel()
	start := &relate.Def{Name: "Header.Get(key string)", Type: "method", Path: "header.go", StartLine: 1, EndLine: 3}
	long := &relate.Def{Name: "checkPreconditions(w ResponseWriter, r *Request, modtime time.Time)", Type: "function", Path: "fs.go", StartLine: 10, EndLine: 40}
	zh := &relate.Def{Name: "压缩上下文并且合并较早的消息成为一条摘要(msgs []string)", Type: "function", Path: "zh.go", StartLine: 1, EndLine: 9}
	w := &relate.Walk{Root: start}
	for i := range 3 {
		w.Edges = append(w.Edges, relate.Edge{Kind: "calls", From: "checkPreconditions", To: "Get", Path: "fs.go", Line: 12 + i, Caller: long, Target: start, Resolution: "receiver", Depth: 1})
	}
	w.Edges = append(w.Edges, relate.Edge{Kind: "calls", From: zh.Name, To: "Get", Path: "zh.go", Line: 2, Caller: zh, Target: start, Resolution: "receiver", Depth: 1})
	svg := string(drawGraph(&Graph{Root: "/src/http", Query: "Header.Get", Depth: 1, Start: start, Callers: w}, false))
	texts := regexp.MustCompile(`<text [^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1)
	counted := false
	for _, m := range texts {
		l := html.UnescapeString(m[1])
		counted = counted || strings.HasSuffix(l, " ×3")
		if labelWidth(l) > labelChars {
			t.Errorf("%q is %d wide, more than %d", l, labelWidth(l), labelChars)
		}
	}
	if !counted {
		t.Errorf("no box reads ×3: %q", texts)
	}
}

// TestSearchResultGraphLinkSharedName: a search result whose name two
// packages share (response.writeCGIHeader in cgi/ and fcgi/) links to its
// graph with its file, so the link opens that definition's graph, not the
// 409 a bare shared name gives.
func TestSearchResultGraphLinkSharedName(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	f.indexDir(t, "web", cgiFiles)
	if code, _ := f.do(t, "GET", graphURL("web", "response.writeCGIHeader(p []byte)"), "", ""); code != 409 {
		t.Fatalf("the bare shared name: %d, want 409 (the test would prove nothing)", code)
	}
	code, page := f.do(t, "GET", "/?q="+url.QueryEscape("writeCGIHeader fcgi"), "", "")
	if code != 200 {
		t.Fatalf("search page: %d", code)
	}
	var followed int
	for _, link := range graphLinks(page) {
		u, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(u.Query().Get("name"), "writeCGIHeader") {
			continue
		}
		followed++
		code, body := f.do(t, "GET", link, "", "")
		if code != 200 || !strings.Contains(body, u.Query().Get("path")) {
			t.Errorf("following %s: %d %.300s", link, code, body)
		}
	}
	if followed == 0 {
		t.Fatalf("no graph link for writeCGIHeader on the search page:\n%.2000s", page)
	}
}
