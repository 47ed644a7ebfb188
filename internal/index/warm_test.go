package index

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/local"
)

// preparing is an embedder that counts its Prepare calls.
type preparing struct {
	embed.Embedder
	mu sync.Mutex
	n  int
}

func (p *preparing) Prepare() {
	p.mu.Lock()
	p.n++
	p.mu.Unlock()
}

// warmTree writes a tree whose candidate files are, in walk order, Ruby,
// Python, Markdown and Ruby again; its Scala file is git-ignored and its
// .xyz file has no language.
func warmTree(t *testing.T) string {
	root := resolved(t, t.TempDir())
	writeFile(t, root, ".gitignore", "gen/\n")
	writeFile(t, root, "a.rb", "def a; end\n")
	writeFile(t, root, "b/c.py", "def c(): pass\n")
	writeFile(t, root, "d.md", "# d\n")
	writeFile(t, root, "e.rb", "def e; end\n")
	writeFile(t, root, "gen/f.scala", "object F\n")
	writeFile(t, root, "g.xyz", "?\n")
	return root
}

// TestWarmLanguages: Warm compiles the language of each candidate file
// once, in walk order, never one of an ignored file or a file without a
// language, and prepares the embedder once; the bound on files stops the
// walk, and a cancelled context stops it before any compile.
func TestWarmLanguages(t *testing.T) {
	root := warmTree(t)
	emb, err := local.New(local.Options{Dim: 64})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		maxFiles int
		cancel   bool
		want     []string
	}{
		{"all", 100, false, []string{"ruby", "python", "markdown"}},
		{"bounded", 2, false, []string{"ruby", "python"}},
		{"cancelled", 100, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			var mu sync.Mutex
			var got []string
			p := &preparing{Embedder: emb}
			<-warm(ctx, root, p, false, tc.maxFiles, func(l string) error {
				mu.Lock()
				got = append(got, l)
				mu.Unlock()
				return nil
			})
			if !slices.Equal(got, tc.want) {
				t.Errorf("compiled %q, want %q", got, tc.want)
			}
			if p.n != 1 {
				t.Errorf("embedder prepared %d times, want 1", p.n)
			}
		})
	}
}
