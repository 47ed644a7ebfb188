package index

// The tests open their indexes on SQLite (store.Open of a file path).
import _ "github.com/coderag/coderag/internal/store/sqlite"
