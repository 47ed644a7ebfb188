package index

import (
	"fmt"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/embed/static"
)

// TestEmbedderSwitchFreesPages: a run that re-embeds a project with
// another embedder (the hashing embedder's 768-d vectors replaced by the
// learned model's 256-d ones) hands the freed pages back: the file keeps no
// free page, so an upgraded index is as small as a new one.
func TestEmbedderSwitchFreesPages(t *testing.T) {
	t.Parallel()
	root := resolved(t, t.TempDir())
	for i := range 40 {
		writeFile(t, root, fmt.Sprintf("f%d.go", i), fmt.Sprintf("package p\n\n// F%d adds %d.\nfunc F%d(x int) int { return x + %d }\n", i, i, i, i))
	}
	st := openStore(t)
	for _, model := range []string{"hashing-768-v1", static.ModelName} {
		emb, err := provider.New(embed.Options{Provider: "local", Model: model})
		if err != nil {
			t.Fatal(err)
		}
		if rep := mustRun(t, st, emb, root); rep.Changed != 40 {
			t.Fatalf("%s: %+v", emb.ID(), rep)
		}
	}
	var free int
	if err := rawDB(t, st).QueryRow(`PRAGMA freelist_count`).Scan(&free); err != nil || free != 0 {
		t.Fatalf("%d free pages after the switch (%v), want 0", free, err)
	}
}
