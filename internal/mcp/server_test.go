package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/tools"
)

// newTestServer serves a Server for root, over a new index and the local
// embedder with the index budget (0: the default), in process over an
// in-memory transport, and returns the client session (for -race; cli's
// tests drive the binary).
func newTestServer(t *testing.T, root string, budget time.Duration) *sdk.ClientSession {
	t.Helper()
	srv, err := NewServer(Config{Root: root, Engine: tempEngine(t, localEmbedder, budget), Verbose: true, Log: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	return connect(t, srv, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
}

func callText(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// waitIdle polls index_status until the session's project is idle (no
// index run going), failing the test after about ten seconds.
func waitIdle(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	for i := 0; ; i++ {
		status, _ := callText(t, cs, "index_status", nil)
		if strings.Contains(status, "state: idle") {
			return
		}
		if i == 1000 {
			t.Fatalf("still indexing: %s", status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestConcurrentSearchDuringIndexing runs index_project, search_code,
// code_graph and index_status at once, several rounds, under -race.
func TestConcurrentSearchDuringIndexing(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for i := range 60 {
		src := fmt.Sprintf("package p%d\n\n// Retry%d retries the request with backoff.\nfunc Retry%d() int { return helper%d() }\n\nfunc helper%d() int { return %d }\n", i, i, i, i, i, i)
		p := filepath.Join(root, fmt.Sprintf("p%02d", i), "p.go")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := newTestServer(t, root, 5*time.Millisecond)
	for round := range 3 {
		calls := []struct {
			name string
			args map[string]any
		}{
			{"index_project", nil},
			{"search_code", map[string]any{"query": "retry with backoff"}},
			{"code_graph", map[string]any{"name": "Retry7"}},
			{"index_status", nil},
		}
		var wg sync.WaitGroup
		for _, c := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				text, isErr := callText(t, cs, c.name, c.args)
				// search_code and code_graph may meet a project whose first
				// scan is still going, or a name not indexed yet: a clear
				// tool error, nothing else.
				if isErr && !strings.Contains(text, "not indexed yet") && !strings.Contains(text, "may not be indexed yet") {
					t.Errorf("round %d %s: %s", round, c.name, text)
				}
			}()
		}
		wg.Wait()
	}
	waitIdle(t, cs)
	text, isErr := callText(t, cs, "search_code", map[string]any{"query": "Retry42 retries the request"})
	if isErr || !strings.Contains(text, "p42/p.go") {
		t.Errorf("search after indexing: %s", text)
	}
	text, isErr = callText(t, cs, "code_graph", map[string]any{"name": "Retry7"})
	if isErr || !strings.Contains(text, "helper7") {
		t.Errorf("code_graph after indexing: %s", text)
	}
}

// TestConfineIndexScope: the path index_project is given is confined by
// tools.Confine, as read_file, grep_code and glob_files paths are.
func TestConfineIndexScope(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in, want string
		bad      bool
	}{
		{"", ".", false},
		{".", ".", false},
		{"a/b", "a/b", false},
		{"a/../a", "a", false},
		{filepath.Join(root, "a"), "a", false},
		{"..", "", true},
		{"../x", "", true},
		{outside, "", true},
		{"link", "", true},
		{"missing", "", true},
	} {
		got := ""
		tg, err := tools.Confine(root, c.in)
		if err == nil {
			got = tg.Rel()
			tg.Close()
		}
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("Confine(%q) = %q, %v", c.in, got, err)
		}
	}
}

func TestFileURIPath(t *testing.T) {
	t.Parallel()
	if p, err := fileURIPath("file:///home/me/my%20proj"); err != nil || p != "/home/me/my proj" {
		t.Errorf("got %q, %v", p, err)
	}
	if _, err := fileURIPath("https://example.com/x"); err == nil {
		t.Error("https root accepted")
	}
}

// TestToolMessagesReadOnce: tool errors do not repeat the tool's name
// ("grep_code: grep: ..."), an empty grep says "No matches." once, and a
// search with no keyword hit does not recommend its first result.
func TestToolMessagesReadOnce(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\n// Retry retries.\nfunc Retry() {}\n"), 0o644)
	cs := newTestServer(t, root, 20*time.Second)
	for _, c := range []struct {
		tool string
		args map[string]any
		bad  string
	}{
		{"grep_code", map[string]any{"pattern": "foo("}, "grep_code: grep"},
		{"read_file", map[string]any{"path": "../x.go"}, "read_file: read"},
		{"glob_files", map[string]any{"pattern": "../*"}, "glob_files: glob"},
	} {
		text, isErr := callText(t, cs, c.tool, c.args)
		if !isErr || strings.Contains(text, c.bad) || !strings.HasPrefix(text, c.tool+": ") {
			t.Errorf("%s: error %v %q", c.tool, isErr, text)
		}
	}
	text, _ := callText(t, cs, "grep_code", map[string]any{"pattern": "zzqqnomatch"})
	if strings.Count(text, "No matches.") != 1 {
		t.Errorf("grep_code without a match: %q", text)
	}
	text, _ = callText(t, cs, "search_code", map[string]any{"query": "quantum giraffe"})
	if !strings.Contains(text, "probably unrelated") || strings.Contains(text, "Best entry point") {
		t.Errorf("search_code without a keyword hit: %q", text)
	}
}

// TestAdjustedValuesAreSaid: a number outside a tool's declared range (top_k
// 99 or 0, a negative offset, read limit 5000) is refused with one line
// naming the tool, the range and the default, not silently changed.
func TestAdjustedValuesAreSaid(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\n// Retry retries.\nfunc Retry() {}\n"), 0o644)
	cs := newTestServer(t, root, 20*time.Second)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search_code", map[string]any{"query": "retry", "top_k": 99}, "search_code: top_k must be 1 to 30 (omit it for the default, 5); got 99"},
		{"search_code", map[string]any{"query": "retry", "top_k": 0}, "search_code: top_k must be 1 to 30 (omit it for the default, 5); got 0"},
		{"search_code", map[string]any{"query": "retry", "top_k": "abc"}, `search_code: top_k must be an integer from 1 to 30 (omit it for the default, 5); got "abc"`},
		{"read_file", map[string]any{"path": "a.go", "offset": -5}, "read_file: offset must be 1 to 1073741824 (omit it for the default, 1); got -5"},
		{"read_file", map[string]any{"path": "a.go", "limit": 5000}, "read_file: limit must be 1 to 2000 (omit it for the default, 200); got 5000"},
		{"grep_code", map[string]any{"pattern": "Retry", "max_results": -1}, "grep_code: max_results must be 1 to 2000 (omit it for the default, 50); got -1"},
	} {
		if text, isErr := callText(t, cs, c.tool, c.args); !isErr || text != c.want {
			t.Errorf("%s %v: %v %q, want an error with %q", c.tool, c.args, isErr, text, c.want)
		}
	}
	if text, _ := callText(t, cs, "search_code", map[string]any{"query": "retry", "top_k": 3}); strings.Contains(text, "Note: top_k") {
		t.Errorf("note for a valid top_k: %q", text)
	}
}

// TestImplicitRoot: without --root or client roots, the working directory
// is the root only when it is a project: not /, not the home directory
// (even one with a .git), and with a marker in it or in a parent below
// home.
func TestImplicitRoot(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, ".git"), 0o755)
	os.MkdirAll(filepath.Join(home, "notes", "2024"), 0o755)
	proj := filepath.Join(home, "src", "app")
	os.MkdirAll(filepath.Join(proj, "internal", "x"), 0o755)
	os.WriteFile(filepath.Join(proj, "go.mod"), []byte("module app\n"), 0o644)
	bare := t.TempDir()
	for _, c := range []struct {
		dir string
		ok  bool
	}{
		{"/", false},
		{home, false},
		{filepath.Join(home, "notes", "2024"), false}, // home's .git does not count
		{bare, false},
		{proj, true},
		{filepath.Join(proj, "internal", "x"), true},
	} {
		dir, err := filepath.EvalSymlinks(c.dir)
		if err != nil {
			t.Fatal(err)
		}
		err = implicitRootError(dir)
		if (err == nil) != c.ok || err != nil && (!errors.Is(err, ErrNoProjectRoot) || !strings.Contains(err.Error(), "--root")) {
			t.Errorf("%s: %v", c.dir, err)
		}
	}
	// the tools refuse, in process too
	srv, err := NewServer(Config{WorkDir: bare, Engine: tempEngine(t, localEmbedder, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := srv.root(context.Background(), nil); !errors.Is(err, ErrNoProjectRoot) {
		t.Errorf("root of a server started in %s: %v", bare, err)
	}
}

// earlierModel is the built-in learned model under the id of a version
// this build does not carry, as an index made by an earlier coderag
// records it.
type earlierModel struct{ embed.Embedder }

func (earlierModel) ID() string { return "local:coderag-code-v1" }

// TestSearchAfterUpgradeReembeds: a project indexed by an earlier coderag
// with a built-in model this version no longer carries is embedded again
// by the session's refresh, never left for the user to index by hand:
// search_code either says the project is being embedded again (the run
// outlasts the budget) or answers, and once the run ends it answers with
// the current model.
func TestSearchAfterUpgradeReembeds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	for i := range 40 {
		src := fmt.Sprintf("package p%d\n\n// Retry%d retries the request with backoff.\nfunc Retry%d() int { return %d }\n", i, i, i, i)
		p := filepath.Join(root, fmt.Sprintf("p%02d", i), "p.go")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store := tempStore(t)
	// the embedders of a real configuration: a project's is rebuilt from
	// its stored id (engine.Fixed would ignore the id)
	eng, err := engine.New(engine.Config{Store: store, Embedders: engine.FromOptions(embed.Options{Provider: "local"}, nil),
		IndexBudget: time.Nanosecond, LongLived: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	cur, err := localEmbedder()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Index(ctx, root, engine.IndexRequest{Embedder: earlierModel{cur}}); err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(Config{Root: root, Engine: eng, Verbose: true, Log: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	text, isErr := callText(t, cs, "search_code", map[string]any{"query": "retry with backoff"})
	if isErr && !(strings.Contains(text, "local:coderag-code-v1, which this version of coderag no longer carries") &&
		strings.Contains(text, "being embedded again in the background")) {
		t.Fatalf("first search after the upgrade: %s", text)
	}
	waitIdle(t, cs)
	text, isErr = callText(t, cs, "search_code", map[string]any{"query": "Retry17 retries the request"})
	if isErr || !strings.Contains(text, "p17/p.go") {
		t.Fatalf("search after the re-embedding: %s", text)
	}
	row, err := store.GetProject(ctx, root)
	if err != nil || row.Embedder != cur.ID() {
		t.Fatalf("the project's embedder after the re-embedding: %+v %v", row, err)
	}
}

// TestIndexProjectSaysIgnored: index_project of a directory the ignore
// rules leave out says so and by which rule (the ignore file, the
// built-in rule, a hidden directory) instead of a bare "0 scanned"; a
// directory the index takes gets no such note.
func TestIndexProjectSaysIgnored(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, body := range map[string]string{
		"a.go": "package a\n\nfunc A() {}\n", ".gitignore": "gen/\n", "sub/.coderagignore": "skipme/\n",
		"gen/g.go": "package gen\n\nfunc G() {}\n", "node_modules/m/i.js": "function m() {}\n",
		".cache/c.go": "package c\n", "sub/skipme/s.go": "package s\n", "sub/ok.go": "package sub\n\nfunc Ok() {}\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := newTestServer(t, root, 20*time.Second)
	for path, want := range map[string]string{
		"gen":            "Nothing there is indexed: gen/ is ignored by .gitignore.\n",
		"gen/g.go":       "Nothing there is indexed: gen/ is ignored by .gitignore.\n",
		"sub/skipme":     "Nothing there is indexed: sub/skipme/ is ignored by sub/.coderagignore.\n",
		"node_modules/m": "Nothing there is indexed: node_modules/ is left out by the built-in rule (",
		".cache":         "Nothing there is indexed: .cache/ is a hidden directory.\n",
		"sub":            "",
	} {
		text, isErr := callText(t, cs, "index_project", map[string]any{"path": path})
		if isErr || want == "" && strings.Contains(text, "Nothing there") || want != "" && !strings.Contains(text, want) {
			t.Errorf("index_project %s: error %v\n%s\nwant %q", path, isErr, text, want)
		}
		if want != "" && !strings.Contains(text, "0 scanned") {
			t.Errorf("index_project %s scanned files:\n%s", path, text)
		}
	}
}
