package relate

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/lang"
)

func goroot(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// lineOf returns line n (1-based) of file.
func lineOf(t *testing.T, file string, n int) string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			return sc.Text()
		}
	}
	return ""
}

// checkSites asserts that every call site of the walk's depth-1 edges holds
// a call to the root's name in the real source.
func checkSites(t *testing.T, root string, w *Walk) {
	t.Helper()
	for _, e := range w.Edges {
		if e.Depth != 1 {
			continue
		}
		src := lineOf(t, filepath.Join(root, e.Path), e.Line)
		if !strings.Contains(src, w.Root.method+"(") {
			t.Errorf("call site %s:%d does not call %s: %q", e.Path, e.Line, w.Root.method, src)
		}
	}
}

// TestStdlibCallers indexes real Go standard library packages and checks
// that callers lists real call sites: net/http's (*conn).serve is started
// by (*Server).Serve, and time.ParseDuration has callers in package time.
func TestStdlibCallers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: indexes GOROOT/src/net/http and time")
	}
	src := filepath.Join(goroot(t), "src")

	start := time.Now()
	st, root := indexDir(t, filepath.Join(src, "net", "http"))
	t.Logf("indexed net/http in %v", time.Since(start).Round(time.Millisecond))
	r, err := NewResolver(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	w, err := r.Callers("net/http.(*conn).serve", 4)
	if err != nil {
		t.Fatal(err)
	}
	var sites []string
	found := false
	for _, e := range w.Edges {
		if e.Depth == 1 {
			sites = append(sites, e.Caller.call+" "+e.Path+":"+strconv.Itoa(e.Line)+" "+e.Resolution)
			if e.Caller.call == "Server.Serve" && e.Path == "server.go" && e.Resolved() {
				found = true
			}
		}
	}
	sort.Strings(sites)
	t.Logf("callers of (*conn).serve: %q", sites)
	if !found {
		t.Errorf("(*Server).Serve not among the callers of (*conn).serve: %q", sites)
	}
	checkSites(t, root, w)

	// Go call rules without types: a plain call inside (*conn).readRequest
	// reaches the package function readRequest, not the method itself; the
	// builtin len is no method named len; production code reaches no
	// _test.go helper (req.Header.get is no func get of serve_test.go)
	for _, fn := range []string{"net/http.(*conn).readRequest", "net/http.(*conn).serve"} {
		w, err := r.Callees(fn, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range w.Edges {
			if e.Target != nil && lang.IsTestFile(e.Target.Path) {
				t.Errorf("%s: call %s at %s:%d resolved into test file %s", fn, e.To, e.Path, e.Line, e.Target.Path)
			}
			for _, c := range e.Candidates {
				if lang.IsTestFile(c.Path) {
					t.Errorf("%s: call %s at %s:%d has test candidate %s", fn, e.To, e.Path, e.Line, c.Path)
				}
			}
			switch e.To {
			case "readRequest":
				if fn == "net/http.(*conn).readRequest" && (e.Target == nil || e.Target.Owner != "" || e.Target.Path != "request.go") {
					t.Errorf("plain readRequest(c.bufr) resolved to %+v (%s)", e.Target, e.Resolution)
				}
			case "len", "make", "delete":
				if e.Resolution != ResUnresolved {
					t.Errorf("builtin %s resolved as %s %v", e.To, e.Resolution, e.Candidates)
				}
			}
		}
	}
	if p, err := r.Path("net/http.(*Server).ListenAndServe", "net/http.readRequest"); err != nil || !p.Found {
		t.Errorf("no call path ListenAndServe -> readRequest: %v", err)
	}

	st, root = indexDir(t, filepath.Join(src, "time"))
	r, err = NewResolver(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	w, err = r.Callers("time.ParseDuration", 2)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range w.Edges {
		if e.Depth == 1 && e.Resolved() {
			n++
		}
	}
	if n < 3 {
		t.Errorf("time.ParseDuration: %d resolved direct callers, want >= 3: %+v", n, w.Edges)
	}
	checkSites(t, root, w)
}
