package sqlite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A read-only index. The README promises that searches work on an index
// its reader cannot write: a read-only file system (a mounted snapshot, a
// container layer), a directory of another user's, an immutable file.
// SQLite's default open is read-write and, in WAL mode, creates the -wal
// and -shm files beside the index, so such an index failed with "unable to
// open database file (14)", and doctor's checks with "attempt to write a
// readonly database". Open and Check therefore look first whether the
// file and its directory can be written (access(2) with W_OK, which a
// read-only file system and the immutable attribute refuse even to root)
// and open what cannot be written read-only (readOnlyDSN).

// readOnlyDSN returns the read-only SQLite DSN of the existing index at
// path, and true, when path or its directory cannot be written: mode=ro
// when only the file cannot be (SQLite can still make its -shm file
// beside it to read the WAL), mode=ro&immutable=1 when the directory
// cannot be either (no -shm or lock file can be made: SQLite then reads
// the main file as it is, with no locking, which is right for a file
// nobody writes; changes only in a WAL left there unmerged are not seen).
// It returns "", false when both can be written, or path does not exist.
func readOnlyDSN(path string) (string, bool) {
	if _, err := os.Stat(path); err != nil {
		return "", false
	}
	dirOK, fileOK := canWrite(filepath.Dir(path)), canWrite(path)
	switch {
	case !dirOK:
		return "file:" + path + "?mode=ro&immutable=1", true
	case !fileOK:
		return "file:" + path + "?mode=ro&_pragma=busy_timeout(10000)", true
	}
	return "", false
}

// unmergedWAL returns an error when dsn opens path immutable (its
// directory cannot be written: readOnlyDSN) while path's write-ahead log
// holds changes: an immutable open takes no locks and reads no WAL, so it
// would miss those changes, and read pages a live writer is changing torn,
// which then read as damage ("database disk image is malformed") and sent
// users to `doctor --rebuild`. It says what is the matter instead; nil
// otherwise.
func unmergedWAL(path, dsn string) error {
	if !strings.Contains(dsn, "immutable=1") {
		return nil
	}
	fi, err := os.Stat(path + "-wal")
	if err != nil || fi.Size() == 0 {
		return nil
	}
	return fmt.Errorf("%s has %d bytes of changes not yet merged into it (%s-wal), and its directory cannot be written, so a read-only view would miss them or read pages being written: "+
		"read it where its directory can be written (any coderag command there merges them), or once the process writing it has finished; nothing suggests the index is damaged",
		path, fi.Size(), filepath.Base(path))
}
