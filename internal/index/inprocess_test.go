package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/store"
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

// gatedStore holds the run's first write transaction until release is
// closed, and counts the transactions.
type gatedStore struct {
	*store.Store
	writes  atomic.Int32
	entered chan struct{} // closed when the first write starts
	release chan struct{}
}

func (g *gatedStore) ReplaceFiles(ctx context.Context, project string, files []store.FileData, remove []string) error {
	if len(files) > 0 && g.writes.Add(1) == 1 {
		close(g.entered)
		<-g.release
	}
	return g.Store.ReplaceFiles(ctx, project, files, remove)
}

// TestWriterOverlapsParsing: while the writer commits a transaction, the
// workers go on parsing and embedding, and the collector goes on queueing
// rows for the next one (up to a transaction's bounds), instead of
// everything waiting for the commit; every file is written in the end.
func TestWriterOverlapsParsing(t *testing.T) {
	learned, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	root := resolved(t, t.TempDir())
	const files = 120
	for i := range files {
		writeFile(t, root, fmt.Sprintf("f%03d.go", i), fmt.Sprintf("package p\n\n// Close%d closes the pool.\nfunc Close%d() int { return %d }\n", i, i, i))
	}
	emb := &countingInProcess{Embedder: learned}
	st := &gatedStore{Store: openStore(t), entered: make(chan struct{}), release: make(chan struct{})}
	const overlap = 30 // files embedded during the first write
	go func() {
		<-st.entered
		start := emb.calls.Load()
		deadline := time.Now().Add(time.Minute) // a guard against a hang, not a timing
		for emb.calls.Load() < start+overlap && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := emb.calls.Load() - start; n < overlap {
			t.Errorf("%d files embedded while the first transaction was held, want %d or more", n, overlap)
		}
		close(st.release)
	}()
	// Threads 2: the hand-off channel holds 8 files, so without the writer
	// goroutine at most ~10 files could be embedded during a write
	rep, err := Run(context.Background(), st, emb, root, Options{Threads: 2, WriteChunks: 64})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Changed != files || rep.Chunks != files {
		t.Fatalf("changed %d files, %d chunks; want %d of each", rep.Changed, rep.Chunks, files)
	}
	if n := st.writes.Load(); n < 2 {
		t.Fatalf("%d write transactions, want several (a transaction holds at most 64 chunks)", n)
	}
	recs, err := st.Files(context.Background(), root)
	if err != nil || len(recs) != files {
		t.Fatalf("%d files stored (%v), want %d", len(recs), err, files)
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

// TestCancelledRunKeepsWhatItReported: a run cancelled midway stores
// exactly the files its report counts as changed (those queued or handed
// to the writer are written whole, nothing half), and the next run indexes
// the rest.
func TestCancelledRunKeepsWhatItReported(t *testing.T) {
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
