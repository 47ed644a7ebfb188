package serve

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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

// TestBrowser drives the page in headless Chromium: type a query, see the
// results, open the score breakdown, follow a path:line link to the file
// view at its anchor, open the call graph from the results, then the status page; it saves screenshots
// of the results and the graph (to docs/ with -update-screenshot).
func TestBrowser(t *testing.T) {
	bin := chromiumPath(t)
	f := newFixture(t, Options{})
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // tests run as root in CI containers
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 860),
	)
	// a bound, not an assertion: a hung browser ends the test
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(ctx)
	defer cancelTab()

	step := func(what string, a ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		start := time.Now()
		if err := chromedp.Do(ctx, a...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s: %s", what, time.Since(start).Round(time.Millisecond))
	}
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
	shots := map[string][]byte{"serve.png": results, "serve-graph.png": graph}
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
