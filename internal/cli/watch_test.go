package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestIndexWatch saves, creates and deletes files under a watched tree and
// checks that search sees each change shortly after, and that ignored files
// stay out.
func TestIndexWatch(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("ignored/\n"), 0o644)
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\n// Alpha does a.\nfunc Alpha() {}\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- MainIO(ctx, []string{"index", "--watch", "--quiet", root}, strings.NewReader(""), &out, &errb)
	}()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if cond() {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("timed out waiting for %s; stdout %q stderr %q", what, out.String(), errb.String())
	}
	waitFor("watching", func() bool { return strings.Contains(errb.String(), "watching") })
	found := func(q, name string) bool {
		code, o, _ := run(t, "search", "--json", "--project", root, q)
		return code == 0 && strings.Contains(o, name)
	}
	// a save
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\n// Zebra grazes.\nfunc Zebra() {}\n"), 0o644)
	waitFor("saved file re-indexed", func() bool { return found("zebra", "Zebra()") })
	// a new file in a new directory
	os.MkdirAll(filepath.Join(root, "pkg", "sub"), 0o755)
	time.Sleep(200 * time.Millisecond) // let the watcher add the new directory
	os.WriteFile(filepath.Join(root, "pkg", "sub", "b.go"), []byte("package sub\n\n// Giraffe eats leaves.\nfunc Giraffe() {}\n"), 0o644)
	waitFor("new file indexed", func() bool { return found("giraffe", "Giraffe()") })
	// an ignored file never lands
	os.MkdirAll(filepath.Join(root, "ignored"), 0o755)
	os.WriteFile(filepath.Join(root, "ignored", "c.go"), []byte("package c\n\nfunc Okapi() {}\n"), 0o644)
	// a deleted file leaves
	os.Remove(filepath.Join(root, "pkg", "sub", "b.go"))
	waitFor("deleted file removed", func() bool { return !found("giraffe", "Giraffe()") })
	if found("okapi", "Okapi()") {
		t.Fatal("ignored file was indexed")
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("watch exit %d: %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("watch did not stop on cancel")
	}
}
