package index

import (
	"context"
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

// TestDeletedBeforeReadIsRemoved: a file deleted between the listing and
// its read is removed from the index and counted as removed, not failed
// (it was a failure that said its old rows were kept).
func TestDeletedBeforeReadIsRemoved(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "a.go", "package p\n\n// Gone soon.\nfunc Gone() {}\n")
	writeFile(t, root, "b.go", "package p\n\nfunc Stays() {}\n")
	st := openStore(t)
	emb := localEmbedder(t)
	mustRun(t, st, emb, root)
	ctx := context.Background()
	files, err := st.Files(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	prev, ok := files["a.go"]
	if !ok {
		t.Fatalf("a.go not indexed: %v", files)
	}
	if err := os.Remove(filepath.Join(root, "a.go")); err != nil {
		t.Fatal(err)
	}
	rt, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	w := prepare(rt, walk.File{Path: "a.go", Abs: filepath.Join(root, "a.go"), Size: prev.Size}, &prev,
		newFileIDs(emb), newGoPackages(nil), newCppDirs(), true, nil)
	if !w.gone || w.err != nil {
		t.Fatalf("prepare of a deleted file: gone %v, err %v", w.gone, w.err)
	}
	c := &collector{ctx: ctx, st: st, emb: emb, root: root, rep: &Report{}}
	if err := c.add(w); err != nil {
		t.Fatal(err)
	}
	if c.rep.Removed != 1 || len(c.rep.Failures) != 0 {
		t.Errorf("removed %d, failures %v; want 1 removed, no failure", c.rep.Removed, c.rep.Failures)
	}
	if files, err = st.Files(ctx, root); err != nil || len(files) != 1 {
		t.Errorf("files after: %v, %v; want b.go alone", files, err)
	}
}
