package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// indexGraphFixture indexes the Go fixture of package relate and returns its
// directory.
func indexGraphFixture(t *testing.T) string {
	t.Helper()
	setHome(t)
	dir, err := filepath.Abs(filepath.Join("..", "relate", "testdata", "go"))
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index exit %d: %s %s", code, out, errs)
	}
	return dir
}

// TestGraphCommands drives graph, callers, callees and path in process over
// the relate Go fixture, in every format, and checks their errors.
func TestGraphCommands(t *testing.T) {
	dir := indexGraphFixture(t)
	p := "--project=" + dir

	code, out, errs := run(t, "graph", p, "Store.Get")
	if code != 0 || !strings.Contains(out, "Store.Get\n    calls --> [missing] = Store.missing(k string) store/store.go:30 (receiver)") ||
		!strings.Contains(out, "Cache.Lookup\n    calls --> [Store.Get] = Store.Get(k string) store/store.go:21 (typed)") || strings.Contains(out, "├") {
		t.Errorf("graph: %d %s %s", code, out, errs)
	}
	code, out, _ = run(t, "callers", p, "--depth", "1", "(*Store).missing")
	if code != 0 || !strings.Contains(out, "Store.Get(k string) store/store.go:21") || strings.Contains(out, "Cache.Lookup") {
		t.Errorf("callers --depth 1: %d %s", code, out)
	}
	// c.Lookup() on c := store.NewCache(s): the type is another package's
	// function result, unknown here: a guess, listed, not followed
	code, out, _ = run(t, "callees", "main", p)
	if code != 0 || strings.Contains(out, "Store.missing(k string) store/store.go:30") || strings.Contains(out, "fmt.Println") ||
		!strings.Contains(out, "Cache.Lookup(k string) store/cache.go:14  [import, guess;") || !strings.Contains(out, "3 calls to builtins and other packages not listed") {
		t.Errorf("callees: %d %s", code, out)
	}
	code, out, _ = run(t, "callees", "--include-guesses", "main", p)
	if code != 0 || !strings.Contains(out, "Store.missing(k string) store/store.go:30") {
		t.Errorf("callees --include-guesses: %d %s", code, out)
	}
	code, out, _ = run(t, "path", p, "main", "Store.missing")
	if code != 1 || !strings.Contains(out, "no call path") {
		t.Errorf("path over a guess: %d %s", code, out)
	}
	code, out, _ = run(t, "path", p, "--include-guesses", "main", "Store.missing")
	if code != 0 || !strings.Contains(out, "path from main() to Store.missing(k string): 3 calls") || !strings.Contains(out, "guess") {
		t.Errorf("path --include-guesses: %d %s", code, out)
	}
	code, out, _ = run(t, "graph", p, "--limit", "2", "Cache")
	if code != 0 || !strings.Contains(out, "… 2 more relations") {
		t.Errorf("graph --limit 2: %d %s", code, out)
	}
	code, out, _ = run(t, "graph", p, "--stats")
	if code != 0 || !strings.Contains(out, "% exact") || !strings.Contains(out, "Most called") || !strings.Contains(out, "Widest callers") ||
		!strings.Contains(out, "Store.Get(k string)  store/store.go:21") {
		t.Errorf("graph --stats: %d %s", code, out)
	}
	code, out, _ = run(t, "path", p, "Store.missing", "main")
	if code != 1 || !strings.Contains(out, "no call path") {
		t.Errorf("no path: want exit 1, got %d %s", code, out)
	}

	// --json is --format json and carries the search field names
	code, out, _ = run(t, "callers", p, "--json", "Store.Get")
	var w struct {
		Direction string
		Project   string `json:"root"`
		Root      struct {
			Name      string `json:"name"`
			Path      string `json:"path"`
			StartLine int    `json:"start_line"`
		} `json:"start"`
		Edges []struct {
			Path       string
			Line       int
			Resolution string
		}
	}
	if err := json.Unmarshal([]byte(out), &w); err != nil || code != 0 || w.Direction != "callers" || w.Project != dir ||
		w.Root.Path != "store/store.go" || w.Root.StartLine != 21 || len(w.Edges) != 2 || w.Edges[0].Line != 17 {
		t.Errorf("callers --json: %v %d %s", err, code, out)
	}
	for _, f := range []string{"mermaid", "dot"} {
		code, out, errs = run(t, "graph", p, "--format", f, "Cache")
		if code != 0 || !strings.Contains(out, "Cache.Lookup(k string)") {
			t.Errorf("--format %s: %d %s %s", f, code, out, errs)
		}
		if f == "dot" {
			if dot, err := exec.LookPath("dot"); err == nil {
				cmd := exec.Command(dot, "-Tsvg")
				cmd.Stdin = strings.NewReader(out)
				if svg, err := cmd.Output(); err != nil || !strings.Contains(string(svg), "<svg") {
					t.Errorf("dot -Tsvg: %v", err)
				}
			}
		}
	}

	// errors: one line, non-zero
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"graph", p, "NoSuch"}, 1, "coderag graph: no function or class named NoSuch in "},
		{[]string{"graph", p}, 2, "coderag graph: missing NAME"},
		{[]string{"callers", p, "--depth", "0", "main"}, 2, "--depth must be at least 1"},
		{[]string{"callees", p, "--format", "svg", "main"}, 2, `unknown --format "svg"`},
		{[]string{"path", p, "main"}, 2, "want FROM and TO"},
		{[]string{"callees", p, "Cache"}, 1, "Cache is a class"},
		{[]string{"graph", "--project", t.TempDir(), "main"}, 1, "not indexed yet: run `coderag index"},
	} {
		code, out, errs := run(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) || strings.Count(strings.TrimSpace(errs), "\n") != 0 || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out, errs, c.code, c.msg)
		}
	}
	code, out, _ = run(t, "callers", "--help")
	if code != 0 || !strings.Contains(out, "--depth") || !strings.Contains(out, "(*conn).serve") {
		t.Errorf("--help: %d %s", code, out)
	}
}

// TestGraphAmbiguous checks that an ambiguous name lists its candidates.
func TestGraphAmbiguous(t *testing.T) {
	setHome(t)
	dir, err := filepath.Abs(filepath.Join("..", "relate", "testdata", "java"))
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	code, _, errs := run(t, "callers", "--project", dir, "UserService.find")
	if code != 1 || !strings.Contains(errs, "UserService.find is ambiguous (2 definitions); use one of: UserService.find(long id) (com/shop/service/UserService.java:15); UserService.find(String name)") {
		t.Errorf("ambiguous: %d %q", code, errs)
	}
	code, out, _ := run(t, "callers", "--project", dir, "UserService.find(String name)")
	if code != 0 || !strings.Contains(out, "ambiguous: calls find, 2 candidates") {
		t.Errorf("overload by signature: %d %s", code, out)
	}
}
