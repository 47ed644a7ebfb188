package search

// The tests open their indexes by target (store.Open): an SQLite file, or
// a throwaway PostgreSQL database (testutil.Postgres).
import (
	_ "github.com/coderag/coderag/internal/store/postgres"
	_ "github.com/coderag/coderag/internal/store/sqlite"
)
