package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/coderag/coderag/internal/store"
)

// TestUnmappedReads checks what store.WithUnmappedReads changes: the
// readers of an index opened for an index run do not memory-map the file,
// and those of a store opened for searches do.
func TestUnmappedReads(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	for _, c := range []struct {
		ctx    context.Context
		mapped bool
	}{{ctx, true}, {store.WithUnmappedReads(ctx), false}, {ctx, true}} {
		s, err := Open(c.ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		var size int64
		err = s.DB().QueryRowContext(ctx, `PRAGMA mmap_size`).Scan(&size)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if (size > 0) != c.mapped {
			t.Errorf("unmapped=%v: the readers' mmap_size is %d", store.UnmappedReads(c.ctx), size)
		}
	}
}
