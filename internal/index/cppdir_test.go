package index

import (
	"os"
	"path/filepath"
	"testing"
)

// A .h file is a C++ header when its directory holds C++ sources, and only
// then.
func TestCppDirs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, f := range []string{"db/db_impl.h", "db/db_impl.cc", "lib/buf.h", "lib/buf.c"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newCppDirs()
	if !c.header(filepath.Join(root, "db", "db_impl.h")) {
		t.Error("db/db_impl.h beside db_impl.cc is not C++")
	}
	if c.header(filepath.Join(root, "lib", "buf.h")) {
		t.Error("lib/buf.h beside buf.c is C++")
	}
	if c.header(filepath.Join(root, "db", "db_impl.cc")) {
		t.Error("a .cc file is not a header")
	}
}
