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
	// `grep PATTERN PATH`, as rg takes it: the same as --path
	code, out, _ = run(t, "grep", "--project", root, "-i", "RETRY", "notes.md")
	if code != 0 || !strings.Contains(out, "notes.md") || strings.Contains(out, "pkg/retry.go") {
		t.Fatalf("grep PATTERN PATH: exit %d %s", code, out)
	}
	if code, _, errs := run(t, "grep", "--project", root, "--path", "pkg", "x", "notes.md"); code != 2 || !strings.Contains(errs, "give one") {
		t.Fatalf("a PATH and --path: exit %d %q", code, errs)
	}
	// two words meant as one pattern: the second is no path, and the
	// error says how to quote them
	if code, _, errs := run(t, "grep", "--project", root, "retry", "later"); code != 2 || !strings.Contains(errs, `to search for "retry later", quote it`) {
		t.Fatalf("an unquoted two-word pattern: exit %d %q", code, errs)
	}
	code, out, errs = run(t, "grep", "--project", root, "zzqq-no-such-text")
	if code != 1 || !strings.Contains(out, "No matches.") || errs != "" {
		t.Fatalf("no match: exit %d out %q err %q (want 1, as rg)", code, out, errs)
	}
	code, _, errs = run(t, "grep", "--project", root, "(")
	if code != 2 || !strings.Contains(errs, "use -F") || strings.Contains(errs, "grep: grep") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Fatalf("bad regex: exit %d %q (want 2 as rg, a -F hint, one line)", code, errs)
	}
	code, out, _ = run(t, "grep", "--project", root, "func Retry")
	// run from elsewhere, the suggested read names the project, so it works pasted
	if code != 0 || !strings.Contains(out, "coderag read --project "+shellQuote(root)+" --offset 1 --limit 80 pkg/retry.go") || strings.Contains(out, "read_file") {
		t.Fatalf("grep suggestions are not CLI commands that work where the user is: %q", out)
	}
	for _, bad := range [][]string{
		{"grep", "--project", root, "--engine", "bogus", "x"},
		{"grep", "--project", root, "--max-results", "0", "x"},
		{"search", "--project", root, "--top-k", "0", "x"},
		{"search", "--project", root, "--top-k", "31", "x"},
		{"read", "--project", root, "--limit", "0", "notes.md"},
		{"glob", "--project", root, "--limit", "0", "*.go"},
	} {
		if code, _, errs := run(t, bad...); code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d %q, want a one-line usage error (2)", bad, code, errs)
		}
	}
	// an error is exit 2, as rg's: a script tells it from "nothing found" (1)
	if code, _, errs := run(t, "glob", "--project", root, "../*"); code != 2 || !strings.Contains(errs, "leaves the project") {
		t.Errorf("glob ../*: exit %d %q, want 2", code, errs)
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "other.go"), []byte("package other\n\n// retry elsewhere\n"), 0o644)
	if code, _, errs := run(t, "grep", "--project", root, "retry", outside); code != 2 || !strings.Contains(errs, "outside the project root") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("grep --project ROOT PATTERN OUTSIDE: exit %d %q, want 2 and one line", code, errs)
	}
	// without --project, an absolute PATH or FILE outside the working
	// directory's project names its own project, as rg takes any path
	if code, out, errs := run(t, "grep", "retry", outside); code != 0 || !strings.Contains(out, "other.go") || !strings.Contains(out, "--project "+shellQuote(outside)) {
		t.Errorf("grep PATTERN /abs/dir: exit %d %q %q", code, out, errs)
	}
	if code, out, errs := run(t, "read", filepath.Join(outside, "other.go")); code != 0 || !strings.Contains(out, "retry elsewhere") {
		t.Errorf("read /abs/file: exit %d %q %q", code, out, errs)
	}
	if code, _, errs := run(t, "read", "--project", root, filepath.Join(outside, "other.go")); code != 1 || !strings.Contains(errs, "outside the project root") {
		t.Errorf("read --project ROOT /abs/outside: exit %d %q, want the refusal", code, errs)
	}
	if code, out, _ := run(t, "glob", "--project", root, "*.nothing"); code != 1 || !strings.Contains(out, "no matching files") {
		t.Errorf("glob without a match: exit %d %q, want 1", code, out)
	}
	if code, _, errs := run(t, "read", "--project", root, "pkg"); code != 1 || !strings.Contains(errs, "coderag glob") || strings.Contains(errs, "read: read") {
		t.Errorf("read of a directory: exit %d %q", code, errs)
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

// TestExactToolsSaySkipped (#27): on fastify's layout, `grep
// defaultInitOptions` says it skipped build/ and how to search it;
// --no-ignore finds the definition there, -C shows context, and glob says
// the same about build/.
func TestExactToolsSaySkipped(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "build"), 0o755)
	os.WriteFile(filepath.Join(root, "build", "build-validation.js"), []byte("'use strict'\n\nconst defaultInitOptions = {\n  connectionTimeout: 0\n}\n"), 0o644)
	os.WriteFile(filepath.Join(root, "fastify.js"), []byte("'use strict'\n"), 0o644)

	code, out, _ := run(t, "grep", "--project", root, "defaultInitOptions")
	if code != 1 || !strings.Contains(out, "Skipped build/ (built-in rule; --no-ignore to search it).") {
		t.Fatalf("grep: exit %d %q, want 1 and a note on build/", code, out)
	}
	code, out, _ = run(t, "grep", "--project", root, "--no-ignore", "-C1", "defaultInitOptions")
	if want := "build/build-validation.js\n  2- \n  3: const defaultInitOptions = {\n  4-   connectionTimeout: 0\n"; code != 0 || !strings.HasPrefix(out, want) {
		t.Fatalf("grep --no-ignore -C1: exit %d\n%s\nwant prefix:\n%s", code, out, want)
	}
	code, out, _ = run(t, "glob", "--project", root, "*.js")
	if code != 0 || !strings.Contains(out, "fastify.js\nSkipped build/ (built-in rule; --no-ignore to search it).") {
		t.Fatalf("glob: exit %d %q", code, out)
	}
	code, out, _ = run(t, "glob", "--project", root, "--no-ignore", "*.js")
	if code != 0 || out != "build/build-validation.js\nfastify.js\n" {
		t.Fatalf("glob --no-ignore: exit %d %q", code, out)
	}
}

// TestSuggestedReadOfDashName: grep's suggested read of a file whose name
// starts with '-' puts "--" before it, and the command it prints runs.
func TestSuggestedReadOfDashName(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "-top.go"), "package x\n\nfunc TopDash() {}\n")
	code, out, errs := run(t, "grep", "--project", root, "TopDash")
	if code != 0 {
		t.Fatalf("grep: exit %d\n%s\n%s", code, out, errs)
	}
	want := "coderag read --project " + shellQuote(root) + " --offset 1 --limit 80 -- -top.go\n"
	if !strings.Contains(out, want) {
		t.Fatalf("grep's suggestion is not %q:\n%s", want, out)
	}
	args := strings.Fields(strings.TrimPrefix(strings.TrimSuffix(want, "\n"), "coderag "))
	for i, a := range args {
		args[i] = strings.Trim(a, "'")
	}
	if code, out, errs := run(t, args...); code != 0 || !strings.Contains(out, "func TopDash()") {
		t.Fatalf("%q: exit %d\n%s\n%s", args, code, out, errs)
	}
}

// TestExactToolsJSONErrors: with --json, an error of read, grep or glob is
// the JSON object {"error": MSG} on stdout (as the server's API answers),
// MSG the line stderr still gets after the command's name, with the exit
// status of the error: 1 for read's failure, 2 for grep's and glob's
// (as rg's), 2 for bad usage.
func TestExactToolsJSONErrors(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.go"), "package a\n")
	for _, tc := range []struct {
		args []string
		exit int
		msg  string
	}{
		{[]string{"read", "--json", "--project", dir, "missing.go"}, 1, "missing.go"},
		{[]string{"read", "--json", "--project", dir}, 2, "want one FILE"},
		{[]string{"read", "--json", "--project", dir, "--offset", "0", "a.go"}, 2, "--offset and --limit must be at least 1"},
		{[]string{"grep", "--json", "--project", dir, "a(", "."}, 2, "a("},
		{[]string{"glob", "--json", "--project", dir, "../*.go"}, 2, "'..' leaves the project"},
	} {
		checkJSONError(t, tc.args, tc.exit, tc.msg)
	}
	// no error: the result, not an error object
	code, out, _ := run(t, "read", "--json", "--project", dir, "a.go")
	if code != 0 || strings.Contains(out, `"error"`) || !strings.Contains(out, `"root"`) {
		t.Errorf("read --json a.go: exit %d\n%s", code, out)
	}
}

// TestSearchJSONErrors: search --json answers an error as read, grep and
// glob do, {"error": MSG} on stdout with the line on stderr and the error's
// exit status: a project never indexed (1), a misspelt filter and a
// missing query (2); and a search that runs prints its results, not an
// error object.
func TestSearchJSONErrors(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.go"), "package a\n\n// Greet says hello to a person by name.\nfunc Greet(name string) string {\n\treturn \"hello \" + name\n}\n")
	for _, tc := range []struct {
		args []string
		exit int
		msg  string
	}{
		{[]string{"search", "--json", "--project", dir, "say hello"}, 1, "index"},
		{[]string{"search", "--json", "--project", dir, "lnag:go hello"}, 2, "lnag"},
		{[]string{"search", "--json", "--project", dir}, 2, "missing QUERY"},
		{[]string{"search", "--json", "--project", dir, " "}, 2, "the query is empty"},
	} {
		checkJSONError(t, tc.args, tc.exit, tc.msg)
	}
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ := run(t, "search", "--json", "--project", dir, "say hello")
	if code != 0 || strings.Contains(out, `"error"`) || !strings.Contains(out, "Greet") {
		t.Errorf("search --json after index: exit %d\n%s", code, out)
	}
}

// checkJSONError runs a coderag command given --json that must fail: its
// stdout is exactly {"error": MSG} with MSG holding msg, stderr is the
// same message as the error line, and the exit status is exit.
func checkJSONError(t *testing.T, args []string, exit int, msg string) {
	t.Helper()
	code, out, errs := run(t, args...)
	var got map[string]string
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 || !strings.Contains(got["error"], msg) || code != exit {
		t.Errorf("%v: exit %d (want %d), stdout %q (%v), want {\"error\": ...%s...}", args, code, exit, out, err, msg)
		return
	}
	if want := errLine(args[0], got["error"]) + "\n"; errs != want {
		t.Errorf("%v: stderr %q, want %q", args, errs, want)
	}
}
