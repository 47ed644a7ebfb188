package index

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/store"
)

func gorootSrc(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Fatal(err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

func localEmbedder(tb testing.TB) embed.Embedder {
	tb.Helper()
	e, err := provider.New(embed.Options{Provider: "local"})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// BenchmarkIndexNetHTTP measures a full index of net/http (fresh DB each time).
func BenchmarkIndexNetHTTP(b *testing.B) {
	root := filepath.Join(gorootSrc(b), "net", "http")
	emb := localEmbedder(b)
	for i := 0; i < b.N; i++ {
		st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "index.db"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Run(context.Background(), st, emb, root, Options{}); err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}
