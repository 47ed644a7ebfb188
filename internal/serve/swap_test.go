package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSwappedParentIsRefused: the projects' directory (above the roots,
// which stay real directories) is renamed away and replaced by a symlink
// to a tree holding a directory of the same name as a project. Every
// route that reads the project's files refuses it with 403, the MCP
// endpoint included (its server would be rooted at the link's target),
// and no answer names or shows the other tree.
func TestSwappedParentIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	if code, body := f.do(t, "GET", "/api/file?project=list&path=list.go", "", ""); code != 200 {
		t.Fatalf("before the swap: %d %.300s", code, body)
	}
	base := filepath.Dir(f.list)
	other := t.TempDir()
	if err := os.Mkdir(filepath.Join(other, "list"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"list.go", "private.go"} {
		if err := os.WriteFile(filepath.Join(other, "list", n), []byte("package list // OTHER_TREE_MARKER\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(base, base+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, base); err != nil {
		t.Fatal(err)
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/api/file?project=list&path=private.go", ""},
		{"GET", "/api/file?project=list&path=list.go", ""},
		{"GET", "/file?project=list&path=private.go", ""},
		{"POST", "/mcp?project=list", initialize},
	} {
		code, body := f.do(t, tc.method, tc.path, "", tc.body)
		if code != 403 || strings.Contains(body, "OTHER_TREE_MARKER") || strings.Contains(body, other) {
			t.Errorf("%s %s after the parent swap: %d %.400s; want 403 naming nothing of the other tree", tc.method, tc.path, code, body)
		}
	}
}
