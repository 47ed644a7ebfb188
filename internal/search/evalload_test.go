package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A set file that is not JSON is named with the line and column of the
// fault; a query without an id is named by its number and text.
func TestLoadGoldenErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{"{\n  \"queries\": [\n    {\"query\": nope}\n  ]\n}\n", "line 3, column 16: invalid character 'o'"},
		{`{"queries":[{"query":"x","expect":[{"file":"a.go"}]}]}`, `query 1 ("x"): every expect entry needs file and line or symbol`},
		{`{"queries":[{"id":"q7","query":"","expect":[{"file":"a.go","line":3}]}]}`, `query 1 ("q7") needs a query`},
		{`{"queries":[]}`, "no queries"},
	} {
		p := filepath.Join(dir, "set.json")
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadGolden(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LoadGolden(%q): %v, want %q", c.body, err, c.want)
		}
	}
	p := filepath.Join(dir, "bench.json")
	if err := os.WriteFile(p, []byte("[\n{\"query\": \"a\",}\n]"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBenchSet(p); err == nil || !strings.Contains(err.Error(), "line 2, column") {
		t.Errorf("LoadBenchSet of bad JSON: %v, want its line and column", err)
	}
}
