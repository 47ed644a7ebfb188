package store

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestContentRoundTrip: every text reads back as written; code is stored
// compressed, short and incompressible texts as they are, and a text that
// starts with the mark always compressed (so the mark has one reading).
func TestContentRoundTrip(t *testing.T) {
	code := strings.Repeat("func (s *Server) Close() error { return s.ln.Close() }\n", 8)
	var rnd strings.Builder
	h := sha256.Sum256([]byte("seed"))
	for rnd.Len() < 400 {
		rnd.Write(h[:])
		h = sha256.Sum256(h[:])
	}
	for _, c := range []struct {
		name, text string
		compressed bool
	}{
		{"empty", "", false},
		{"short", "return nil", false},
		{"code", code, true},
		{"binary noise", rnd.String(), false},
		{"hex", hex.EncodeToString([]byte(rnd.String())), false}, // LZ4 has no entropy coding
		{"marked noise", "\x00" + rnd.String(), true},
		{"marked short", "\x00x", true},
		{"marked long", "\x00" + code, true},
		{"invalid utf-8", "\xff\xfe" + code, true},
	} {
		v, err := EncodeContent(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var stored string
		switch b := v.(type) {
		case []byte:
			stored = string(b)
			if !c.compressed {
				t.Errorf("%s: stored compressed (%d bytes for %d)", c.name, len(b), len(c.text))
			}
			if !strings.HasPrefix(c.text, contentMark) && len(b) > len(c.text)-len(c.text)/8 {
				t.Errorf("%s: compressed to %d bytes of %d, saving under 1/8", c.name, len(b), len(c.text))
			}
		case string:
			stored = b
			if c.compressed {
				t.Errorf("%s: stored as is", c.name)
			}
		}
		got, err := DecodeContent(stored)
		if err != nil || got != c.text {
			t.Errorf("%s: read back %q, %v", c.name, got, err)
		}
	}
	v, _ := EncodeContent(code)
	if len(v.([]byte)) > len(code)/4 {
		t.Errorf("repetitive code compressed to %d of %d bytes", len(v.([]byte)), len(code))
	}
}

// TestContentDamaged: a compressed text whose stream is cut is an error,
// never a shorter text.
func TestContentDamaged(t *testing.T) {
	v, _ := EncodeContent(strings.Repeat("abc def ghi ", 40))
	b := v.([]byte)
	if _, err := DecodeContent(string(b[:len(b)/2])); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("a cut stream read back with error %v", err)
	}
}

// BenchmarkDecodeContent reads back a chunk of code (1.5 KB).
func BenchmarkDecodeContent(b *testing.B) {
	code := strings.Repeat("func (s *Server) Close() error {\n\tif s.ln == nil {\n\t\treturn errClosed\n\t}\n\treturn s.ln.Close()\n}\n", 20)[:1500]
	v, _ := EncodeContent(code)
	stored := string(v.([]byte))
	b.SetBytes(int64(len(code)))
	for b.Loop() {
		if _, err := DecodeContent(stored); err != nil {
			b.Fatal(err)
		}
	}
}

// TestChunkTextRoundTrip: a chunk's text and doc comment read back as
// written from their stored form (EncodeChunkText), whatever the doc: one
// that is the text's comment without its markers is stored in the text's
// block (the doc column empty), as is one found nowhere in the text when
// the two compress; short and incompressible pairs stay as they are; NUL
// bytes, the mark and invalid UTF-8 survive; DecodeContent reads the text
// alone. A schema 8 row (EncodeContent's text, the doc in its column)
// reads back too.
func TestChunkTextRoundTrip(t *testing.T) {
	code := strings.Repeat("func (s *Server) Close() error { return s.ln.Close() }\n", 8)
	comment := "// Close stops the server.\n// It returns the listener's error.\n"
	var rnd strings.Builder
	h := sha256.Sum256([]byte("doc seed"))
	for rnd.Len() < 300 {
		rnd.Write(h[:])
		h = sha256.Sum256(h[:])
	}
	for _, c := range []struct {
		name, text, doc string
		inBlock         bool // the doc stored in the text's block
	}{
		{"no doc", code, "", false},
		{"empty text", "", strings.Repeat("a doc comment on nothing ", 8), true},
		{"both empty", "", "", false},
		{"doc of the comment", comment + code, "Close stops the server.\nIt returns the listener's error.", true},
		{"doc not in the text", code, strings.Repeat("Some words found nowhere else. ", 6), true},
		{"short pair", "return nil", "Nil.", false},
		{"short text, long doc", "x := 1", strings.Repeat("doc ", 40), true},
		{"incompressible", rnd.String()[:150], rnd.String()[150:], false},
		{"incompressible text, doc from it", rnd.String(), rnd.String()[10:200], true},
		{"NUL bytes", "a\x00b" + code, "doc\x00with\x00NULs " + strings.Repeat("\x00", 100), true},
		{"marked text", "\x00" + code, "Close.", true},
		{"marked short text", "\x00x", "doc", false},
		{"invalid utf-8", "\xff\xfe" + code, "\xc3(\xa0\xa1 " + comment, true},
		{"doc is the mark", code, "\x00\x00", true},
	} {
		v, doc, err := EncodeChunkText(c.text, c.doc)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var stored string
		switch b := v.(type) {
		case []byte:
			stored = string(b)
			if len(b)+len(doc) > len(c.text)+len(c.doc) && !strings.HasPrefix(c.text, contentMark) {
				t.Errorf("%s: stored in %d bytes, more than the %d of text and doc", c.name, len(b)+len(doc), len(c.text)+len(c.doc))
			}
		case string:
			stored = b
		default:
			t.Fatalf("%s: stored as a %T", c.name, v)
		}
		if inBlock := doc == "" && c.doc != ""; inBlock != c.inBlock {
			t.Errorf("%s: doc in the block %v, want %v (doc column %q)", c.name, inBlock, c.inBlock, doc)
		}
		text, gotDoc, err := DecodeChunkText(stored, doc)
		if err != nil || text != c.text || gotDoc != c.doc {
			t.Errorf("%s: read back %q, %q, %v", c.name, text, gotDoc, err)
		}
		if text, err := DecodeContent(stored); err != nil || text != c.text {
			t.Errorf("%s: DecodeContent read %q, %v", c.name, text, err)
		}
	}
	// a comment's doc costs a few bytes a line beside the text
	text := comment + code
	alone, _ := EncodeContent(text)
	v, _, _ := EncodeChunkText(text, "Close stops the server.\nIt returns the listener's error.")
	if extra := len(v.([]byte)) - len(alone.([]byte)); extra > 16 {
		t.Errorf("the doc of the comment cost %d bytes in the block", extra)
	}
	// schema 8: the text compressed alone, the doc in its column
	old, _ := EncodeContent(code)
	if text, doc, err := DecodeChunkText(string(old.([]byte)), "the doc"); err != nil || text != code || doc != "the doc" {
		t.Errorf("a schema 8 row read back %q, %q, %v", text, doc, err)
	}
	if text, doc, err := DecodeChunkText("plain text", "the doc"); err != nil || text != "plain text" || doc != "the doc" {
		t.Errorf("a plain row read back %q, %q, %v", text, doc, err)
	}
}

// TestChunkTextDamaged: a block stored with a doc whose lengths or stream
// are damaged is an error, never a shorter text.
func TestChunkTextDamaged(t *testing.T) {
	v, _, _ := EncodeChunkText(strings.Repeat("abc def ghi ", 40), strings.Repeat("a doc ", 20))
	b := v.([]byte)
	for name, s := range map[string]string{
		"cut stream":      string(b[:len(b)/2]),
		"no lengths":      string(b[:2]),
		"no doc length":   string(b[:3]),
		"doc length huge": string(append(append([]byte{}, b[:3]...), 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f)),
		"doc length off":  string(append(append(append([]byte{}, b[:3]...), b[3]+1), b[4:]...)),
	} {
		if _, _, err := DecodeChunkText(s, ""); err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("%s: read back with error %v", name, err)
		}
	}
}

// TestNamePartRoundTrip: a part of a chunk's name reads back as written
// from its stored form (EncodeNamePart): a position when it occurs in
// the name and is long enough, the text otherwise (and never a BLOB
// then, so a stored value has one reading); NUL bytes and invalid UTF-8
// are parts like any other.
func TestNamePartRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name, part string
		position   bool
	}{
		{"Server.Serve(l net.Listener)", "Serve", true},
		{"Server.Serve(l net.Listener)", "l net.Listener", true},
		{"Server.Serve(l net.Listener)", "Serve(l net.Listener)", true},
		{"Server.Serve(l net.Listener)", "", false},
		{"Server.Serve(l net.Listener)", "Ser", false},          // shorter than a position is worth
		{"Server.Serve(l net.Listener)", "func Serve()", false}, // not in the name
		{"f(a, b…)", "f(a, b…)", true},                          // the whole name
		{"abab.abab", "abab", true},                             // more than one occurrence
		{"n\x00ame(\xff\xfe x)", "\xff\xfe x", true},
		{"n\x00ame(x)", "n\x00ame", true},
		{"", "part", false},
	} {
		v := EncodeNamePart(c.name, c.part)
		b, isBlob := v.([]byte)
		if isBlob != c.position {
			t.Errorf("%q in %q stored as %T %q, want a position %v", c.part, c.name, v, v, c.position)
		}
		if isBlob && len(b) >= len(c.part) {
			t.Errorf("%q in %q: a position of %d bytes", c.part, c.name, len(b))
		}
		if got, err := DecodeNamePart(c.name, v); err != nil || got != c.part {
			t.Errorf("%q in %q read back %q, %v", c.part, c.name, got, err)
		}
	}
	if got, err := DecodeNamePart("name", nil); err != nil || got != "" {
		t.Errorf("NULL read back %q, %v", got, err)
	}
	for _, v := range []any{[]byte{9, 1}, []byte{1, 9}, []byte{1}, []byte{}, []byte{1, 1, 1}, []byte{0xff}, int64(3)} {
		if got, err := DecodeNamePart("name", v); err == nil {
			t.Errorf("%#v read back %q without an error", v, got)
		}
	}
}
