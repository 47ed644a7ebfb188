package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/store"
)

// relationLines returns "path from -kind-> to line" for every relation of
// the project, sorted.
func relationLines(t *testing.T, st *store.Store, root string) []string {
	t.Helper()
	rows, err := rawDB(t, st).Query(`SELECT f.file_path, nf.name, r.relation_type, nt.name, r.line FROM code_relations r
		JOIN indexed_files f ON f.id = r.file_id JOIN code_names nf ON nf.id = r.from_id JOIN code_names nt ON nt.id = r.to_id
		WHERE f.project_path=? ORDER BY 1, 2, 3, 4, 5`, root)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p, from, kind, to string
		var line int
		if err := rows.Scan(&p, &from, &kind, &to, &line); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %s -%s-> %s %d", p, from, kind, to, line))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSiblingChangesMatchFreshIndex: a Go file's calls are typed with its
// package's declarations and a .h file is parsed as C++ beside C++
// sources, so an unchanged file's rows depend on its siblings. After each
// change below, the incremental index has the relations and chunks of an
// index made from scratch, and it parses an unchanged sibling again only
// when what its parse reads changed (Report.Reread).
func TestSiblingChangesMatchFreshIndex(t *testing.T) {
	t.Parallel()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	writeFile(t, root, "p/types.go", "package p\n\ntype Conn struct{ buf Buffer }\n\ntype Buffer struct{}\n\nfunc (b Buffer) Flush() {}\n")
	writeFile(t, root, "p/use.go", "package p\n\n// Send flushes the connection's buffer.\nfunc Send(c Conn) {\n\tc.buf.Flush()\n}\n")
	writeFile(t, root, "p/other.go", "package p\n\nfunc Other() int { return 1 }\n")
	writeFile(t, root, "c/api.h", "namespace api {\nclass Store {\n public:\n  int Get(int k);\n};\n}\n")
	writeFile(t, root, "c/api_c.c", "int helper(void) { return 0; }\n")
	st := openStore(t)
	mustRun(t, st, emb, root)
	step := 0
	check := func(what string, wantReread int) {
		t.Helper()
		step++
		rep := mustRun(t, st, emb, root)
		if rep.Reread != wantReread {
			t.Errorf("%s: reread %d files, want %d (%+v)", what, rep.Reread, wantReread, rep)
		}
		fresh := openStore(t)
		mustRun(t, fresh, emb, root)
		if got, want := relationLines(t, st, root), relationLines(t, fresh, root); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: relations differ from a fresh index:\n got %q\nwant %q", what, got, want)
		}
		if got, want := chunkLines(t, st, root), chunkLines(t, fresh, root); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: chunks differ from a fresh index:\n got %q\nwant %q", what, got, want)
		}
	}
	later := func(rel string) {
		touchLater(t, filepath.Join(root, filepath.FromSlash(rel)), time.Duration(step+2)*time.Second)
	}
	// a body-only edit: the package's declarations are the same
	writeFile(t, root, "p/other.go", "package p\n\nfunc Other() int { return 2 }\n")
	later("p/other.go")
	check("body edit", 0)
	// the struct's field changes type: use.go's call is typed otherwise
	writeFile(t, root, "p/types.go", "package p\n\ntype Conn struct{ buf Queue }\n\ntype Queue struct{}\n\nfunc (q Queue) Flush() {}\n")
	later("p/types.go")
	check("field type", 2)
	// the file declaring the types goes: use.go's call is untyped
	if err := os.Remove(filepath.Join(root, "p/types.go")); err != nil {
		t.Fatal(err)
	}
	check("declaring file removed", 2)
	// a C++ source beside the header: api.h is parsed as C++
	writeFile(t, root, "c/store.cc", "int store_size() { return 1; }\n")
	check("C++ source added", 1)
	// and gone again
	if err := os.Remove(filepath.Join(root, "c/store.cc")); err != nil {
		t.Fatal(err)
	}
	check("C++ source removed", 1)
	// an index whose states were never recorded (made before they were):
	// a change parses the directory's Go siblings once, then no more
	if _, err := rawDB(t, st).Exec(`DELETE FROM meta WHERE key LIKE 'dirstates%'`); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "p/other.go", "package p\n\nfunc Other() int { return 3 }\n")
	later("p/other.go")
	check("no recorded states", 1)
	writeFile(t, root, "p/other.go", "package p\n\nfunc Other() int { return 4 }\n")
	later("p/other.go")
	check("states recorded again", 0)
}

// TestFailedRereadIsRetried: when the second pass fails to parse a
// dependent again (its embedder down for the new text of its chunks: a
// header parsed as C++ once a C++ source sits beside it), the next run
// parses the directory's dependents again although nothing changed since
// (the retry list), and the index then equals a fresh one; the run after
// that parses nothing again. (A dependent whose chunks kept their text
// needs no embedder: collector.reusable.)
func TestFailedRereadIsRetried(t *testing.T) {
	t.Parallel()
	emb := localEmbedder(t)
	root := resolved(t, t.TempDir())
	// C alone: a struct; beside a C++ source: a class and its method
	writeFile(t, root, "c/api.h", "struct Store {\n  int Get(int k) { return k + 1; }\n};\n")
	writeFile(t, root, "c/api_c.c", "int helper(void) { return 0; }\n")
	st := openStore(t)
	mustRun(t, st, emb, root)
	writeFile(t, root, "c/store.cc", "int store_size() { return 1; }\n")
	rep, err := Run(context.Background(), st, failingEmbedder{emb, "[method:Store.Get"}, root, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Reread != 1 || len(rep.Failures) != 1 || rep.Failures[0].Path != "c/api.h" {
		t.Fatalf("the failing run: reread %d, failures %+v; want api.h reread and failed", rep.Reread, rep.Failures)
	}
	if v, err := st.DirRetry(context.Background(), root); err != nil || v != `["c"]` {
		t.Fatalf("retry list after the failure = %q %v", v, err)
	}
	// the directory keeps its old state, so its header is parsed again
	if rep := mustRun(t, st, emb, root); rep.Reread != 1 || len(rep.Failures) != 0 {
		t.Errorf("the next run: reread %d, failures %+v; want the directory's header parsed again", rep.Reread, rep.Failures)
	}
	fresh := openStore(t)
	mustRun(t, fresh, emb, root)
	if got, want := relationLines(t, st, root), relationLines(t, fresh, root); !reflect.DeepEqual(got, want) {
		t.Errorf("relations differ from a fresh index:\n got %q\nwant %q", got, want)
	}
	if rep := mustRun(t, st, emb, root); rep.Reread != 0 {
		t.Errorf("the run after: reread %d, want 0", rep.Reread)
	}
	if v, err := st.DirRetry(context.Background(), root); err != nil || v != `[]` {
		t.Errorf("retry list at the end = %q %v, want []", v, err)
	}
}
