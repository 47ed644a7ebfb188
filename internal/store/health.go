package store

// Health: the errors that say an index is damaged or not coderag's, the
// failures of the disk under it that are neither, and the report of Check. The checks themselves are the backends'
// (store/sqlite: health.go; store/postgres: check.go).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// Sentinel errors of health checks.
var (
	// ErrDamaged: the index file is corrupt or a table is missing.
	ErrDamaged = errors.New("the index is damaged")
	// ErrForeign: the file at the index path is not a coderag index (not
	// SQLite, or an SQLite database of something else).
	ErrForeign = errors.New("not a coderag index")
	// ErrDiskFull: the backend looked after an I/O error and found no
	// free space left where the index lives (SQLite says "disk I/O error"
	// when its shared-memory file cannot grow on a full disk).
	ErrDiskFull = errors.New(DiskFull)
)

// The answers of DiskProblem.
const (
	// DiskFull: no space left (SQLITE_FULL, ENOSPC, ErrDiskFull).
	DiskFull = "the disk is full"
	// DiskQuota: the user's quota is used up (EDQUOT).
	DiskQuota = "the disk quota is exceeded"
	// ReadOnlyFS: the file system is mounted read-only (EROFS).
	ReadOnlyFS = "the file system is read-only"
	// IOError: the disk or file system failed a read or write
	// (SQLITE_IOERR and its extended codes, EIO).
	IOError = "an I/O error"
)

// SQLite's primary result codes that say what failed (sqlite3.h); the
// driver's errors carry the extended code, whose low byte is the primary.
const (
	sqliteIOErr   = 10
	sqliteCorrupt = 11
	sqliteFull    = 13
	sqliteNotADB  = 26
)

// sqliteCode returns SQLite's primary result code of the first error in
// err's chain that carries one (modernc.org/sqlite's *sqlite.Error, by its
// Code method, so this package needs no driver), and whether there is one.
func sqliteCode(err error) (int, bool) {
	var c interface{ Code() int }
	if !errors.As(err, &c) {
		return 0, false
	}
	return c.Code() & 0xff, true
}

// DiskProblem says what is wrong with the disk or file system under the
// index when err is their failure rather than anything in the file: "the
// disk is full" (ErrDiskFull, SQLITE_FULL, ENOSPC, PostgreSQL's disk_full),
// "the disk quota is exceeded" (EDQUOT), "the file system is read-only"
// (EROFS), "an I/O error" (SQLITE_IOERR and its extended codes, EIO,
// PostgreSQL's io_error); "" for any other error. Such an error is never
// damage: the same file may well be healthy once there is room.
func DiskProblem(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, ErrDiskFull) {
		return DiskFull
	}
	if code, ok := sqliteCode(err); ok {
		switch code {
		case sqliteFull:
			return DiskFull
		case sqliteIOErr:
			return IOError
		}
	}
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		switch pg.SQLState() {
		case "53100":
			return DiskFull
		case "58030":
			return IOError
		}
	}
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return DiskFull
	case errors.Is(err, syscall.EDQUOT):
		return DiskQuota
	case errors.Is(err, syscall.EROFS):
		return ReadOnlyFS
	case errors.Is(err, syscall.EIO):
		return IOError
	}
	// the words of an error that lost its type on the way (a message
	// passed on as text): SQLite's and the C library's
	m := strings.ToLower(err.Error())
	for _, w := range []struct{ word, problem string }{
		{"database or disk is full", DiskFull},
		{"no space left on device", DiskFull},
		{"disk quota exceeded", DiskQuota},
		{"read-only file system", ReadOnlyFS},
		{"disk i/o error", IOError},
		{"input/output error", IOError},
	} {
		if strings.Contains(m, w.word) {
			return w.problem
		}
	}
	return ""
}

// Damaged reports whether err says the index file is damaged: ErrDamaged,
// SQLITE_CORRUPT or SQLITE_NOTADB, or SQLite's messages for a corrupt file
// or a missing table or column. An error of the disk or file system
// (DiskProblem: full, an I/O error, read-only) is never damage, even
// wrapped in ErrDamaged: nothing shows the file is wrong.
func Damaged(err error) bool {
	if err == nil || DiskProblem(err) != "" {
		return false
	}
	if errors.Is(err, ErrDamaged) {
		return true
	}
	if code, ok := sqliteCode(err); ok && (code == sqliteCorrupt || code == sqliteNotADB) {
		return true
	}
	m := strings.ToLower(err.Error())
	// SQLite's own words ("database disk image is malformed", "malformed
	// database schema"): "malformed" alone is any parser's (a chat
	// server's HTML answer was taken for a damaged index)
	for _, w := range []string{"disk image is malformed", "malformed database schema", "no such table", "no such column", "file is not a database", "database corrupt",
		"sqlite_corrupt", "fts5: corrupt", "corrupt structure", "sql logic error: fts5"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// damaged wraps err with ErrDamaged when Damaged says so; other errors are
// returned as they are.
func damaged(err error) error {
	if err == nil || errors.Is(err, ErrDamaged) || !Damaged(err) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrDamaged, err)
}

func drain(ctx context.Context, db *sql.DB, q string) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	cols, err := rows.Columns()
	if err != nil {
		rows.Close()
		return err
	}
	vals := make([]any, len(cols))
	for i := range vals {
		vals[i] = new(any)
	}
	return eachRow(rows, func() error { return rows.Scan(vals...) })
}

// CheckReport is the result of Check.
type CheckReport struct {
	Path     string   `json:"path"`
	Schema   int      `json:"schema_version"`
	Projects []string `json:"projects,omitempty"`
	// Problems lists what is wrong, one problem each; empty means
	// healthy. SQLite's quick_check gives all its findings as the lines
	// of one problem (up to 100 of them).
	Problems []string `json:"problems,omitempty"`
	// Foreign is true when the file is not a coderag index at all.
	Foreign bool `json:"foreign,omitempty"`
	// Skipped lists the checks that could not run, one line each (the
	// full-text check of an index that cannot be written).
	Skipped []string `json:"skipped,omitempty"`
	// Unreadable says why a check could not read the file when the cause
	// is not its content, one line: the disk or file system (starting with
	// DiskProblem's words, as "the disk is full (PRAGMA quick_check: disk
	// I/O error (4874))"), or another failure that is not damage (a lock
	// held too long). The file is not known to be damaged, and nothing
	// may be moved or rebuilt on its account.
	Unreadable string `json:"unreadable,omitempty"`
	// ProjectsError says why the list of projects of a damaged file could
	// not be read; Projects is then empty, which does not mean the index
	// held none.
	ProjectsError string `json:"projects_error,omitempty"`
	// Vectors gives each project's embedder and whether its files carry
	// vectors of more than one (ReadVectors), by root; read only from an
	// index at the current schema whose checks found no problem.
	Vectors []ProjectVectors `json:"project_vectors,omitempty"`
}
