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
