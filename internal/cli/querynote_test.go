package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/search"
)

// TestQueryWithoutSearchableWords: a query of stop words only says so (not
// that its words are absent from the code); a query of punctuation only has
// no results and says why; both exit 0 like any search that ran.
func TestQueryWithoutSearchableWords(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "shop.go"), "package shop\n\n// ChargeCustomer bills the customer's card.\nfunc ChargeCustomer(amount int) error { return nil }\n")
	writeFile(t, filepath.Join(dir, "refund.go"), "package shop\n\n// RefundOrder returns the money of an order.\nfunc RefundOrder(id int) error { return nil }\n")
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	code, out, errs := run(t, "search", "--project", dir, "the")
	if code != 0 || !strings.Contains(out, "note: "+search.StopWordsNote) || strings.Contains(out, search.NoKeywordNote) {
		t.Errorf("stop words: exit %d\n%s\n%s", code, out, errs)
	}
	for _, q := range []string{"???", "(( && :: ))"} {
		code, out, errs = run(t, "search", "--project", dir, q)
		if code != 0 || !strings.Contains(out, "note: "+search.NoWordsNote) || !strings.Contains(out, "no results") || strings.Contains(out, " 1. ") {
			t.Errorf("%q: exit %d\n%s\n%s", q, code, out, errs)
		}
		code, out, _ = run(t, "search", "--json", "--project", dir, q)
		var s struct {
			Note    string            `json:"note"`
			Results []json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 || s.Note != search.NoWordsNote || s.Results == nil || len(s.Results) != 0 {
			t.Errorf("%q --json: exit %d %v\n%s", q, code, err, out)
		}
	}
	// a real word not in the code keeps its own note
	if code, out, _ := run(t, "search", "--project", dir, "zebra"); code != 0 || !strings.Contains(out, search.NoKeywordNote) {
		t.Errorf("absent word: exit %d\n%s", code, out)
	}
}
