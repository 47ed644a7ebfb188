package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"

	"github.com/coderag/coderag/internal/store"
)

// Full-text tables, one per project.
//
// BM25 (Robertson & Zaragoza, 2009) scores a term by its document
// frequency and a chunk by its length against the average length. With one
// FTS5 table for every project those statistics are global, so a project's
// ranking would change when another project is indexed beside it (a Chinese
// query on one tree finds a function only while another tree is not
// indexed). Each project therefore has its own FTS5 table,
// chunks_fts_<16 hex digits of the FNV-1a 64-bit hash of the project path>,
// with the columns and tokenizer of the legacy shared table chunks_fts.
// Rows of an index written before per-project tables stay in chunks_fts
// until the project is re-indexed (index.AnalysisVersion makes the next
// `index` re-write every file); KeywordSearch reads the shared table for a
// project that has no table of its own yet.

// ftsTable returns the name of project's full-text table.
func ftsTable(project string) string {
	h := fnv.New64a()
	h.Write([]byte(project))
	return fmt.Sprintf("chunks_fts_%016x", h.Sum64())
}

// ftsColumns is the column and tokenizer definition every full-text table
// shares: pre-analysed terms of the chunk's name, owner, path, doc comment
// and text (see the schema comment), contentless with delete support.
const ftsColumns = `(
	name, owner, path, doc, body,
	content='', contentless_delete=1,
	tokenize='unicode61 remove_diacritics 2'
)`

// ensureFTS creates project's full-text table if it does not exist.
func ensureFTS(ctx context.Context, tx *sql.Tx, project string) error {
	_, err := tx.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS `+ftsTable(project)+` USING fts5`+ftsColumns)
	if err != nil {
		return fmt.Errorf("create full-text table: %w", err)
	}
	return nil
}

// hasTable reports whether a table of that name exists.
func hasTable(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, name string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?`, name).Scan(&n)
	return n > 0, err
}

// ftsTables returns the names of every project's full-text table.
func ftsTables(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type='table' AND name GLOB 'chunks_fts_[0-9a-f]*' AND sql LIKE 'CREATE VIRTUAL TABLE%'`)
	if err != nil {
		return nil, err
	}
	return store.Collect(rows, store.ScanString)
}
