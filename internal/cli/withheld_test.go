package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretFilesWithheld: `coderag index` withholds secret-looking files
// and `stats` says how many; read, grep and glob withhold them too;
// --allow-secrets (one command) and CODERAG_ALLOW_SECRETS=1 (the index)
// take them.
func TestSecretFilesWithheld(t *testing.T) {
	setHome(t)
	setenv(t, "CODERAG_ALLOW_SECRETS", "")
	dir := t.TempDir()
	const secret = "tok-SECRET-5512"
	files := map[string]string{
		"main.go":          "package main\n\n// Main runs.\nfunc main() {}\n",
		".env":             "API_KEY=" + secret + "\n",
		".env.json":        `{"key": "` + secret + `"}` + "\n",
		"credentials.json": `{"key": "` + secret + `"}` + "\n",
		"secrets.yaml":     "key: " + secret + "\n",
		"tls/server.pem":   secret + "\n",
		"secret.key":       secret + "\n",
	}
	for n, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	_, out, _ := run(t, "stats")
	if !strings.Contains(out, "withheld:  6 files whose names look like secrets") {
		t.Errorf("stats does not say 6 files were withheld:\n%s", out)
	}
	var st statsOut
	_, out, _ = run(t, "stats", "--json")
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st.Projects) != 1 || st.Projects[0].LastRun == nil {
		t.Fatalf("stats --json: %v %s", err, out)
	}
	if p := st.Projects[0]; p.LastRun.Withheld != 6 || p.Files != 1 {
		t.Errorf("stats --json: withheld %d, files %d; want 6 and 1", p.LastRun.Withheld, p.Files)
	}
	if code, out, errs := run(t, "search", "--project", dir, secret); strings.Contains(out, secret) {
		t.Errorf("search finds a withheld file: %d %s %s", code, out, errs)
	}
	for _, n := range []string{".env", ".env.json", "credentials.json", "secrets.yaml", "tls/server.pem", "secret.key"} {
		code, out, errs := run(t, "read", "--project", dir, n)
		if code == 0 || strings.Contains(out, secret) || !strings.Contains(errs, "withheld") {
			t.Errorf("read %s: exit %d %s %s, want it withheld", n, code, out, errs)
		}
	}
	_, out, _ = run(t, "glob", "--project", dir, "**")
	if strings.Contains(out, ".env") || strings.Contains(out, "secret.key") || !strings.Contains(out, "main.go") {
		t.Errorf("glob lists withheld files, or not main.go:\n%s", out)
	}
	if _, out, _ := run(t, "grep", "--project", dir, secret); strings.Contains(out, secret) {
		t.Errorf("grep searches withheld files:\n%s", out)
	}
	// the opt-out: one command's flag, then the environment for the index
	if code, out, errs := run(t, "read", "--allow-secrets", "--project", dir, ".env"); code != 0 || !strings.Contains(out, secret) {
		t.Errorf("read --allow-secrets .env: %d %s %s", code, out, errs)
	}
	if _, out, _ := run(t, "glob", "--allow-secrets", "--project", dir, "**"); !strings.Contains(out, "secret.key") {
		t.Errorf("glob --allow-secrets does not list secret.key:\n%s", out)
	}
	if _, out, _ := run(t, "grep", "--allow-secrets", "--project", dir, secret); !strings.Contains(out, "credentials.json") {
		t.Errorf("grep --allow-secrets does not search credentials.json:\n%s", out)
	} else if !strings.Contains(out, "coderag read --project "+shellQuote(dir)+" --allow-secrets --offset") {
		// the read it suggests of a withheld file works when pasted
		t.Errorf("grep --allow-secrets suggests a read without --allow-secrets:\n%s", out)
	}
	setenv(t, "CODERAG_ALLOW_SECRETS", "1")
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index with CODERAG_ALLOW_SECRETS=1: %d %s %s", code, out, errs)
	}
	_, out, _ = run(t, "stats", "--json")
	st = statsOut{}
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st.Projects) != 1 || st.Projects[0].LastRun == nil {
		t.Fatalf("stats --json: %v %s", err, out)
	}
	if p := st.Projects[0]; p.LastRun.Withheld != 0 || p.Files < 4 {
		t.Errorf("with CODERAG_ALLOW_SECRETS=1: withheld %d, files %d; want 0 and the secret files indexed", p.LastRun.Withheld, p.Files)
	}
	setenv(t, "CODERAG_ALLOW_SECRETS", "maybe")
	if code, _, errs := run(t, "index", "--quiet", dir); code == 0 || !strings.Contains(errs, "CODERAG_ALLOW_SECRETS") {
		t.Errorf("CODERAG_ALLOW_SECRETS=maybe: exit %d %s, want an error naming it", code, errs)
	}
}

// TestGrepNotesWithheld: grep says how many secret-looking files it
// withheld, on stderr in text (stdout keeps the matches only) and as
// "withheld" in --json, whether or not anything matched; --allow-secrets
// searches them and nothing is said.
func TestGrepNotesWithheld(t *testing.T) {
	setHome(t)
	setenv(t, "CODERAG_ALLOW_SECRETS", "")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n\n// token is read from the environment.\nfunc main() {}\n")
	writeFile(t, filepath.Join(dir, ".env"), "token=SECRET\n")
	writeFile(t, filepath.Join(dir, "tls/server.key"), "token\n")
	const note = "note: withheld 2 files whose names look like secrets (.env, *.key, credentials.json, ...): not searched; --allow-secrets searches them\n"
	for pattern, exit := range map[string]int{"token": 0, "no such text": 1} {
		code, out, errs := run(t, "grep", "--project", dir, pattern)
		if code != exit || exit == 0 && !strings.Contains(out, "main.go") {
			t.Errorf("grep %q: exit %d, want %d\n%s", pattern, code, exit, out)
		}
		if !strings.Contains(errs, note) || strings.Contains(out, "ithheld ") || strings.Contains(out, "SECRET") {
			t.Errorf("grep %q: stdout\n%s\nstderr\n%s\nwant the note on stderr: %s", pattern, out, errs, note)
		}
		_, out, errs = run(t, "grep", "--json", "--project", dir, pattern)
		var got struct {
			Withheld int    `json:"withheld"`
			Note     string `json:"note"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || got.Withheld != 2 || errs != "" {
			t.Errorf("grep --json %q: %v, withheld %d, stderr %q\n%s", pattern, err, got.Withheld, errs, out)
		}
	}
	if _, out, errs := run(t, "grep", "--project", dir, "--glob", "*.go", "token"); strings.Contains(out+errs, "ithheld ") {
		t.Errorf("grep --glob *.go notes files the glob leaves out:\n%s\n%s", out, errs)
	}
	if _, out, errs := run(t, "grep", "--allow-secrets", "--project", dir, "token"); strings.Contains(out+errs, "ithheld ") || !strings.Contains(out, ".env") {
		t.Errorf("grep --allow-secrets:\n%s\n%s", out, errs)
	}
}

// TestToolJSONNamesCLIFlags: grep and glob --json notes name the CLI's
// flags (--no-ignore), as their text does, not the MCP tools' arguments
// (no_ignore).
func TestToolJSONNamesCLIFlags(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src", "b.js"), "function Foo() {}\n")
	writeFile(t, filepath.Join(dir, "node_modules", "x", "a.js"), "function Foo() {}\n")
	for _, args := range [][]string{{"grep", "--json", "--project", dir, "Foo"}, {"glob", "--json", "--project", dir, "*.js"}} {
		code, out, errs := run(t, args...)
		if code != 0 || !strings.Contains(out, `"note": "Skipped node_modules/ (built-in rule; --no-ignore to search it)."`) || strings.Contains(out, "no_ignore") {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, out, errs)
		}
	}
}
