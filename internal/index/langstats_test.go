package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/store"
)

// TestLanguageAccounting: every file is either indexed (per language, with
// its text fallbacks and their reasons) or counted under its extension;
// fallbacks survive an incremental run and disappear with their file.
func TestLanguageAccounting(t *testing.T) {
	t.Parallel()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	writeFile(t, root, "src/ring.zig", "const std = @import(\"std\");\n\npub fn push(x: u32) void {\n    _ = x;\n}\n")
	writeFile(t, root, "src/table.inc", "int table[] = {\n  1, 2, 3,\n};\n")
	writeFile(t, root, "BUILD.bzl", "def rule():\n    pass\n")
	// a Java file that is mostly syntax errors falls back to text
	writeFile(t, root, "src/Broken.java", strings.Repeat("}}} ((( class ;; @@ \n", 40))
	writeFile(t, root, "LICENSE", "MIT\n")
	writeFile(t, root, "data.bin2", "x\n")
	writeFile(t, root, "notes.xyz", "x\n")
	st := openStore(t)
	rep := mustRun(t, st, emb, root)

	if want := map[string]int{"(none)": 1, ".bin2": 1, ".xyz": 1}; !reflect.DeepEqual(rep.Unindexed, want) {
		t.Errorf("unindexed = %v, want %v", rep.Unindexed, want)
	}
	if len(rep.Fallbacks) != 1 || rep.Fallbacks[0].Path != "src/Broken.java" || rep.Fallbacks[0].Reason != chunk.ReasonErrors {
		t.Errorf("fallbacks = %+v, want src/Broken.java (%s)", rep.Fallbacks, chunk.ReasonErrors)
	}
	got := langSummary(t, st, root)
	want := []string{
		"cpp 1 parser fallback=0",
		"java 1 parser fallback=1 " + chunk.ReasonErrors,
		"starlark 1 text fallback=1 " + chunk.ReasonNoParser,
		"zig 1 parser fallback=0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("languages:\n got %q\nwant %q", got, want)
	}

	// an unchanged fallback keeps its reason; a removed one is forgotten
	writeFile(t, root, "src/other.zig", "fn a() void {}\n")
	touchLater(t, filepath.Join(root, "src/other.zig"), time.Minute)
	mustRun(t, st, emb, root)
	if got := langSummary(t, st, root); got[1] != want[1] {
		t.Errorf("after an incremental run: %q", got)
	}
	if err := os.Remove(filepath.Join(root, "src", "Broken.java")); err != nil {
		t.Fatal(err)
	}
	mustRun(t, st, emb, root)
	ls, err := ReadLangStats(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls.Languages {
		if l.Language == "java" {
			t.Errorf("java still listed after its only file was removed: %+v", l)
		}
	}
}

// langSummary renders ReadLangStats as sorted "language files parser|text
// fallback=N reasons..." lines.
func langSummary(t *testing.T, st *store.Store, root string) []string {
	t.Helper()
	ls, err := ReadLangStats(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range ls.Languages {
		how := "text"
		if l.Parser {
			how = "parser"
		}
		s := fmt.Sprintf("%s %d %s fallback=%d", l.Language, l.Files, how, l.Fallback)
		for r := range l.Reasons {
			s += " " + r
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}
