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

// The masked buffer's incremental parse (parseMaskedIncremental, from the
// first tree edited at the blanked spans) gives the same tree as a parse
// of the masked buffer from scratch, and leaves the first tree as it was.
func TestMaskedParseIncrementalEqualsFull(t *testing.T) {
	t.Parallel()
	compared := 0
	for name, src := range maskedCases(t) {
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
