// Package trainpy holds the test of train/train.py, the Python trainer of
// the built-in embedding model: it runs selftest.py (synthetic pairs, hard
// negative mining, a seeded training twice) with Debian's python3-torch.
package trainpy

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestTrainPy runs selftest.py with /usr/bin/python3 (the interpreter
// train/run.sh uses). It skips when that interpreter has no torch or numpy
// (python3-torch is not installed), unless CODERAG_TEST_TORCH=required, as
// .ci/run sets it.
func TestTrainPy(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import torch, numpy").Run(); err != nil {
		if os.Getenv("CODERAG_TEST_TORCH") == "required" {
			t.Fatalf("CODERAG_TEST_TORCH=required but %s cannot import torch and numpy: %v (apt-get install python3-torch)", py, err)
		}
		t.Skipf("%s has no torch or numpy (apt-get install python3-torch): %v", py, err)
	}
	out, err := exec.Command(py, "selftest.py").CombinedOutput()
	if err != nil {
		t.Fatalf("selftest.py: %v\n%s", err, out)
	}
	if !strings.HasSuffix(strings.TrimSpace(string(out)), "ok") {
		t.Fatalf("selftest.py did not end in ok:\n%s", out)
	}
	t.Logf("%s", out)
}
