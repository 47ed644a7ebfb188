package serve

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
)

// TestIndexUsesConfiguredEmbedder: POST /api/index (Backend.Index) of a
// project indexed with another embedder runs with the configured one, as
// `coderag index` and index_project do (engine.NewEmbedder); on the
// previous main it kept the project's own.
func TestIndexUsesConfiguredEmbedder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	copyFiles(t, root, "container/list", "list.go")
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	old, err := provider.New(embed.Options{Provider: "local", Model: "hashing-768-v1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Run(ctx, st, old, root, index.Options{Threads: 2}); err != nil {
		t.Fatal(err)
	}
	configured := embed.Options{Provider: "local", Model: "hashing-256-v1"}
	eng, err := engine.New(engine.Config{Store: st, Embedders: engine.FromOptions(configured, nil), Index: index.Options{Threads: 2}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	l, err := NewLocal(LocalConfig{Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if _, err := l.Index(ctx, root); err != nil {
		t.Fatal(err)
	}
	<-l.run(root).Done()
	if o := l.run(root).Outcome(); o == nil || o.Err != nil || o.Embedder != "local:hashing-256-v1" {
		t.Fatalf("run: %+v", o)
	}
	p, err := eng.Find(ctx, root, false)
	if err != nil || p.Embedder != "local:hashing-256-v1" {
		t.Errorf("project after POST /api/index: %+v %v, want embedder local:hashing-256-v1", p, err)
	}
}
