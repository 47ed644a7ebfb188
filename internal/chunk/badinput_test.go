package chunk

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

func mustParse(t *testing.T, path, src string) *FileResult {
	t.Helper()
	r, err := Parse(path, []byte(src))
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	checkInvariants(t, path, []byte(src), r)
	return r
}

func find(r *FileResult, name string) *Chunk {
	for i := range r.Chunks {
		if r.Chunks[i].Name == name {
			return &r.Chunks[i]
		}
	}
	return nil
}

func wantChunk(t *testing.T, r *FileResult, name, kind string, start, end int) *Chunk {
	t.Helper()
	c := find(r, name)
	if c == nil {
		var names []string
		for _, c := range r.Chunks {
			names = append(names, fmt.Sprintf("%s %d-%d", c.Name, c.StartLine, c.EndLine))
		}
		t.Fatalf("no chunk %q; have %q", name, names)
	}
	if c.Type != kind || c.StartLine != start || c.EndLine != end {
		t.Errorf("chunk %q = %s %d-%d, want %s %d-%d", name, c.Type, c.StartLine, c.EndLine, kind, start, end)
	}
	return c
}

// covered fails unless every line with a letter or digit lies in a chunk.
func covered(t *testing.T, src string, r *FileResult) {
	t.Helper()
	for i, l := range strings.Split(strings.ReplaceAll(src, "\r", ""), "\n") {
		if !significant(l) {
			continue
		}
		ok := false
		for _, c := range r.Chunks {
			if c.StartLine <= i+1 && i+1 <= c.EndLine {
				ok = true
				break
			}
		}
		if !ok {
			t.Errorf("line %d %q is in no chunk", i+1, l)
		}
	}
}

func TestDecoratorsStartChunk(t *testing.T) {
	t.Parallel()
	src := `from flask import Flask

app = Flask(__name__)


@app.route("/users/<int:id>",
           methods=["GET"])
@login_required
def get_user(id):
    return str(id)


class User:
    # The display name.
    @property
    def name(self):
        return self._name
`
	r := mustParse(t, "app.py", src)
	// the module's one-line statement (line 3) is too short for a chunk
	// of its own and joins the definition after it (joinGap)
	wantChunk(t, r, "get_user(id)", KindFunction, 3, 10)
	c := wantChunk(t, r, "User.name(self)", KindMethod, 14, 17)
	if c.Doc != "The display name." || c.Owner != "User" {
		t.Errorf("doc/owner = %q/%q", c.Doc, c.Owner)
	}
	if want := "app = Flask(__name__)\n\n\n@app.route(\"/users/<int:id>\",\n           methods=[\"GET\"])\n@login_required\ndef get_user(id):"; !strings.HasPrefix(find(r, "get_user(id)").Content, want) {
		t.Errorf("content does not hold the decorators before the def: %q", find(r, "get_user(id)").Content)
	}
}

func TestCRLFEqualsLF(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"a.py":   "def one():\n    return 1\n\n\ndef two(x,\n        y):\n    return x + y\n\n\ndef three():\n    '''Doc.'''\n    return one()\n",
		"A.java": "class A {\n    int one() { return 1; }\n\n    int two(int x,\n            int y) {\n        return x + y;\n    }\n\n    /** Three. */\n    int three() { return one(); }\n}\n",
		"a.go":   "package a\n\nfunc One() int { return 1 }\n\n// Two adds.\nfunc Two(x,\n\ty int) int {\n\treturn x + y\n}\n\nfunc Three() int {\n\treturn One()\n}\n",
		"a.sh":   "one() {\n  echo 1\n}\n\ntwo() {\n  one\n}\n\nthree() {\n  two\n}\n",
	}
	for name, lf := range files {
		crlf := strings.ReplaceAll(lf, "\n", "\r\n")
		a, b := mustParse(t, name, lf), mustParse(t, name, crlf)
		if len(a.Chunks) < 3 || len(a.Chunks) != len(b.Chunks) {
			t.Fatalf("%s: %d LF chunks vs %d CRLF chunks", name, len(a.Chunks), len(b.Chunks))
		}
		for i := range a.Chunks {
			x, y := a.Chunks[i], b.Chunks[i]
			x.StartByte, x.EndByte, y.StartByte, y.EndByte = 0, 0, 0, 0
			if x != y {
				t.Errorf("%s chunk %d: LF %+v != CRLF %+v", name, i, x, y)
			}
		}
		if fmt.Sprint(a.Relations) != fmt.Sprint(b.Relations) {
			t.Errorf("%s relations differ:\n%v\n%v", name, a.Relations, b.Relations)
		}
	}
}

func TestBOM(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{
		"a.py":   "\ufeffdef first():\n    return 1\n",
		"A.java": "\ufeffclass A {\n  void f() {}\n}\n",
		"a.go":   "\ufefffunc First() {}\n",
		"a.md":   "\ufeff# Title\ntext\n",
	} {
		r := mustParse(t, name, src)
		if len(r.Chunks) == 0 || r.Chunks[0].StartLine != 1 || strings.HasPrefix(r.Chunks[0].Content, "\ufeff") ||
			strings.HasPrefix(r.Chunks[0].Name, "\ufeff") {
			t.Errorf("%s: first chunk %+v", name, r.Chunks)
		}
	}
	r := mustParse(t, "a.py", "\ufeffdef first():\n    return 1\n")
	wantChunk(t, r, "first()", KindFunction, 1, 2)
}

func TestSyntaxErrorStillCovered(t *testing.T) {
	t.Parallel()
	src := `def ok_before(a):
    return a * 2


def broken(:
    x = = 3
    return x +


class Fine:
    def method(self):
        return ok_before(1)
`
	r := mustParse(t, "broken.py", src)
	if r.ParseErrors == 0 {
		t.Errorf("ParseErrors = 0 for a broken file")
	}
	covered(t, src, r)
	wantChunk(t, r, "ok_before(a)", KindFunction, 1, 2)
}

func TestKotlinFunctionTypeProperty(t *testing.T) {
	t.Parallel()
	src := `package demo

class Builder {
    val f: Foo.Bar.() -> Unit = {}
    val g: (Int) -> String = { it.toString() }

    fun build(block: Foo.Bar.() -> Unit): Foo {
        return Foo().apply { bar.block() }
    }
}

object Registry { fun register(x: Any) {} }
interface Repo { fun all(): List<String> }
fun top(a: Int) = a + 1
`
	r := mustParse(t, "Builder.kt", src)
	covered(t, src, r)
}

func TestEmptyAndCommentsOnly(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"a.go", "a.py", "A.java", "a.js", "a.md", "a.yaml", "a.unknownext"} {
		r, err := Parse(name, nil)
		if err != nil || len(r.Chunks) != 0 || len(r.Relations) != 0 {
			t.Errorf("%s empty: %v %+v", name, err, r)
		}
		r, err = Parse(name, []byte("\n\n  \n"))
		if err != nil || len(r.Chunks) != 0 {
			t.Errorf("%s blank: %v %+v", name, err, r)
		}
	}
	src := "// Notes on the design.\n// The cache is sharded\n// by key hash.\n// Nothing else here.\n"
	r := mustParse(t, "notes.go", src)
	if len(r.Chunks) != 1 || r.Chunks[0].Type != KindText || r.Chunks[0].StartLine != 1 || r.Chunks[0].EndLine != 4 {
		t.Errorf("comments-only: %+v", r.Chunks)
	}
	r = mustParse(t, "x.py", "# just one comment\n")
	if len(r.Chunks) != 1 || r.Chunks[0].EndLine != 1 {
		t.Errorf("one comment: %+v", r.Chunks)
	}
}

func TestMinifiedJS(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; b.Len() < 900<<10; i++ {
		fmt.Fprintf(&b, "function f%d(a){return a.map(function(x){return g%d(x)+%d})};", i, i, i)
	}
	src := b.String()
	r := mustParse(t, "dist/app.min.js", src)
	// The minified check comes before any tree-sitter parse: the file is
	// line-chunked without being parsed (a parse would have to end in the
	// parse timeout, ReasonTimeout, to keep a 900 KB line cheap).
	if r.FallbackReason != ReasonMinified || r.ParseErrors != 0 {
		t.Errorf("minified: reason %q, %d parse errors; want %q and no parse", r.FallbackReason, r.ParseErrors, ReasonMinified)
	}
	if !r.Fallback || len(r.Chunks) != 1 || r.Chunks[0].StartLine != 1 || r.Chunks[0].EndLine != 1 ||
		len(r.Chunks[0].Content) != len(src) || len(r.Relations) > maxRelations {
		t.Errorf("minified: fallback=%v chunks=%d relations=%d", r.Fallback, len(r.Chunks), len(r.Relations))
	}
}

func TestNonASCIIIdentifiers(t *testing.T) {
	t.Parallel()
	r := mustParse(t, "cafe.py", "def café_handler(requête):\n    return naïve(requête)\n")
	wantChunk(t, r, "café_handler(requête)", KindFunction, 1, 2)
	if len(r.Relations) != 1 || r.Relations[0].From != "café_handler" || r.Relations[0].To != "naïve" {
		t.Errorf("relations %+v", r.Relations)
	}
	r = mustParse(t, "Größe.java", "class Größe {\n  int berechne(int länge) { return länge; }\n}\n")
	wantChunk(t, r, "Größe.berechne(int länge)", KindMethod, 2, 2)
}

func TestLargeFile(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("package big\n")
	n := 0
	for b.Len() < 40<<10 {
		n++
		fmt.Fprintf(&b, "\n// F%d is number %d.\nfunc F%d(x int) int {\n\treturn x + %d\n}\n", n, n, n, n)
	}
	src := b.String()
	r := mustParse(t, "big.go", src)
	if r.Fallback || len(r.Chunks) != n {
		t.Fatalf("40 KB file: fallback=%v %d chunks, want %d", r.Fallback, len(r.Chunks), n)
	}
	last := 2 + 5*(n-1) + 1 // blank line, then comment line of F_n
	wantChunk(t, r, fmt.Sprintf("F%d(x int)", n), KindFunction, last, last+3)
}

func TestPanicIsRecovered(t *testing.T) {
	testHookParse = func(string) { panic("boom") }
	defer func() { testHookParse = nil }()
	r, err := Parse("a.go", []byte("package a\n"))
	if r != nil || !errors.Is(err, ErrPanic) {
		t.Fatalf("got %v, %v; want ErrPanic", r, err)
	}
}

func TestConcurrentParse(t *testing.T) {
	t.Parallel()
	srcs := map[string]string{
		"a.go": "package a\n\nfunc A() { B() }\n\nfunc B() {}\n",
		"a.py": "class A:\n    def f(self):\n        return g()\n",
		"A.kt": "class A { fun f() = g() }\n",
		"a.rs": "fn a() { b(); }\nfn b() {}\n",
	}
	want := map[string]string{}
	for n, s := range srcs {
		want[n] = fmt.Sprint(mustParse(t, n, s))
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				for n, s := range srcs {
					r, err := Parse(n, []byte(s))
					if err != nil || fmt.Sprint(r) != want[n] {
						t.Errorf("%s: concurrent result differs: %v", n, err)
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestTextChunks(t *testing.T) {
	t.Parallel()
	md := "Intro line.\n\n# Install\n\nRun it.\n\n```sh\n# not a heading\nmake\n```\n\n## Usage\n\nCall it.\n"
	cs := TextChunks("README.md", "markdown", []byte(md))
	var got []string
	for _, c := range cs {
		got = append(got, fmt.Sprintf("%s %d-%d", c.Name, c.StartLine, c.EndLine))
	}
	if want := "README.md#1 1-1|Install 3-10|Usage 12-14"; strings.Join(got, "|") != want {
		t.Errorf("markdown chunks %q, want %q", strings.Join(got, "|"), want)
	}

	long := strings.Repeat("x", 5000)
	var b strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "key%02d: %s\n", i, strings.Repeat("v", 40)) // 48 bytes a line
	}
	b.WriteString(long + "\nlast: 1\n")
	cs = TextChunks("conf.yaml", "yaml", []byte(b.String()))
	for i, c := range cs {
		if c.Name != fmt.Sprintf("conf.yaml#%d", i+1) || c.Type != KindText || c.Language != "yaml" {
			t.Errorf("chunk %d: %s %s %s", i, c.Name, c.Type, c.Language)
		}
		if len(c.Content) > maxChunkChars && c.StartLine != c.EndLine {
			t.Errorf("chunk %d has %d chars over several lines", i, len(c.Content))
		}
	}
	// 100 lines of 48 bytes: 41 per chunk -> 41, 41, 18; then the long line alone; then "last".
	var spans []string
	for _, c := range cs {
		spans = append(spans, fmt.Sprintf("%d-%d", c.StartLine, c.EndLine))
	}
	if got, want := strings.Join(spans, " "), "1-41 42-82 83-100 101-101 102-102"; got != want {
		t.Errorf("yaml spans %q, want %q", got, want)
	}
}

func TestEmbedText(t *testing.T) {
	t.Parallel()
	c := Chunk{Type: KindMethod, Name: "A.f()", Content: "body"}
	if got := EmbedText(c); got != "[method:A.f()] body" {
		t.Errorf("EmbedText = %q", got)
	}
	c.Content = strings.Repeat("é", 3000)
	got := EmbedText(c)
	if n := len([]rune(got)); n != maxChunkChars || !strings.HasSuffix(got, "é") {
		t.Errorf("cut to %d runes (valid suffix %v)", n, strings.HasSuffix(got, "é"))
	}
}

// nestedClosures is JavaScript of n arrow functions nested in one another,
// a hostile file whose parse is linear (0.4 s for n = 20,000) and whose
// query matching is not (minutes).
func nestedClosures(n int) []byte {
	return []byte("function g() {\n" + strings.Repeat("f(() => {\n", n) + strings.Repeat("});\n", n) + "}\n")
}

// TestQueryMatchingHasADeadline: the query's matching halts at the
// parse's deadline (it had none: 20,000 nested closures took 35 s of CPU,
// 74,000 in a 1 MiB file over 3.5 minutes, and Ctrl-C waited for them),
// and such a file is chunked as text with the timeout reason.
func TestQueryMatchingHasADeadline(t *testing.T) {
	src := nestedClosures(20000)
	sp, err := specFor("javascript")
	if err != nil {
		t.Fatal(err)
	}
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(sp.lang); err != nil {
		t.Fatal(err)
	}
	tree := parseTree(p, src, time.Now().Add(time.Minute))
	if tree == nil {
		t.Fatal("the parse timed out")
	}
	defer tree.Close()
	ps := &parsed{sp: sp, src: src, buf: src, alias: map[string]bool{}}
	if ps.collect(tree.RootNode(), time.Now().Add(200*time.Millisecond)) {
		t.Error("the matching of 20,000 nested closures ended before a 200 ms deadline: not halted, or the test's file is too easy")
	}
	if ps.collect(tree.RootNode(), time.Now().Add(-time.Second)) {
		t.Error("a deadline already past let the matching run")
	}
	small := nestedClosures(3)
	tree2 := parseTree(p, small, time.Now().Add(time.Minute))
	defer tree2.Close()
	if !(&parsed{sp: sp, src: small, buf: small, alias: map[string]bool{}}).collect(tree2.RootNode(), time.Now().Add(time.Minute)) {
		t.Error("a small file's matching reported as halted")
	}

	old := parseTimeout
	parseTimeout = time.Second
	defer func() { parseTimeout = old }()
	res, err := Parse("x.js", nestedClosures(30000))
	if err != nil || !res.Fallback || res.FallbackReason != ReasonTimeout {
		t.Errorf("30,000 nested closures: err %v, fallback %v %q; want text chunks, %q", err, res.Fallback, res.FallbackReason, ReasonTimeout)
	}
}

// TestHaskellUnclosedImportList: an import list left open reads at most
// hsImportLines lines; it read every following line of the file, and
// counted the parentheses of all it had read at each one (quadratic: a
// 40,000-line file held a core for minutes).
func TestHaskellUnclosedImportList(t *testing.T) {
	var b strings.Builder
	b.WriteString("module M where\n\nimport Data.List (sortBy,\n")
	for i := range 40000 {
		fmt.Fprintf(&b, "f%d x = x + %d -- a line of the file, not of the import list\n", i, i)
	}
	res, err := Parse("M.hs", []byte(b.String()))
	if err != nil || len(res.Chunks) == 0 {
		t.Fatalf("err %v, %d chunks", err, len(res.Chunks))
	}
}
