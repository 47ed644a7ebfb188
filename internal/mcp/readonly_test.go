package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/toolset"
)

// TestReadOnly: a ReadOnly server over a shared engine answers from the
// index as it is: a file added after indexing is neither indexed nor
// found, no index run happens, a project without an index gets the
// not-indexed answer and stays unindexed, index_project is not offered
// and every tool is annotated read-only. A writing server over the same
// engine refreshes the same index before answering.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\n// Ledger keeps the accounts of a bank.\nfunc Ledger() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := tempStore(t)
	emb, err := provider.New(embed.Options{Provider: "local"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Run(ctx, st, emb, root, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "b.go"), []byte("package a\n\n// Thermostat regulates the boiler temperature.\nfunc Thermostat() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eng := testEngine(t, st, func() (embed.Embedder, error) { return emb, nil }, 0)

	ro, err := NewServer(Config{Engine: eng, Root: root, ReadOnly: true, Log: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, ro, nil)
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
			t.Errorf("%s is not annotated read-only in a read-only server", tl.Name)
		}
	}
	if slices.Contains(names, toolset.IndexProject) || !slices.Contains(names, toolset.SearchCode) {
		t.Errorf("read-only tools: %v", names)
	}
	if !strings.Contains(cs.InitializeResult().Instructions, "as it is") {
		t.Errorf("instructions promise a fresh index: %s", cs.InitializeResult().Instructions)
	}
	text, isErr := callText(t, cs, toolset.SearchCode, map[string]any{"query": "boiler temperature thermostat"})
	if isErr || strings.Contains(text, "b.go") || !strings.Contains(text, "a.go") {
		t.Errorf("read-only search_code saw the unindexed file or failed:\n%s", text)
	}
	if c, err := st.Count(ctx, root); err != nil || c.Files != 1 {
		t.Errorf("files indexed after a read-only search: %+v %v", c, err)
	}
	if js := eng.Job(root); js.Running || js.Last != nil {
		t.Errorf("a read-only search ran an index job: %+v", js)
	}
	text, isErr = callText(t, cs, toolset.CodeGraph, map[string]any{"name": "Thermostat"})
	if !isErr || !strings.Contains(text, "no function or class named Thermostat") {
		t.Errorf("read-only code_graph of an unindexed name: %v %s", isErr, text)
	}

	// a project without an index stays without one
	bare, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bare, "c.go"), []byte("package c\n\nfunc C() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	roBare, err := NewServer(Config{Engine: eng, Root: bare, ReadOnly: true, Log: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	text, isErr = callText(t, connect(t, roBare, nil), toolset.SearchCode, map[string]any{"query": "anything"})
	if isErr || text != toolset.NotIndexedMessage {
		t.Errorf("read-only search_code of an unindexed project: %v %q", isErr, text)
	}
	if _, err := st.GetProject(ctx, bare); !errors.Is(err, store.ErrNotIndexed) {
		t.Errorf("a read-only search indexed a new project: %v", err)
	}

	// the writing server over the same engine refreshes first
	rw, err := NewServer(Config{Engine: eng, Root: root, Log: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	text, isErr = callText(t, connect(t, rw, nil), toolset.SearchCode, map[string]any{"query": "boiler temperature thermostat"})
	if isErr || !strings.Contains(text, "b.go") {
		t.Errorf("writing search_code did not refresh:\n%s", text)
	}
	if js := eng.Job(root); js.Last == nil || js.Last.Report == nil || js.Last.Report.Changed != 1 {
		t.Errorf("job after the writing search: %+v", js)
	}
}
