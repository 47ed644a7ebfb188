package relate

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/store"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.txt from the current output")

// fakeEmbedder gives every non-blank text the same unit vector: these tests
// are about relations, not retrieval.
type fakeEmbedder struct{}

func (fakeEmbedder) ID() string { return "test:fake" }
func (fakeEmbedder) Dim() int   { return 4 }
func (fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if strings.TrimSpace(t) != "" {
			out[i] = []float32{1, 0, 0, 0}
		}
	}
	return out, nil
}
func (fakeEmbedder) EmbedQuery(context.Context, string) ([]float32, error) {
	return []float32{1, 0, 0, 0}, nil
}

// indexDir indexes dir through the real pipeline (walk, chunk.Parse, store)
// into a fresh SQLite file and returns the store and the project root.
func indexDir(t testing.TB, dir string) (*store.Store, string) {
	t.Helper()
	ctx := context.Background()
	root, err := index.ResolveRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rep, err := index.Run(ctx, st, fakeEmbedder{}, root, index.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 0 {
		t.Fatalf("index %s: %d failures: %+v", dir, rep.Failed, rep.Failures)
	}
	return st, root
}

// query is one golden query: op is graph, callers, callees or path.
type query struct {
	op   string
	args []string
}

var goldenQueries = map[string][]query{
	"java": {
		{"graph", []string{"User"}},
		{"graph", []string{"UserService.Cache"}},
		{"graph", []string{"UserService.describe"}},
		{"graph", []string{"BaseEntity"}},
		{"callees", []string{"App.main"}},
		{"callers", []string{"BaseEntity.validate"}},
		{"callers", []string{"Cache.lookup"}},
		{"callers", []string{"UserService.find(long id)"}},
		{"path", []string{"App.main", "User.getName"}},
		{"path", []string{"MemoryUserRepository.save", "BaseEntity.validate"}},
	},
	"python": {
		{"graph", []string{"Repo"}},
		{"graph", []string{"Index.rebuild"}},
		{"callees", []string{"main"}},
		{"callers", []string{"format_name"}},
		{"callers", []string{"Base.validate"}},
		{"path", []string{"main", "Base.validate"}},
		{"path+guesses", []string{"main", "Base.validate"}},
	},
	"go": {
		{"graph", []string{"Cache"}},
		{"graph", []string{"Store.Get"}},
		{"callees", []string{"main"}},
		{"callers", []string{"(*Store).missing"}},
		{"path", []string{"main", "Store.missing"}},
		{"path+guesses", []string{"main", "Store.missing"}},
	},
}

// dumpRelations lists every stored relation of the project, calls with
// their resolution: the exact expected edges of a fixture.
func dumpRelations(t *testing.T, st *store.Store, root string) string {
	ctx := context.Background()
	// every relation of the project, read from the file itself: the store
	// has no query for "all relations" (nothing but this dump needs one)
	db, err := sql.Open("sqlite", "file:"+st.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT f.file_path, a.name, b.name, r.relation_type, r.line, r.plain
		FROM code_relations r JOIN indexed_files f ON f.id = r.file_id
		JOIN code_names a ON a.id = r.from_id JOIN code_names b ON b.id = r.to_id
		WHERE f.project_path=? ORDER BY f.file_path, r.line, r.relation_type, a.name, b.name`, root)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	r, err := NewResolver(ctx, st, root)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for rows.Next() {
		var row store.RelationRow
		var form int
		if err := rows.Scan(&row.Path, &row.From, &row.To, &row.Kind, &row.Line, &form); err != nil {
			t.Fatal(err)
		}
		row.Form = lang.CallForm(form)
		e := r.edge(row)
		fmt.Fprintf(&b, "%s:%d %s %s -> %s", row.Path, row.Line, row.Kind, row.From, row.To)
		if row.Kind == "calls" {
			fmt.Fprintf(&b, " = %s", e.target())
		}
		b.WriteString("\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func runQuery(r *Resolver, q query, format string) (string, error) {
	var res Result
	var err error
	switch q.op {
	case "graph":
		res, err = r.Graph(q.args[0])
	case "callers":
		res, err = r.Callers(q.args[0], 0)
	case "callees":
		res, err = r.Callees(q.args[0], 0)
	case "path":
		res, err = r.Path(q.args[0], q.args[1])
	case "path+guesses":
		r.IncludeGuesses = true
		res, err = r.Path(q.args[0], q.args[1])
		r.IncludeGuesses = false
	}
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := Render(&b, res, format); err != nil {
		return "", err
	}
	return b.String(), nil
}

// TestGolden indexes each fixture project under testdata/ and compares all
// stored relations (with call resolution) and the golden queries' tree
// output with testdata/<lang>.golden.txt (go test -update rewrites them).
func TestGolden(t *testing.T) {
	t.Parallel()
	langs := make([]string, 0, len(goldenQueries))
	for l := range goldenQueries {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			st, root := indexDir(t, filepath.Join("testdata", lang))
			var b strings.Builder
			b.WriteString("### relations\n")
			b.WriteString(dumpRelations(t, st, root))
			r, err := NewResolver(context.Background(), st, root)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range goldenQueries[lang] {
				out, err := runQuery(r, q, FormatTree)
				if err != nil {
					t.Fatalf("%s %v: %v", q.op, q.args, err)
				}
				fmt.Fprintf(&b, "\n### %s %s\n%s", q.op, strings.Join(q.args, " "), out)
			}
			got := strings.ReplaceAll(b.String(), root+"/", "")
			file := filepath.Join("testdata", lang+".golden.txt")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the output; diff (run go test -update to accept):\n%s", file, lineDiff(string(want), got))
			}
		})
	}
}

// lineDiff lists lines only in want (-) or only in got (+).
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	in := func(ls []string) map[string]int {
		m := map[string]int{}
		for _, l := range ls {
			m[l]++
		}
		return m
	}
	wm, gm := in(w), in(g)
	var b strings.Builder
	for _, l := range w {
		if gm[l] == 0 {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range g {
		if wm[l] == 0 {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// TestKeyEdges states the fixture facts the goldens must keep, so that a
// careless -update cannot accept a regression silently.
func TestKeyEdges(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ want, not []string }{
		"java": {
			want: []string{
				"com/shop/model/User.java:5 extends User -> BaseEntity",
				"com/shop/model/User.java:5 implements User -> Comparable",
				"com/shop/repo/MemoryUserRepository.java:8 implements MemoryUserRepository -> UserRepository",
				"com/shop/App.java:4 imports com/shop/App.java -> com.shop.service.UserService",
				"com/shop/service/UserService.java:42 contains UserService.Cache -> UserService.Cache.Entry",
				"com/shop/service/UserService.java:43 contains UserService.Cache.Entry -> Entry.refresh()",
				// a method of a nested class calling a method of its enclosing class
				"com/shop/service/UserService.java:44 calls Entry.refresh -> lookup = Cache.lookup(long id) com/shop/service/UserService.java:38 (enclosing)",
				"com/shop/model/User.java:18 calls User.compareTo -> getId = BaseEntity.getId() com/shop/model/BaseEntity.java:6 (inherited)",
				// overloads are not merged
				"calls UserService.describe -> find = ambiguous: UserService.find(long id) com/shop/service/UserService.java:15, UserService.find(String name) com/shop/service/UserService.java:19",
			},
			not: []string{"-> java.", "-> javax."},
		},
		"python": {
			want: []string{
				"shop/models.py:12 extends User -> Base",
				"shop/repo.py:20 contains Repo.Index -> Index.rebuild(self)",
				"shop/repo.py:21 calls Index.rebuild -> clear = Index.clear(self) shop/repo.py:23 (receiver)",
				"shop/service.py:1 imports shop/service.py -> requests",
				"shop/service.py:9 calls Service.__init__ -> Repo = Repo.__init__(self) shop/repo.py:7 (import)",
			},
			not: []string{"-> json\n", "-> dataclasses"},
		},
		"go": {
			want: []string{
				"cmd/shop/main.go:7 imports cmd/shop/main.go -> example.com/shop/store",
				"cmd/shop/main.go:11 calls main -> store.New = New() store/store.go:16 (package)",
				"store/cache.go:17 calls Cache.Lookup -> Store.Get = Store.Get(k string) store/store.go:21 (typed)",
				"cmd/shop/main.go:17 calls main -> fmt.Println = unresolved",
			},
			not: []string{"imports cmd/shop/main.go -> fmt", "-> errors\n", "-> os\n"},
		},
	}
	for lang, c := range cases {
		t.Run(lang, func(t *testing.T) {
			st, root := indexDir(t, filepath.Join("testdata", lang))
			got := strings.ReplaceAll(dumpRelations(t, st, root), root+"/", "")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing edge %q", w)
				}
			}
			for _, n := range c.not {
				if strings.Contains(got, n) {
					t.Errorf("unexpected %q in\n%s", n, got)
				}
			}
		})
	}
}

// TestFormats renders every golden query as JSON, Mermaid and Graphviz dot;
// the dot output must render with `dot -Tsvg` (skipped when Graphviz is not
// installed; CI installs it).
func TestFormats(t *testing.T) {
	t.Parallel()
	dotBin, dotErr := exec.LookPath("dot")
	for _, lang := range []string{"go", "java", "python"} {
		st, root := indexDir(t, filepath.Join("testdata", lang))
		r, err := NewResolver(context.Background(), st, root)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range goldenQueries[lang] {
			name := lang + " " + q.op + " " + strings.Join(q.args, " ")
			js, err := runQuery(r, q, FormatJSON)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid([]byte(js)) || !strings.Contains(js, `"path"`) {
				t.Errorf("%s: bad json:\n%s", name, js)
			}
			mm, err := runQuery(r, q, FormatMermaid)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(mm, "flowchart LR\n") || !strings.Contains(mm, "->|") && !strings.Contains(js, `"found": false`) || strings.Contains(mm, "\"\"") {
				t.Errorf("%s: bad mermaid:\n%s", name, mm)
			}
			dot, err := runQuery(r, q, FormatDot)
			if err != nil {
				t.Fatal(err)
			}
			if dotErr != nil {
				continue
			}
			cmd := exec.Command(dotBin, "-Tsvg")
			cmd.Stdin = strings.NewReader(dot)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			svg, err := cmd.Output()
			if err != nil || stderr.Len() > 0 || !bytes.Contains(svg, []byte("<svg")) {
				t.Errorf("%s: dot -Tsvg: %v %s\n%s", name, err, stderr.String(), dot)
			}
		}
	}
	if dotErr != nil {
		t.Skip("dot not installed (apt-get install graphviz): JSON and Mermaid checked only")
	}
}

// TestNameErrors checks name resolution errors and the accepted spellings.
func TestNameErrors(t *testing.T) {
	t.Parallel()
	st, root := indexDir(t, filepath.Join("testdata", "java"))
	r, err := NewResolver(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Graph("NoSuchThing")
	var nf *NotFoundError
	if !errors.As(err, &nf) || err.Error() != "no function or class named NoSuchThing in "+root {
		t.Errorf("unknown name: %v", err)
	}
	_, err = r.Callers("UserService.find", 0)
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Candidates) != 2 || !strings.Contains(err.Error(), "UserService.find(String name)") {
		t.Errorf("overloads must be ambiguous: %v", err)
	}
	if _, err := r.Callees("UserService", 0); !errors.Is(err, ErrNotCallable) {
		t.Errorf("class walk: %v", err)
	}
	for _, name := range []string{"UserService.find(long id)", "Cache.lookup", "UserService.Cache.lookup", "lookup", "Entry", "UserService.Cache.Entry"} {
		if _, err := r.Lookup(name); err != nil {
			t.Errorf("Lookup(%q): %v", name, err)
		}
	}
	// an external name known only from relations
	g, err := r.Graph("Comparable")
	if err != nil || len(g.Edges) != 1 || g.Edges[0].Kind != "implements" {
		t.Errorf("external name: %+v %v", g, err)
	}
	callers, callees, err := r.Neighbors("UserService.describe(long id)", "", 0)
	if err != nil || len(callers) != 1 || !strings.HasPrefix(callers[0], "App.run com/shop/App.java:12") ||
		len(callees) != 2 || callees[0] != "find (ambiguous)" || callees[1] != "UserService.format com/shop/service/UserService.java:27" {
		t.Errorf("Neighbors: %q %q %v", callers, callees, err)
	}
	text, err := Describe(context.Background(), st, root, "Cache.lookup")
	if err != nil || !strings.Contains(text, "Entry.refresh\n    calls --> [lookup]") {
		t.Errorf("Describe: %v\n%s", err, text)
	}
}

// Two definitions with the same name and package (files under different
// build tags) are offered as FILE:NAME, and that form selects one.
func TestFileQualifiedNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for f, src := range map[string]string{
		"decode.go":    "package json\n\n// Unmarshal v1.\nfunc Unmarshal(data []byte) error { return nil }\n",
		"v2_decode.go": "package json\n\n// Unmarshal v2.\nfunc Unmarshal(data []byte) error { return nil }\n",
		"use.go":       "package json\n\nfunc use() { Unmarshal(nil) }\n",
		"opts.go":      "package json\n\n// Indent is an option.\ntype Indent string\n\n// Indent indents src.\nfunc IndentFunc() {}\n",
		"indent.go":    "package json\n\n// Indent indents src.\nfunc Indent(dst, src []byte) error { return nil }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, root := indexDir(t, dir)
	r, err := NewResolver(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Lookup("Unmarshal")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || !strings.Contains(err.Error(), "v2_decode.go:Unmarshal(data []byte)") || !strings.Contains(err.Error(), " decode.go:Unmarshal(data []byte)") {
		t.Fatalf("the two candidates must be told apart by file: %v", err)
	}
	for _, name := range []string{"decode.go:Unmarshal(data []byte)", "decode.go:Unmarshal"} {
		d, err := r.Lookup(name)
		if err != nil || d.Path != "decode.go" {
			t.Errorf("Lookup(%q) = %v, %v; want the one in decode.go", name, d, err)
		}
	}
	if _, err := r.Lookup("nofile.go:Unmarshal"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a file that declares no such name: %v", err)
	}
	// a type and a function of one name: both offered, neither picked silently
	_, err = r.Lookup("Indent")
	if !errors.As(err, &amb) || amb.Total != 2 {
		t.Errorf("Indent names a type and a function: %v", err)
	}
	if _, _, ok := fileQualified("std::vector::push_back"); ok {
		t.Error("C++ qualification taken for a file")
	}
}
