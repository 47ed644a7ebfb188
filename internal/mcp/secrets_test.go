package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/embedtest"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/store"
)

// TestToolResultsHoldNoKey: an embeddings gateway that quotes the key in its
// 401 never gets it into a tool result, the model's context.
func TestToolResultsHoldNoKey(t *testing.T) {
	t.Parallel()
	const key = "sk-mcp-SECRET-77aa55bb33"
	srv := embedtest.NewOpenAI(t, 8, "sk-the-right-one")
	srv.EchoKey = true
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\n// Retry retries.\nfunc Retry() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	newEmb := func() (embed.Embedder, error) {
		return provider.New(embed.Options{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: key})
	}
	s, err := NewServer(Config{Root: root, Engine: tempEngine(t, newEmb, 10*time.Second), Log: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, nil)
	for _, c := range []struct {
		name string
		args map[string]any
	}{{"index_project", nil}, {"search_code", map[string]any{"query": "retry"}}, {"index_status", nil}} {
		text, _ := callText(t, cs, c.name, c.args)
		if strings.Contains(text, "77aa55bb33") {
			t.Errorf("%s: the key is in the result: %s", c.name, text)
		}
	}
	text, isErr := callText(t, cs, "index_project", nil)
	if !isErr || !strings.Contains(text, "Incorrect API key provided") {
		t.Errorf("index_project: want the 401 as a tool error, got %v %s", isErr, text)
	}
}

// TestIndexStatusSaysIncomplete: a project whose index run did not finish
// is reported as incomplete, with its counts, each word agreeing with its
// count.
func TestIndexStatusSaysIncomplete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	st := tempStore(t)
	if err := st.PutProject(ctx, store.Project{Path: root, Embedder: "local:hashing-768-v1", Dim: 768}); err != nil {
		t.Fatal(err)
	}
	if err := st.BeginRun(ctx, root, 10, false); err != nil {
		t.Fatal(err)
	}
	fd := store.FileData{Record: store.FileRecord{Path: "a.go", SHA256: "x", Embedder: "local:hashing-768-v1", Size: 1, MtimeNS: 1}}
	if err := st.ReplaceFiles(ctx, root, []store.FileData{fd}, nil); err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(Config{Root: root, Engine: testEngine(t, st, localEmbedder, 0), Log: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, nil)
	text, isErr := callText(t, cs, "index_status", nil)
	if isErr || !strings.Contains(text, "incomplete: 1 of 10 files indexed") {
		t.Fatalf("index_status: %v\n%s", isErr, text)
	}
	// one file, no chunk, no relation: each count agrees with its noun
	if !strings.Contains(text, "indexed: 1 file, 0 chunks (0 embedded), 0 relations;") {
		t.Fatalf("index_status counts: %s", text)
	}
}
