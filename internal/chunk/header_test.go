package chunk

import "testing"

// A .h file is parsed as C++ when the caller has C++ evidence for it
// (Options.CppHeader) or its text has C++-only syntax; else as C.
func TestHeaderGrammar(t *testing.T) {
	t.Parallel()
	plain := "struct Arena {\n  char* Allocate(int bytes) {\n    return alloc_ptr_;\n  }\n};\n"
	for _, c := range []struct {
		name, src string
		o         Options
		lang      string
		method    bool
	}{
		{"util/arena.h", plain, Options{}, "c", false},
		{"util/arena.h", plain, Options{CppHeader: true}, "cpp", true},
		{"util/arena.h", "namespace leveldb {\n" + plain + "}\n", Options{}, "cpp", true},
		{"util/arena.c", plain, Options{CppHeader: true}, "c", false},
	} {
		r, err := ParseWith(c.name, []byte(c.src), c.o)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, ch := range r.Chunks {
			found = found || ch.Type == KindMethod && ch.Name == "Arena.Allocate(int bytes)"
		}
		if r.Language != c.lang || found != c.method {
			t.Errorf("%s %+v: language %s, method Arena.Allocate %v; want %s, %v", c.name, c.o, r.Language, found, c.lang, c.method)
		}
	}
}
