package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// TestTermSafe: control characters are made visible (caret notation for
// C0 and DEL, \uXXXX for C1 and bidi controls), while newlines, tabs,
// CRLF, SGR colours and ordinary text (Chinese included) pass unchanged;
// the whole input is reported written.
func TestTermSafe(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\tand tab\n":         "plain text\tand tab\n",
		"压缩上下文\r\n":                     "压缩上下文\r\n",
		"\x1b[1;31mhit\x1b[0m":          "\x1b[1;31mhit\x1b[0m",
		"a\x1b]0;PWNED\x07b":            "a^[]0;PWNED^Gb",
		"\x1b[2J\x1b]52;c;ZWNobw==\x07": "^[[2J^[]52;c;ZWNobw==^G",
		"over\rwrite":                   "over^Mwrite",
		"del\x7f nul\x00":               "del^? nul^@",
		"name\u202egp.txt":              `name\u202egp.txt`,
		"c1\u009b31m":                   `c1\u009b31m`,
		"bad\xffutf8":                   "bad\xffutf8",
		"\x1b[":                         "^[[",
	} {
		var b bytes.Buffer
		n, err := termSafe{&b}.Write([]byte(in))
		if err != nil || n != len(in) || b.String() != want {
			t.Errorf("Write(%q) = %d, %v, wrote %q; want %d, %q", in, n, err, b.String(), len(in), want)
		}
	}
}

// TestTerminalOutputIsFiltered: a file whose content holds terminal
// escapes (a window title, a screen clear, a clipboard write) and a bidi
// override is searched and read with standard output a real terminal:
// what reaches it shows them as text, with the match colours kept; in a
// pipe the bytes are written as they are.
func TestTerminalOutputIsFiltered(t *testing.T) {
	t.Parallel()
	setHome(t)
	dir := t.TempDir()
	const payload = "\x1b]0;PWNED\x07\x1b[2J\x1b]52;c;ZWNobw==\x07\u202e"
	writeFile(t, filepath.Join(dir, "esc.go"), "package esc\n\n// EscapeMarker "+payload+" done\nfunc EscapeMarker() {}\n")
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	for _, args := range [][]string{
		{"search", "--project", dir, "EscapeMarker"},
		{"read", "--project", dir, "esc.go"},
	} {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		code, out := runTo(t, tty, ptmx, args...)
		ptmx.Close()
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		if strings.Contains(out, "\x1b]") || strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x07") || strings.Contains(out, "\u202e") ||
			!strings.Contains(out, "^[]0;PWNED^G^[[2J") || !strings.Contains(out, `\u202e`) {
			t.Errorf("%v on a terminal: escapes not made visible:\n%q", args, out)
		}
		if args[0] == "search" && !strings.Contains(out, "\x1b[1;31mEscapeMarker\x1b[0m") {
			t.Errorf("search on a terminal lost its match colour:\n%q", out)
		}
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	if code, out := runTo(t, pw, pr, "read", "--project", dir, "esc.go"); code != 0 || !strings.Contains(out, payload) {
		t.Errorf("read in a pipe changed the bytes:\n%q", out)
	}
}

// TestRootWithControlCharacterIsQuoted: `index` and `stats` show a project
// root whose name holds a newline or an escape Go-quoted, as every other
// path (walk.DisplayPath), not as two lines or a live escape.
func TestRootWithControlCharacterIsQuoted(t *testing.T) {
	t.Parallel()
	setHome(t)
	dir := filepath.Join(t.TempDir(), "odd\nname\x1b[31m")
	writeFile(t, filepath.Join(dir, "a.go"), "package a\n\nfunc A() {}\n")
	code, out, errs := run(t, "index", "--quiet", dir)
	if code != 0 || !strings.Contains(out, `odd\nname\x1b[31m"`) || strings.Contains(out, "odd\nname") {
		t.Errorf("index: exit %d, out %q, err %q", code, out, errs)
	}
	code, out, errs = run(t, "stats")
	if code != 0 || !strings.Contains(out, `odd\nname\x1b[31m"`) || strings.Contains(out, "odd\nname") {
		t.Errorf("stats: exit %d, out %q, err %q", code, out, errs)
	}
}

// TestVisibleText: for standard error, where no terminal writer filters,
// an SGR sequence and a carriage return are made visible too, unlike
// termSafe, which keeps colours and CRLF; newlines and tabs stay.
func TestVisibleText(t *testing.T) {
	in := "a\x1b[31mred\r\n\tx\u202e\x07"
	if got, want := visibleText(in), "a^[[31mred^M\n\tx\\u202e^G"; got != want {
		t.Errorf("visibleText(%q) = %q, want %q", in, got, want)
	}
	var b strings.Builder
	if _, err := (termSafe{&b}).Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "a\x1b[31mred\r\n\tx\\u202e^G"; got != want {
		t.Errorf("termSafe wrote %q, want %q", got, want)
	}
}
