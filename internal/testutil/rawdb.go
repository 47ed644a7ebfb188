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
