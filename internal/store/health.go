package store

// Health: the errors that say an index is damaged or not coderag's, and
// the report of Check. The checks themselves are the backends'
// (store/sqlite: health.go; store/postgres: check.go).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors of health checks.
var (
	// ErrDamaged: the index file is corrupt or a table is missing.
	ErrDamaged = errors.New("the index is damaged")
	// ErrForeign: the file at the index path is not a coderag index (not
	// SQLite, or an SQLite database of something else).
	ErrForeign = errors.New("not a coderag index")
)

// Damaged reports whether err says the index file is damaged: ErrDamaged,
// or SQLite's messages for a corrupt file or a missing table or column.
func Damaged(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrDamaged) {
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
	// Problems lists what is wrong, one line each; empty means healthy.
	Problems []string `json:"problems,omitempty"`
	// Foreign is true when the file is not a coderag index at all.
	Foreign bool `json:"foreign,omitempty"`
	// Skipped lists the checks that could not run, one line each (the
	// full-text check of an index that cannot be written).
	Skipped []string `json:"skipped,omitempty"`
}
