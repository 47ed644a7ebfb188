package sqlite

import (
	"os"
	"path/filepath"
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
