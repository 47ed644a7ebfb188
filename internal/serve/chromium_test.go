package serve

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/store"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "write the screenshots of the Chromium test to docs/")

// chromiumPath finds headless Chromium. Missing, the test is skipped with
// the reason, unless CODERAG_TEST_CHROMIUM=required (set by .ci/run, which
// installs it): then it fails.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CODERAG_TEST_CHROMIUM") == "required" {
		t.Fatal("chromium is not installed (apt-get install chromium) and CODERAG_TEST_CHROMIUM=required")
	}
	t.Skip("chromium is not installed (apt-get install chromium); CI installs it and sets CODERAG_TEST_CHROMIUM=required")
	return ""
}

// newBrowser starts headless Chromium (bin) with a window of w x h pixels
// and returns the context of its tab; the browser ends with the test, and
// within 90 s whatever happens (a bound, not an assertion: a hung browser
// ends the test).
func newBrowser(t *testing.T, bin string, w, h int) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // tests run as root in CI containers
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(w, h),
	)
	base, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	// the browser is started here, not by the test's first step: on a
	// loaded machine Chromium sometimes dies while starting ("chrome failed
	// to start"), which is the machine's, not the page's; it is started
	// once more then
	for try := 1; ; try++ {
		actx, cancelAlloc := chromedp.NewExecAllocator(base, opts...)
		ctx, cancelTab := chromedp.NewContext(actx)
		err := chromedp.Do(ctx) // no step: starts the browser and its tab
		if err == nil {
			t.Cleanup(cancelAlloc)
			t.Cleanup(cancelTab)
			return ctx
		}
		cancelTab()
		cancelAlloc()
		if try == 2 || !strings.Contains(err.Error(), "chrome failed to start") {
			t.Fatalf("start chromium: %v", err)
		}
		t.Logf("chromium did not start, once more: %.200s", err)
	}
}

// stepper returns a function that runs the actions of one step of a
// browser test in ctx, failing the test with the step's name, and logs
// how long it took.
func stepper(t *testing.T, ctx context.Context) func(what string, a ...chromedp.Action[chromedp.Void]) {
	return func(what string, a ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		start := time.Now()
		if err := chromedp.Do(ctx, a...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s: %s", what, time.Since(start).Round(time.Millisecond))
	}
}

// saveShots writes the screenshots of a browser test to the test's
// artifact directory, or to docs/ with -update-screenshot; each must be a
// PNG.
func saveShots(t *testing.T, shots map[string][]byte) {
	t.Helper()
	dir := t.ArtifactDir()
	if *updateScreenshot {
		dir = filepath.Join("..", "..", "docs")
	}
	for name, b := range shots {
		if len(b) < 1000 || string(b[1:4]) != "PNG" {
			t.Fatalf("%s is not a PNG (%d bytes)", name, len(b))
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBrowser drives the page in headless Chromium: type a query, see the
// results, open the score breakdown, follow a path:line link to the file
// view at its anchor, open the call graph from the results, then the status
// page. There, as a person would: index a small directory (refused with the
// API's 401 text until the token is given, which the page keeps in
// sessionStorage, never in the URL), see its row running with a progress
// bar while the run is held in its embedder, follow it to done once
// released, search it from the
// header, and remove it after a confirm step (a cancel keeps it). It saves
// screenshots of the results, the graph and the status page (to docs/ with
// -update-screenshot).
func TestBrowser(t *testing.T) {
	t.Parallel()
	bin := chromiumPath(t)
	f := newFixture(t, Options{Token: "s3cret"})
	// index runs of the server embed only once gate is closed: the page is
	// seen showing a run in progress (queries pass through)
	gate := make(chan struct{})
	var docs atomic.Int64
	f.wrap = func(e embed.Embedder) embed.Embedder { return gatedEmbedder{Embedder: e, gate: gate, docs: &docs} }
	ctx := newBrowser(t, bin, 1280, 860)
	step := stepper(t, ctx)
	step("open the page", chromedp.Navigate(f.srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#q")))
	step("type a query", chromedp.SendKeys(chromedp.CSS("#q"), "record the response headers a handler writes\n"),
		chromedp.WaitVisible(chromedp.CSS("#results .result")))
	loc, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#results .result .loc")))
	if err != nil || !strings.HasPrefix(loc, "recorder.go:") {
		t.Fatalf("first result %q, %v; want recorder.go:LINE", loc, err)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll('#results .result').length"))
	if err != nil || n < 2 {
		t.Fatalf("%d results, %v", n, err)
	}
	step("open the score breakdown", chromedp.Click(chromedp.CSS("#results .result .explain summary")),
		chromedp.WaitVisible(chromedp.CSS("#results .result .explain table")))
	results, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	searchURL, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.Contains(searchURL, "q=record") {
		t.Fatalf("search at %q, %v", searchURL, err)
	}
	step("open the file view", chromedp.Click(chromedp.CSS("#results .result .loc")), chromedp.WaitVisible(chromedp.CSS("#code")))
	url, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.Contains(url, "/file?") || !strings.Contains(url, "#L") {
		t.Fatalf("file view at %q, %v", url, err)
	}
	anchored, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("document.getElementById(location.hash.slice(1)) !== null"))
	if err != nil || !anchored {
		t.Fatalf("no line anchor for %s: %v", url, err)
	}
	step("back to the results", chromedp.Navigate(searchURL), chromedp.WaitVisible(chromedp.CSS("#results .graphlink")))
	step("open the graph", chromedp.Click(chromedp.CSS("#results .graphlink")), chromedp.WaitVisible(chromedp.CSS("#graph svg")))
	nodes, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll('#graph svg .node').length"))
	if err != nil || nodes < 2 {
		t.Fatalf("graph has %d nodes, %v", nodes, err)
	}
	// the picture: a method with callers and callees both
	step("open a fuller graph", chromedp.Navigate(f.srv.URL+graphURL(f.rec, "ResponseRecorder.writeHeader")), chromedp.WaitVisible(chromedp.CSS("#graph svg .callee")))
	graph, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	step("open the status page", chromedp.Click(chromedp.CSS(`nav a[href="/status"]`)), chromedp.WaitVisible(chromedp.CSS("#status")))
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll('#status tbody tr[data-project]').length"))
	if err != nil || rows != 2 {
		t.Fatalf("status page lists %d projects, %v; want 2", rows, err)
	}

	// writes from the page: a small real directory indexed, searched and removed
	small := filepath.Join(filepath.Dir(f.list), "ringdir")
	if err := os.Mkdir(small, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFiles(t, small, "container/ring", "ring.go")
	step("index without the token", chromedp.SetValue(chromedp.CSS("#index-root"), small),
		chromedp.Click(chromedp.CSS("#index-btn")), chromedp.WaitVisible(chromedp.CSS("#write-msg.error")))
	if msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#write-msg"))); err != nil || !strings.Contains(msg, "need the server's token") {
		t.Fatalf("refused write shows %q, %v; want the API's 401 text", msg, err)
	}
	step("give the token", chromedp.SendKeys(chromedp.CSS("#token"), "s3cret\n"), chromedp.WaitVisible(chromedp.CSS("#token-forget")))
	row := `#status tr[data-project="` + small + `"]`
	step("index a directory", chromedp.SetValue(chromedp.CSS("#index-root"), small), chromedp.Click(chromedp.CSS("#index-btn")),
		chromedp.WaitVisible(chromedp.CSS(row+`[data-state="running"] td.state progress`)))
	if state, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(row+" td.state"))); err != nil || !strings.Contains(state, "files") {
		t.Fatalf("a running row says %q, %v", state, err)
	}
	status, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	close(gate)
	step("follow it to the end", chromedp.WaitVisible(chromedp.CSS(row+`[data-state="done"]`)))
	if files, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(row+" td:nth-child(2)"))); err != nil || files != "1" {
		t.Fatalf("the new project's row says %q files, %v; want 1", files, err)
	}
	if msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#write-msg.ok"))); err != nil || !strings.HasPrefix(msg, "indexed "+small+": 1 changed") {
		t.Fatalf("after indexing the page says %q, %v", msg, err)
	}
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[string]("sessionStorage.getItem('coderag_token')"))
	if err != nil || kept != "s3cret" {
		t.Fatalf("token in sessionStorage: %q, %v", kept, err)
	}
	step("search the new project", chromedp.SendKeys(chromedp.CSS("#q"), "move the ring forward by n elements\n"),
		chromedp.WaitVisible(chromedp.CSS("#results .result")))
	first, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#results .result .head")))
	if err != nil || !strings.Contains(first, "ring.go:") || !strings.Contains(first, "ringdir") {
		t.Fatalf("first result %q, %v; want ring.go of ringdir", first, err)
	}
	if u, err := chromedp.Run(ctx, chromedp.Location()); err != nil || strings.Contains(u, "s3cret") {
		t.Fatalf("the token is in the URL %q (%v)", u, err)
	}
	step("ask to remove it", chromedp.Navigate(f.srv.URL+"/status"), chromedp.Click(chromedp.CSS(row+" button.remove")),
		chromedp.WaitVisible(chromedp.CSS(row+" button.confirm")))
	step("cancel", chromedp.Click(chromedp.CSS(row+" button.cancel")), chromedp.WaitVisible(chromedp.CSS(row+" button.remove")))
	if _, err := f.st.GetProject(ctx, small); err != nil {
		t.Fatalf("cancel removed the project: %v", err)
	}
	step("remove it", chromedp.Click(chromedp.CSS(row+" button.remove")), chromedp.Click(chromedp.CSS(row+" button.confirm")),
		chromedp.WaitNotPresent(chromedp.CSS(row)))
	if msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#write-msg.ok"))); err != nil || !strings.HasPrefix(msg, "removed "+small+" from the index (1 file)") {
		t.Fatalf("after removing the page says %q, %v", msg, err)
	}
	if _, err := f.st.GetProject(ctx, small); !errors.Is(err, store.ErrNotIndexed) {
		t.Fatalf("the removed project is still indexed: %v", err)
	}

	saveShots(t, map[string][]byte{"serve.png": results, "serve-graph.png": graph, "serve-status.png": status})
}
