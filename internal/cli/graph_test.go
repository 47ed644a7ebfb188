package cli

import (
	"encoding/json"
	"fmt"
	"os"
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
	if code != 1 || !strings.Contains(out, "no call path") || !strings.Contains(out, "--include-guesses follows them too") {
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
		{[]string{"graph", "--project", t.TempDir(), "main"}, 1, "is in no indexed project (the index holds "},
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

// TestGraphAndWalksAgreeOnLines: graph, callers and callees give one line
// per fact. A contained method is at the line where its definition starts
// (doc comment included), the line callers and callees print for it; and
// every resolved call graph lists is in the callers of its target and the
// callees of its caller at the same call site.
func TestGraphAndWalksAgreeOnLines(t *testing.T) {
	dir := indexGraphFixture(t)
	p := "--project=" + dir
	type def struct {
		Name      string `json:"name"`
		Path      string `json:"path"`
		StartLine int    `json:"start_line"`
	}
	type edge struct {
		Kind   string `json:"kind"`
		Path   string `json:"path"`
		Line   int    `json:"line"`
		Caller *def   `json:"from_def"`
		Target *def   `json:"to_def"`
		Depth  int    `json:"depth"`
	}
	decode := func(args ...string) []edge {
		t.Helper()
		code, out, errs := run(t, append(args, p, "--json")...)
		var v struct {
			Relations []edge `json:"relations"`
			Edges     []edge `json:"edges"`
		}
		if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil {
			t.Fatalf("%v: exit %d %v %s", args, code, err, errs)
		}
		return append(v.Relations, v.Edges...)
	}
	has := func(es []edge, want edge) bool {
		for _, e := range es {
			if e.Depth <= 1 && e.Path == want.Path && e.Line == want.Line && e.Caller != nil && *e.Caller == *want.Caller &&
				e.Target != nil && *e.Target == *want.Target {
				return true
			}
		}
		return false
	}
	calls := 0
	for _, name := range []string{"Store", "Cache", "Store.Get", "Cache.Lookup", "main", "New"} {
		for _, e := range decode("graph", "--limit", "0", name) {
			switch {
			case e.Kind == "contains" && e.Target != nil && e.Line != e.Target.StartLine:
				t.Errorf("graph %s: contains %s at line %d, its definition starts at %d", name, e.Target.Name, e.Line, e.Target.StartLine)
			case e.Kind == "calls" && e.Target != nil && e.Caller != nil:
				calls++
				if !has(decode("callers", "--depth", "1", "--include-guesses", e.Target.Name), e) {
					t.Errorf("graph %s: call %s -> %s at %s:%d is not in the callers of %s", name, e.Caller.Name, e.Target.Name, e.Path, e.Line, e.Target.Name)
				}
				if !has(decode("callees", "--depth", "1", "--include-guesses", e.Caller.Name), e) {
					t.Errorf("graph %s: call %s -> %s at %s:%d is not in the callees of %s", name, e.Caller.Name, e.Target.Name, e.Path, e.Line, e.Caller.Name)
				}
			}
		}
	}
	if calls == 0 {
		t.Fatal("no resolved call in the graphs checked")
	}
	// the text forms say the same line for Store.Get
	if _, out, _ := run(t, "graph", p, "Store"); !strings.Contains(out, "contains --> [Store.Get(k string)]  @ store/store.go:21\n") {
		t.Errorf("graph Store:\n%s", out)
	}
	if _, out, _ := run(t, "callers", p, "--depth", "1", "(*Store).missing"); !strings.Contains(out, "Store.Get(k string) store/store.go:21  [receiver; call at store/store.go:25]") {
		t.Errorf("callers (*Store).missing:\n%s", out)
	}
}

// TestPathThroughManyCandidates: a path through an ambiguous call may take
// any of its candidates, not only the first 20 that JSON lists, and says
// how many there are, as callees does.
func TestPathThroughManyCandidates(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("package p\n\n")
	for i := range 22 {
		fmt.Fprintf(&src, "type T%d struct{}\n\nfunc (T%d) Close() {}\n\n", i, i)
	}
	src.WriteString("// Run closes x.\nfunc Run(x interface{ Close() }) {\n\tx.Close()\n}\n")
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	p := "--project=" + dir
	if _, out, _ := run(t, "callees", p, "Run"); !strings.Contains(out, "and 19 more") {
		t.Fatalf("callees Run does not list 22 candidates:\n%s", out)
	}
	for _, target := range []string{"T5.Close", "T21.Close"} {
		code, out, errs := run(t, "path", p, "--include-guesses", "Run", target)
		if code != 0 || !strings.Contains(out, target+"() p.go:") || !strings.Contains(out, "[guess, ambiguous, 1 of 22 candidates; call at p.go:") {
			t.Errorf("path Run %s: exit %d\n%s%s", target, code, out, errs)
		}
	}
}

// TestGraphHeaderCounts: the header of `graph` gives the total and, under a
// --limit, how many are shown, with "relation" for one.
func TestGraphHeaderCounts(t *testing.T) {
	dir := indexGraphFixture(t)
	for limit, want := range map[string]string{
		"1": "\n3 relations, 1 shown:\n", "2": "\n3 relations, 2 shown:\n", "0": "\n3 relations:\n", "3": "\n3 relations:\n",
	} {
		code, out, errs := run(t, "graph", "--project", dir, "--limit", limit, "Store.Get")
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("--limit %s: exit %d, want %q in\n%s%s", limit, code, want, out, errs)
		}
	}
	code, out, _ := run(t, "graph", "--project", dir, "--limit", "2", "Store.Get")
	if code != 0 || !strings.Contains(out, "… 1 more relation (raise --limit") {
		t.Errorf("--limit 2 footer: exit %d\n%s", code, out)
	}
}

// TestPathOfDeepChain: `coderag path` over a generated chain of 400
// calls (f0 calls f1 ... calls f400) prints a bounded tree: its first and
// last steps, the depth instead of more indentation, and one line
// counting the steps between; --json lists every step.
func TestPathOfDeepChain(t *testing.T) {
	setHome(t)
	const n = 400
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("package chain\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&src, "func f%d() { f%d() }\n", i, i+1)
	}
	fmt.Fprintf(&src, "func f%d() {}\n", n)
	writeFile(t, filepath.Join(dir, "chain.go"), src.String())
	if code, _, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	code, out, errs := run(t, "path", "--project", dir, "f0", fmt.Sprintf("f%d", n))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	longest := 0
	for _, l := range lines {
		longest = max(longest, len(l))
	}
	if code != 0 || len(lines) > 40 || longest > 120 || !strings.Contains(out, fmt.Sprintf("path from f0() to f%d(): %d calls", n, n)) ||
		!strings.Contains(out, " more steps … (--format json lists every step)\n") || !strings.Contains(out, fmt.Sprintf("%d └── f%d() chain.go:%d ", n, n, n+3)) {
		t.Fatalf("path of a %d-call chain: exit %d, %d lines, longest %d\n%s\n%s", n, code, len(lines), longest, out, errs)
	}
	code, out, errs = run(t, "path", "--json", "--project", dir, "f0", fmt.Sprintf("f%d", n))
	var p struct {
		Edges []struct {
			To string `json:"to"`
		} `json:"edges"`
	}
	if err := json.Unmarshal([]byte(out), &p); code != 0 || err != nil || len(p.Edges) != n || p.Edges[n-1].To != fmt.Sprintf("f%d", n) {
		t.Fatalf("path --json: exit %d, %v, %d edges\n%s", code, err, len(p.Edges), errs)
	}
}
