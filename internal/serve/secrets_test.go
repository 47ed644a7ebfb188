package serve

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/index"
)

// fileSecret is in every secret-looking file secretFiles writes.
const fileSecret = "tok-SECRET-90ab17"

// secretFiles writes secret-looking files into dir: names the index must
// withhold, in languages it would otherwise take (.json, .yaml) and not.
func secretFiles(t *testing.T, dir string) []string {
	t.Helper()
	names := []string{".env", ".env.json", ".env.production", "credentials.json", "secrets.yaml", "server.pem", "secret.key", "id_rsa", ".npmrc", "cfg/prod.env"}
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`{"key": "`+fileSecret+`"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return names
}

// TestSecretFilesAreNeverServed: secret-looking files of a project are not
// indexed, not served by /api/file or the file page, not listed by
// glob_files, not searched by grep_code or search_code, and not read by
// read_file; the rest of the project is.
func TestSecretFilesAreNeverServed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "tok"})
	names := secretFiles(t, f.list)
	emb, err := provider.New(embed.Options{Provider: "local", Expand: analyze.GlossaryExpand})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := index.Run(context.Background(), f.st, emb, f.list, index.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	withheld := 0
	for _, s := range rep.Skips {
		if s.Reason == "withheld: secret-looking name" {
			withheld++
		}
	}
	if withheld != len(names) {
		t.Errorf("the index run withheld %d files, want %d: %+v", withheld, len(names), rep.Skips)
	}
	for _, n := range names {
		for _, p := range []string{"/api/file?project=list&path=" + url.QueryEscape(n), "/file?project=list&path=" + url.QueryEscape(n)} {
			code, out := f.do(t, "GET", p, "", "")
			if code/100 != 4 || strings.Contains(out, fileSecret) {
				t.Errorf("GET %s: %d %.200s, want a 4xx without the file", p, code, out)
			}
			// the advice is the server's, not the operator's flags
			if strings.Contains(out, "CODERAG_ALLOW_SECRETS") || strings.Contains(out, "--allow-secrets") {
				t.Errorf("GET %s tells a visitor the operator's switch: %.300s", p, out)
			}
		}
	}
	for _, p := range []string{"/api/search?q=" + fileSecret, "/api/search?q=key+tok+SECRET&project=list"} {
		code, out := f.do(t, "GET", p, "", "")
		out = strings.ReplaceAll(out, `"query": "`+fileSecret+`"`, "") // the query, echoed
		if code != 200 || strings.Contains(out, fileSecret) {
			t.Errorf("GET %s: %d %.300s, want no secret", p, code, out)
		}
	}
	for _, token := range []string{"", "tok"} {
		cs := connect(t, f.srv.URL+"/mcp?project=list", token)
		text, _ := callText(t, cs, &sdk.CallToolParams{Name: "glob_files", Arguments: map[string]any{"pattern": "**"}})
		if !strings.Contains(text, "list.go") {
			t.Errorf("glob_files lists no project file: %s", text)
		}
		for _, n := range names {
			if strings.Contains(text, filepath.Base(n)) {
				t.Errorf("glob_files lists %s: %s", n, text)
			}
			out, isErr := callText(t, cs, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": n}})
			if !isErr || strings.Contains(out, fileSecret) {
				t.Errorf("read_file %s: error=%v %.200s", n, isErr, out)
			}
		}
		for _, c := range []*sdk.CallToolParams{
			{Name: "grep_code", Arguments: map[string]any{"pattern": fileSecret}},
			{Name: "grep_code", Arguments: map[string]any{"pattern": fileSecret, "path": "cfg"}},
			{Name: "search_code", Arguments: map[string]any{"query": "key " + fileSecret}},
		} {
			if out, _ := callText(t, cs, c); strings.Contains(out, fileSecret) {
				t.Errorf("%s %v finds the secret: %.300s", c.Name, c.Arguments, out)
			}
		}
	}
	if code, _ := f.do(t, "GET", "/api/file?project=list&path=list.go", "", ""); code != 200 {
		t.Errorf("the project's code: %d, want 200", code)
	}
	// an index that holds them (written before they were withheld, or
	// with secrets allowed): the server's search still leaves them out
	if _, err := index.Run(context.Background(), f.st, emb, f.list, index.Options{Threads: 2, AllowSecrets: true}); err != nil {
		t.Fatal(err)
	}
	if c, err := f.st.Count(context.Background(), f.list); err != nil || c.Files < 4 { // list.go, .env.json, credentials.json, secrets.yaml
		t.Fatalf("the index with secrets allowed holds %d files (%v)", c.Files, err)
	}
	cs := connect(t, f.srv.URL+"/mcp?project=list", "")
	for _, q := range []string{"key tok SECRET 90ab17", "credentials secrets env"} {
		code, out := f.do(t, "GET", "/api/search?project=list&q="+url.QueryEscape(q), "", "")
		if code != 200 || strings.Contains(out, fileSecret) {
			t.Errorf("search %q over an index holding secrets: %d %.300s", q, code, out)
		}
		if text, _ := callText(t, cs, &sdk.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": q}}); strings.Contains(text, fileSecret) {
			t.Errorf("search_code %q over an index holding secrets: %.300s", q, text)
		}
	}
}
