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
