package chunk

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// rssAnonKB is the process's anonymous resident memory (VmRSS's RssAnon
// line of /proc/self/status), in KiB.
func rssAnonKB(t *testing.T) int {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb int
		if _, err := fmt.Sscanf(sc.Text(), "RssAnon: %d kB", &kb); err == nil {
			return kb
		}
	}
	t.Skip("no RssAnon in /proc/self/status")
	return 0
}

// TestTrimCHeapGivesBackParsePages: after tree-sitter has parsed a large
// file and freed its tree, its pages stay in the C heap until TrimCHeap
// gives them back.
func TestTrimCHeapGivesBackParsePages(t *testing.T) {
	var b strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&b, "func f%d(a, b int) int {\n\tif a > b {\n\t\treturn a*%d + b\n\t}\n\treturn g(b, a)\n}\n\n", i, i)
	}
	src := "package p\n\n" + b.String() // about 3 MB: a tree of well over 100 MB
	if _, err := Parse("big.go", []byte(src)); err != nil {
		t.Fatal(err)
	}
	before := rssAnonKB(t)
	TrimCHeap()
	after := rssAnonKB(t)
	t.Logf("RssAnon %d -> %d KiB", before, after)
	if before-after < 20<<10 {
		t.Fatalf("TrimCHeap gave back %d KiB of a freed parse tree's pages (RssAnon %d -> %d), want 20 MiB or more", before-after, before, after)
	}
}
