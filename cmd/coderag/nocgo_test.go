package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestBuildWithoutCgoSaysWhy: `CGO_ENABLED=0 go build` fails with the one
// line that names the fix (nocgo.go), not one "build constraints exclude
// all Go files" line per tree-sitter grammar.
func TestBuildWithoutCgoSaysWhy(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs go build")
	}
	cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a build without cgo succeeded:\n%s", out)
	}
	text := string(out)
	if !strings.Contains(text, "undefined: coderag_needs_cgo__install_a_C_compiler") || strings.Contains(text, "build constraints exclude") {
		t.Errorf("build without cgo says:\n%s", text)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		if !strings.HasPrefix(l, "# ") { // the package header go build prints
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		t.Errorf("want one error line, got %d:\n%s", len(lines), text)
	}
}
