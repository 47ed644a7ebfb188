package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchFilters: filters inside the query narrow `search --json`
// (one project, and --all with repo:); an unknown filter or a query of
// filters only is bad usage: exit status 2 and one line on stderr.
func TestSearchFilters(t *testing.T) {
	setHome(t)
	base := t.TempDir()
	shop, bank := filepath.Join(base, "shop"), filepath.Join(base, "bank")
	writeFile(t, filepath.Join(shop, "charge.go"), "package shop\n\n// ChargeCustomer bills the customer's card.\nfunc ChargeCustomer(amount int) error { return nil }\n")
	writeFile(t, filepath.Join(shop, "charge.py"), "def charge_customer(amount):\n    \"\"\"charge the customer\"\"\"\n    return amount\n")
	writeFile(t, filepath.Join(bank, "charge.go"), "package bank\n\n// ChargeAccount charges an account.\nfunc ChargeAccount(amount int) error { return nil }\n")
	for _, d := range []string{shop, bank} {
		if code, out, errs := run(t, "index", "--quiet", d); code != 0 {
			t.Fatalf("index %s: %d %s %s", d, code, out, errs)
		}
	}
	type result struct {
		Path, Language, Project string
	}
	var resp struct {
		Filter  string   `json:"filter"`
		Results []result `json:"results"`
	}
	code, out, errs := run(t, "search", "--json", "--project", shop, "charge customer lang:py")
	if err := json.Unmarshal([]byte(out), &resp); err != nil || code != 0 || len(resp.Results) == 0 || resp.Filter != "lang:py" {
		t.Fatalf("lang:py: exit %d %v\n%s\n%s", code, err, out, errs)
	}
	for _, r := range resp.Results {
		if r.Language != "python" {
			t.Errorf("lang:py kept %s (%s)", r.Path, r.Language)
		}
	}
	resp.Results = nil
	code, out, errs = run(t, "search", "--json", "--all", "charge repo:bank")
	if err := json.Unmarshal([]byte(out), &resp); err != nil || code != 0 || len(resp.Results) == 0 {
		t.Fatalf("--all repo:bank: exit %d %v\n%s\n%s", code, err, out, errs)
	}
	for _, r := range resp.Results {
		if filepath.Base(r.Project) != "bank" {
			t.Errorf("repo:bank kept %s of %s", r.Path, r.Project)
		}
	}
	for q, want := range map[string]string{
		"charge lnag:go": `unknown filter "lnag:" (did you mean "lang:"?); known: lang, file, path, -file, sym, case, repo, project`,
		"lang:go":        "has only filters",
		"charge lang:xx": `unknown language "xx"`,
		// a project filter that names no project searched is bad input too
		"charge repo:zzz": "repo:zzz matches no project searched",
	} {
		for _, args := range [][]string{{"search", "--project", shop, q}, {"search", "--all", q}} {
			code, out, errs := run(t, args...)
			if code != 2 || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, want) {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line with %q", args, code, out, errs, want)
			}
		}
	}
}

// TestNegatedFilterArgument: an excluding filter given as an argument of
// its own ("-file:*.py", before or after the other words, or after the
// flags) is a word of the query, not an unknown flag; an unknown flag is
// still bad usage, and after "--" every argument is a word.
func TestNegatedFilterArgument(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "charge.go"), "package shop\n\n// ChargeCustomer bills the customer's card.\nfunc ChargeCustomer(amount int) error { return nil }\n")
	writeFile(t, filepath.Join(dir, "charge.py"), "def charge_customer(amount):\n    \"\"\"charge the customer\"\"\"\n    return amount\n")
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	for _, args := range [][]string{
		{"search", "--json", "--project", dir, "-file:*.py", "charge customer"},
		{"search", "--json", "--project", dir, "charge customer", "-file:*.py"},
		{"search", "-file:*.py", "--json", "--project", dir, "charge", "customer"},
		{"search", "--json", "--project", dir, "--", "-file:*.py", "charge customer"},
	} {
		var resp struct {
			Filter  string `json:"filter"`
			Results []struct{ Path string }
		}
		code, out, errs := run(t, args...)
		if err := json.Unmarshal([]byte(out), &resp); err != nil || code != 0 || len(resp.Results) == 0 {
			t.Fatalf("%q: exit %d %v\n%s\n%s", args, code, err, out, errs)
		}
		if resp.Filter != "-file:*.py" {
			t.Errorf("%q: filter %q, want -file:*.py", args, resp.Filter)
		}
		for _, r := range resp.Results {
			if strings.HasSuffix(r.Path, ".py") {
				t.Errorf("%q kept %s", args, r.Path)
			}
		}
	}
	if code, _, errs := run(t, "search", "--project", dir, "-bogus", "charge"); code != 2 || !strings.Contains(errs, "flag provided but not defined: -bogus") {
		t.Errorf("-bogus: exit %d, %s", code, errs)
	}
	for arg, want := range map[string]bool{"-file:x": true, "-lang:go": true, "-file": false, "--file:x": false, "-File:x": false, "-:x": false, "file:x": false, "-top-k=3": false} {
		if got := negatedFilter(arg); got != want {
			t.Errorf("negatedFilter(%q) = %v, want %v", arg, got, want)
		}
	}
}
