package testutil

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// RawDB opens the SQLite index file at path with database/sql, for tests
// that read or age rows the store has no method for; it is closed when the
// test ends.
func RawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// RawWrite runs the statement q (with args) on the SQLite index file at
// path and bumps the data version of every project (meta
// data_version:PROJECT) in the same transaction, as every coderag's write
// of a project's rows bumps that project's, so that what a process keeps
// of the rows (the fingerprint snapshot beside the index,
// index/snapshot.go) is known to be stale. For tests that make rows as an
// older coderag left them.
func RawWrite(t testing.TB, path, q string, args ...any) {
	t.Helper()
	db := RawDB(t, path)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(q, args...); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE meta SET value=CAST(CAST(value AS INTEGER)+1 AS TEXT) WHERE key LIKE 'data_version:%'`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
