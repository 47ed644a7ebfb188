package chunk

import (
	"strings"
	"testing"
)

// TestQueryIncludes: every "; include NAME" line of a query names a
// fragment that exists, none is left in what tree-sitter compiles, and
// every fragment is included by some language's query.
func TestQueryIncludes(t *testing.T) {
	t.Parallel()
	entries, err := queries.ReadDir("queries")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	included := map[string]bool{}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".scm")
		files[name] = true
		raw, err := queries.ReadFile("queries/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if frag, ok := strings.CutPrefix(line, includePrefix); ok {
				included[frag] = true
			}
		}
		src, err := querySource(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, line := range strings.Split(src, "\n") {
			if strings.HasPrefix(line, includePrefix) {
				t.Errorf("%s: %q left after includes (a fragment includes another?)", name, line)
			}
		}
	}
	for name := range files {
		if strings.HasPrefix(name, "ecmascript_") && !included[name] {
			t.Errorf("fragment %s.scm is included by no query", name)
		}
	}
}
