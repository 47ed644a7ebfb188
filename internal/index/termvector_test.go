package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/walk"
)

// termVector gives, for every ASCII chunk, the vector Embed gives its
// chunk.EmbedText and the full-text body analyze.Join gives its content:
// the chunks of the chunker's testdata in every language, and long chunks
// whose embedding text is cut inside a word, at a word's end, after
// punctuation and inside a run of punctuation.
func TestTermVectorEqualsEmbed(t *testing.T) {
	learned, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	var chunks []chunk.Chunk
	files, _ := filepath.Glob(filepath.Join("..", "chunk", "testdata", "*", "*"))
	for _, f := range files {
		if strings.HasSuffix(f, ".json") || strings.HasSuffix(f, ".md") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		res, err := chunk.Parse(filepath.Base(f), src)
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, res.Chunks...)
	}
	word := strings.Repeat("abcdefghij", 3)
	for pad := range 40 {
		// the head "[function:f] " is 13 bytes; the cut falls at byte
		// 2000-13 of the content, moved by pad through words and
		// punctuation
		content := strings.Repeat("x", pad) + strings.Repeat(" parseHeaderLine_"+word+"(a, b);; ", 120)
		chunks = append(chunks, chunk.Chunk{Type: "function", Name: "f", Content: content})
	}
	ascii, long := 0, 0
	for _, ch := range chunks {
		vec, body, ok := termVector(learned, ch)
		text := chunk.EmbedText(ch)
		if !ok {
			if analyze.IsASCII(text) {
				t.Fatalf("an ASCII chunk not embedded from its terms: %q", text[:min(60, len(text))])
			}
			continue
		}
		ascii++
		if len(text) < len("["+ch.Type+":"+ch.Name+"] ")+len(ch.Content) {
			long++
		}
		want, err := learned.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(vec, want[0]) {
			t.Fatalf("vector of %s %q differs from Embed's", ch.Type, ch.Name)
		}
		if got, want := strings.Join(body, " "), analyze.Join(ch.Content); got != want {
			t.Fatalf("body terms of %s %q differ from analyze.Join's:\n%.200s\n%.200s", ch.Type, ch.Name, got, want)
		}
	}
	if ascii < 200 || long < 40 {
		t.Fatalf("only %d ASCII chunks compared, %d of them cut", ascii, long)
	}
	t.Logf("%d chunks, %d ASCII, %d cut", len(chunks), ascii, long)
}

// largestFirst moves the files that are each at least 1/(8·threads) of the
// bytes to the front, largest first, and keeps the others in walk order; a
// tree with no such file keeps its order.
func TestLargestFirst(t *testing.T) {
	files := func(sizes ...int64) []walk.File {
		var fs []walk.File
		for i, s := range sizes {
			fs = append(fs, walk.File{Path: string(rune('a' + i)), Size: s})
		}
		return fs
	}
	paths := func(fs []walk.File) string {
		var b strings.Builder
		for _, f := range fs {
			b.WriteString(f.Path)
		}
		return b.String()
	}
	// 1,000 bytes in all, threads 4: a file of 1000/32 = 31.25 bytes or more moves
	got := paths(largestFirst(files(10, 400, 5, 30, 32, 100, 423), 4))
	if got != "gbfeacd" {
		t.Fatalf("order %s, want gbfeacd (g 423, b 400, f 100, e 32 first)", got)
	}
	even := files(10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10)
	if got := paths(largestFirst(even, 4)); got != paths(even) {
		t.Fatalf("a tree of even files reordered: %s", got)
	}
	// at most 4·threads files move: 20 files of one byte, then 20 of
	// 1,000-1,019 bytes, each 1/20 of the bytes
	var many []int64
	for range 20 {
		many = append(many, 1)
	}
	for i := range 20 {
		many = append(many, int64(1000+i))
	}
	if got := largestFirst(files(many...), 4); len(got) != 40 || got[0].Size != 1019 || got[15].Size != 1004 || got[16].Size != 1 || got[36].Size != 1000 {
		t.Fatalf("with 4 threads: sizes %d %d %d %d %d", got[0].Size, got[15].Size, got[16].Size, got[35].Size, got[36].Size)
	}
	if got := largestFirst(nil, 4); len(got) != 0 {
		t.Fatal("files from nothing")
	}
}

// writeIdle writes the queued files, the batch being gathered included,
// once they hold idleWriteChunks chunks, and leaves a smaller queue for
// later.
func TestWriteIdle(t *testing.T) {
	ctx := context.Background()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	const files, funcs = 12, 50 // 600 function chunks in all
	for i := range files {
		var b strings.Builder
		b.WriteString("package p\n")
		for k := range funcs {
			fmt.Fprintf(&b, "\nfunc F%d_%d() int { return %d }\n", i, k, k)
		}
		writeFile(t, root, fmt.Sprintf("f%d.go", i), b.String())
	}
	rt, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	st := openStore(t)
	if err := st.PutProject(ctx, store.Project{Path: root, Embedder: emb.ID(), Dim: emb.Dim()}); err != nil {
		t.Fatal(err)
	}
	c := &collector{ctx: ctx, st: st, emb: emb, root: root, rep: &Report{}, batch: 32, writeChunks: 1 << 20, writeBytes: 1 << 30}
	ids, gopkgs, cpp := newFileIDs(emb), newGoPackages(nil), newCppDirs()
	written := func() int {
		recs, err := st.Files(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		return len(recs)
	}
	queued, done, idleWrites := 0, 0, 0
	for i := range files {
		f := walk.File{Path: fmt.Sprintf("f%d.go", i), Abs: filepath.Join(root, fmt.Sprintf("f%d.go", i))}
		if fi, err := os.Stat(f.Abs); err == nil {
			f.Size = fi.Size()
		}
		w := prepare(rt, f, nil, ids, gopkgs, cpp, true, nil)
		if err := c.add(w); err != nil {
			t.Fatal(err)
		}
		queued += len(w.res.Chunks)
		if err := c.writeIdle(); err != nil {
			t.Fatal(err)
		}
		if queued >= idleWriteChunks {
			done, queued = i+1, 0 // all written; the next files queue anew
			idleWrites++
		}
		if n := written(); n != done {
			t.Fatalf("after file %d (%d chunks queued, threshold %d): %d files written, want %d", i, queued, idleWriteChunks, n, done)
		}
	}
	if idleWrites != 1 || done != 11 {
		t.Fatalf("%d idle writes, %d files written by them; want 1 write of the first 11 files (550 chunks)", idleWrites, done)
	}
	if c.rep.Changed == 0 {
		t.Fatal("writeIdle wrote nothing")
	}
}
