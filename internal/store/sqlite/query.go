package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/coderag/coderag/internal/store"
)

// ftsMatch builds the FTS5 MATCH expression of terms (KeywordSearch): each
// a quoted string (so no text is ever parsed as FTS syntax), joined by OR.
// A NUL byte, which would end the SQL string inside SQLite and leave the
// quote open, is replaced by a space; blank terms are dropped, so no terms
// (or only blank ones) give "".
func ftsMatch(terms []string) string {
	q := make([]string, 0, len(terms))
	for _, t := range terms {
		t = strings.ReplaceAll(t, "\x00", " ")
		if strings.TrimSpace(t) == "" {
			continue
		}
		q = append(q, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
	}
	return strings.Join(q, " OR ")
}

// KeywordSearch is store.Store.KeywordSearch on SQLite: the terms quoted
// into an FTS5 MATCH expression (ftsMatch), over the project's own
// full-text table (fts.go), or the shared one for a project indexed before
// per-project tables.
func (s *backend) KeywordSearch(ctx context.Context, project string, terms []string, w store.FTSWeights, k int) ([]store.Scored, error) {
	match := ftsMatch(terms)
	if match == "" {
		return nil, nil
	}
	t := ftsTable(project)
	ok, err := hasTable(ctx, s.db, t)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	var rows *sql.Rows
	if ok {
		// the project's own table holds only its chunks: no join
		rows, err = s.db.QueryContext(ctx, `SELECT rowid, bm25(`+t+`, ?, ?, ?, ?, ?) AS r
			FROM `+t+` WHERE `+t+` MATCH ? ORDER BY r, rowid LIMIT ?`, w.Name, w.Owner, w.Path, w.Doc, w.Body, match, k)
	} else {
		// indexed before per-project tables (see fts.go)
		rows, err = s.db.QueryContext(ctx, `SELECT c.id, bm25(chunks_fts, ?, ?, ?, ?, ?) AS r
			FROM chunks_fts JOIN code_chunks c ON c.id = chunks_fts.rowid JOIN indexed_files f ON f.id = c.file_id
			WHERE chunks_fts MATCH ? AND f.project_path = ?
			ORDER BY r, c.id LIMIT ?`, w.Name, w.Owner, w.Path, w.Doc, w.Body, match, project, k)
	}
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	return store.Collect(rows, func(rows *sql.Rows) (store.Scored, error) {
		var sc store.Scored
		err := rows.Scan(&sc.ID, &sc.Score)
		sc.Score = -sc.Score // FTS5's bm25 is lower for better
		return sc, err
	})
}

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict ("ok").
func (s *backend) IntegrityCheck(ctx context.Context) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&v)
	return v, err
}
