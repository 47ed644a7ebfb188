package engine

// The backends an engine opens its index on, by target (store.Open): an
// SQLite file, or a PostgreSQL database.
import (
	_ "github.com/coderag/coderag/internal/store/postgres" // registers PostgreSQL targets
	_ "github.com/coderag/coderag/internal/store/sqlite"   // registers SQLite files
)
