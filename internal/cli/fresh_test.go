package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/testutil"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

type searchOut struct {
	Root      string `json:"root"`
	Refreshed int    `json:"refreshed"`
	Changed   int    `json:"changed_since_index"`
	// NotRefreshed says why the changed files were left as they were.
	NotRefreshed string `json:"not_refreshed"`
	// Incomplete is the note of an incomplete or mixed index.
	Incomplete string `json:"incomplete"`
	Results    []struct {
		Path      string `json:"path"`
		Name      string `json:"name"`
		StartLine int    `json:"start_line"`
		Stale     bool   `json:"stale"`
	} `json:"results"`
}

func searchJSONOut(t *testing.T, args ...string) searchOut {
	t.Helper()
	code, out, errs := run(t, append([]string{"search", "--json"}, args...)...)
	var s searchOut
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 {
		t.Fatalf("search %v: exit %d, %v\n%s\n%s", args, code, err, out, errs)
	}
	return s
}

// TestSearchIsFresh: 40 lines inserted at the top of an indexed file and a
// new function are seen by the next search (refreshed before answering);
// past the refresh budget, search says how many files changed and marks the
// results from them stale.
func TestSearchIsFresh(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	body := "package shop\n\n// ChargeCustomer bills the customer's card.\nfunc ChargeCustomer(amount int) error { return nil }\n"
	writeFile(t, filepath.Join(dir, "shop.go"), body)
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	s := searchJSONOut(t, "--project", dir, "ChargeCustomer")
	if len(s.Results) == 0 || s.Results[0].StartLine != 3 || s.Root != dir {
		t.Fatalf("before: %+v", s)
	}
	pad := strings.Repeat("var _ = 0\n", 40)
	writeFile(t, filepath.Join(dir, "shop.go"), "package shop\n\n"+pad+body[len("package shop\n\n"):]+
		"\n// RefundOrder returns the money of a cancelled order.\nfunc RefundOrder(id int) error { return nil }\n")
	s = searchJSONOut(t, "--project", dir, "ChargeCustomer")
	if len(s.Results) == 0 || s.Results[0].StartLine != 43 || s.Refreshed != 1 || s.Results[0].Stale {
		t.Errorf("after inserting 40 lines: %+v", s)
	}
	s = searchJSONOut(t, "--project", dir, "RefundOrder")
	if len(s.Results) == 0 || !strings.HasPrefix(s.Results[0].Name, "RefundOrder") {
		t.Errorf("new function not found: %+v", s)
	}
	// too many changes to refresh: counted and marked
	for i := 0; i <= freshMaxFiles; i++ {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("gen%02d.go", i)), fmt.Sprintf("package shop\n\nfunc Gen%d() {}\n", i))
	}
	writeFile(t, filepath.Join(dir, "shop.go"), "package shop\n\n"+pad+pad+body[len("package shop\n\n"):])
	code, out, errs := run(t, "search", "--project", dir, "ChargeCustomer")
	want := fmt.Sprintf("%d files changed since the last index", freshMaxFiles+2)
	if code != 0 || !strings.Contains(errs, want) || !strings.Contains(out, "[stale: file changed since the last index") {
		t.Errorf("big change: exit %d\n%s\n%s", code, out, errs)
	}
	s = searchJSONOut(t, "--project", dir, "ChargeCustomer")
	if s.Changed != freshMaxFiles+2 || len(s.Results) == 0 || !s.Results[0].Stale ||
		s.NotRefreshed != fmt.Sprintf("more than %d to refresh before answering", freshMaxFiles) {
		t.Errorf("big change, JSON: %+v", s)
	}
}

// TestSearchManyMarksStale: a search of several projects marks the
// results from files changed since the last index stale, as a search of
// one does (on the previous main it said "marked stale" and marked
// nothing), in JSON and in text.
func TestSearchManyMarksStale(t *testing.T) {
	setHome(t)
	a, b := t.TempDir(), t.TempDir()
	body := "package shop\n\n// ChargeCustomer bills the customer's card.\nfunc ChargeCustomer(amount int) error { return nil }\n"
	writeFile(t, filepath.Join(a, "shop.go"), body)
	writeFile(t, filepath.Join(b, "bill.go"), "package bill\n\n// BillCustomer charges the customer.\nfunc BillCustomer() {}\n")
	for _, d := range []string{a, b} {
		if code, out, errs := run(t, "index", "--quiet", d); code != 0 {
			t.Fatalf("index %s: %d %s %s", d, code, out, errs)
		}
	}
	// more changes than a search refreshes: left pending, results marked
	for i := 0; i <= freshMaxFiles; i++ {
		writeFile(t, filepath.Join(a, fmt.Sprintf("gen%02d.go", i)), fmt.Sprintf("package shop\n\nfunc Gen%d() {}\n", i))
	}
	writeFile(t, filepath.Join(a, "shop.go"), "package shop\n\n"+strings.Repeat("var _ = 0\n", 40)+body[len("package shop\n\n"):])
	code, out, errs := run(t, "search", "--json", "--project", a, "--project", b, "ChargeCustomer bills the customer")
	var resp struct {
		Results []struct {
			Project string `json:"project"`
			Path    string `json:"path"`
			Stale   bool   `json:"stale"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil || code != 0 {
		t.Fatalf("search: exit %d %v\n%s\n%s", code, err, out, errs)
	}
	seen := map[string]bool{}
	for _, r := range resp.Results {
		seen[r.Path] = true
		if want := r.Path == "shop.go"; r.Stale != want {
			t.Errorf("%s %s: stale %v, want %v", r.Project, r.Path, r.Stale, want)
		}
	}
	if !seen["shop.go"] || !seen["bill.go"] {
		t.Fatalf("results from both projects expected: %s", out)
	}
	if want := fmt.Sprintf("%d files changed since the last index", freshMaxFiles+2); !strings.Contains(errs, want) {
		t.Errorf("no note of the pending changes: %s", errs)
	}
	code, out, errs = run(t, "search", "--project", a, "--project", b, "ChargeCustomer bills the customer")
	if code != 0 || strings.Count(out, "[stale: file changed since the last index") != 1 {
		t.Errorf("text: exit %d, want one stale mark (shop.go)\n%s\n%s", code, out, errs)
	}
}

// TestOneBaseForPaths: from a subdirectory of an indexed project, search,
// grep, glob and read all use paths relative to the project root, read
// accepts what search printed, and every JSON output names the root.
func TestOneBaseForPaths(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pkg", "inner", "ledger.go"), "package inner\n\n// PostLedgerEntry records one entry.\nfunc PostLedgerEntry() {}\n")
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	sub := "--project=" + filepath.Join(dir, "pkg")
	s := searchJSONOut(t, sub, "PostLedgerEntry")
	if len(s.Results) == 0 || s.Results[0].Path != "pkg/inner/ledger.go" || s.Root != dir {
		t.Fatalf("search from a subdirectory: %+v", s)
	}
	code, out, errs := run(t, "read", sub, "--json", s.Results[0].Path)
	var rd map[string]any
	if err := json.Unmarshal([]byte(out), &rd); err != nil || code != 0 || rd["root"] != dir || !strings.Contains(fmt.Sprint(rd), "PostLedgerEntry") {
		t.Errorf("read of a path printed by search: %d %v\n%s\n%s", code, err, out, errs)
	}
	// a path relative to the working directory still works
	if code, out, errs := run(t, "read", sub, "inner/ledger.go"); code != 0 || !strings.Contains(out, "PostLedgerEntry") {
		t.Errorf("read relative to the subdirectory: %d %s %s", code, out, errs)
	}
	// a name that exists both at the root and in the working directory:
	// "./x" is the shell's (the working directory's), "x" the root's
	writeFile(t, filepath.Join(dir, "notes.go"), "package root\n\n// RootNote is at the root.\nfunc RootNote() {}\n")
	writeFile(t, filepath.Join(dir, "pkg", "notes.go"), "package pkg\n\n// PkgNote is in pkg.\nfunc PkgNote() {}\n")
	if code, out, errs := run(t, "read", sub, "./notes.go"); code != 0 || !strings.Contains(out, "PkgNote") {
		t.Errorf("read ./notes.go from pkg should read pkg/notes.go: %d %s %s", code, out, errs)
	}
	if code, out, errs := run(t, "read", sub, "notes.go"); code != 0 || !strings.Contains(out, "RootNote") {
		t.Errorf("read notes.go (as search prints it) should read the root's: %d %s %s", code, out, errs)
	}
	// from a subdirectory, grep covers it only, and says so
	if code, _, errs := run(t, "grep", sub, "RootNote"); code != 1 || !strings.Contains(errs, "searching pkg/ (the working directory) only") {
		t.Errorf("grep from pkg should search pkg/ only and say so: %d %q", code, errs)
	}
	code, out, _ = run(t, "grep", sub, "--json", "PostLedgerEntry")
	var gr map[string]any
	if err := json.Unmarshal([]byte(out), &gr); err != nil || code != 0 || gr["root"] != dir || !strings.Contains(out, `"pkg/inner/ledger.go"`) {
		t.Errorf("grep from a subdirectory: %d %v %s", code, err, out)
	}
	code, out, _ = run(t, "glob", sub, "--json", "*.go")
	if err := json.Unmarshal([]byte(out), &gr); err != nil || code != 0 || gr["root"] != dir || !strings.Contains(out, `"pkg/inner/ledger.go"`) {
		t.Errorf("glob from a subdirectory: %d %v %s", code, err, out)
	}
}

// TestOlderAnalysisNoted: files indexed by another analysis version are
// named once per process, by search (from its freshness check) and by the
// other commands (from the store), and not at all when none are older.
func TestOlderAnalysisNoted(t *testing.T) {
	home := setHome(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.go"), "package a\n\n// Alpha is the first.\nfunc Alpha() {}\n")
	writeFile(t, filepath.Join(dir, "b.go"), "package a\n\n// Beta is the second.\nfunc Beta() {}\n")
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	if _, _, errs := run(t, "search", "--project", dir, "Alpha"); strings.Contains(errs, "older coderag") {
		t.Fatalf("fresh index noted as older: %s", errs)
	}
	st, err := store.Open(context.Background(), filepath.Join(home, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	testutil.RawWrite(t, st.Path(), `UPDATE indexed_files SET analysis=1 WHERE file_path='b.go'`)
	staleNoted.Delete(dir)
	want := "note: 1 file of " + dir + " was indexed by an older coderag; run `coderag index " + dir + "` to refresh it"
	if code, _, errs := run(t, "search", "--project", dir, "Alpha"); code != 0 || !strings.Contains(errs, want) {
		t.Errorf("search: %d, stderr %q, want %q", code, errs, want)
	}
	// once per process and project
	if _, _, errs := run(t, "search", "--project", dir, "Beta"); strings.Contains(errs, "older coderag") {
		t.Errorf("noted twice: %s", errs)
	}
	staleNoted.Delete(dir)
	if code, _, errs := run(t, "callers", "--project", dir, "Alpha"); !strings.Contains(errs, want) {
		t.Errorf("callers: %d, stderr %q, want %q", code, errs, want)
	}
}
