package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// searchTo runs `coderag search ARGS` with stdout the file out and returns
// the exit status and what was written to it, read back through rd.
func searchTo(t *testing.T, out *os.File, rd io.Reader, args ...string) (int, string) {
	t.Helper()
	return runTo(t, out, rd, append([]string{"search"}, args...)...)
}

// runTo runs `coderag ARGS` with stdout the file out (a pty's or a pipe's
// writing end) and returns the exit status and what was written to it,
// read back through rd.
func runTo(t *testing.T, out *os.File, rd io.Reader, args ...string) (int, string) {
	t.Helper()
	var errb bytes.Buffer
	code := MainIO(context.Background(), args, testLookup(t), strings.NewReader(""), out, &errb)
	out.Close()
	b, _ := io.ReadAll(rd) // a pty's reader ends with EIO once the other side is closed
	if code != 0 {
		t.Logf("stderr: %s", errb.String())
	}
	return code, string(b)
}

// TestSearchHighlight: the query's words are coloured in the previews on a
// terminal (a real pty) and nowhere else: not in a pipe, not with
// NO_COLOR; --json gives them as byte offsets into the preview and into
// the chunk's lines.
func TestSearchHighlight(t *testing.T) {
	t.Parallel()
	setHome(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "login.go"), "package auth\n\n// LoginTimeout is how long a login may take.\nfunc LoginTimeout() int {\n\treturn 30 // seconds of login timeout\n}\n")
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	const colored = "\x1b[1;31mLoginTimeout\x1b[0m"

	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	code, out := searchTo(t, tty, ptmx, "--project", dir, "login timeout")
	if code != 0 || !strings.Contains(out, colored) || !strings.Contains(out, "\x1b[1;31mtimeout\x1b[0m") {
		t.Errorf("on a terminal: exit %d, want the words coloured:\n%q", code, out)
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	code, out = searchTo(t, pw, pr, "--project", dir, "login timeout")
	if code != 0 || strings.Contains(out, "\x1b[") || !strings.Contains(out, "LoginTimeout") {
		t.Errorf("in a pipe: exit %d, want no escapes:\n%q", code, out)
	}

	t.Run("NO_COLOR", func(t *testing.T) {
		setenv(t, "NO_COLOR", "1")
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer ptmx.Close()
		code, out := searchTo(t, tty, ptmx, "--project", dir, "login timeout")
		if code != 0 || strings.Contains(out, "\x1b[") || !strings.Contains(out, "LoginTimeout") {
			t.Errorf("NO_COLOR on a terminal: exit %d, want no escapes:\n%q", code, out)
		}
	})

	code, js, _ := run(t, "search", "--json", "--project", dir, "login timeout")
	var resp struct {
		Results []struct {
			Preview        string `json:"preview"`
			StartLine      int    `json:"start_line"`
			PreviewMatches []struct {
				Start, End int
			} `json:"preview_matches"`
			LineMatches []struct {
				Line, Start, End int
			} `json:"line_matches"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(js), &resp); err != nil || code != 0 || len(resp.Results) == 0 {
		t.Fatalf("--json: exit %d %v\n%s", code, err, js)
	}
	lines := strings.Split("package auth\n\n// LoginTimeout is how long a login may take.\nfunc LoginTimeout() int {\n\treturn 30 // seconds of login timeout\n}\n", "\n")
	for _, r := range resp.Results {
		var words []string
		for _, m := range r.PreviewMatches {
			words = append(words, r.Preview[m.Start:m.End])
		}
		for _, m := range r.LineMatches {
			words = append(words, lines[m.Line-1][m.Start:m.End])
		}
		if len(words) == 0 {
			t.Errorf("result %q has no matches", r.Preview)
		}
		for _, w := range words {
			if lw := strings.ToLower(w); lw != "login" && lw != "timeout" && lw != "logintimeout" {
				t.Errorf("match %q is not a query word (%q)", w, r.Preview)
			}
		}
	}
}
