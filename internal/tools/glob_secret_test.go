package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGlobSaysWhatItWithheld: secret-looking files that match the pattern
// are not listed, and the note counts them, so an empty list is never
// taken for "no such file"; files that do not match are not counted, and
// with secrets allowed they are listed and nothing is said.
func TestGlobSaysWhatItWithheld(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, name := range []string{"deploy/server.key", "deploy/client.key", "deploy/README.md", ".env"} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Glob(context.Background(), root, GlobParams{Pattern: "*.key"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 0 || !strings.Contains(res.Note, "Withheld 2 secret-looking files that match") {
		t.Fatalf("files %v, note %q: want none listed and the two .key files counted", res.Files, res.Note)
	}
	res, err = Glob(context.Background(), root, GlobParams{Pattern: "*.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 || strings.Contains(res.Note, "Withheld") {
		t.Fatalf("files %v, note %q: want README.md and no withheld note", res.Files, res.Note)
	}
	res, err = Glob(context.Background(), root, GlobParams{Pattern: "*.key", AllowSecrets: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 2 || strings.Contains(res.Note, "Withheld") {
		t.Fatalf("allowed: files %v, note %q", res.Files, res.Note)
	}
}
