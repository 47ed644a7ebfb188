package toolset

import (
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/relate"
)

// code_graph's answer names no CLI flag: the rendered graph's hint about
// the guessed calls left out names the tool's include_guesses instead.
func TestCodeGraphHintsNameTools(t *testing.T) {
	var b strings.Builder
	g := &relate.GraphResult{Query: "Ctx.Next", Defs: []*relate.Def{}, Edges: []relate.Edge{}, OmittedGuesses: 34}
	if err := relate.Render(&b, g, relate.FormatTree); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "--include-guesses") {
		t.Fatalf("the CLI rendering no longer names the flag, so the rewrite is stale:\n%s", b.String())
	}
	got := toolHints(b.String())
	if strings.Contains(got, "--include-guesses") || !strings.Contains(got, "34 more guessed calls") || !strings.Contains(got, "include_guesses") {
		t.Errorf("tool text:\n%s", got)
	}
}
