package serve

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSymlinkLoopIsRefused: a file view through a symlink loop inside the
// project (a link to itself, two links to each other, a directory link to
// itself) is a 400 refusal on the API and the page, not a 500.
func TestSymlinkLoopIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	for link, to := range map[string]string{"self.go": "self.go", "a.go": "b.go", "b.go": "a.go", "dir": "dir"} {
		if err := os.Symlink(to, filepath.Join(f.list, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"self.go", "a.go", "dir/x.go", "dir"} {
		for _, prefix := range []string{"/api/file", "/file"} {
			code, body := f.do(t, "GET", prefix+"?project=list&path="+p, "", "")
			if code != 400 {
				t.Errorf("GET %s %s: %d %.200s, want 400", prefix, p, code, body)
			}
		}
	}
}
