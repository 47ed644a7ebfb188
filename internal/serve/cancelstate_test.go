package serve

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/embed"
)

// TestCancelledState: an index run stopped with POST /api/cancel shows as
// "cancelled at DONE/TOTAL" (changed files), not "failed: context
// canceled", in the status API, on the status page and in MCP's
// index_status.
func TestCancelledState(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret"})
	gate := make(chan struct{})
	defer close(gate)
	f.wrap = func(e embed.Embedder) embed.Embedder {
		return gatedEmbedder{Embedder: e, gate: gate, docs: new(atomic.Int64)}
	}
	for i, name := range []string{"thermo.go", "boiler.go"} {
		src := fmt.Sprintf("package list\n\n// Heater%d warms the boiler.\nfunc Heater%d(c int) bool { return c < 60 }\n", i, i)
		if err := os.WriteFile(filepath.Join(f.list, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, body := f.do(t, "POST", "/api/index", "s3cret", `{"root":"list"}`); code != 202 {
		t.Fatalf("index: %d %s", code, body)
	}
	// the run holds in its embedder once the scan has counted the changed
	// files; wait for that phase (a bound, not a timing assertion)
	for deadline := time.Now().Add(30 * time.Second); f.eng.Job(f.list).Progress.Total == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the run never counted its files: %+v", f.eng.Job(f.list))
		}
	}
	if code, body := f.do(t, "POST", "/api/cancel", "s3cret", `{"root":"list"}`); code != 200 || !strings.Contains(body, `"cancelled": true`) {
		t.Fatalf("cancel: %d %s", code, body)
	}

	var st statusJSON
	f.getJSON(t, "/api/status", &st)
	var run *IndexRun
	for _, p := range st.Projects {
		if p.Project == f.list {
			run = p.Indexing
		}
	}
	if run == nil || !run.Cancelled || run.Error != "" || run.Total < 2 {
		t.Fatalf("status API after cancel: %+v", run)
	}
	want := fmt.Sprintf("cancelled at %d/%d", run.Done, run.Total)
	if run.State != want {
		t.Errorf("status API state %q, want %q", run.State, want)
	}

	code, page := f.do(t, "GET", "/status", "", "")
	if code != 200 || !strings.Contains(page, want) || !strings.Contains(page, `data-state="cancelled"`) || strings.Contains(page, "context canceled") {
		t.Errorf("status page after cancel: %d, no %q in\n%.2000s", code, want, page)
	}

	cs := connect(t, f.srv.URL+"/mcp?project=list", "")
	text, isErr := callText(t, cs, &sdk.CallToolParams{Name: "index_status", Arguments: map[string]any{}})
	if isErr || !strings.Contains(text, want) || strings.Contains(text, "context canceled") || strings.Contains(text, "failed") {
		t.Errorf("MCP index_status after cancel (want %q):\n%s", want, text)
	}
}
