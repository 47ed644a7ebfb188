package chunk

import (
	"slices"
	"strings"
	"testing"
)

// A function head split over #if branches, its body once after #endif
// (vendored rapidjson's GenericValue): the class and its methods parse as
// the compiler sees them with one branch; before, the class and every
// method after the split were lost (one free function was left). A group
// whose branches are whole functions keeps both, its bytes untouched.
func TestSplitHeadOverBranches(t *testing.T) {
	t.Parallel()
	src := `namespace json {
class Writer {
public:
#if defined(JSON_HAS_LONG)
    void Put(long v) {
#else
    void Put(int v) {
#endif
        count_++;
    }
    bool Flush() { return true; }
#ifdef _WIN32
    int Native() const { return 1; }
#else
    int Native() const { return 2; }
#endif
    int Count() const { return count_; }
private:
    int count_;
};
}
`
	got := wantUnits(t, "writer.h", src, "Writer", "Writer.Put(int v)", "Writer.Flush()", "Writer.Native()", "Writer.Count()")
	if n := len(slices.DeleteFunc(slices.Clone(got), func(s string) bool { return s != "Writer.Native()" })); n != 2 {
		t.Errorf("%d chunks Writer.Native(), want both whole branches' (%q)", n, got)
	}
	pruned, n := pruneCBranches([]byte(src), false)
	if n != 1 || len(pruned) != len(src) || strings.Count(string(pruned), "\n") != strings.Count(src, "\n") {
		t.Fatalf("pruneCBranches rewrote %d groups (len %d, want 1 and %d)", n, len(pruned), len(src))
	}
	if strings.Contains(string(pruned), "Put(int v)") || !strings.Contains(string(pruned), "Put(long v)") ||
		!strings.Contains(string(pruned), "int Native() const { return 1; }") || !strings.Contains(string(pruned), "int Native() const { return 2; }") {
		t.Errorf("the split head's first branch not kept alone, or a whole branch dropped:\n%s", pruned)
	}
	last, _ := pruneCBranches([]byte(src), true)
	if strings.Contains(string(last), "Put(long v)") || !strings.Contains(string(last), "Put(int v)") {
		t.Errorf("keepLast did not keep the #else branch alone:\n%s", last)
	}
}

// wantUnits parses src as file name and fails the test for each of want
// that is not the name of one of its definition chunks (text chunks left
// out); it returns the names it found.
func wantUnits(t *testing.T, name, src string, want ...string) []string {
	t.Helper()
	res, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Chunks {
		if c.Type != "text" {
			got = append(got, c.Name)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("no chunk %q among %q", w, got)
		}
	}
	return got
}
