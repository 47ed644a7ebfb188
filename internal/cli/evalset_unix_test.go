//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadSetFile: eval reads a query set only from a regular file of at
// most maxSetBytes; /dev/zero, a directory and an oversized file are
// refused with a line naming the file, instead of reading without end; a
// FIFO is refused before it is opened (the open would wait for a writer).
func TestReadSetFile(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "set.json")
	if err := os.WriteFile(ok, []byte(`{"queries":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := readSetFile(ok); err != nil || string(b) != `{"queries":[]}` {
		t.Fatalf("readSetFile(%s) = %q, %v", ok, b, err)
	}
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// a sparse file one byte past the bound
	if err := f.Truncate(maxSetBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// a FIFO with no writer: opening it would block for good
	for p, want := range map[string]string{"/dev/zero": "not a regular file", dir: "not a regular file", big: "larger than 64 MiB", fifo: "not a regular file"} {
		if _, err := os.Stat(p); err != nil {
			continue // no /dev/zero on this system
		}
		b, err := readSetFile(p)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) || b != nil {
			t.Errorf("readSetFile(%s) = %d bytes, %v; want an error saying %q", p, len(b), err, want)
		}
	}
}
