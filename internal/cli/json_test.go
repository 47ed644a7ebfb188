package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestJSONOutputsNameTheRoot: every --json output about a project names its
// absolute, symlink-resolved root as "root" — index, search, stats, eval
// (both set formats), doctor (the project holding the working directory),
// graph and callers — given the project through a symlink and used from a
// subdirectory; index --json gives its wall time as duration_ms.
func TestJSONOutputsNameTheRoot(t *testing.T) {
	setHome(t)
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.MkdirAll(filepath.Join(real, "pay"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package pay\n\n// RetryPayment retries a failed payment with backoff.\nfunc RetryPayment() { backoff() }\n\nfunc backoff() {}\n"
	if err := os.WriteFile(filepath.Join(real, "pay", "retry.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	want, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join(base, "golden.json")
	os.WriteFile(golden, []byte(`{"corpus":"pay","queries":[{"id":"q1","query":"retry a failed payment","expect":[{"file":"pay/retry.go","symbol":"RetryPayment"}]}]}`), 0o644)
	labelled := filepath.Join(base, "set.json")
	os.WriteFile(labelled, []byte(`[{"query":"retry a failed payment","relevant":["pay/retry.go"],"category":"semantic"}]`), 0o644)

	rootOf := func(args ...string) map[string]json.RawMessage {
		t.Helper()
		code, out, errs := run(t, args...)
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out), &m); code != 0 || err != nil {
			t.Fatalf("%v: exit %d %v\n%s%s", args, code, err, out, errs)
		}
		var got string
		if err := json.Unmarshal(m["root"], &got); err != nil || got != want {
			t.Errorf("%v: root %s, want %q", args, m["root"], want)
		}
		return m
	}
	rep := rootOf("index", "--json", "--quiet", link)
	if _, ok := rep["duration_ms"]; !ok {
		t.Errorf("index --json has no duration_ms: %v", rep)
	}
	if _, ok := rep["elapsed_ns"]; ok {
		t.Errorf("index --json still prints elapsed_ns")
	}
	t.Chdir(filepath.Join(link, "pay"))
	rootOf("search", "--json", "retry payment")
	rootOf("eval", "--json", "--project", link, golden)
	rootOf("eval", "--json", "--project", link, labelled)
	rootOf("doctor", "--json")
	rootOf("graph", "--json", "RetryPayment")
	rootOf("callers", "--json", "backoff")
	// stats lists projects: each names its root
	code, out, errs := run(t, "stats", "--json")
	if code != 0 {
		t.Fatalf("stats: exit %d %s", code, errs)
	}
	checkStatsJSON(t, out, real)
}
