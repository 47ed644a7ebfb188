package index

import (
	"bytes"
	"context"
	"errors"
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

// cancellingInProcess cancels a run's context at its n-th Embed call.
type cancellingInProcess struct {
	embed.Embedder
	calls  atomic.Int32
	n      int32
	cancel context.CancelFunc
}

func (c *cancellingInProcess) InProcess() {}

func (c *cancellingInProcess) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if c.calls.Add(1) == c.n {
		c.cancel()
	}
	return c.Embedder.Embed(ctx, texts)
}

// TestCancelledRunOnWorkersKeepsWhatItReported: a run whose files are
// embedded on the workers, cancelled midway, stores exactly the files its
// report counts as changed (those queued for a transaction are written
// whole, nothing half), and the next run indexes the rest.
func TestCancelledRunOnWorkersKeepsWhatItReported(t *testing.T) {
	learned, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	root := resolved(t, t.TempDir())
	const files = 120
	for i := range files {
		writeFile(t, root, fmt.Sprintf("f%03d.go", i), fmt.Sprintf("package p\n\n// Reset%d resets the pool.\nfunc Reset%d() int { return %d }\n", i, i, i))
	}
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	emb := &cancellingInProcess{Embedder: learned, n: 60, cancel: cancel}
	rep, err := Run(ctx, st, emb, root, Options{Threads: 2, WriteChunks: 16})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	recs, ferr := st.Files(context.Background(), root)
	if ferr != nil {
		t.Fatal(ferr)
	}
	if rep == nil || rep.Changed == 0 || len(recs) != rep.Changed {
		t.Fatalf("the report counts %v changed files, the store holds %d", rep, len(recs))
	}
	rest := mustRun(t, st, learned, root)
	if rest.Changed != files-len(recs) || rest.Unchanged != len(recs) {
		t.Fatalf("the next run changed %d and kept %d, want %d and %d", rest.Changed, rest.Unchanged, files-len(recs), len(recs))
	}
}
