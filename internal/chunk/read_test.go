package chunk

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// TestReadChunksSlices: a read past the previous one gets the rest of the
// buffer; a read at or before it gets the next bytes of the buffer, at most
// readBack of them, ending where a character starts (or at the end); a read
// at the end gets nothing.
func TestReadChunksSlices(t *testing.T) {
	src := []byte(strings.Repeat("路由 match ✓ é\n", 200)) // 1- to 3-byte characters
	rd := readChunks(src)
	if c := rd(0, sitter.Point{}); len(c) != len(src) {
		t.Fatalf("first read: %d bytes, want the whole buffer (%d)", len(c), len(src))
	}
	for i := len(src) - 1; i >= 0; i-- { // every read goes back
		c := rd(i, sitter.Point{})
		if len(c) == 0 || len(c) > readBack {
			t.Fatalf("offset %d: %d bytes, want 1..%d", i, len(c), readBack)
		}
		if !bytes.Equal(c, src[i:i+len(c)]) {
			t.Fatalf("offset %d: not the buffer's bytes", i)
		}
		if end := i + len(c); end < len(src) && !utf8.RuneStart(src[end]) {
			t.Fatalf("offset %d: the slice ends inside a character (byte %d)", i, end)
		}
	}
	if c := rd(100, sitter.Point{}); len(c) != len(src)-100 {
		t.Fatalf("a read past the previous one: %d bytes, want the rest (%d)", len(c), len(src)-100)
	}
	if c := rd(len(src), sitter.Point{}); c != nil {
		t.Fatalf("at the end: %q, want nil", c)
	}
	// invalid UTF-8 (only continuation bytes): still whole slices
	bad := bytes.Repeat([]byte{0x80}, 3*readBack)
	rb := readChunks(bad)
	rb(10, sitter.Point{})
	if c := rb(0, sitter.Point{}); len(c) != readBack {
		t.Fatalf("continuation bytes: %d bytes, want %d", len(c), readBack)
	}
}

// TestParseReadsBoundedBytes: tree-sitter's lexer goes back thousands of
// times in a Scala file, and go-tree-sitter copies (and keeps, until the
// parse ends) every slice the read callback returns. With the rest of the
// buffer as the slice, this file's parse copied over 600 MB; readChunks
// cuts that to 37 MB (short slices when the lexer goes back).
func TestParseReadsBoundedBytes(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\nobject Decoders {\n")
	for i := range 300 {
		fmt.Fprintf(&b, "  implicit final def decode%d[A](implicit d: Decoder[A]): Decoder[List[A]] = new Decoder[List[A]] {\n"+
			"    final def apply(c: HCursor): Result[List[A]] = c.as[Vector[A]].map(_.toList) // %d\n  }\n", i, i)
	}
	b.WriteString("}\n")
	src := []byte(b.String())
	sp, err := specFor("scala")
	if err != nil || sp == nil {
		t.Fatalf("scala spec: %v", err)
	}
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(sp.lang); err != nil {
		t.Fatal(err)
	}
	calls, handed, rest := 0, 0, 0
	rd := readChunks(src)
	tree := p.ParseWithOptions(func(i int, pt sitter.Point) []byte {
		c := rd(i, pt)
		calls++
		handed += len(c)
		rest += len(src) - min(i, len(src)) // what the whole rest would have been
		return c
	}, nil, nil)
	if tree == nil {
		t.Fatal("no tree")
	}
	defer tree.Close()
	if root := tree.RootNode(); root.HasError() {
		t.Fatal("the Scala source does not parse cleanly")
	}
	t.Logf("%d bytes of source: %d reads, %d bytes handed (the rest of the buffer each time: %d)", len(src), calls, handed, rest)
	if calls < 1000 {
		t.Fatalf("%d reads: the lexer no longer goes back often here, so this test no longer tests the bound", calls)
	}
	if handed > rest/10 {
		t.Fatalf("%d bytes handed to tree-sitter for %d bytes of source, want at most a tenth of the rest of the buffer at every read (%d)", handed, len(src), rest)
	}
}
