package engine

import (
	"context"
	"path/filepath"
	"testing"
)

// TestLongLivedCachesVectors: the vector cache is on in long-lived
// engines only.
func TestLongLivedCachesVectors(t *testing.T) {
	t.Parallel()
	for _, long := range []bool{false, true} {
		e, err := Open(context.Background(), Config{DBPath: filepath.Join(t.TempDir(), "index.db"), LongLived: long})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.st.CachingVectors(); got != long {
			t.Errorf("LongLived %v: vector cache on = %v", long, got)
		}
		e.Close()
	}
}
