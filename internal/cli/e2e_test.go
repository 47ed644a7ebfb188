package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/testutil"
)

// run drives Main in process and returns exit code, stdout, stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := MainIO(context.Background(), args, testLookup(t), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func goroot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func setHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	setenv(t, "CODERAG_HOME", home)
	setenv(t, "EMBEDDING_PROVIDER", "")
	return home
}

// TestEndToEndNetHTTP indexes the real net/http package of the Go standard
// library and checks that every query in testdata/nethttp-golden.json finds
// its expected file in the top 5, through the same code path as the CLI.
func TestEndToEndNetHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: indexes GOROOT/src/net/http")
	}
	setHome(t)
	root := filepath.Join(goroot(t), "src", "net", "http")
	code, out, errs := run(t, "index", "--json", "--quiet", root)
	if code != 0 {
		t.Fatalf("index exit %d: %s %s", code, out, errs)
	}
	var rep index.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("index json: %v\n%s", err, out)
	}
	if rep.Changed < 50 || rep.Chunks < 1000 || rep.Failed != 0 {
		t.Fatalf("first run: %+v", rep)
	}
	// second run: nothing changed
	code, out, errs = run(t, "index", "--json", "--quiet", root)
	if code != 0 {
		t.Fatalf("re-index exit %d: %s", code, errs)
	}
	var rep2 index.Report
	if err := json.Unmarshal([]byte(out), &rep2); err != nil {
		t.Fatal(err)
	}
	if rep2.Changed != 0 || rep2.Removed != 0 || rep2.Unchanged != rep.Changed {
		t.Fatalf("second run should change nothing: %+v", rep2)
	}

	g, err := search.LoadGolden(filepath.Join("testdata", "nethttp-golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Queries) < 5 {
		t.Fatalf("need at least 5 queries, have %d", len(g.Queries))
	}
	for _, ranker := range []string{search.RankerHybrid, search.RankerSeed} {
		for _, q := range g.Queries {
			code, out, errs := run(t, "search", "--json", "--top-k", "5", "--ranker", ranker, "--project", root, q.Query)
			if code != 0 {
				t.Fatalf("%s: search exit %d: %s", q.ID, code, errs)
			}
			var resp struct {
				Query   string          `json:"query"`
				Results []search.Result `json:"results"`
			}
			if err := json.Unmarshal([]byte(out), &resp); err != nil {
				t.Fatalf("%s: json: %v", q.ID, err)
			}
			if resp.Query != q.Query {
				t.Errorf("%s: query echoed as %q", q.ID, resp.Query)
			}
			hit := false
			for _, r := range resp.Results {
				for _, e := range q.Expect {
					if r.Path == e.File { // the expected file is in the top 5
						hit = true
					}
				}
			}
			if !hit && ranker == search.RankerHybrid {
				var got []string
				for _, r := range resp.Results {
					got = append(got, r.Path+":"+r.Name)
				}
				t.Errorf("%s [%s] %q: expected %s in top 5, got %v", q.ID, ranker, q.Query, q.Expect[0].File, got)
			}
		}
	}
	// a sub-directory of an indexed project resolves to the project
	code, _, errs = run(t, "search", "--project", filepath.Join(root, "httptest"), "new test server")
	if code != 0 {
		t.Fatalf("search from a sub-directory: exit %d %s", code, errs)
	}
}

func TestSearchNotIndexed(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	code, out, errs := run(t, "search", "--project", dir, "anything")
	if code == 0 {
		t.Fatalf("exit 0 for a never-indexed project: %s", out)
	}
	if !strings.Contains(errs, "not indexed yet: run `coderag index") {
		t.Fatalf("stderr %q", errs)
	}
	if strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Fatalf("want one line, got %q", errs)
	}
	// without --project: the working directory, named as given
	t.Chdir(dir)
	if code, _, errs := run(t, "search", "anything"); code == 0 || !strings.Contains(errs, "run `coderag index .`") || strings.Contains(errs, "relative") {
		t.Errorf("search in a directory never indexed: exit %d, stderr %q", code, errs)
	}
	// a directory that cannot be a project is not advised to be indexed
	if code, _, errs := run(t, "search", "--project", "/etc", "anything"); code == 0 ||
		strings.Contains(errs, "coderag index /etc") || !strings.Contains(errs, "not a project root: /etc") {
		t.Errorf("search --project /etc: exit %d, stderr %q", code, errs)
	}
	// the DB exists now (another project) but this one is not in it
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "a.go"), []byte("package a\nfunc A() {}\n"), 0o644)
	if code, _, errs := run(t, "index", "--quiet", other); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	code, _, errs = run(t, "search", "--project", dir, "anything")
	if code == 0 || !strings.Contains(errs, "not indexed yet") {
		t.Fatalf("exit %d stderr %q", code, errs)
	}
}

// TestUsageErrors: bad command lines, negative --threads and --batch-size
// included, exit 2 with a one-line message.
func TestUsageErrors(t *testing.T) {
	setHome(t)
	cases := [][]string{
		{"nosuchcommand"},
		{"search"},
		{"search", "--top-k", "x", "q"},
		{"index", "a", "b"},
		{"search", "--ranker", "nope", "q"},
		{"search", "--bogus", "q"},
		{"index", "--threads", "-1", "."},
		{"index", "--batch-size", "-5", "."},
		// an empty --store (an unset shell variable) is not the default index
		{"index", "--store", "", "."},
		{"stats", "--store", ""},
	}
	for _, args := range cases {
		code, _, errs := run(t, args...)
		if code != 2 || errs == "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d stderr %q, want 2 and a one-line message", args, code, errs)
		}
	}
	// a range error says the range and the default
	if _, _, errs := run(t, "search", "--top-k", "0", "q"); errs != "coderag search: --top-k must be 1 to 30 (default 5), got 0\n" {
		t.Errorf("search --top-k 0: %q", errs)
	}
	code, out, _ := run(t, "search", "--help")
	if code != 0 || !strings.Contains(out, "-top-k") || !strings.Contains(out, "CODERAG_HOME") {
		t.Errorf("search --help: exit %d %q", code, out)
	}
	// a command's help names the variables; the top-level help describes them
	const described = "index directory (default ~/.coderag"
	if strings.Contains(out, described) {
		t.Errorf("search --help repeats the environment's descriptions:\n%s", out)
	}
	if code, out, _ := run(t, "--help"); code != 0 || !strings.Contains(out, described) {
		t.Errorf("coderag --help: exit %d, want the environment described:\n%s", code, out)
	}
}

// TestOlderAnalysisNote: an index made by an older chunker/analyser is still
// searched, with a one-line note, and the next index run refreshes it.
func TestOlderAnalysisNote(t *testing.T) {
	home := setHome(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\n// Sniff reads the head.\nfunc Sniff() {}\n"), 0o644)
	if code, _, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	st, err := store.Open(context.Background(), filepath.Join(home, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.RawWrite(t, st.Path(), `UPDATE indexed_files SET analysis=1`)
	st.Close()
	code, out, errs := run(t, "search", "--project", dir, "sniffing")
	if code != 0 || !strings.Contains(out, "Sniff") || !strings.Contains(errs, "1 file of") || !strings.Contains(errs, "older coderag") {
		t.Fatalf("exit %d out %q err %q", code, out, errs)
	}
	if code, _, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("re-index: %s", errs)
	}
	if _, _, errs := run(t, "search", "--project", dir, "sniffing"); strings.Contains(errs, "older") {
		t.Fatalf("note after re-index: %q", errs)
	}
}

// TestRemoveProject: `remove` drops exactly one project, refuses a directory
// inside a project (naming the root) and an unknown path, and leaves the
// other projects searchable.
func TestRemoveProject(t *testing.T) {
	setHome(t)
	outer, err := index.ResolveRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(outer, "sub")
	os.MkdirAll(filepath.Join(sub, "inner"), 0o755)
	os.WriteFile(filepath.Join(outer, "a.go"), []byte("package a\n\n// Alpha is first.\nfunc Alpha() {}\n"), 0o644)
	os.WriteFile(filepath.Join(sub, "b.go"), []byte("package sub\n\n// Beta is second.\nfunc Beta() {}\n"), 0o644)
	if code, _, errs := run(t, "index", "--quiet", outer); code != 0 {
		t.Fatalf("index outer: %s", errs)
	}
	code, _, errs := run(t, "index", "--quiet", sub)
	if code != 0 || !strings.Contains(errs, "inside the indexed project "+outer) {
		t.Fatalf("index sub: exit %d, want a note about the enclosing project: %q", code, errs)
	}
	code, _, errs = run(t, "remove", filepath.Join(sub, "inner"))
	if code != 1 || !strings.Contains(errs, "coderag remove "+sub) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Fatalf("remove inside a project: exit %d %q", code, errs)
	}
	code, out, errs := run(t, "remove", sub)
	if code != 0 || !strings.Contains(out, "removed "+sub) || !strings.Contains(out, "(1 file)") {
		t.Fatalf("remove: exit %d %q %q", code, out, errs)
	}
	// removed already: it is a directory of outer now, and the error says
	// that removing outer would drop all of it, not that it is the fix
	if code, _, errs := run(t, "remove", sub); code != 1 || !strings.Contains(errs, "nothing was removed") || !strings.Contains(errs, "would drop the whole of that project") {
		t.Fatalf("second remove: exit %d %q", code, errs)
	}
	if code, _, _ := run(t, "remove"); code != 2 {
		t.Fatalf("remove without PATH: exit %d", code)
	}
	// a project deleted from disk, named through a symlinked parent
	gone := filepath.Join(outer, "gone")
	os.MkdirAll(gone, 0o755)
	os.WriteFile(filepath.Join(gone, "g.go"), []byte("package gone\n"), 0o644)
	if code, _, errs := run(t, "index", "--quiet", gone); code != 0 {
		t.Fatalf("index gone: %s", errs)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(outer, link); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(gone)
	if code, out, errs := run(t, "remove", filepath.Join(link, "gone")); code != 0 || !strings.Contains(out, "removed "+gone) {
		t.Fatalf("remove a deleted project through a symlink: exit %d %q %q", code, out, errs)
	}
	code, out, _ = run(t, "stats", "--json")
	var s statsOut
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 || len(s.Projects) != 1 || s.Projects[0].Root != outer || s.Projects[0].Files != 2 {
		t.Fatalf("stats after remove: %v %s", err, out)
	}
	// searching from inside sub now uses the outer project, which still holds b.go
	code, out, _ = run(t, "search", "--project", sub, "beta second")
	if code != 0 || !strings.Contains(out, "sub/b.go") {
		t.Fatalf("search after remove: %d %q", code, out)
	}
}

// TestEvalCommand: eval scores a golden set against the index, warns when
// some expected files are not indexed and refuses when none is.
func TestEvalCommand(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "pay"), 0o755)
	os.WriteFile(filepath.Join(root, "pay", "retry.go"), []byte("package pay\n\n// RetryPayment retries a failed payment with backoff.\nfunc RetryPayment() {}\n"), 0o644)
	os.WriteFile(filepath.Join(root, "pay", "refund.go"), []byte("package pay\n\n// Refund returns money to the customer.\nfunc Refund() {}\n"), 0o644)
	if code, _, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	golden := func(files ...string) string {
		var qs []string
		for i, f := range files {
			qs = append(qs, fmt.Sprintf(`{"id":"q%d","query":"retry a failed payment","lang":"en","kind":"fuzzy","expect":[{"file":%q,"symbol":"RetryPayment","line":4}]}`, i, f))
		}
		p := filepath.Join(t.TempDir(), "golden.json")
		os.WriteFile(p, []byte(`{"corpus":"pay","queries":[`+strings.Join(qs, ",")+`]}`), 0o644)
		return p
	}
	code, out, errs := run(t, "eval", "--project", root, "--json", golden("pay/retry.go"))
	var rep search.EvalReport
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Overall.N != 1 || rep.Overall.RecallAt1 != 1 || rep.Overall.MRRAt10 != 1 || errs != "" {
		t.Fatalf("eval: exit %d %v %q %q", code, err, out, errs)
	}
	code, out, errs = run(t, "eval", "--project", root, golden("pay/retry.go", "pay/gone.go"))
	if code != 0 || !strings.Contains(errs, "1 of the 2 expected files is not in the index") || !strings.Contains(errs, "pay/gone.go") || !strings.Contains(out, "Recall@5") {
		t.Fatalf("partly missing: exit %d %q %q", code, out, errs)
	}
	gone := golden("other/x.go")
	code, _, errs = run(t, "eval", "--project", root, gone)
	if code != 1 || !strings.Contains(errs, "the one file "+gone+" expects is not in the index") {
		t.Fatalf("all missing: exit %d %q", code, errs)
	}
	if code, _, _ := run(t, "eval", "--project", root, "--ranker", "bm99", golden("pay/retry.go")); code != 2 {
		t.Fatalf("bad ranker: exit %d", code)
	}
	// --set overrides a param for the run; an unknown one is a usage error
	if code, out, errs := run(t, "eval", "--project", root, "--set", "Delegate=false,Semantic=0", "--json", golden("pay/retry.go")); code != 0 || !strings.Contains(out, `"mrr_at_10": 1`) {
		t.Fatalf("--set: exit %d %q %q", code, out, errs)
	}
	if code, _, errs := run(t, "eval", "--project", root, "--set", "Nope=1", golden("pay/retry.go")); code != 2 || !strings.Contains(errs, "Nope") {
		t.Fatalf("bad --set: exit %d %q", code, errs)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o644)
	if code, _, errs := run(t, "eval", "--project", root, bad); code != 1 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Fatalf("bad golden: exit %d %q", code, errs)
	}
}

// TestEvalFileLabelled: eval reads the semble benchmark's file-labelled
// format (a JSON array) and prints NDCG@10 at chunk and file level, per
// category and language; labels may carry a repo prefix the index lacks.
func TestEvalFileLabelled(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "pay"), 0o755)
	os.WriteFile(filepath.Join(root, "pay", "retry.go"), []byte("package pay\n\n// RetryPayment retries a failed payment with backoff.\nfunc RetryPayment() {}\n"), 0o644)
	os.WriteFile(filepath.Join(root, "pay", "refund.go"), []byte("package pay\n\n// Refund returns money to the customer.\nfunc Refund() {}\n"), 0o644)
	if code, _, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	set := filepath.Join(t.TempDir(), "set.json")
	os.WriteFile(set, []byte(`[
	  {"query": "retry a failed payment", "relevant": ["src/pay/retry.go"], "secondary": [], "category": "semantic"},
	  {"query": "Refund", "relevant": [{"path": "src/pay/refund.go", "start_line": 4, "end_line": 4}], "secondary": ["src/pay/gone.go"]}]`), 0o644)
	code, out, errs := run(t, "eval", "--project", root, "--json", set)
	var rep search.BenchReport
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("eval: exit %d %v %q %q", code, err, out, errs)
	}
	if rep.Overall.N != 2 || rep.ByCategory["semantic"].Chunk != 1 || rep.ByCategory["symbol"].N != 1 || rep.ByLang["go"].N != 2 {
		t.Errorf("report: %+v", rep)
	}
	// Refund: found at rank 1, but its secondary file is not indexed, so
	// NDCG is 1/(1+1/log2(3)), and the warning names the missing label
	if got, want := rep.ByCategory["symbol"].Chunk, 1/(1+1/math.Log2(3)); math.Abs(got-want) > 1e-9 {
		t.Errorf("symbol NDCG %v, want %v", got, want)
	}
	if !strings.Contains(errs, "1 of the 3 labelled files is not in the index") {
		t.Errorf("no warning about the unindexed label: %q", errs)
	}
	code, out, _ = run(t, "eval", "--project", root, set)
	if code != 0 || !strings.Contains(out, "NDCG@10chunk") || !strings.Contains(out, "category=symbol") {
		t.Errorf("text report: %d %q", code, out)
	}
}

// TestBadHomeIsAnError: a CODERAG_HOME that is a file is reported as such by
// every reader, never as an empty index or a project "not indexed yet".
func TestBadHomeIsAnError(t *testing.T) {
	home := filepath.Join(t.TempDir(), "homefile")
	os.WriteFile(home, []byte("x"), 0o644)
	setenv(t, "CODERAG_HOME", home)
	dir := t.TempDir()
	for _, args := range [][]string{{"stats"}, {"search", "--project", dir, "x"}, {"remove", dir}, {"index", "--quiet", dir}} {
		code, out, errs := run(t, args...)
		if code != 1 || strings.Contains(errs, "not indexed yet") || strings.Contains(out, "no projects") ||
			!strings.Contains(errs, "not a directory") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d out %q err %q", args, code, out, errs)
		}
	}
}

// TestBadEmbeddingEnvFailsOnlyEmbedding: a bad EMBEDDING_* variable stops
// the commands that build the configured embedder, with one line and exit
// 2, and no other command.
func TestBadEmbeddingEnvFailsOnlyEmbedding(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\n// Alpha is first.\nfunc Alpha() {}\n"), 0o644)
	if code, _, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	setenv(t, "EMBEDDING_PROVIDER", "bogus")
	code, _, errs := run(t, "index", "--quiet", root)
	if code != 2 || !strings.Contains(errs, "unknown embedding provider") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Fatalf("index with a bad provider: exit %d %q", code, errs)
	}
	for _, args := range [][]string{
		{"grep", "--project", root, "Alpha"}, {"glob", "--project", root, "*.go"}, {"read", "--project", root, "a.go"},
		{"stats"}, {"search", "--project", root, "alpha"}, {"graph", "--project", root, "Alpha"},
	} {
		if code, _, errs := run(t, args...); code != 0 {
			t.Errorf("%v with a bad EMBEDDING_PROVIDER: exit %d %q", args, code, errs)
		}
	}
}

// TestReadOnlyHome: an index in a directory that cannot be written is still
// searched; index says why it cannot run.
func TestReadOnlyHome(t *testing.T) {
	if testutil.RerunUnprivileged(t) {
		return
	}
	home := setHome(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\n// Alpha is first.\nfunc Alpha() {}\n"), 0o644)
	if code, _, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	os.Chmod(home, 0o555)
	defer os.Chmod(home, 0o755)
	if code, out, errs := run(t, "search", "--project", dir, "alpha"); code != 0 || !strings.Contains(out, "Alpha") {
		t.Fatalf("search in a read-only home: exit %d %q %q", code, out, errs)
	}
	os.WriteFile(filepath.Join(dir, "b.go"), []byte("package a\n\nfunc Beta() {}\n"), 0o644)
	if code, _, errs := run(t, "index", "--quiet", dir); code != 1 || !strings.Contains(errs, "read-only") {
		t.Fatalf("index in a read-only home: exit %d %q", code, errs)
	}
}
