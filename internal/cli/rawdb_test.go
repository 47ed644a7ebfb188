package cli

import (
	"database/sql"
	"testing"

	"github.com/coderag/coderag/internal/store"
)

// rawDB opens st's file with database/sql, for tests that read or age rows
// the store has no method for; closed when the test ends.
func rawDB(t *testing.T, st *store.Store) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+st.Path()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
