package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestREPLTools: the REPL runs the CLI's exact tools and graph walks on
// the session's project: /grep (a quoted pattern, a flag after it),
// /glob, /read (flags after the file), /callers, /callees, /path, /stats;
// a missing argument prints the usage, an unterminated quote is an error
// line, and the session goes on.
func TestREPLTools(t *testing.T) {
	askEnv(t, "")
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "main.go"), "package main\n\nfunc main() { serve() }\n\nfunc serve() { listen(\"tcp port\") }\n\nfunc listen(addr string) {}\n")
	writeFile(t, filepath.Join(root, "util", "util.go"), "package util\n\n// Helper helps.\nfunc Helper() {}\n")
	in := strings.Join([]string{
		"/index " + root,
		`/grep "tcp port"`,
		"/grep LISTEN -i",
		"/glob '**/*.go'",
		"/read main.go --offset 5 --limit 1",
		"/callers listen",
		"/callees main",
		"/path main listen",
		"/stats",
		"/grep",
		`/grep "open`,
		"/exit",
	}, "\n") + "\n"
	code, out, errs := askRun(t, in)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, w := range []string{
		"project: " + root,
		"main.go\n  5: func serve() { listen(\"tcp port\") }\n\nsuggested reads:",
		"  7: func listen(addr string) {}",
		"suggested reads:\n/read main.go --offset 1 --limit 80\n",
		"util/util.go",
		"     5\tfunc serve()",
		"callers of listen(addr string) (main.go:7)",
		"callees of main() (main.go:3)",
		"path from main() to listen(addr string): 2 calls",
		"files:     2",
		"usage: /grep [flags] PATTERN",
		"error: unterminated \" quote",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s\nstderr:\n%s", out, errs)
	}
}

// TestREPLSearchFlags: /search takes the search flags anywhere in the line
// (--top-k N, --explain, --json), a one-dash word stays a filter of the
// query, and an unknown --flag is an error line, not a word searched.
func TestREPLSearchFlags(t *testing.T) {
	askEnv(t, "")
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "main.go"), "package main\n\n// serve listens on a tcp port.\nfunc serve() { listen(\"tcp port\") }\n\n// listen opens the tcp port.\nfunc listen(addr string) {}\n\n// close shuts the tcp port.\nfunc close() {}\n")
	in := strings.Join([]string{
		"/index " + root,
		"/search tcp port --top-k 1 --explain",
		"/search --json tcp port --top-k=2",
		"/search tcp port -file:main.go",
		"/search tcp port --frobnicate",
		"/exit",
	}, "\n") + "\n"
	code, out, errs := askRun(t, in)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	// the answer to each input line follows its prompt
	parts := strings.Split(out, "coderag> ")
	if len(parts) < 6 {
		t.Fatalf("want 5 answers, got:\n%s", out)
	}
	first, asJSON, filtered, unknown := parts[2], parts[3], parts[4], parts[5]
	if !strings.Contains(first, " 1. ") || strings.Contains(first, " 2. ") || !strings.Contains(first, "explain: ") {
		t.Errorf("--top-k 1 --explain not honoured:\n%s", first)
	}
	if !strings.Contains(asJSON, `"results"`) || strings.Count(asJSON, `"path": "main.go"`) != 2 || !strings.Contains(asJSON, `"query": "tcp port"`) {
		t.Errorf("--json --top-k=2 not honoured:\n%s", asJSON)
	}
	if !strings.Contains(filtered, `no results for "tcp port -file:main.go"`) {
		t.Errorf("a one-dash filter was not kept in the query:\n%s", filtered)
	}
	if !strings.HasPrefix(unknown, "error: /search takes --top-k N") {
		t.Errorf("an unknown flag is not an error line:\n%s", unknown)
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", errs)
	}
}

// TestREPLGrepHints: the hints that point at grep name the REPL's /grep in
// the REPL (they named `coderag grep`, as /read's already named /read): a
// pattern of two words given unquoted, and a query of no words; the
// command line keeps `coderag grep`.
func TestREPLGrepHints(t *testing.T) {
	askEnv(t, "")
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "main.go"), "package main\n\n// Recovery recovers.\nfunc Recovery() {}\n\nfunc main() { Recovery() }\n")
	in := strings.Join([]string{"/index " + root, "/grep func Recovery", "/search ?!", "/exit"}, "\n") + "\n"
	code, out, errs := askRun(t, in)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	both := out + errs
	for _, w := range []string{"quote it: /grep 'func Recovery')", "use `/grep` for an exact string"} {
		if !strings.Contains(both, w) {
			t.Errorf("REPL output lacks %q", w)
		}
	}
	if strings.Contains(both, "coderag grep") {
		t.Errorf("the REPL names `coderag grep`")
	}
	if t.Failed() {
		t.Logf("output:\n%s\nstderr:\n%s", out, errs)
	}
	// the command line's words
	if _, _, errs := run(t, "grep", "--project", root, "func", "Recovery"); !strings.Contains(errs, "quote it: coderag grep 'func Recovery')") {
		t.Errorf("grep: %s", errs)
	}
	if _, out, _ := run(t, "search", "--project", root, "?!"); !strings.Contains(out, "use `coderag grep` for an exact string") {
		t.Errorf("search: %s", out)
	}
}

// TestREPLLongLine: a piped line over 1 MiB is refused with a note and
// the session goes on to the next lines (it used to end the session with
// "bufio.Scanner: token too long"); a last line without its newline runs.
func TestREPLLongLine(t *testing.T) {
	askEnv(t, "")
	in := "/search " + strings.Repeat("word ", 220000) + "\n/help\n/exit"
	code, out, errs := askRun(t, in)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if !strings.Contains(errs, "input line over 1048576 bytes: skipped") {
		t.Errorf("stderr %q lacks the skipped line's note", errs)
	}
	if !strings.Contains(out, "/exit") {
		t.Errorf("the lines after the long one did not run: %q", out[:min(len(out), 400)])
	}
}
