package cli

import (
	"os"
	"strings"
	"sync"
	"testing"
)

// testEnvs holds the environment each test gives Main, by test name: a
// test sets its variables with setenv instead of t.Setenv, so the
// process's environment is never changed (config.FromLookup reads this).
var testEnvs sync.Map // test name -> *sync.Map of variable -> value

// setenv sets variable k to v for the Main runs of t and its subtests
// (run, testLookup); undone when t ends.
func setenv(t *testing.T, k, v string) {
	t.Helper()
	m, loaded := testEnvs.LoadOrStore(t.Name(), &sync.Map{})
	if !loaded {
		t.Cleanup(func() { testEnvs.Delete(t.Name()) })
	}
	m.(*sync.Map).Store(k, v)
}

// testLookup is the environment lookup of t's Main runs: what setenv set
// for t or the test it runs in (the nearest first), else the process's.
func testLookup(t *testing.T) func(string) (string, bool) {
	name := t.Name()
	return func(k string) (string, bool) {
		for n := name; ; {
			if m, ok := testEnvs.Load(n); ok {
				if v, ok := m.(*sync.Map).Load(k); ok {
					return v.(string), true
				}
			}
			i := strings.LastIndexByte(n, '/')
			if i < 0 {
				return os.LookupEnv(k)
			}
			n = n[:i]
		}
	}
}

// TestFlagOverridesBadVariable: a flag overrides its variable, a bad value
// of it included (the help says flags override the environment); a bad
// variable whose flag is not given still stops the command, and so does
// another bad variable beside the overridden one.
func TestFlagOverridesBadVariable(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	writeFile(t, dir+"/a.go", "package a\n\nfunc A() {}\n")
	setenv(t, "CODERAG_INDEX_THREADS", "0")
	if code, _, errs := run(t, "index", "--threads", "2", dir); code != 0 {
		t.Errorf("index --threads 2 with CODERAG_INDEX_THREADS=0: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, "index", dir); code != 2 || !strings.Contains(errs, `CODERAG_INDEX_THREADS="0"`) {
		t.Errorf("index with CODERAG_INDEX_THREADS=0: exit %d %s", code, errs)
	}
	setenv(t, "EMBEDDING_BATCH_SIZE", "-1")
	if code, _, errs := run(t, "index", "--threads", "2", dir); code != 2 || !strings.Contains(errs, `EMBEDDING_BATCH_SIZE="-1"`) || strings.Contains(errs, "CODERAG_INDEX_THREADS") {
		t.Errorf("index --threads 2 with a bad batch size too: exit %d %s", code, errs)
	}
}
