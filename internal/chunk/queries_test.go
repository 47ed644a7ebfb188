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

// TestPrepare: Prepare compiles a language's query into the spec every
// parse of the process then uses (specFor returns that same spec), and a
// language without a grammar costs nothing: no error, no entry.
func TestPrepare(t *testing.T) {
	t.Parallel()
	if err := Prepare("ruby"); err != nil {
		t.Fatal(err)
	}
	v, ok := specOnce.Load("ruby")
	if !ok || v.(*onceSpec).s == nil || v.(*onceSpec).s.query == nil {
		t.Fatal("Prepare(ruby) left no compiled query")
	}
	sp, err := specFor("ruby")
	if err != nil || sp != v.(*onceSpec).s {
		t.Fatalf("specFor(ruby) = %p, %v; want the prepared spec %p", sp, err, v.(*onceSpec).s)
	}
	for _, l := range []string{"markdown", "", "lua"} {
		if err := Prepare(l); err != nil {
			t.Errorf("Prepare(%q): %v", l, err)
		}
		if _, ok := specOnce.Load(l); ok {
			t.Errorf("Prepare(%q) stored a spec for a language without a grammar", l)
		}
	}
}
