package sqlite

import (
	"context"
	"fmt"
	"testing"

	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/store/storetest"
)

// TestNamesSharingAHash: two names with one hash (nameHash keeps 24
// bits) are two code_names rows, each found by its own name only, and a
// name written again is not added twice.
func TestNamesSharingAHash(t *testing.T) {
	ctx := context.Background()
	seen := map[int64]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		n := fmt.Sprintf("pkg.Name%d", i)
		if m, ok := seen[nameHash(n)]; ok {
			a, b = m, n
		}
		seen[nameHash(n)] = n
	}
	s := openTemp(t)
	if err := s.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 3}); err != nil {
		t.Fatal(err)
	}
	fa, fb := storetest.File("a.go", a), storetest.File("b.go", b)
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{fa}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceFiles(ctx, "/p", []store.FileData{fb, storetest.File("c.go", a)}, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, files string }{{a, "a.go c.go"}, {b, "b.go"}} {
		rs, err := s.RelationsFrom(ctx, "/p", []string{c.name}, nil)
		var got string
		for _, r := range rs {
			if r.From != c.name {
				t.Errorf("RelationsFrom(%s) gave one from %s", c.name, r.From)
			}
			got += " " + r.Path
		}
		if err != nil || got != " "+c.files {
			t.Errorf("RelationsFrom(%s) in%s, want %s (%v)", c.name, got, c.files, err)
		}
	}
	var n int
	if err := s.DB().QueryRow(`SELECT count(*) FROM code_names WHERE hash = ?`, nameHash(a)).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d names of hash %d, want 2 (%v)", n, nameHash(a), err)
	}
}
