package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExactToolCommands(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "pkg"), 0o755)
	os.WriteFile(filepath.Join(root, "pkg", "retry.go"), []byte("package pkg\n\n// Retry retries.\nfunc Retry() {}\n"), 0o644)
	os.WriteFile(filepath.Join(root, "notes.md"), []byte("# notes\nretry later\n"), 0o644)

	code, out, errs := run(t, "grep", "--project", root, "--json", "func Retry")
	if code != 0 {
		t.Fatalf("grep: %d %s", code, errs)
	}
	var g struct {
		Matches []struct {
			Path string `json:"path"`
			Line int    `json:"line"`
		} `json:"matches"`
		SuggestedReads []json.RawMessage `json:"suggested_reads"`
	}
	if err := json.Unmarshal([]byte(out), &g); err != nil || len(g.Matches) != 1 || g.Matches[0].Path != "pkg/retry.go" || g.Matches[0].Line != 4 || len(g.SuggestedReads) != 1 {
		t.Fatalf("grep json %v: %s", err, out)
	}
	code, out, _ = run(t, "grep", "--project", root, "-i", "RETRY")
	if code != 0 || !strings.Contains(out, "notes.md") || !strings.Contains(out, "pkg/retry.go") {
		t.Fatalf("grep -i: %s", out)
	}
	code, out, errs = run(t, "grep", "--project", root, "zzqq-no-such-text")
	if code != 1 || !strings.Contains(out, "No matches.") || errs != "" {
		t.Fatalf("no match: exit %d out %q err %q (want 1, as rg)", code, out, errs)
	}
	code, _, errs = run(t, "grep", "--project", root, "(")
	if code != 1 || !strings.Contains(errs, "fixed") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Fatalf("bad regex: exit %d %q", code, errs)
	}
	code, out, _ = run(t, "glob", "--project", root, "**/*.go")
	if code != 0 || strings.TrimSpace(out) != "pkg/retry.go" {
		t.Fatalf("glob: %q", out)
	}
	code, out, _ = run(t, "read", "--project", root, "--offset", "3", "--limit", "1", "pkg/retry.go")
	if code != 0 || !strings.Contains(out, "3\t// Retry retries.") || !strings.Contains(out, "next offset 4") {
		t.Fatalf("read: %q", out)
	}
	for _, bad := range []string{"../../etc/passwd", "/etc/passwd"} {
		code, _, errs = run(t, "read", "--project", root, bad)
		if code != 1 || errs == "" {
			t.Errorf("read %s: exit %d %q", bad, code, errs)
		}
	}
	code, _, errs = run(t, "read", "--project", root, "--offset", "99", "notes.md")
	if code != 1 || !strings.Contains(errs, "offset") {
		t.Errorf("offset past end: exit %d %q", code, errs)
	}
}
