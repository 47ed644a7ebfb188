package index

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/static"
)

// batchOnly hides an embedder's embed.InProcess mark: the index embeds its
// chunks in batches on the collector, as it does a server's.
type batchOnly struct{ embed.Embedder }

// countingInProcess is an in-process embedder that counts its Embed calls.
type countingInProcess struct {
	embed.Embedder
	calls atomic.Int32
}

func (c *countingInProcess) InProcess() {}

func (c *countingInProcess) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.calls.Add(1)
	return c.Embedder.Embed(ctx, texts)
}

// TestInProcessEmbedsOnWorkers: an embed.InProcess embedder embeds each
// file on its parsing worker (one Embed call per file, where the collector
// makes one per batch of 32 chunks), and the stored vectors are the ones
// the batch path stores.
func TestInProcessEmbedsOnWorkers(t *testing.T) {
	learned, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	if !embed.IsInProcess(learned) || embed.IsInProcess(batchOnly{learned}) {
		t.Fatal("the learned model must be marked InProcess, and the wrapper must hide it")
	}
	root := resolved(t, t.TempDir())
	const files = 6
	for i := range files {
		writeFile(t, root, fmt.Sprintf("f%d.go", i), fmt.Sprintf("package p\n\n// Open%d opens the connection pool.\nfunc Open%d() int { return %d }\n", i, i, i))
	}
	onWorkers := &countingInProcess{Embedder: learned}
	stWorkers, stBatch := openStore(t), openStore(t)
	mustRun(t, stWorkers, onWorkers, root)
	mustRun(t, stBatch, batchOnly{learned}, root)
	if got := onWorkers.calls.Load(); got != files {
		t.Fatalf("%d Embed calls for %d files, want one per file (on the workers)", got, files)
	}
	for i := range files {
		f := fmt.Sprintf("f%d.go", i)
		a, b := storedVectors(t, stWorkers, root, f), storedVectors(t, stBatch, root, filepath.ToSlash(f))
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("%s: %d vectors on the worker path, %d on the batch path", f, len(a), len(b))
		}
		for name, v := range a {
			if !bytes.Equal(v, b[name]) {
				t.Fatalf("%s: chunk %s: the vectors differ between the worker and the batch path", f, name)
			}
		}
	}
}
