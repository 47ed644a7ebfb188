package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/walk"
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

// TestGrepSaysWhatItWithheld: grep withholds secret-looking files and
// counts them (Withheld, and a sentence in Text), on both engines: the
// files under the search path that the glob keeps, whether or not they
// would match (a count that followed the matches would tell a model what
// a secret holds); an ignored one, one outside the path or the glob is
// not counted; with secrets allowed, they are searched and nothing is
// said.
func TestGrepSaysWhatItWithheld(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, body := range map[string]string{
		"deploy/server.key": "token=42\n", "deploy/client.key": "nothing here\n", "deploy/app.go": "package deploy // token\n",
		".env": "token=43\n", "build/other.key": "token=44\n", "ignored/x.key": "token=45\n", ".gitignore": "ignored/\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range engines(t) {
		for _, tc := range []struct {
			p    GrepParams
			want int
		}{
			{GrepParams{Pattern: "token"}, 3},
			{GrepParams{Pattern: "no such text anywhere"}, 3},
			{GrepParams{Pattern: "token", Path: "deploy"}, 2},
			{GrepParams{Pattern: "token", Glob: "*.go"}, 0},
			{GrepParams{Pattern: "token", AllowSecrets: true}, 0},
		} {
			tc.p.Engine = e
			res := grep(t, root, tc.p)
			note := ""
			if tc.want > 0 {
				note = fmt.Sprintf("Withheld %d secret-looking files, not searched (allow secrets to search them).", tc.want)
			}
			if res.Withheld != tc.want || res.WithheldNote() != note || note != "" && !strings.HasSuffix(res.Text(), note+"\n") {
				t.Errorf("%s %+v: withheld %d, note %q, text\n%s\nwant %d", e, tc.p, res.Withheld, res.WithheldNote(), res.Text(), tc.want)
			}
			secrets := 0
			for _, m := range res.Matches {
				if walk.SecretName(m.Path) {
					secrets++
				}
			}
			if tc.p.AllowSecrets != (secrets > 0) {
				t.Errorf("%s %+v: %d matches in secret-looking files", e, tc.p, secrets)
			}
		}
	}
}
