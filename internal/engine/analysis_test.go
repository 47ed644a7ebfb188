package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/testutil"
)

// TestOtherAnalysisNotMixedSilently is issue #28's dictionary-mixing bug
// as a server meets it: a project indexed with the hashing embedder while
// CC-CEDICT was not installed, then searched by an engine that has it,
// under AsIs (the server's API and page, read-only MCP sessions, the
// agent: nothing is re-indexed before the answer). The query is
// translated with the dictionary, the stored Chinese comment was not, so
// the two vectors are of different spaces. The result from that file is
// marked stale and the note says why; the file without Chinese text is
// not. Under Freshen the same change re-embeds the file before answering.
// On main before the fix nothing was marked and the note was empty.
func TestOtherAnalysisNotMixedSilently(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	hashing := func(an *analyze.Analyzer) engine.Embedders {
		return engine.Fixed(func() (embed.Embedder, error) {
			return provider.New(embed.Options{Provider: "local", Model: "hashing-768-v1", Expand: analyze.GlossaryExpand, Analyzer: an})
		})
	}
	root := filepath.Join(t.TempDir(), "p")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "go.mod", "module p\n")
	writeFile(t, root, "parrot.go", "package p\n\n// 鹦鹉学舌: 重复对方的话\nfunc Echo(s string) string { return s }\n")
	writeFile(t, root, "plain.go", "package p\n\n// Twice repeats s: parrot twice.\nfunc Twice(s string) string { return s + s }\n")
	root, err := index.ResolveRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "index.db")
	without := analyze.New(nil)
	e1, err := engine.Open(ctx, engine.Config{DBPath: db, Analyzer: without, Embedders: hashing(without)})
	if err != nil {
		t.Fatal(err)
	}
	indexedRoot(t, e1, root)
	if err := e1.Close(); err != nil {
		t.Fatal(err)
	}

	with := analyze.WithDictionary(testutil.TinyDictionary(t))
	e := open(t, engine.Config{DBPath: db, Analyzer: with, Embedders: hashing(with)})
	p, err := e.Open(ctx, root, engine.OpenOptions{Policy: engine.AsIs})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Search(ctx, "鹦鹉学舌", search.Options{TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	stale := map[string]bool{}
	for _, r := range resp.Results {
		stale[r.Path] = r.Stale
	}
	if _, ok := stale["parrot.go"]; !ok {
		t.Fatalf("parrot.go is not among the results: %+v", resp.Results)
	}
	if !stale["parrot.go"] || stale["plain.go"] {
		t.Errorf("stale marks %v: want parrot.go (embedded without the dictionary, searched with it) and only it", stale)
	}
	if !strings.Contains(resp.Note, "1 file with Chinese text embedded with other text analysis (the glossary only) than this search's (the glossary and CC-CEDICT)") {
		t.Errorf("note %q does not say the index was built with other text analysis", resp.Note)
	}

	// SearchMany marks it alike, with the note in the project's answer
	many, err := e.SearchMany(ctx, []*engine.Project{p}, "鹦鹉学舌", search.Options{TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range many.Results {
		if r.Stale != (r.Path == "parrot.go") {
			t.Errorf("SearchMany: %s stale %v", r.Path, r.Stale)
		}
	}
	if len(many.Projects) != 1 || !strings.Contains(many.Projects[0].Note, "other text analysis") {
		t.Errorf("SearchMany project answers %+v", many.Projects)
	}

	// under Freshen the file is re-embedded first: nothing stale, no note
	pf, err := e.Open(ctx, root, engine.OpenOptions{Policy: engine.Freshen})
	if err != nil {
		t.Fatal(err)
	}
	resp, err = pf.Search(ctx, "鹦鹉学舌", search.Options{TopK: 5})
	if f, _ := pf.Freshness(); err != nil || f == nil || f.Refreshed != 1 {
		t.Fatalf("freshen: %+v %v", f, err)
	}
	for _, r := range resp.Results {
		if r.Stale {
			t.Errorf("after the refresh %s is still stale", r.Path)
		}
	}
	if strings.Contains(resp.Note, "analysis") {
		t.Errorf("after the refresh the note is %q", resp.Note)
	}
}
