package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// binaryPkg is the main package of the coderag binary.
const binaryPkg = "github.com/coderag/coderag/cmd/coderag"

var (
	binaryOnce sync.Once
	binaryDir  string
	binaryPath string
	binaryErr  error
)

// Binary returns the path of the coderag binary, built with `go build` from
// the module's cmd/coderag the first time a test of this test process asks
// for it and shared by every later caller (the tests of a package, internal
// and external, run in one process). A failed build fails t, and every later
// caller, with the build output. The binary lives in a temporary directory
// that RemoveBinary deletes; call it from TestMain after m.Run.
func Binary(t testing.TB) string {
	t.Helper()
	binaryOnce.Do(func() {
		binaryDir, binaryErr = os.MkdirTemp("", "coderag-bin-")
		if binaryErr != nil {
			binaryErr = fmt.Errorf("build coderag: %w", binaryErr)
			return
		}
		bin := filepath.Join(binaryDir, "coderag")
		out, err := exec.Command("go", "build", "-o", bin, binaryPkg).CombinedOutput()
		if err != nil {
			binaryErr = fmt.Errorf("go build %s: %w\n%s", binaryPkg, err, out)
			return
		}
		binaryPath = bin
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}

// RemoveBinary deletes the directory of the binary Binary built, if any; it
// is meant for TestMain, after every test of the process has run.
func RemoveBinary() {
	if binaryDir != "" {
		os.RemoveAll(binaryDir)
	}
}
