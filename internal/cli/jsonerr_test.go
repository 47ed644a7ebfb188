package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed/embedtest"
)

// Every command with --json answers a failure as search, grep, glob and
// read do (checkJSONError): {"error": MSG} on stdout, the line on stderr,
// the exit status of the error. A flag error after --json is answered in
// JSON too, as search's is.

// TestGraphJSONErrors: graph, callers, callees and path with --json (or
// --format json) answer a project never indexed, an unknown name and bad
// usage with {"error": MSG}; a path not found is a result (exit 1), not an
// error object, and without --json stdout stays empty.
func TestGraphJSONErrors(t *testing.T) {
	setHome(t)
	bare := t.TempDir()
	writeFile(t, filepath.Join(bare, "a.go"), "package a\n\nfunc A() {}\n")
	for _, args := range [][]string{
		{"graph", "--json", "--project", bare, "A"},
		{"graph", "--format", "json", "--project", bare, "A"},
		{"graph", "--json", "--stats", "--project", bare},
		{"callers", "--json", "--project", bare, "A"},
		{"callees", "--json", "--project", bare, "A"},
		{"path", "--json", "--project", bare, "A", "A"},
	} {
		checkJSONError(t, args, 1, "not indexed yet")
	}
	if code, out, errs := run(t, "callers", "--project", bare, "A"); code != 1 || out != "" || !strings.Contains(errs, "not indexed yet") {
		t.Errorf("callers without --json: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	dir := indexGraphFixture(t)
	p := "--project=" + dir
	for _, tc := range []struct {
		args []string
		exit int
		msg  string
	}{
		{[]string{"graph", "--json", p, "NoSuchThing"}, 1, "NoSuchThing"},
		{[]string{"graph", "--format=json", p, "NoSuchThing"}, 1, "NoSuchThing"},
		{[]string{"callers", "--json", p, "NoSuchThing"}, 1, "NoSuchThing"},
		{[]string{"callees", "--json", p, "NoSuchThing"}, 1, "NoSuchThing"},
		{[]string{"path", "--json", p, "main", "NoSuchThing"}, 1, "NoSuchThing"},
		{[]string{"graph", "--json", p}, 2, "missing NAME"},
		{[]string{"graph", "--json", "--limit", "-1", p, "Store.Get"}, 2, "--limit"},
		{[]string{"callers", "--json", "--depth", "0", p, "Store.Get"}, 2, "--depth must be at least 1"},
		{[]string{"callers", "--json", "--depth", "x", p, "Store.Get"}, 2, "invalid value"},
		{[]string{"path", "--json", p, "main"}, 2, "want FROM and TO"},
	} {
		checkJSONError(t, tc.args, tc.exit, tc.msg)
	}
	// a flag error before --json: parsing stops there, --json unseen, as
	// in search
	if code, out, _ := run(t, "callers", "--depth", "x", "--json", p, "Store.Get"); code != 2 || out != "" {
		t.Errorf("callers --depth x --json: exit %d, stdout %q", code, out)
	}
	code, out, _ := run(t, "callers", "--json", p, "Store.Get")
	if code != 0 || strings.Contains(out, `"error"`) || !strings.Contains(out, "Store.Get") {
		t.Errorf("callers --json Store.Get: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "path", "--json", p, "main", "Store.missing")
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 1 || res["found"] != false || res["error"] != nil {
		t.Errorf("path --json with no path: exit %d (%v)\n%s", code, err, out)
	}
}

// TestStatsEvalRemoveAskJSONErrors: stats, eval, remove and ask with
// --json answer a failure after their flags (no index, a project not
// indexed, a missing query set, no chat model) and bad usage with
// {"error": MSG}.
func TestStatsEvalRemoveAskJSONErrors(t *testing.T) {
	setHome(t)
	setenv(t, "LLM_BASE_URL", "")
	setenv(t, "LLM_MODEL", "")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.go"), "package a\n\n// Greet says hello.\nfunc Greet() {}\n")
	set := filepath.Join(t.TempDir(), "set.json")
	writeFile(t, set, `{"corpus": "a", "queries": [{"id": "q1", "query": "say hello", "expect": [{"file": "a.go", "symbol": "Greet"}]}]}`)
	for _, tc := range []struct {
		args []string
		exit int
		msg  string
	}{
		{[]string{"stats", "--json", "extra"}, 2, "takes no arguments"},
		{[]string{"eval", "--json", "--project", dir, set}, 1, "not indexed yet"},
		{[]string{"eval", "--json", "--project", dir, filepath.Join(dir, "missing.json")}, 1, "missing.json"},
		{[]string{"eval", "--json", "--project", dir}, 2, "want one SET.json"},
		{[]string{"eval", "--json", "--ranker", "nope", set}, 2, "unknown --ranker"},
		{[]string{"remove", "--json", dir}, 1, "is not indexed"},
		{[]string{"remove", "--json"}, 2, "PATH is empty or missing"},
		{[]string{"ask", "--json", "--project", dir, "where is hello said?"}, 1, "no chat model configured"},
		{[]string{"ask", "--json", "--project", dir}, 2, "missing QUESTION"},
		{[]string{"ask", "--json", "--max-steps", "x", "q"}, 2, "invalid value"},
	} {
		checkJSONError(t, tc.args, tc.exit, tc.msg)
	}
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errs)
	}
	other := t.TempDir()
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"stats", "--json", "--project", other}, "not indexed yet"},
		{[]string{"remove", "--json", other}, "is not an indexed project"},
		{[]string{"eval", "--json", "--project", other, set}, "not indexed yet"},
	} {
		checkJSONError(t, tc.args, 1, tc.msg)
	}
	code, out, _ := run(t, "stats", "--json", "--project", dir)
	if code != 0 || strings.Contains(out, `"error"`) || !strings.Contains(out, `"projects"`) {
		t.Errorf("stats --json of an indexed project: exit %d\n%s", code, out)
	}
}

// TestIndexJSONErrors: index --json answers a PATH it cannot index and bad
// usage with {"error": MSG}; a run whose files failed prints its report,
// one object, with the error line in "error" beside "failed", and exits 1.
func TestIndexJSONErrors(t *testing.T) {
	setHome(t)
	missing := filepath.Join(t.TempDir(), "gone")
	checkJSONError(t, []string{"index", "--json", "--quiet", missing}, 1, "gone")
	checkJSONError(t, []string{"index", "--json", "a", "b"}, 2, "want at most one PATH")
	checkJSONError(t, []string{"index", "--json", "--threads", "-1", "."}, 2, "threads")

	// an embeddings server that fails the chunks of one file
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		data := []item{}
		for i, in := range req.Input {
			if strings.Contains(in, "Gamma") {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(`{"error":{"message":"the model cannot embed Gamma","type":"invalid_request_error"}}`))
				return
			}
			data = append(data, item{i, embedtest.Vector(in, 8)})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "text-embedding-3-small"})
	}))
	defer srv.Close()
	setenv(t, "EMBEDDING_PROVIDER", "openai")
	setenv(t, "EMBEDDING_BASE_URL", srv.URL+"/v1")
	setenv(t, "EMBEDDING_BATCH_SIZE", "1")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.go"), "package p\n\n// Alpha is fine.\nfunc Alpha() {}\n")
	writeFile(t, filepath.Join(dir, "b.go"), "package p\n\n// Gamma fails.\nfunc Gamma() {}\n")
	code, out, errs := run(t, "index", "--json", "--quiet", dir)
	var rep struct {
		Root   string `json:"root"`
		Failed int    `json:"failed"`
		Error  string `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.Failed != 1 || rep.Root == "" ||
		!strings.Contains(rep.Error, "1 file failed and keeps its previous index rows; it is retried") {
		t.Fatalf("index --json with a failing file: exit %d (%v)\nstdout %s\nstderr %s", code, err, out, errs)
	}
	if want := errLine("index", rep.Error) + "\n"; errs != want {
		t.Errorf("index --json with a failing file: stderr %q, want %q", errs, want)
	}
}

// TestDoctorJSONErrors: doctor --json answers bad usage with {"error": MSG};
// when the checks ran and doctor fails (here: a file that is not an
// index), it prints its findings, one object, with the error line in
// "error", and exits 1; a healthy index has no "error".
func TestDoctorJSONErrors(t *testing.T) {
	home := setHome(t)
	checkJSONError(t, []string{"doctor", "--json", "extra"}, 2, "takes no arguments")
	db := filepath.Join(home, "index.db")
	writeFile(t, db, "these are someone's notes, not an SQLite database\n")
	code, out, errs := run(t, "doctor", "--json")
	var rep struct {
		Foreign bool   `json:"foreign"`
		Healthy bool   `json:"healthy"`
		Error   string `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || !rep.Foreign || rep.Healthy || !strings.Contains(rep.Error, "is not a coderag index") {
		t.Fatalf("doctor --json on a foreign file: exit %d (%v)\nstdout %s\nstderr %s", code, err, out, errs)
	}
	if want := errLine("doctor", rep.Error) + "\n"; errs != want {
		t.Errorf("doctor --json on a foreign file: stderr %q, want %q", errs, want)
	}
	if err := os.Remove(db); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.go"), "package a\n")
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := run(t, "doctor", "--json"); code != 0 || strings.Contains(out, `"error"`) || !strings.Contains(out, `"healthy": true`) {
		t.Errorf("doctor --json on a sound index: exit %d\n%s", code, out)
	}
}

// TestEmptyIndexFile: an index.db of 0 bytes (SQLite's empty database)
// holds no project, and the commands that read it say the file is empty
// rather than only "not indexed yet", and leave it as it is (0 bytes); an
// index run builds the index in it.
func TestEmptyIndexFile(t *testing.T) {
	home := setHome(t)
	db := filepath.Join(home, "index.db")
	writeFile(t, db, "")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.go"), "package a\n\n// Greet says hello.\nfunc Greet() string { return \"hello\" }\n")
	for _, args := range [][]string{
		{"search", "--project", dir, "say hello"},
		{"search", "--all", "say hello"},
		{"graph", "--project", dir, "Greet"},
		{"stats", "--project", dir},
		{"remove", dir},
	} {
		code, out, errs := run(t, args...)
		if code != 1 || !strings.Contains(errs, "index file "+db+" is empty") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v with an empty index file: exit %d\nstdout %s\nstderr %s", args, code, out, errs)
		}
	}
	checkJSONError(t, []string{"search", "--json", "--project", dir, "say hello"}, 1, "is empty (0 bytes")
	if code, out, errs := run(t, "stats"); code != 0 || !strings.Contains(out, "index: "+db+" is empty (0 bytes") || !strings.Contains(out, "no projects indexed yet") {
		t.Errorf("stats with an empty index file: exit %d\n%s\n%s", code, out, errs)
	}
	if fi, err := os.Stat(db); err != nil || fi.Size() != 0 {
		t.Fatalf("the empty index file was changed by reads: %v %v", fi, err)
	}
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index into the empty file: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := run(t, "search", "--project", dir, "say hello"); code != 0 || !strings.Contains(out, "Greet") {
		t.Errorf("search after index: exit %d\n%s\n%s", code, out, errs)
	}
}
