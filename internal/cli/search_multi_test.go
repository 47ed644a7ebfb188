package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/search"
)

// TestSearchManyProjects: `search --project A --project B` and `--all`
// answer from both projects, each result naming its project, in text and
// JSON; bad flag combinations are usage errors.
func TestSearchManyProjects(t *testing.T) {
	setHome(t)
	a, b := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(a, "pay.go"), []byte("package pay\n\n// ChargeCard charges the card for the invoice total.\nfunc ChargeCard(total int) error { return nil }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b, "bill.py"), []byte("def charge_invoice(invoice):\n    \"\"\"Charge the invoice to the customer's card.\"\"\"\n    return invoice.total\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{a, b} {
		if code, _, errs := run(t, "index", d); code != 0 {
			t.Fatalf("index %s: %s", d, errs)
		}
	}
	ra, err := index.ResolveRoot(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := index.ResolveRoot(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--project", a, "--project", b}, {"--all"}} {
		code, out, errs := run(t, append([]string{"search", "--json", "charge the invoice card"}, args...)...)
		if code != 0 {
			t.Fatalf("search %v: exit %d %s", args, code, errs)
		}
		var resp search.MultiResponse
		if err := json.Unmarshal([]byte(out), &resp); err != nil {
			t.Fatalf("search %v --json: %v\n%s", args, err, out)
		}
		// like every --json output, it names the roots its paths are
		// relative to
		var top struct {
			Roots []string `json:"roots"`
		}
		if err := json.Unmarshal([]byte(out), &top); err != nil || len(top.Roots) != 2 ||
			!slices.Contains(top.Roots, resp.Projects[0].Project) || !slices.Contains(top.Roots, resp.Projects[1].Project) ||
			!slices.Contains(top.Roots, ra) || !slices.Contains(top.Roots, rb) {
			t.Errorf("search %v --json: roots %q, want %q and %q", args, top.Roots, ra, rb)
		}
		got := map[string]string{}
		for _, r := range resp.Results {
			got[filepath.Base(r.Project)] = r.Path
		}
		if got[filepath.Base(a)] != "pay.go" || got[filepath.Base(b)] != "bill.py" || len(resp.Projects) != 2 {
			t.Errorf("search %v: results by project %v, projects %+v", args, got, resp.Projects)
		}
		code, out, _ = run(t, append([]string{"search", "charge the invoice card"}, args...)...)
		if code != 0 || !strings.Contains(out, "pay.go") || !strings.Contains(out, "bill.py") || !strings.Contains(out, filepath.Base(b)) {
			t.Errorf("search %v text: exit %d\n%s", args, code, out)
		}
	}
	for _, bad := range [][]string{
		{"search", "--all", "--project", a, "q"},
		{"search", "--all", "--expand", "q"},
	} {
		if code, _, _ := run(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}
