package chunk

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
)

// classAt returns the class of the span covering the first occurrence of
// tok in src (after skip earlier occurrences), requiring the span to cover
// all of tok.
func classAt(t *testing.T, spans []Span, src, tok string, nth int) string {
	t.Helper()
	at := -1
	for k, from := 0, 0; k <= nth; k++ {
		i := strings.Index(src[from:], tok)
		if i < 0 {
			t.Fatalf("token %q (#%d) not in source", tok, nth)
		}
		at, from = from+i, from+i+len(tok)
	}
	for _, s := range spans {
		if s.Start <= at && at < s.End {
			if s.End < at+len(tok) {
				return s.Class + "(partial)"
			}
			return s.Class
		}
	}
	return ""
}

func checkSpans(t *testing.T, spans []Span, n int) {
	t.Helper()
	prev := 0
	for _, s := range spans {
		if s.Start < prev || s.End <= s.Start || s.End > n {
			t.Fatalf("bad span %+v after %d (len %d)", s, prev, n)
		}
		switch s.Class {
		case ClassComment, ClassString, ClassNumber, ClassKeyword, ClassType, ClassFunction:
		default:
			t.Fatalf("unknown class %q", s.Class)
		}
		prev = s.End
	}
}

func TestHighlight(t *testing.T) {
	type want struct {
		tok   string
		nth   int
		class string
	}
	cases := []struct {
		path, src string
		want      []want
	}{
		{"a.go", "package a\n\n// Sum adds.\nfunc Sum(x int) int {\n\ts := \"a\\\"b\" + `raw`\n\treturn x + 42 + 'c'\n}\n",
			[]want{{"// Sum adds.", 0, ClassComment}, {`"a\"b"`, 0, ClassString}, {"`raw`", 0, ClassString}, {"'c'", 0, ClassString},
				{"package", 0, ClassKeyword}, {"func", 0, ClassKeyword}, {"return", 0, ClassKeyword}, {"42", 0, ClassNumber},
				{"int", 0, ClassType}, {"Sum", 1, ClassFunction}, {"x", 1, ""}, {"s", 1, ""}}},
		{"a.py", "# note\nclass Point:\n    def norm(self, k: float) -> int:\n        return f\"v={k}\" if k else 'it\\'s' + 3.5\n",
			[]want{{"# note", 0, ClassComment}, {`'it\'s'`, 0, ClassString}, {"def", 0, ClassKeyword}, {"return", 0, ClassKeyword},
				{"if", 0, ClassKeyword}, {"3.5", 0, ClassNumber}, {"Point", 0, ClassType}, {"float", 0, ClassType},
				{"norm", 0, ClassFunction}, {"v=", 0, ClassString}, {"k}", 0, ""}}},
		{"a.js", "/* block */\nclass Box { size() { return `n=${this.n + 1}` } }\nconst s = \"q\\\"\" // end\nlet x = 0x1F;\n",
			[]want{{"/* block */", 0, ClassComment}, {"// end", 0, ClassComment}, {`"q\""`, 0, ClassString}, {"`n=", 0, ClassString},
				{"class", 0, ClassKeyword}, {"const", 0, ClassKeyword}, {"return", 0, ClassKeyword}, {"0x1F", 0, ClassNumber},
				{"1", 1, ClassNumber}, {"Box", 0, ClassType}, {"size", 0, ClassFunction}, {"n +", 0, ""}}},
		{"a.lua", "-- greet\nlocal s = \"say \\\"hi\\\"\" .. 'x' -- tail\nlocal t = [[long\nstring]]\nprint(s)\n",
			[]want{{"-- greet", 0, ClassComment}, {"-- tail", 0, ClassComment}, {`"say \"hi\""`, 0, ClassString}, {"'x'", 0, ClassString},
				{"[[long\nstring]]", 0, ClassString}, {"local", 0, ""}, {"print", 0, ""}}},
	}
	for _, c := range cases {
		spans := Highlight(c.path, []byte(c.src))
		checkSpans(t, spans, len(c.src))
		for _, w := range c.want {
			if got := classAt(t, spans, c.src, w.tok, w.nth); got != w.class {
				t.Errorf("%s: %q (#%d) is %q, want %q", c.path, w.tok, w.nth, got, w.class)
			}
		}
	}
}

func TestHighlightBounds(t *testing.T) {
	big := bytes.Repeat([]byte("x := 1 // c\n"), MaxHighlightBytes/12+1)
	if s := Highlight("big.go", big); s != nil {
		t.Errorf("file over MaxHighlightBytes: %d spans", len(s))
	}
	if s := Highlight("notes.txt", []byte("if 1 // x")); s != nil {
		t.Errorf("text file: %v", s)
	}
}

// TestHighlightRandom feeds random bytes and mutated real snippets to every
// highlighter: no panic, spans sorted, non-overlapping and within src.
func TestHighlightRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	seeds := []string{"func f() { s := \"a\" /* c */ }", "x = [[a]] -- b\n'c'", "\"\"\"doc\n\"\"\" #{x} ~r/a/ ?a", "{- a {- b -} -} \"s\\\"\" x' 'c'"}
	alphabet := []byte("\"'`\\/*-#{}[]=()\n\t $~?azAZ09_.x")
	paths := []string{"a.go", "a.py", "a.js", "a.ts", "a.rs", "a.c", "a.cpp", "a.java", "a.rb", "a.php", "a.sh",
		"a.lua", "a.zig", "a.swift", "a.ex", "a.hs", "a.jl", "a.r", "a.txt"}
	for i := 0; i < 300; i++ {
		var src []byte
		if i%2 == 0 {
			src = []byte(seeds[i%len(seeds)])
			for k := rng.Intn(6); k > 0; k-- {
				src[rng.Intn(len(src))] = alphabet[rng.Intn(len(alphabet))]
			}
		} else {
			src = make([]byte, rng.Intn(200))
			for k := range src {
				if rng.Intn(3) == 0 {
					src[k] = byte(rng.Intn(256))
				} else {
					src[k] = alphabet[rng.Intn(len(alphabet))]
				}
			}
		}
		p := paths[i%len(paths)]
		checkSpans(t, highlight(p, src), len(src)) // no recover: a panic fails the test
	}
}

// FuzzHighlight checks Highlight on any bytes under any of fuzzNames: no
// panic (called without its recover) and valid spans.
func FuzzHighlight(f *testing.F) {
	f.Add(uint8(0), []byte("package p\n// c\nfunc F() string { return \"a\\\"\" + `b` }\n"))
	f.Add(uint8(3), []byte("const t = `x${a + `y${b}`}` /* c"))
	f.Add(uint8(19), []byte("--[==[ c ]==] s = [[a]] .. \"\\\"\""))
	f.Add(uint8(16), []byte("~S\"\"\"a\"\"\" ?\\n # c \"#{x}\""))
	f.Fuzz(func(t *testing.T, which uint8, src []byte) {
		if len(src) > 64<<10 {
			return
		}
		checkSpans(t, highlight(fuzzNames[int(which)%len(fuzzNames)], src), len(src))
	})
}
