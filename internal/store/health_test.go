package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
)

// TestDamagedWords: SQLite's words for a damaged file are damage; the word
// "malformed" in another error (a chat server's answer, a query) is not.
func TestDamagedWords(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]bool{
		"database disk image is malformed (11)":                            true,
		"malformed database schema (chunks_fts) - invalid rootpage (11)":   true,
		"no such table: code_chunks":                                       true,
		"file is not a database (26)":                                      true,
		`malformed chat response (body starts "<html>proxy login</html>")`: false,
		"fts5: syntax error near \"\"":                                     false,
		"context deadline exceeded":                                        false,
	} {
		if got := Damaged(fmt.Errorf("search: %w", errors.New(msg))); got != want {
			t.Errorf("Damaged(%q) = %v, want %v", msg, got, want)
		}
	}
	if !Damaged(fmt.Errorf("x: %w", ErrDamaged)) || Damaged(nil) {
		t.Error("ErrDamaged wrapped must be damage, nil must not")
	}
}

// TestDiskProblemIsNotDamage: the errno values of a full disk, a quota, a
// read-only file system and an I/O error, as os returns them, and SQLite's
// words for a full disk and an I/O error, are named by DiskProblem and are
// never damage, not even wrapped in ErrDamaged (Probe did that to every
// error, and doctor --rebuild moved a whole index aside on a full disk).
func TestDiskProblemIsNotDamage(t *testing.T) {
	t.Parallel()
	for err, want := range map[error]string{
		&os.PathError{Op: "write", Path: "/h/index.db-wal", Err: syscall.ENOSPC}:     DiskFull,
		&os.PathError{Op: "write", Path: "/h/index.db", Err: syscall.EDQUOT}:         DiskQuota,
		&os.PathError{Op: "open", Path: "/h/index.db", Err: syscall.EROFS}:           ReadOnlyFS,
		&os.PathError{Op: "read", Path: "/h/index.db", Err: syscall.EIO}:             IOError,
		fmt.Errorf("open index /h/index.db: %w: disk I/O error (4874)", ErrDiskFull): DiskFull,
		errors.New("disk I/O error (4874)"):                                          IOError,
		errors.New("database or disk is full (13)"):                                  DiskFull,
	} {
		if got := DiskProblem(err); got != want {
			t.Errorf("DiskProblem(%v) = %q, want %q", err, got, want)
		}
		for _, e := range []error{err, fmt.Errorf("%w: reading its tables: %w", ErrDamaged, err)} {
			if Damaged(e) || MarkDamaged(e) != e {
				t.Errorf("Damaged(%v) = true: a failure of the disk is not damage", e)
			}
		}
	}
	for _, err := range []error{nil, errors.New("database disk image is malformed (11)"), ErrDamaged, context.Canceled,
		&os.PathError{Op: "open", Path: "/h/index.db", Err: syscall.ENOENT}} {
		if p := DiskProblem(err); p != "" {
			t.Errorf("DiskProblem(%v) = %q, want none", err, p)
		}
	}
}
