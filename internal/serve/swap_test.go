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

// TestReplacedIndexIsSaid: when the index file is replaced under a running
// server (doctor --rebuild moves a damaged one aside and makes a new one),
// the server no longer answers from the moved file as if nothing had
// happened: every request but static files is answered 503 naming the
// file and the restart. Before the swap, 200.
func TestReplacedIndexIsSaid(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	if code, body := f.do(t, "GET", "/api/status", "", ""); code != 200 {
		t.Fatalf("before the swap: %d %.300s", code, body)
	}
	path := f.eng.StorePath()
	if err := os.Rename(path, path+".damaged-1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/api/status", "/api/search?q=list", "/"} {
		code, body := f.do(t, "GET", p, "", "")
		if code != 503 || !strings.Contains(body, "restart coderag serve") {
			t.Errorf("%s after the swap: %d %.300s", p, code, body)
		}
	}
	if code, _ := f.do(t, "GET", "/static/favicon.svg", "", ""); code != 200 {
		t.Errorf("a static file after the swap: %d", code)
	}
}
