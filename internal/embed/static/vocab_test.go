package static

import (
	"reflect"
	"testing"
)

// TestVocabIndex: every word of the built-in vocabulary maps to the row a
// map would give (the last row of a word listed twice), and other words to
// none.
func TestVocabIndex(t *testing.T) {
	m, err := decode(weights, true)
	if err != nil {
		t.Fatal(err)
	}
	vocab := append(append([]string{}, m.Vocab...), "", "dup", "dup")
	want := make(map[string]int32, len(vocab))
	for i, w := range vocab {
		want[w] = int32(i)
	}
	x := newVocabIndex(vocab)
	for w, r := range want {
		if got, ok := x.lookup(w); !ok || got != r {
			t.Fatalf("lookup(%q) = %d, %v; want %d", w, got, ok, r)
		}
	}
	for _, w := range []string{"no such wordzz", "dupe", "du", "\x00"} {
		if _, ok := want[w]; ok {
			continue
		}
		if r, ok := x.lookup(w); ok {
			t.Fatalf("lookup(%q) = %d, want none", w, r)
		}
	}
}

// TestBuiltinDecode: the built-in model decoded for New (its strings
// aliasing the embedded file) equals the model Decode copies out.
func TestBuiltinDecode(t *testing.T) {
	a, err := decode(weights, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Decode(weights)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("decode(weights, true) differs from Decode(weights)")
	}
}
