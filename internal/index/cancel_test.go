package index

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/static"
)

// cancellingEmbedder cancels a run's context at its n-th Embed call.
type cancellingEmbedder struct {
	embed.Embedder
	calls  atomic.Int32
	n      int32
	cancel context.CancelFunc
}

func (c *cancellingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if c.calls.Add(1) == c.n {
		c.cancel()
	}
	return c.Embedder.Embed(ctx, texts)
}

// TestCancelledRunKeepsWhatItReported: a run cancelled midway stores
// exactly the files its report counts as changed (those queued for a
// transaction are written whole, nothing half), and the next run indexes
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
	// one Embed call per batch of 4 chunks (BatchSize), a transaction per
	// 8 chunks (WriteChunks): cancelled at the 10th batch, midway
	emb := &cancellingEmbedder{Embedder: learned, n: 10, cancel: cancel}
	rep, err := Run(ctx, st, emb, root, Options{Threads: 2, BatchSize: 4, WriteChunks: 8})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	recs, ferr := st.Files(context.Background(), root)
	if ferr != nil {
		t.Fatal(ferr)
	}
	if rep == nil || rep.Changed == 0 || len(recs) != rep.Changed || rep.Changed == files {
		t.Fatalf("the report counts %v changed files, the store holds %d (of %d)", rep, len(recs), files)
	}
	rest := mustRun(t, st, learned, root)
	if rest.Changed != files-len(recs) || rest.Unchanged != len(recs) {
		t.Fatalf("the next run changed %d and kept %d, want %d and %d", rest.Changed, rest.Unchanged, files-len(recs), len(recs))
	}
}
