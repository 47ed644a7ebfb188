package serve

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// cjkFont checks that a CJK font is installed (fontconfig lists one for
// Chinese): the Chinese step of the browser test needs it to render. CI
// installs fonts-noto-cjk; missing, the test is skipped with the reason,
// unless CODERAG_TEST_CHROMIUM=required.
func cjkFont(t *testing.T) {
	t.Helper()
	out, err := exec.Command("fc-list", ":lang=zh", "family").Output()
	if err == nil && strings.TrimSpace(string(out)) != "" {
		return
	}
	if os.Getenv("CODERAG_TEST_CHROMIUM") == "required" {
		t.Fatal("no CJK font (apt-get install fonts-noto-cjk) and CODERAG_TEST_CHROMIUM=required")
	}
	t.Skip("no CJK font: apt-get install fonts-noto-cjk")
}

// zhFiles is a project whose code is commented in Chinese.
var zhFiles = map[string]string{"compact.go": `package agent

// CompactContext 压缩上下文：把较早的消息合并成一条摘要，
// 让对话留在模型的上下文窗口之内。
func CompactContext(msgs []string, keep int) []string {
	if len(msgs) <= keep {
		return msgs
	}
	summary := "摘要: " + msgs[0]
	return append([]string{summary}, msgs[len(msgs)-keep:]...)
}
`}

// throttleFiles is a file that two projects hold alike.
var throttleFiles = map[string]string{"throttle.go": "package limit\n\n// Throttle limits the requests of each client to n a second.\nfunc Throttle(client string, n int) bool { return n > 0 }\n"}

// fanCallers is how many functions of fanFiles call Target, besides
// Mid0..Mid2, which a function with a long name calls (at depth 2 it is
// one box reached three times).
const fanCallers = 25

// fanFiles is a project where Target has more callers than the graph
// draws.
func fanFiles() map[string]string {
	var b strings.Builder
	b.WriteString("package fan\n\n// Target is called by many.\nfunc Target() {}\n\n")
	for i := range 3 {
		fmt.Fprintf(&b, "func Mid%d() { Target() }\n\n", i)
	}
	b.WriteString("func checkPreconditions(w ResponseWriter, r *Request, modtime int) {\n\tMid0()\n\tMid1()\n\tMid2()\n}\n\n")
	for i := range fanCallers {
		fmt.Fprintf(&b, "func Caller%02d() { Target() }\n\n", i)
	}
	return map[string]string{"fan.go": b.String()}
}

// TestBrowserSearchAsPeopleSearch drives, in headless Chromium, what
// issue 30 asked of the page: matched terms marked in the snippets, a
// "more results" link (10, then 20), the notes of a weak query in the
// page's words, two projects named lib told apart in the checkboxes and
// badges, filters in the query (lang:, file:, -file:, a misspelt one's
// error), a file two projects hold alike shown once "also in" the other,
// a graph walked by clicking its boxes and changing its depth, a fan-in
// capped at "N more" (drawing and list) with every box's text inside its
// box, a
// file view opening at its target under a sticky header with a straight
// code column, the favicon, and a Chinese query whose results render in a
// CJK font. Screenshots go to docs/ with -update-screenshot.
func TestBrowserSearchAsPeopleSearch(t *testing.T) {
	t.Parallel()
	bin := chromiumPath(t)
	cjkFont(t)
	f := newFixture(t, Options{})
	files := map[string]string{}
	for i := range 16 {
		files[fmt.Sprintf("retry%02d.go", i)] = fmt.Sprintf("package retry\n\n// RetryBackoff%[1]d retries the call with exponential backoff.\nfunc RetryBackoff%[1]d() {}\n\n// Backoff%[1]d doubles the retry delay.\nfunc Backoff%[1]d() {}\n", i)
	}
	files["retry_test.go"] = "package retry\n\n// TestRetryBackoff checks that the retry backoff doubles.\nfunc TestRetryBackoff() {}\n"
	retry := f.indexDir(t, "retry", files)
	a := f.indexDir(t, "a/lib", libFiles("first"))
	b := f.indexDir(t, "b/lib", libFiles("second"))
	zh := f.indexDir(t, "zh", zhFiles)
	f.indexDir(t, "copy1", throttleFiles)
	f.indexDir(t, "copy2", throttleFiles)
	f.indexDir(t, "fan", fanFiles())
	ctx := newBrowser(t, bin, 1100, 720)
	step := stepper(t, ctx)
	eval := func(what, js string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return n
	}
	shot := func() []byte {
		t.Helper()
		b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	// highlighting and more results
	step("search one project", chromedp.Navigate(f.srv.URL+"/?project="+url.QueryEscape(retry)+"&q="+url.QueryEscape("retry with backoff")),
		chromedp.WaitVisible(chromedp.CSS("#results .result .snippet mark")))
	if n := eval("results", "document.querySelectorAll('#results .result').length"); n != 10 {
		t.Fatalf("%d results, want 10", n)
	}
	marks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string]("Array.from(document.querySelectorAll('#results .snippet mark')).map(m => m.textContent.toLowerCase())"))
	if err != nil || len(marks) == 0 {
		t.Fatalf("marks %v, %v", marks, err)
	}
	for _, m := range marks {
		if !strings.Contains(m, "retr") && !strings.Contains(m, "backoff") {
			t.Errorf("marked %q, not a query word", m)
		}
	}
	step("more results", chromedp.Click(chromedp.CSS("#more")), chromedp.WaitVisible(chromedp.CSS("#results .result:nth-child(11)")))
	if n := eval("results", "document.querySelectorAll('#results .result').length"); n != 20 {
		t.Errorf("%d results after more, want 20", n)
	}
	if u, err := chromedp.Run(ctx, chromedp.Location()); err != nil || !strings.Contains(u, "top_k=20") {
		t.Errorf("more went to %q, %v", u, err)
	}
	step("back to the top", chromedp.Evaluate[chromedp.Void]("window.scrollTo(0, 0)"))
	highlighted := shot()

	// notes of a weak query, as the page says them
	step("an identifier that exists nowhere", chromedp.Navigate(f.srv.URL+"/?q="+url.QueryEscape("where is zorblaxConfigBridge set up")),
		chromedp.WaitVisible(chromedp.CSS("p.note")))
	notes, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil || !strings.Contains(notes, "no identifier `zorblaxConfigBridge` in the code; results match its parts") || strings.Contains(notes, "`coderag ") {
		t.Errorf("notes %q, %v", notes, err)
	}

	// two projects named lib
	step("search every project", chromedp.Navigate(f.srv.URL+"/?q="+url.QueryEscape("parse the configuration file")),
		chromedp.WaitVisible(chromedp.CSS("#results .result")))
	labels, err := chromedp.Run(ctx, chromedp.Evaluate[[]string]("Array.from(document.querySelectorAll('.scope label')).map(l => l.textContent)"))
	if err != nil || !strings.Contains(strings.Join(labels, ","), "a/lib,b/lib") {
		t.Errorf("checkbox labels %q, %v; want a/lib and b/lib", labels, err)
	}
	badges, err := chromedp.Run(ctx, chromedp.Evaluate[[]string]("Array.from(document.querySelectorAll('#results .project')).map(l => l.textContent)"))
	if err != nil || !strings.Contains(strings.Join(badges, ","), "a/lib #1") || !strings.Contains(strings.Join(badges, ","), "b/lib #1") {
		t.Errorf("badges %q, %v", badges, err)
	}
	step("tick b/lib", chromedp.Click(chromedp.CSS(`.scope input[value="`+b+`"]`)), chromedp.Click(chromedp.CSS(".searchbox button")),
		chromedp.WaitReady(chromedp.CSS(`.scope input[value="`+b+`"][checked]`)), chromedp.WaitVisible(chromedp.CSS("#results .result")))
	badges, err = chromedp.Run(ctx, chromedp.Evaluate[[]string]("Array.from(document.querySelectorAll('#results .project')).map(l => l.textContent)"))
	if err != nil || len(badges) == 0 || strings.Contains(strings.Join(badges, ","), "a/lib") {
		t.Errorf("b/lib ticked, badges %q, %v", badges, err)
	}
	_ = a
	projects := shot()

	// filters in the query
	paths := func() []string {
		t.Helper()
		p, err := chromedp.Run(ctx, chromedp.Evaluate[[]string]("Array.from(document.querySelectorAll('#results .loc')).map(a => a.textContent)"))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	step("only test files", chromedp.Navigate(f.srv.URL+"/?q="+url.QueryEscape("retry with backoff lang:go file:*_test.go")),
		chromedp.WaitVisible(chromedp.CSS("#results .result")))
	if p := paths(); len(p) == 0 || !strings.HasPrefix(p[0], "retry_test.go:") || len(p) != 1 {
		t.Errorf("lang:go file:*_test.go shows %q, want retry_test.go alone", p)
	}
	if v, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(".searchbox input[name=q]"))); err != nil || !strings.Contains(v, "file:*_test.go") {
		t.Errorf("the search box reads %q, %v: the filter is not kept", v, err)
	}
	step("a small window", chromedp.EmulateViewport(900, 380))
	filter := shot()
	step("the window back", chromedp.EmulateViewport(1100, 720))
	step("no test files", chromedp.Navigate(f.srv.URL+"/?project="+url.QueryEscape(retry)+"&q="+url.QueryEscape("retry with backoff test -file:*_test.go")),
		chromedp.WaitVisible(chromedp.CSS("#results .result")))
	for _, p := range paths() {
		if strings.Contains(p, "_test.go") {
			t.Errorf("-file:*_test.go shows %s", p)
		}
	}
	step("a misspelt filter", chromedp.Navigate(f.srv.URL+"/?q="+url.QueryEscape("retry lnag:go")), chromedp.WaitVisible(chromedp.CSS("p.error")))
	if e, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("p.error"))); err != nil || !strings.Contains(e, `unknown filter "lnag:" (did you mean "lang:"?)`) {
		t.Errorf("the misspelt filter reads %q, %v", e, err)
	}

	// a file copied into two projects is one result, "also in" the other
	step("identical files", chromedp.Navigate(f.srv.URL+"/?q="+url.QueryEscape("throttle the requests of each client")),
		chromedp.WaitVisible(chromedp.CSS("#results .result .also")))
	also, err := chromedp.Run(ctx, chromedp.Evaluate[[]string]("Array.from(document.querySelectorAll('#results .result')).filter(r => r.querySelector('.loc').textContent.startsWith('throttle.go:')).map(r => (r.querySelector('.also') || {textContent: ''}).textContent)"))
	if err != nil || len(also) != 1 || !strings.HasPrefix(also[0], "also in copy") {
		t.Errorf("throttle.go results: %q, %v; want one, also in the other copy", also, err)
	}

	// a graph you can walk
	step("open a graph", chromedp.Navigate(f.srv.URL+graphURL(f.rec, "ResponseRecorder.WriteHeader")), chromedp.WaitVisible(chromedp.CSS("#graph svg .callee")))
	callee, err := chromedp.Run(ctx, chromedp.Evaluate[string]("document.querySelector('#graph svg a .node.callee title').textContent.split('  ')[0]"))
	if err != nil || callee == "" {
		t.Fatalf("first callee %q, %v", callee, err)
	}
	step("click a callee", chromedp.Click(chromedp.CSS("#graph svg a .node.callee")), chromedp.WaitVisible(chromedp.CSS("#graph svg .node.start")))
	title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("h1 code")))
	if err != nil || title != callee {
		t.Fatalf("clicking the callee %q opened the graph of %q, %v", callee, title, err)
	}
	columns := "new Set(Array.from(document.querySelectorAll('#graph svg .node rect')).map(r => r.getAttribute('x'))).size"
	depth1 := eval("columns", columns)
	// SetValue fires change, as a person choosing 2 does
	step("depth 2", chromedp.SetValue(chromedp.CSS("#depth"), "2"), chromedp.WaitReady(chromedp.CSS(`#depth option[value="2"][selected]`)))
	if u, err := chromedp.Run(ctx, chromedp.Location()); err != nil || !strings.Contains(u, "depth=2") {
		t.Errorf("depth control went to %q, %v", u, err)
	}
	if n := eval("columns", columns); n <= depth1 {
		t.Errorf("depth 2 draws %d columns, depth 1 %d", n, depth1)
	}
	graph := shot()

	// a fan-in larger than the drawing: "N more" in the drawing and the list
	step("a graph of many callers", chromedp.Navigate(f.srv.URL+graphURLDepth("fan", "Target", 2)), chromedp.WaitVisible(chromedp.CSS("#graph svg .node.more")))
	if more, err := chromedp.Run(ctx, chromedp.Evaluate[string]("document.querySelector('#graph svg .node.more text').textContent")); err != nil || more != fmt.Sprintf("%d more", fanCallers+3-(maxGraphRows-1)) {
		t.Errorf("the more box reads %q, %v", more, err)
	}
	if n := eval("boxes", "document.querySelectorAll('#graph svg .node.caller').length"); n != maxGraphRows+1 {
		t.Errorf("%d caller boxes, want %d (the last of depth 1 N more, and checkPreconditions at depth 2)", n, maxGraphRows+1)
	}
	step("open the list's more", chromedp.Click(chromedp.CSS("#Callers details.more summary")), chromedp.WaitVisible(chromedp.CSS("#Callers details.more[open] li")))
	if n := eval("listed", "document.querySelectorAll('#Callers li').length"); n != fanCallers+3+3 {
		t.Errorf("%d callers listed, want %d", n, fanCallers+6)
	}
	// every box's text fits its box, the call count too
	over, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#graph svg .node')).filter(g => {
		const r = g.querySelector('rect'), t = g.querySelector('text');
		return t.getComputedTextLength() > r.width.baseVal.value - 2*(t.x.baseVal[0].value - r.x.baseVal.value);
	}).map(g => g.querySelector('text').textContent)`))
	if err != nil || len(over) > 0 {
		t.Errorf("texts that run past their box: %q, %v", over, err)
	}
	if n := eval("counted", "Array.from(document.querySelectorAll('#graph svg .node text')).filter(t => t.textContent.endsWith(' ×3')).length"); n != 1 {
		t.Errorf("%d boxes read ×3, want 1", n)
	}

	// the file view
	step("open a file at line 120", chromedp.Navigate(f.srv.URL+fileURL(f.rec, "recorder.go", 120, 125)), chromedp.WaitVisible(chromedp.CSS("#L120")))
	if n := eval("first line", "parseInt(document.querySelector('.code .ln').id.slice(1))"); n != 120-fileContext {
		t.Errorf("the view starts at line %d, want %d", n, 120-fileContext)
	}
	top := eval("target", "Math.round(document.getElementById('L120').getBoundingClientRect().top)")
	head := eval("header", "Math.round(document.querySelector('.filehead').getBoundingClientRect().bottom)")
	if top < head || top > 720 {
		t.Errorf("line 120 at y=%d, header ends at %d: not in view below the header", top, head)
	}
	if eval("sticky", "Math.round(document.querySelector('.filehead').getBoundingClientRect().top)") != 0 {
		t.Errorf("the path header is not stuck at the top")
	}
	step("open a file at line 100", chromedp.Navigate(f.srv.URL+fileURL(f.rec, "recorder.go", 100, 0)), chromedp.WaitVisible(chromedp.CSS("#L100")))
	if x99, x100 := eval("x", "Math.round(document.getElementById('L99').nextElementSibling.getBoundingClientRect().left)"),
		eval("x", "Math.round(document.getElementById('L100').nextElementSibling.getBoundingClientRect().left)"); x99 != x100 {
		t.Errorf("code of line 99 starts at x=%d, of line 100 at x=%d", x99, x100)
	}
	fileView := shot()
	if eval("favicon", "(() => { const x = new XMLHttpRequest(); x.open('GET', '/favicon.ico', false); x.send(); return x.status === 200 && x.getResponseHeader('content-type').startsWith('image/svg') ? 1 : 0; })()") != 1 {
		t.Errorf("no favicon")
	}

	// Chinese
	step("a Chinese query", chromedp.Navigate(f.srv.URL+"/?project="+url.QueryEscape(zh)+"&q="+url.QueryEscape("上下文是怎么压缩的")),
		chromedp.WaitVisible(chromedp.CSS("#results .result")))
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#results .result .snippet")))
	if err != nil || !strings.Contains(text, "压缩上下文") {
		t.Fatalf("the Chinese result reads %q, %v", text, err)
	}
	// a glyph drawn, not the box of a missing one: the snippet's font
	// draws 压 otherwise than a code point no font has
	glyph := `(() => {
		const c = document.createElement("canvas"); c.width = 40; c.height = 40;
		const g = c.getContext("2d");
		g.font = "32px " + getComputedStyle(document.querySelector("#results .snippet pre")).fontFamily;
		const px = s => { g.clearRect(0, 0, 40, 40); g.fillText(s, 2, 32); return Array.from(g.getImageData(0, 0, 40, 40).data).join(","); };
		const han = px("压");
		return han !== px("\u{10FFFD}") && han !== px(" ") ? 1 : 0;
	})()`
	if eval("CJK glyph", glyph) != 1 {
		t.Errorf("压 is drawn as a missing glyph: no CJK font renders the results")
	}
	chinese := shot()

	saveShots(t, map[string][]byte{"serve-filter.png": filter, "serve-highlight.png": highlighted, "serve-projects.png": projects,
		"serve-graph-walk.png": graph, "serve-file.png": fileView, "serve-chinese.png": chinese})
}
