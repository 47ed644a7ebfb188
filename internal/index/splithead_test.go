package index

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/store"
)

// TestSplitHeadSearchesWholeDefinition indexes a Go function of 260 lines,
// which the chunker splits into two parts: a word only its second part
// holds finds the function's own chunk too (its keyword body is the whole
// definition), while the chunk's lines and text stay the first part's.
func TestSplitHeadSearchesWholeDefinition(t *testing.T) {
	t.Parallel()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	var b strings.Builder
	b.WriteString("package demo\n\n// Orchestrate runs every step.\nfunc Orchestrate() {\n")
	for i := 0; i < 256; i++ {
		if i == 240 {
			b.WriteString("\tstealFromNeighbours()\n")
			continue
		}
		fmt.Fprintf(&b, "\tstep%d()\n", i)
	}
	b.WriteString("}\n")
	writeFile(t, root, "demo/long.go", b.String())
	st := openStore(t)
	mustRun(t, st, emb, root)
	var head, part int64
	var headEnd, headDecl int
	rows, err := rawDB(t, st).Query(`SELECT c.id, c.name, c.end_line, c.decl_end_line, c.content FROM code_chunks c
		JOIN indexed_files f ON f.id = c.file_id WHERE f.project_path=?`, root)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var name, content string
		var end, decl int
		if err := rows.Scan(&id, &name, &end, &decl, &content); err != nil {
			t.Fatal(err)
		}
		switch {
		case name == "Orchestrate()":
			head, headEnd, headDecl = id, end, decl
			if strings.Contains(content, "stealFromNeighbours") {
				t.Errorf("the first part's text holds the second part's line")
			}
		case strings.HasPrefix(name, "Orchestrate (part 2 of"):
			part = id
		}
	}
	rows.Close()
	if head == 0 || part == 0 || headDecl <= headEnd {
		t.Fatalf("want a split definition: head %d (lines to %d of %d), part 2 %d", head, headEnd, headDecl, part)
	}
	hits, err := st.KeywordSearch(context.Background(), root, []string{"neighbour"}, store.FTSWeights{Name: 1, Body: 1}, 10)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]bool{}
	for _, h := range hits {
		got[h.ID] = true
	}
	if !got[head] || !got[part] {
		t.Errorf("a word of part 2 hit %v, want the head %d and part 2 %d", hits, head, part)
	}
}
