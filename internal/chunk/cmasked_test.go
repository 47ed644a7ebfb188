package chunk

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// maskedCases are C and C++ buffers whose first parse has errors that
// maskCMacros can blank: the testdata excerpts and kernel-style
// annotations (__init, __user, __must_check).
func maskedCases(t *testing.T) map[string][]byte {
	t.Helper()
	cases := map[string][]byte{
		"kernel.c": []byte("#include <linux/init.h>\n\nstatic int __init foo_init(void)\n{\n\treturn register_foo(&foo_ops);\n}\n\n" +
			"static long foo_ioctl(struct file *f, unsigned int cmd, void __user *arg)\n{\n\tif (copy_from_user(&x, arg, sizeof(x)))\n\t\treturn -EFAULT;\n\treturn 0;\n}\n\n" +
			"int __must_check FOO_API foo_read(struct foo *f, char *buf, size_t n)\n{\n\treturn f->ops->read(f, buf, n);\n}\n"),
		// ABC_NS alone on its line reads as an annotation, and blanking
		// it in the cast leaves "(int) ;": only the buffer as written
		// parses clean
		"cast.cpp": []byte("ABC_NS\nfoo;\nint f() { return (int) ABC_NS; }\n"),
		// masking mends the class head; the broken call stays broken
		"mixed.cpp": []byte("class FMT_API format_error : public std::runtime_error {\n public:\n  int code() const;\n};\nint g() { return f(1, ; }\n"),
		"class.cpp": []byte("class FMT_API format_error : public std::runtime_error {\n public:\n  FMT_CONSTEXPR20 ~format_error() {}\n};\n" +
			"FMT_BEGIN_NAMESPACE\ntemplate <typename T, FMT_ENABLE_IF(!is_signed<T>::value)>\nFMT_CONSTEXPR int count(T n) { return n > 0; }\nFMT_END_NAMESPACE\n"),
	}
	for _, dir := range []string{"c", "cpp"} {
		ents, err := os.ReadDir(filepath.Join("testdata", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if filepath.Ext(e.Name()) == ".json" {
				continue
			}
			b, err := os.ReadFile(filepath.Join("testdata", dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			cases[dir+"/"+e.Name()] = b
		}
	}
	return cases
}

// maskedCaseParser returns a parser of the language of the masked case
// name (C for a .c name, else C++); the caller closes it.
func maskedCaseParser(t *testing.T, name string) *sitter.Parser {
	t.Helper()
	lang := "c"
	if filepath.Ext(name) != ".c" {
		lang = "cpp"
	}
	sp, err := specFor(lang)
	if err != nil {
		t.Fatal(err)
	}
	p := sitter.NewParser()
	if err := p.SetLanguage(sp.lang); err != nil {
		t.Fatal(err)
	}
	return p
}

// The masked buffer's incremental parse (parseMaskedIncremental, from the
// first tree edited at the blanked spans) gives the same tree as a parse
// of the masked buffer from scratch, and leaves the first tree as it was;
// the same holds the other way, from the masked tree to the buffer as
// written.
func TestMaskedParseIncrementalEqualsFull(t *testing.T) {
	t.Parallel()
	compared := 0
	for name, src := range maskedCases(t) {
		p := maskedCaseParser(t, name)
		deadline := time.Now().Add(time.Minute)
		buf := parseBuffer(src)
		first := parseTree(p, buf, deadline)
		masked, n := maskCMacros(buf)
		if !first.RootNode().HasError() || n == 0 {
			first.Close()
			p.Close()
			continue
		}
		before := first.RootNode().ToSexp()
		full := parseTree(p, masked, deadline)
		inc := parseMaskedIncremental(p, first, buf, masked, deadline)
		if inc == nil || full == nil {
			t.Fatalf("%s: a parse timed out", name)
		}
		if got, want := inc.RootNode().ToSexp(), full.RootNode().ToSexp(); got != want {
			t.Errorf("%s: incremental tree differs from the full parse:\n got  %.300s\n want %.300s", name, got, want)
		}
		if first.RootNode().ToSexp() != before {
			t.Errorf("%s: the first tree changed", name)
		}
		// and back: the written buffer's incremental parse from the
		// masked tree (parseCMasked parses the masked buffer first)
		back := parseMaskedIncremental(p, full, masked, buf, deadline)
		if back == nil {
			t.Fatalf("%s: a parse timed out", name)
		}
		if got := back.RootNode().ToSexp(); got != before {
			t.Errorf("%s: the written buffer's incremental tree differs from the full parse:\n got  %.300s\n want %.300s", name, got, before)
		}
		back.Close()
		compared++
		inc.Close()
		full.Close()
		first.Close()
		p.Close()
	}
	if compared < 3 {
		t.Fatalf("only %d buffers had errors to mask: the test proves little", compared)
	}
}

// maskEdits gives one edit per run of blanked bytes, with rows and byte
// columns counted from the buffer's newlines.
func TestMaskEdits(t *testing.T) {
	t.Parallel()
	buf := []byte("FMT_API void f();\nint  X_Y g(A_B x);\n\tQQQ\n")
	masked := []byte("        void f();\nint      g(    x);\n\t   \n")
	got := maskEdits(buf, masked)
	want := []struct{ start, end, row, col uint }{{0, 7, 0, 0}, {23, 26, 1, 5}, {29, 32, 1, 11}, {38, 41, 2, 1}}
	if len(got) != len(want) {
		t.Fatalf("%d edits, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		e := got[i]
		if e.StartByte != w.start || e.OldEndByte != w.end || e.NewEndByte != w.end ||
			e.StartPosition != (sitter.Point{Row: w.row, Column: w.col}) ||
			e.OldEndPosition != (sitter.Point{Row: w.row, Column: w.col + w.end - w.start}) || e.NewEndPosition != e.OldEndPosition {
			t.Errorf("edit %d = %+v, want bytes %d-%d at %d:%d", i, e, w.start, w.end, w.row, w.col)
		}
	}
	if len(maskEdits(buf, buf)) != 0 {
		t.Error("equal buffers gave edits")
	}
}

// parseCMasked keeps the masked buffer's tree when it has no error, else
// the tree with the smaller error span (then the fewer errors) of the
// masked buffer and the buffer as written, the latter on a tie; a buffer
// with nothing to mask is parsed once as written. Each kept tree equals a
// parse of its buffer from scratch, whichever way the incremental parse
// went. Every outcome is met at least once.
func TestParseCMaskedKeepsTheBetterTree(t *testing.T) {
	t.Parallel()
	outcomes := map[string]int{}
	for name, src := range maskedCases(t) {
		p := maskedCaseParser(t, name)
		deadline := time.Now().Add(time.Minute)
		buf := parseBuffer(src)
		masked, n := maskCMacros(buf)
		written := parseTree(p, buf, deadline)
		cw, sw := countErrors(written.RootNode())
		wantBuf, wantTree, outcome := buf, written.RootNode().ToSexp(), "nothing to mask"
		if n > 0 {
			full := parseTree(p, masked, deadline)
			cm, sm := countErrors(full.RootNode())
			switch {
			case cm == 0:
				wantBuf, wantTree, outcome = masked, full.RootNode().ToSexp(), "masked clean"
			case sm < sw || sm == sw && cm < cw:
				wantBuf, wantTree, outcome = masked, full.RootNode().ToSexp(), "masked better"
			default:
				outcome = "written better or tied"
			}
			full.Close()
		}
		written.Close()
		got, gotBuf := parseCMasked(p, buf, deadline)
		if got == nil {
			t.Fatalf("%s: timed out", name)
		}
		if string(gotBuf) != string(wantBuf) {
			t.Errorf("%s (%s): kept the other buffer", name, outcome)
		}
		if s := got.RootNode().ToSexp(); s != wantTree {
			t.Errorf("%s (%s): tree differs from a parse from scratch:\n got  %.300s\n want %.300s", name, outcome, s, wantTree)
		}
		outcomes[outcome]++
		got.Close()
		p.Close()
	}
	for _, o := range []string{"nothing to mask", "masked clean", "masked better", "written better or tied"} {
		if outcomes[o] == 0 {
			t.Errorf("no case where %s: %v", o, outcomes)
		}
	}
	t.Logf("%v", outcomes)
}
