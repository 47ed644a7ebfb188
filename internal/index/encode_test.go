package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/walk"
)

// TestPrepareEncodesOnlyForACompressingStore: a worker makes the stored
// form of a chunk's text and doc comment (store.EncodeChunkText) when the
// store keeps text compressed, and does no such work for one that stores
// it as is (PostgreSQL).
func TestPrepareEncodesOnlyForACompressingStore(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	src := "package p\n\n// Sum adds the numbers.\nfunc Sum(xs []int) int {\n" + strings.Repeat("\ts := 0\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n", 6) + "\treturn s\n}\n"
	if err := os.WriteFile(filepath.Join(root, "sum.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	f := walk.File{Path: "sum.go", Abs: filepath.Join(root, "sum.go"), Size: int64(len(src))}
	ids := newFileIDs(localEmbedder(t))
	for _, compress := range []bool{true, false} {
		w := prepare(rt, f, nil, ids, newGoPackages(nil), newCppDirs(), compress, nil)
		if w.res == nil || len(w.res.Chunks) == 0 {
			t.Fatalf("no chunks: %+v", w)
		}
		i := len(w.res.Chunks) - 1 // the function, long enough to compress
		enc := w.terms[i].encoded
		switch {
		case !compress && enc != nil:
			t.Errorf("encoded for a store that keeps text as is: %T", enc)
		case compress:
			b, ok := enc.([]byte)
			if !ok {
				t.Fatalf("not encoded for a compressing store: %T", enc)
			}
			ch := w.res.Chunks[i]
			if ch.Doc == "" {
				t.Fatalf("the function has no doc: %+v", ch)
			}
			if got, doc, err := store.DecodeChunkText(string(b), w.terms[i].encodedDoc); err != nil || got != ch.Content || doc != ch.Doc {
				t.Errorf("stored form reads back %q, %q, %v", got, doc, err)
			}
		}
	}
}
