package serve

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/store"
)

// rootsSecret is written in every file of a directory that must not be
// served; no answer may hold it.
const rootsSecret = "auth-SECRET-5e1f"

// TestRefusedRootsAreNeverServed: directories that may not be projects
// (a system tree, the home directory's hidden ~/.docker, /root with HOME
// elsewhere, the file-system root, a project's hidden and ignored
// directories) are refused by POST /api/index, and when another client
// registered one anyway (a project row written straight into the shared
// index) its files, search, graph, page view and MCP tools are refused too.
func TestRefusedRootsAreNeverServed(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	f := newFixture(t, Options{Token: "tok"})
	write := func(dir, name string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(`{"auths": {"r.example": {"auth": "`+rootsSecret+`"}}}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docker := filepath.Join(home, ".docker")
	write(docker, "config.json")
	hidden := filepath.Join(f.list, ".hidden")
	write(hidden, "keys.json")
	build := filepath.Join(f.list, "build")
	write(build, "out.json")
	gen := filepath.Join(f.list, "gen")
	write(gen, "gen.json")
	if err := os.WriteFile(filepath.Join(f.list, ".gitignore"), []byte("gen/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type served struct{ root, file string }
	refused := []served{{docker, "config.json"}, {hidden, "keys.json"}, {build, "out.json"}, {gen, "gen.json"}}
	if _, err := os.Stat("/etc/fonts/fonts.conf"); err == nil {
		refused = append(refused, served{"/etc/fonts", "fonts.conf"})
	}
	for _, body := range []string{docker, hidden, build, gen, "/etc/fonts", "/etc", "/root", "/", home} {
		b, _ := json.Marshal(map[string]string{"root": body})
		code, out := f.do(t, "POST", "/api/index", "tok", string(b))
		if code != 403 || !strings.Contains(out, "not a project root") {
			t.Errorf("POST /api/index %s: %d %s, want 403 naming the rule", body, code, out)
		}
	}
	// registered by another client of the index: the rule holds at read time
	ctx := context.Background()
	for _, r := range refused {
		now := time.Now()
		if err := f.st.PutProject(ctx, store.Project{Path: r.root, Embedder: "local:hashing-768-v1", Dim: 768, CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range refused {
		q := "project=" + url.QueryEscape(r.root)
		for _, p := range []string{
			"/api/file?" + q + "&path=" + r.file,
			"/file?" + q + "&path=" + r.file,
			"/api/search?q=auth&" + q,
			"/?q=auth&" + q,
			"/api/graph?name=main&" + q,
		} {
			code, out := f.do(t, "GET", p, "", "")
			if code != 403 || strings.Contains(out, rootsSecret) {
				t.Errorf("GET %s: %d %.200s, want 403 without the file", p, code, out)
			}
		}
		b, _ := json.Marshal(map[string]string{"root": r.root})
		if code, out := f.do(t, "POST", "/api/index", "tok", string(b)); code != 403 {
			t.Errorf("POST /api/index %s (indexed by another client): %d %s, want 403", r.root, code, out)
		}
		cs := connect(t, f.srv.URL+"/mcp?"+q, "tok")
		for _, c := range []*sdk.CallToolParams{
			{Name: "read_file", Arguments: map[string]any{"path": r.file}},
			{Name: "grep_code", Arguments: map[string]any{"pattern": "auth"}},
			{Name: "glob_files", Arguments: map[string]any{"pattern": "**"}},
			{Name: "search_code", Arguments: map[string]any{"query": "auth"}},
		} {
			text, isErr := callText(t, cs, c)
			if !isErr || strings.Contains(text, rootsSecret) || strings.Contains(text, r.file) || !strings.Contains(text, "not a project root") {
				t.Errorf("MCP %s in %s: error=%v %.300s, want a refusal naming the rule", c.Name, r.root, isErr, text)
			}
		}
	}
	// a search of every project leaves the refused ones out, and the
	// served projects still answer
	code, out := f.do(t, "GET", "/api/search?q=list", "", "")
	if code != 200 || strings.Contains(out, rootsSecret) || !strings.Contains(out, "list.go") {
		t.Errorf("search of every project: %d %.300s", code, out)
	}
	if code, _ := f.do(t, "GET", "/api/file?project=list&path=list.go", "", ""); code != 200 {
		t.Errorf("a project's own file: %d, want 200", code)
	}
}
