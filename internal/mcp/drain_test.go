package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/store"
)

type bufCloser struct{ bytes.Buffer }

func (b *bufCloser) Close() error { return nil }

// TestRequestsBeforeEOFAreAnswered pipes requests and closes the input at
// once, as `printf ... | coderag mcp` does: every request read is answered,
// including a search that first has to index the project.
func TestRequestsBeforeEOFAreAnswered(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\n// Retry retries.\nfunc Retry() {}\n"), 0o644)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	newEmb := func() (embed.Embedder, error) { return provider.New(embed.Options{Provider: "local"}) }
	srv, err := NewServer(Config{Root: root, Store: st, NewEmbedder: newEmb, IndexBudget: 20 * time.Second, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"glob_files","arguments":{"pattern":"*.go"}}}`,
		`{"jsonrpc":"2.0","id":"four","method":"tools/call","params":{"name":"search_code","arguments":{"query":"retry"}}}`,
	}, "\n") + "\n"
	var out bufCloser
	if err := srv.Run(ctx, io.NopCloser(strings.NewReader(in)), &out); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line is not JSON-RPC: %q", line)
		}
		if len(m.Error) == 0 {
			got[string(m.ID)] = true
		}
	}
	for _, id := range []string{"1", "2", "3", `"four"`} {
		if !got[id] {
			t.Errorf("request %s was not answered; output:\n%s", id, out.String())
		}
	}
	if !strings.Contains(out.String(), "Retry") {
		t.Errorf("search_code did not find Retry: %s", out.String())
	}
}
