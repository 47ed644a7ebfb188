package toolset_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/relate"
	"github.com/coderag/coderag/internal/toolset"
)

func newEngine(t *testing.T) (*engine.Engine, string) {
	t.Helper()
	t.Setenv("CODERAG_HOME", t.TempDir())
	root := filepath.Join(t.TempDir(), "proj")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module proj\n"), 0o644)
	os.WriteFile(filepath.Join(root, "retry.go"), []byte("package proj\n\n// Backoff doubles the wait between attempts.\nfunc Backoff(n int) int { return 1 << n }\n\nfunc Retry() { Backoff(3) }\n"), 0o644)
	root, err := index.ResolveRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(context.Background(), engine.Config{DBPath: filepath.Join(t.TempDir(), "index.db"), Embedders: engine.FromOptions(embed.Options{Provider: "local"}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, root
}

func call(t *testing.T, env *toolset.Env, root, tool, args string) (string, error) {
	t.Helper()
	a, err := toolset.Lookup(tool).Call(context.Background(), env, toolset.Fixed(root), json.RawMessage(args))
	return a.Text, err
}

// TestAutoIndex: with the engine.Refresh policy search_code and code_graph index a
// new project before answering; without it they say it is not indexed
// and start no run.
func TestAutoIndex(t *testing.T) {
	e, root := newEngine(t)
	off := &toolset.Env{Engine: e}
	if out, err := call(t, off, root, toolset.SearchCode, `{"query":"wait between attempts"}`); err != nil || out != toolset.NotIndexedMessage {
		t.Fatalf("search without auto-index: %q %v", out, err)
	}
	if out, err := call(t, off, root, toolset.CodeGraph, `{"name":"Backoff"}`); err != nil || !strings.Contains(out, "so code_graph is unavailable") {
		t.Fatalf("graph without auto-index: %q %v", out, err)
	}
	if st := e.Job(root); st.Running || st.Last != nil {
		t.Fatalf("a tool without auto-index indexed: %+v", st)
	}
	on := &toolset.Env{Engine: e, Policy: engine.Refresh}
	out, err := call(t, on, root, toolset.SearchCode, `{"query":"wait between attempts","top_k":"2"}`)
	if err != nil || !strings.Contains(out, "retry.go") {
		t.Fatalf("search with auto-index: %q %v", out, err)
	}
	out, err = call(t, off, root, toolset.CodeGraph, `{"name":"Backoff"}`)
	if err != nil || !strings.Contains(out, "Retry") {
		t.Fatalf("graph of an indexed project: %q %v", out, err)
	}
	if toolset.Lookup(toolset.SearchCode).ReadOnlyIn(on) || !toolset.Lookup(toolset.SearchCode).ReadOnlyIn(off) || toolset.Lookup(toolset.IndexProject).ReadOnlyIn(off) {
		t.Error("read-only: search_code writes the index only with auto-index; index_project always does")
	}
}

// TestAnswerCut: every answer is cut at max_answer_chars, at a line
// boundary, and says how to continue.
func TestAnswerCut(t *testing.T) {
	e, root := newEngine(t)
	os.WriteFile(filepath.Join(root, "big.txt"), []byte(strings.Repeat("a line of text that is long enough\n", 200)), 0o644)
	a, err := toolset.Lookup(toolset.ReadFile).Call(context.Background(), &toolset.Env{Engine: e}, toolset.Fixed(root),
		json.RawMessage(`{"path":"big.txt","limit":200,"max_answer_chars":1000}`))
	if err != nil {
		t.Fatal(err)
	}
	if !a.Truncated || a.TotalChars <= 1000 || !strings.Contains(a.Continue, "read_file again with offset") || !strings.Contains(a.Text, "[answer cut at") {
		t.Fatalf("answer %+v", a)
	}
}

// TestTopKRange: the agent's path (Tool.Call) refuses a top_k outside the
// declared 1..30, 0 and quoted numbers included, and a top_k that is no
// integer, with one line giving the range and the default, as the MCP
// server does; an omitted or null top_k means the default, and the schema
// declares the same range and default.
func TestTopKRange(t *testing.T) {
	e, root := newEngine(t)
	on := &toolset.Env{Engine: e, Policy: engine.Refresh}
	for _, k := range []string{`0`, `-1`, `31`, `"0"`} {
		_, err := call(t, on, root, toolset.SearchCode, `{"query":"wait between attempts","top_k":`+k+`}`)
		want := "search_code: top_k must be 1 to 30 (omit it for the default, 5); got " + strings.Trim(k, `"`)
		if err == nil || err.Error() != want {
			t.Errorf("top_k %s: %v, want %q", k, err, want)
		}
	}
	for _, k := range []string{`"abc"`, `2.5`, `true`} {
		_, err := call(t, on, root, toolset.SearchCode, `{"query":"wait between attempts","top_k":`+k+`}`)
		want := "search_code: top_k must be an integer from 1 to 30 (omit it for the default, 5); got " + k
		if err == nil || err.Error() != want {
			t.Errorf("top_k %s: %v, want %q", k, err, want)
		}
	}
	for _, args := range []string{`{"query":"wait between attempts"}`, `{"query":"wait between attempts","top_k":null}`} {
		out, err := call(t, on, root, toolset.SearchCode, args)
		if err != nil || !strings.Contains(out, "retry.go") {
			t.Fatalf("search %s: %q %v", args, out, err)
		}
	}
	raw := string(toolset.Lookup(toolset.SearchCode).SchemaJSON())
	for _, w := range []string{`"minimum":1`, `"maximum":30`, `"default":5`, `1 to 30 (default 5)`} {
		if !strings.Contains(raw, w) {
			t.Errorf("search_code schema lacks %s: %s", w, raw)
		}
	}
}

// TestSchemas derives every tool's schema (define leaves it to the first
// use): an object schema naming max_answer_chars, which encodes.
func TestSchemas(t *testing.T) {
	for _, tool := range toolset.All() {
		s := tool.Schema()
		if s == nil || s.Type != "object" || s.Properties["max_answer_chars"] == nil {
			t.Errorf("%s: schema %+v", tool.Name, s)
			continue
		}
		if len(tool.SchemaJSON()) == 0 {
			t.Errorf("%s: empty schema JSON", tool.Name)
		}
	}
}

// code_graph refuses a name longer than relate.MaxNameBytes before any
// lookup (a megabyte name cost seconds of CPU), without repeating it.
func TestCodeGraphLongName(t *testing.T) {
	e, root := newEngine(t)
	on := &toolset.Env{Engine: e, Policy: engine.Refresh}
	name := strings.Repeat("a", relate.MaxNameBytes+1)
	_, err := call(t, on, root, toolset.CodeGraph, `{"name":"`+name+`"}`)
	if err == nil || !strings.Contains(err.Error(), "name too long") || strings.Contains(err.Error(), name[:100]) {
		t.Fatalf("long name: %v", err)
	}
}

// code_graph walks and paths: walk callers or callees follows calls up to
// depth, to finds a shortest call path; a walk that finds no caller points
// at grep_code, not the CLI; bad combinations are refused with a line
// naming the argument.
func TestCodeGraphWalkAndPath(t *testing.T) {
	e, root := newEngine(t)
	on := &toolset.Env{Engine: e, Policy: engine.Refresh}
	out, err := call(t, on, root, toolset.CodeGraph, `{"name":"Backoff","walk":"callers"}`)
	if err != nil || !strings.Contains(out, "callers of Backoff") || !strings.Contains(out, "Retry") || !strings.Contains(out, "retry.go:6") {
		t.Fatalf("callers walk: %q %v", out, err)
	}
	out, err = call(t, on, root, toolset.CodeGraph, `{"name":"Retry","walk":"callees","depth":1}`)
	if err != nil || !strings.Contains(out, "callees of Retry") || !strings.Contains(out, "Backoff") {
		t.Fatalf("callees walk: %q %v", out, err)
	}
	out, err = call(t, on, root, toolset.CodeGraph, `{"name":"Retry","to":"Backoff"}`)
	if err != nil || !strings.Contains(out, "path from Retry") || !strings.Contains(out, "Backoff") {
		t.Fatalf("path: %q %v", out, err)
	}
	out, err = call(t, on, root, toolset.CodeGraph, `{"name":"Retry","walk":"callers"}`)
	if err != nil || !strings.Contains(out, "grep_code with the pattern") || strings.Contains(out, "coderag grep") {
		t.Fatalf("a function nothing calls: %q %v", out, err)
	}
	for args, want := range map[string]string{
		`{"name":"Retry","walk":"up"}`:                     "walk must be callers or callees",
		`{"name":"Retry","walk":"callers","to":"Backoff"}`: "give one",
		`{"name":"Retry","depth":2}`:                       "depth needs walk",
		`{"name":"Retry","walk":"callers","depth":9}`:      "depth must be 1 to 4",
	} {
		if _, err := call(t, on, root, toolset.CodeGraph, args); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}

// code_graph's no_tests and include_guesses are the CLI's --no-tests and
// --include-guesses: a walk of callers leaves a test's call out with
// no_tests; the one-hop graph takes them too; both are in the schema.
func TestCodeGraphNoTestsAndGuesses(t *testing.T) {
	e, root := newEngine(t)
	os.WriteFile(filepath.Join(root, "retry_test.go"), []byte("package proj\n\nimport \"testing\"\n\nfunc TestBackoff(t *testing.T) { Backoff(1) }\n"), 0o644)
	on := &toolset.Env{Engine: e, Policy: engine.Refresh}
	out, err := call(t, on, root, toolset.CodeGraph, `{"name":"Backoff","walk":"callers"}`)
	if err != nil || !strings.Contains(out, "TestBackoff") {
		t.Fatalf("callers walk: %q %v", out, err)
	}
	out, err = call(t, on, root, toolset.CodeGraph, `{"name":"Backoff","walk":"callers","no_tests":true}`)
	if err != nil || strings.Contains(out, "TestBackoff") || !strings.Contains(out, "Retry") {
		t.Fatalf("callers walk, no_tests: %q %v", out, err)
	}
	out, err = call(t, on, root, toolset.CodeGraph, `{"name":"Backoff","no_tests":true,"include_guesses":true}`)
	if err != nil || strings.Contains(out, "TestBackoff") || !strings.Contains(out, "Retry") {
		t.Fatalf("one-hop graph, no_tests: %q %v", out, err)
	}
	raw := string(toolset.Lookup(toolset.CodeGraph).SchemaJSON())
	for _, w := range []string{`"include_guesses"`, `"no_tests"`, `"enum":["callers","callees"]`, `"maximum":4`} {
		if !strings.Contains(raw, w) {
			t.Errorf("code_graph schema lacks %s: %s", w, raw)
		}
	}
}

// index_status of a project indexed before this server started says when
// the index was updated, not only that this server ran nothing.
func TestIndexStatusOfAnEarlierIndex(t *testing.T) {
	e, root := newEngine(t)
	on := &toolset.Env{Engine: e, Policy: engine.Refresh}
	if _, err := call(t, on, root, toolset.SearchCode, `{"query":"wait between attempts"}`); err != nil {
		t.Fatal(err)
	}
	// a new engine on the same index: a new server's session
	e2, err := engine.Open(context.Background(), engine.Config{DBPath: e.StorePath(), Embedders: engine.FromOptions(embed.Options{Provider: "local"}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	out, err := call(t, &toolset.Env{Engine: e2, Policy: engine.Refresh}, root, toolset.IndexStatus, `{}`)
	if err != nil || !strings.Contains(out, "last run: none since this server started (the index was updated") {
		t.Fatalf("index_status: %q %v", out, err)
	}
}
