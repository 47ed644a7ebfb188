package walk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzMatcher writes arbitrary .gitignore and nested .coderagignore text
// and asks whether an arbitrary path is ignored: no panic, the same answer
// when asked twice and from a fresh matcher, and no problem reported for
// regular ignore files. Seeds: f.Add below and testdata/fuzz/FuzzMatcher.
func FuzzMatcher(f *testing.F) {
	f.Add("*.log\n!keep.log\nbuild/\n", "tmp/*\n!tmp/keep.py\n", "a/b.log", false)
	f.Add("/root-only\n**/deep/**\n", "", "x/deep/y.go", false)
	f.Add("\\#literal\n\\!bang\n  spaced  \n", "[a-z]*.go\n", "sub/z.go", false)
	f.Add("\xff\xfe\n\x00\n", "\r\n", "\xff/\xfe", true)
	f.Fuzz(func(t *testing.T, rootIgnore, subIgnore, rel string, isDir bool) {
		if len(rootIgnore)+len(subIgnore) > 1<<16 {
			return
		}
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte(rootIgnore), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "sub", ".coderagignore"), []byte(subIgnore), 0o644); err != nil {
			t.Fatal(err)
		}
		rel = strings.Trim(strings.ReplaceAll(rel, "\x00", ""), "/")
		if rel == "" || strings.Contains(rel, "//") {
			return
		}
		m := NewMatcher(root)
		m.Load(rel)
		first := m.Ignored(rel, isDir)
		if again := m.Ignored(rel, isDir); again != first {
			t.Fatalf("Ignored(%q) changed from %v to %v", rel, first, again)
		}
		m2 := NewMatcher(root)
		m2.Load(rel)
		if got := m2.Ignored(rel, isDir); got != first {
			t.Fatalf("a fresh matcher says %v for %q, the first %v", got, rel, first)
		}
		if len(m.Problems()) != 0 {
			t.Fatalf("regular ignore files reported: %+v", m.Problems())
		}
	})
}
