package cli

import (
	"os"
	"testing"

	"github.com/coderag/coderag/internal/testutil"
)

// TestMain removes the coderag binary that tests of this package share
// (testutil.Binary builds it once, on first use) after they have all run.
func TestMain(m *testing.M) {
	code := m.Run()
	testutil.RemoveBinary()
	os.Exit(code)
}
