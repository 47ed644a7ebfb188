package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUnknownCommandSuggests: a mistyped command names the nearest one
// (edit distance) and exits 2; a word near none gets the help pointer.
func TestUnknownCommandSuggests(t *testing.T) {
	setHome(t)
	for _, tc := range []struct{ arg, want string }{
		{"serch", "coderag: unknown command \"serch\"; did you mean \"search\"?\n"},
		{"saerch", "coderag: unknown command \"saerch\"; did you mean \"search\"?\n"},
		{"idnex", "coderag: unknown command \"idnex\"; did you mean \"index\"?\n"},
		{"stat", "coderag: unknown command \"stat\"; did you mean \"stats\"?\n"},
		{"frobnicate", "coderag: unknown command \"frobnicate\" (run 'coderag --help')\n"},
		{"x", "coderag: unknown command \"x\" (run 'coderag --help')\n"},
	} {
		code, out, errs := run(t, tc.arg, "foo")
		if code != exitUsage || out != "" || errs != tc.want {
			t.Errorf("coderag %s foo: %d %q %q, want 2 %q", tc.arg, code, out, errs, tc.want)
		}
	}
}

// TestUnknownFlagSuggests: a mistyped flag names the nearest flag of the
// command (the MCP spelling top_k finds --top-k), exits 2 and runs nothing.
func TestUnknownFlagSuggests(t *testing.T) {
	setHome(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--projct", "/tmp", "x"}, "coderag search: flag provided but not defined: -projct; did you mean --project? (see --help)\n"},
		{[]string{"search", "--top_k", "3", "x"}, "coderag search: flag provided but not defined: -top_k; did you mean --top-k? (see --help)\n"},
		{[]string{"index", "--jsn", "."}, "coderag index: flag provided but not defined: -jsn; did you mean --json? (see --help)\n"},
		{[]string{"search", "--frobnicate", "x"}, "coderag search: flag provided but not defined: -frobnicate (see --help)\n"},
	} {
		code, out, errs := run(t, tc.args...)
		if code != exitUsage || out != "" || errs != tc.want {
			t.Errorf("coderag %v: %d %q %q, want 2 %q", tc.args, code, out, errs, tc.want)
		}
	}
}

// TestErrorLineNamesOnce: an error that starts with the command's own
// operation ("index DIR: ...") is printed with the command named once,
// and a path that is not a directory once too.
func TestErrorLineNamesOnce(t *testing.T) {
	setHome(t)
	missing := filepath.Join(t.TempDir(), "gone")
	code, _, errs := run(t, "index", "--quiet", missing)
	if want := "coderag index " + missing + ": no such file or directory\n"; code != exitErr || errs != want {
		t.Errorf("index of a missing directory: %d %q, want %q", code, errs, want)
	}
	file := filepath.Join(t.TempDir(), "cookie.go")
	if err := os.WriteFile(file, []byte("package http\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run(t, "index", "--quiet", file)
	if want := "coderag index " + file + ": not a directory\n"; code != exitErr || errs != want {
		t.Errorf("index of a file: %d %q, want %q (the path once)", code, errs, want)
	}
	for _, tc := range []struct{ name, msg, want string }{
		{"index", "index /x: no such file", "coderag index /x: no such file"},
		{"index", "index: no embedder", "coderag index: no embedder"},
		{"index", "indexing failed", "coderag index: indexing failed"},
		{"search", "missing QUERY", "coderag search: missing QUERY"},
	} {
		if got := errLine(tc.name, tc.msg); got != tc.want {
			t.Errorf("errLine(%q, %q) = %q, want %q", tc.name, tc.msg, got, tc.want)
		}
	}
}
