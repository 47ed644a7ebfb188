package index

import (
	"database/sql"
	"testing"

	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/testutil"
)

// rawDB is testutil.RawDB on st's file.
func rawDB(t *testing.T, st *store.Store) *sql.DB { return testutil.RawDB(t, st.Path()) }
