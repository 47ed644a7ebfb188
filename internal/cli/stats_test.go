package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexAndStatsAccountForEveryFile: `index` names the file that fell
// back to text and why and counts the unindexed extensions; `stats` and
// `stats --json` list files per language, the fallback with its reason and
// the unindexed extensions.
func TestIndexAndStatsAccountForEveryFile(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	write := func(rel, content string) {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ring.zig", "pub fn push(x: u32) void {\n    _ = x;\n}\n")
	write("Broken.java", strings.Repeat("}}} ((( class ;; @@ \n", 40))
	write("table.inc", "int table[] = {1, 2};\n")
	write("LICENSE", "MIT\n")
	write("data.xyz", "1\n")
	code, out, errs := run(t, "index", root)
	if code != 0 {
		t.Fatalf("index: exit %d %s", code, errs)
	}
	for _, want := range []string{
		"text fallback: Broken.java (java): syntax errors over 30% of the file",
		"not indexed (no language for the extension): 2 file(s) ((none) 1, .xyz 1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("index output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "stats")
	for _, want := range []string{
		"java              1 files  definitions, 1 fell back to text (syntax errors over 30% of the file 1)",
		"zig               1 files  definitions\n",
		"cpp               1 files  definitions\n",
		"not indexed: 2 file(s) by extension ((none) 1, .xyz 1)",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "stats", "--json")
	var s statsOut
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 || len(s.Projects) != 1 {
		t.Fatalf("stats --json: %v %s", err, out)
	}
	ls := s.Projects[0].Languages
	if ls.Unindexed["(none)"] != 1 || ls.Unindexed[".xyz"] != 1 || len(ls.Languages) != 3 {
		t.Errorf("stats --json languages: %+v", ls)
	}
}
