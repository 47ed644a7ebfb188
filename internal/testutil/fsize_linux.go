package testutil

import (
	"syscall"
	"testing"
)

// LimitFileSize lowers the process's RLIMIT_FSIZE soft limit to max bytes:
// a write past it fails with EFBIG (SIGXFSZ is ignored by the Go runtime),
// which SQLite reports as "disk I/O error", the error of a disk that
// cannot take more, without root or a full file system. It is for a
// child test process: the limit is never raised again.
func LimitFileSize(t testing.TB, max uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	lim.Cur = max
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
}
