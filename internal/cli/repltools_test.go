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
