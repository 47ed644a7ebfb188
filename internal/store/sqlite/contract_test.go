package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/coderag/coderag/internal/store/storetest"
)

// TestContract runs the store's contract suite on SQLite files.
func TestContract(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t testing.TB) string { return filepath.Join(t.TempDir(), "index.db") })
}
