package store

import (
	"context"
	"database/sql"
	"fmt"
)

// CallRelations calls fn with every "calls" relation of project, in no
// particular order; fn returning false stops the scan. Errors are the
// query's, wrapped.
func CallRelations(ctx context.Context, db *sql.DB, project string, fn func(RelationRow) bool) error {
	rows, err := db.QueryContext(ctx, `SELECT file_path, from_name, to_name, relation_type, line, plain FROM code_relations
		WHERE project_path=? AND relation_type='calls'`, project)
	if err != nil {
		return fmt.Errorf("call relations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r RelationRow
		var form int
		if err := rows.Scan(&r.Path, &r.From, &r.To, &r.Kind, &r.Line, &form); err != nil {
			return fmt.Errorf("call relations: %w", err)
		}
		r.SetCallForm(form)
		if !fn(r) {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("call relations: %w", err)
	}
	return nil
}
