package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/index"
)

// answerOf calls a tool and returns its text and structured content.
func answerOf(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, Answer) {
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
	if res.IsError {
		t.Fatalf("%s %v: tool error %s", name, args, b.String())
	}
	var a Answer
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &a); err != nil || a.Text != b.String() {
		t.Errorf("%s: structured content %s does not match the text (%v)", name, raw, err)
	}
	return b.String(), a
}

// TestAnswersAreBounded: every tool's answer stays under max_answer_chars
// (default DefaultAnswerChars, at most MaxAnswerChars) and, when cut, says
// how much and how to continue; read_file gives the offset to go on from.
func TestAnswersAreBounded(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	long := strings.Repeat("x", 1900)
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "// line %d %s needle\n", i, long)
	}
	os.WriteFile(filepath.Join(root, "big.go"), []byte("package big\n"+b.String()), 0o644)
	for i := 0; i < 300; i++ {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("f%03d_%s.go", i, strings.Repeat("n", 100))), []byte("package big\n"), 0o644)
	}
	cs := newTestServer(t, root, 20*time.Second)
	largest := 0
	for _, c := range []struct {
		tool string
		args map[string]any
		max  int
	}{
		{"read_file", map[string]any{"path": "big.go", "limit": 2000}, DefaultAnswerChars},
		{"read_file", map[string]any{"path": "big.go", "limit": 2000, "max_answer_chars": MaxAnswerChars}, MaxAnswerChars},
		{"grep_code", map[string]any{"pattern": "needle", "max_results": 2000, "head_limit": 1000, "max_chars": MaxAnswerChars}, DefaultAnswerChars},
		{"grep_code", map[string]any{"pattern": "needle", "max_results": 2000, "head_limit": 1000, "max_chars": MaxAnswerChars, "max_answer_chars": MaxAnswerChars}, MaxAnswerChars},
		{"glob_files", map[string]any{"pattern": "*.go", "limit": 5000}, DefaultAnswerChars},
		{"search_code", map[string]any{"query": "needle line", "top_k": 30, "max_answer_chars": MaxAnswerChars}, MaxAnswerChars},
	} {
		text, a := answerOf(t, cs, c.tool, c.args)
		largest = max(largest, len(text))
		if len(text) > c.max+400 {
			t.Errorf("%s %v: %d characters, ceiling %d", c.tool, c.args, len(text), c.max)
		}
		if a.Truncated && (!strings.Contains(text, "[answer cut at") || a.Continue == "" || a.TotalChars <= len(text)-400) {
			t.Errorf("%s: cut without saying so: %+v", c.tool, a)
		}
		if a.Root != root {
			t.Errorf("%s: root %q", c.tool, a.Root)
		}
	}
	text, a := answerOf(t, cs, "read_file", map[string]any{"path": "big.go", "limit": 2000})
	if !a.Truncated || !strings.Contains(text, "call read_file again with offset ") {
		t.Errorf("read_file cut: %+v", a)
	}
	t.Logf("largest answer: %d characters", largest)
}

// TestToolsListDeclares: tools/list declares ranges and defaults, an output
// schema for every tool, says the search-order paragraph only once (in the
// instructions), and does not call search_code read-only.
func TestToolsListDeclares(t *testing.T) {
	t.Parallel()
	cs := newTestServer(t, t.TempDir(), time.Second)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 7 {
		t.Fatalf("%d tools", len(res.Tools))
	}
	for _, tool := range res.Tools {
		if strings.Contains(tool.Description, "Search order:") {
			t.Errorf("%s repeats the search-order paragraph", tool.Name)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s has no outputSchema", tool.Name)
		}
		raw, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(raw), `"max_answer_chars":{"default":20000,`) {
			t.Errorf("%s: no max_answer_chars in %s", tool.Name, raw)
		}
		if tool.Name == "search_code" {
			if !strings.Contains(string(raw), `"top_k":{`) || !strings.Contains(string(raw), `"default":5`) || !strings.Contains(string(raw), `"maximum":30`) || !strings.Contains(string(raw), `"minimum":1`) {
				t.Errorf("search_code schema: %s", raw)
			}
			if tool.Annotations == nil || tool.Annotations.ReadOnlyHint {
				t.Errorf("search_code annotated read-only, but it writes the index")
			}
		}
	}
	if !strings.Contains(cs.InitializeResult().Instructions, "Search order:") {
		t.Errorf("instructions lack the search order")
	}
}

// TestRootInsideIndexedProject: a root inside an indexed project is that
// project (as the CLI resolves --project), not a second, nested one.
func TestRootInsideIndexedProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	parent := t.TempDir()
	sub := filepath.Join(parent, "sub")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "a.go"), []byte("package sub\n\n// Ledger keeps accounts.\nfunc Ledger() {}\n"), 0o644)
	st := tempStore(t)
	emb, _ := provider.New(embed.Options{Provider: "local"})
	if _, err := index.Run(ctx, st, emb, parent, index.Options{}); err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(Config{Root: sub, Engine: testEngine(t, st, func() (embed.Embedder, error) { return emb, nil }, 0), Log: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := srv.root(ctx, nil); err != nil || got != parent {
		t.Errorf("root %q, want the enclosing project %q", got, parent)
	}
	if ps, _ := st.Projects(ctx); len(ps) != 1 {
		t.Errorf("projects: %+v", ps)
	}
}
