package search

import (
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/store"
)

// TestWarmRowCodeLines: a row's memo of its code lines answers what
// codeLinesUpTo answers, for the limit it was counted at, then for other
// limits asked in turn (each counted again), and for limits it does not
// keep (negative: the full count; 65,535 and more).
func TestWarmRowCodeLines(t *testing.T) {
	t.Parallel()
	srcs := []string{
		"",
		"func f() {}",
		"// doc\n// more\nfunc f() {\n\treturn g()\n}\n",
		"def f():\n    \"\"\"doc\n    lines\n    \"\"\"\n    return 1\n",
		strings.Repeat("x := 1\n", 40),
		strings.Repeat("// c\n\n", 30) + "a()\nb()\n",
	}
	for _, src := range srcs {
		r := &warmRow{ChunkRow: store.ChunkRow{Content: src}}
		for _, limit := range []int{8, 8, 3, 8, 0, 100, -1, 1 << 16, 8} {
			if got, want := r.codeLinesUpTo(limit), codeLinesUpTo(src, limit); got != want {
				t.Fatalf("%q limit %d: memo %d, codeLinesUpTo %d", src, limit, got, want)
			}
		}
	}
}
