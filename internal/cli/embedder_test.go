package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed/static"
)

// TestIndexNotesEmbedderSwitch: a project indexed with one hashing
// embedder and indexed again with the learned model is embedded again in
// full, and the run says so on stderr, with the setting that keeps the
// hashing embedder.
func TestIndexNotesEmbedderSwitch(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	for name, src := range map[string]string{
		"a.go": "package a\n\n// Add sums two numbers.\nfunc Add(x, y int) int { return x + y }\n",
		"b.go": "package a\n\n// Sub subtracts.\nfunc Sub(x, y int) int { return x - y }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	setenv(t, "EMBEDDING_MODEL", "hashing-256-v1")
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 || strings.Contains(errs, "embedded again") {
		t.Fatalf("first index: exit %d\n%s\n%s", code, out, errs)
	}
	setenv(t, "EMBEDDING_MODEL", static.ModelName)
	code, out, errs := run(t, "index", "--quiet", dir)
	if code != 0 {
		t.Fatalf("second index: exit %d\n%s\n%s", code, out, errs)
	}
	want := "was indexed with local:hashing-256-v1; every file is embedded again with local:" + static.ModelName
	if !strings.Contains(errs, want) || !strings.Contains(errs, "EMBEDDING_MODEL=hashing-256-v1") {
		t.Errorf("stderr %q, want a note containing %q and the setting that keeps it", errs, want)
	}
	if !strings.Contains(out, "2 changed, 0 unchanged") {
		t.Errorf("the switch did not re-embed every file:\n%s", out)
	}
	if _, _, errs := run(t, "index", "--quiet", dir); strings.Contains(errs, "embedded again") {
		t.Errorf("a third run with the same embedder notes a switch: %s", errs)
	}
}

// TestDoctorNamesEmbedder: doctor names the embedder a new index gets, with
// its one-line description, before and after an index exists, and in JSON.
func TestDoctorNamesEmbedder(t *testing.T) {
	setHome(t)
	want := "embedder: local:" + static.ModelName + ": "
	if code, out, errs := run(t, "doctor"); code != 0 || !strings.Contains(out, want) {
		t.Fatalf("doctor without an index: exit %d\n%s\n%s\nwant %q", code, out, errs, want)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatal(errs)
	}
	if code, out, errs := run(t, "doctor"); code != 0 || !strings.Contains(out, want) {
		t.Fatalf("doctor: exit %d\n%s\n%s\nwant %q", code, out, errs, want)
	}
	if code, out, _ := run(t, "doctor", "--json"); code != 0 || !strings.Contains(out, `"embedder": "local:`+static.ModelName+`: `) {
		t.Fatalf("doctor --json: exit %d\n%s", code, out)
	}
	setenv(t, "EMBEDDING_PROVIDER", "nonsense")
	if _, out, _ := run(t, "doctor"); !strings.Contains(out, "embedder: unavailable: ") {
		t.Errorf("doctor with a bad provider:\n%s", out)
	}
}

// TestDoctorNamesAReadableIndex: an index other users can read (as older
// versions made it: 0644 in a 0755 home) is reported with the chmod that
// stops it; a new index is private and is not.
func TestDoctorNamesAReadableIndex(t *testing.T) {
	home := setHome(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatal(errs)
	}
	if code, out, _ := run(t, "doctor"); code != 0 || strings.Contains(out, "readable:") {
		t.Fatalf("doctor on a new index: exit %d\n%s", code, out)
	}
	db := filepath.Join(home, "index.db")
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "doctor")
	if want := "readable: other users of this machine can read the indexed code (" + db + " is 0644): chmod 600 " + db + "*"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("doctor on a 0644 index: exit %d\n%s\nwant %q", code, out, want)
	}
	if _, out, _ := run(t, "doctor", "--json"); !strings.Contains(out, "chmod 600 ") {
		t.Errorf("doctor --json has no note:\n%s", out)
	}
}
