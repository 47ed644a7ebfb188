package internal_test

import (
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

// module is the module path; package names below are relative to it.
const module = "github.com/coderag/coderag/"

// layers lists the module's packages from the bottom up, as README.md's
// Architecture section describes them. A package may import packages of a
// lower layer only: never one of a higher layer, and never a sibling in its
// own layer (embed never imports store, store knows nothing of embed, mcp
// never imports agent). A sub-package belongs to the family of its nearest
// listed parent (internal/embed/openai is embed, internal/store/pg is store)
// and may import its own family freely. Entries for packages that do not
// exist yet are harmless; a package that matches no entry fails the test,
// so a new package gets its place here.
var layers = [][]string{
	// Leaves: line arithmetic, the word forms of counts, file -> language, settings, the shared HTTP
	// helpers, the Chinese dictionary, vector arithmetic, the resident
	// search socket.
	{"internal/lines", "internal/english", "internal/lang", "internal/config", "internal/httpx", "internal/zh", "internal/vec", "internal/resident"},
	// File discovery and ignore rules; analysis of identifiers and Chinese
	// text (query terms, index terms, the local embedder's tokens).
	{"internal/walk", "internal/analyze"},
	// One concept each: the chunker, embedders, the SQLite store, the chat
	// client, the rule for which directories may be projects.
	{"internal/chunk", "internal/embed", "internal/store", "internal/llm", "internal/rootrule"},
	// Relations and call-graph walks, used by indexing and ranking.
	{"internal/relate"},
	// The pipeline (index), the rankers (search), grep/glob/read (tools).
	{"internal/index", "internal/search", "internal/tools"},
	// The service layer: a project's index at run time.
	{"internal/engine"},
	// The tool registry: each tool the model calls, defined once.
	{"internal/toolset"},
	// Front ends over the engine and the tools: the MCP server, the agent.
	{"internal/mcp", "internal/agent"},
	// The HTTP server, which also serves MCP over HTTP.
	{"internal/serve"},
	// Subcommands, REPL and flags.
	{"internal/cli"},
	// The binary, the benchmarks that drive it, and the model's training
	// tools (train/: they use the chunker and analysis as the index does).
	{"cmd", "bench", "train"},
}

// testOnly are packages for tests only: no non-test package imports them.
var testOnly = []string{"internal/testutil", "internal/embed/embedtest", "internal/llm/llmtest", "internal/store/storetest"}

// family returns the layers entry that owns pkg (its longest listed prefix)
// and that entry's layer index; ok is false for an unlisted package.
func family(pkg string) (fam string, layer int, ok bool) {
	for i, l := range layers {
		for _, f := range l {
			if (pkg == f || strings.HasPrefix(pkg, f+"/")) && len(f) > len(fam) {
				fam, layer, ok = f, i, true
			}
		}
	}
	return fam, layer, ok
}

// TestLayers runs `go list` over the module and checks every import of
// every non-test package against layers and testOnly.
func TestLayers(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go list needs the go command: %v", err)
	}
	cmd := exec.Command(gobin, "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		imports[pkg] = nil
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, module) {
				imports[pkg] = append(imports[pkg], strings.TrimPrefix(imp, module))
			}
		}
	}
	for _, want := range []string{"internal/cli", "internal/store", "internal/walk"} {
		if _, ok := imports[want]; !ok {
			t.Fatalf("go list did not list %s:\n%s", want, out)
		}
	}
	for _, v := range violations(imports) {
		t.Error(v)
	}
}

// TestLayerRules feeds violations made-up import graphs: the rules catch an
// upward import, sibling imports, an unlisted package and a test helper in
// non-test code, and allow downward and same-family imports.
func TestLayerRules(t *testing.T) {
	for _, tc := range []struct {
		pkg, imp string
		want     string // "" for allowed
	}{
		{"internal/search", "internal/store", ""},
		{"internal/embed/provider", "internal/embed/openai", ""},
		{"internal/store/pg", "internal/store", ""},
		{"internal/engine", "internal/index", ""},
		{"internal/serve", "internal/engine", ""},
		{"internal/store", "internal/engine", "a higher layer"},
		{"internal/walk", "internal/search", "a higher layer"},
		{"internal/embed", "internal/store", "a sibling"},
		{"internal/store/pg", "internal/embed/local", "a sibling"},
		{"internal/mcp", "internal/agent", "a sibling"},
		{"internal/serve", "internal/mcp", ""},
		{"internal/mcp", "internal/serve", "a higher layer"},
		{"internal/agent", "internal/toolset", ""},
		{"internal/toolset", "internal/agent", "a higher layer"},
		{"internal/analyze", "internal/embed", "a higher layer"},
		{"internal/newthing", "internal/lang", "not in the layers table"},
		{"internal/index", "internal/testutil", "for tests only"},
	} {
		got := violations(map[string][]string{tc.pkg: {tc.imp}})
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%s -> %s: %v, want allowed", tc.pkg, tc.imp, got)
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
			t.Errorf("%s -> %s: %v, want one violation %q", tc.pkg, tc.imp, got, tc.want)
		}
	}
}

// violations checks a module-relative import graph (package -> module
// packages it imports) against layers and testOnly, one line per broken
// rule, sorted.
func violations(imports map[string][]string) []string {
	var bad []string
	for pkg, imps := range imports {
		if pkg == "internal" || slices.Contains(testOnly, pkg) { // this test; test helpers
			continue
		}
		fam, layer, ok := family(pkg)
		if !ok {
			bad = append(bad, pkg+": not in the layers table of internal/layers_test.go")
			continue
		}
		for _, imp := range imps {
			if slices.Contains(testOnly, imp) {
				bad = append(bad, pkg+" imports "+imp+", a package for tests only")
				continue
			}
			ifam, ilayer, ok := family(imp)
			switch {
			case !ok || ifam == fam:
				// unlisted: reported as a package of its own; same family: allowed
			case ilayer > layer:
				bad = append(bad, pkg+" imports "+imp+", a higher layer")
			case ilayer == layer:
				bad = append(bad, pkg+" imports "+imp+", a sibling in its layer")
			}
		}
	}
	sort.Strings(bad)
	return bad
}
