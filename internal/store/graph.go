package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
)

// Read queries for the relation graph (package relate). They take a *sql.DB
// so that relate can be handed Store.DB(). Relation lookups are served by the
// indexes code_relations_from, code_relations_to and code_relations_file;
// Definitions reads the project's code_chunks rows once per query session
// (only the leading short columns, never content or embedding).

// DefRow is a definition chunk (class, method or function) without its
// content: enough to name it and point at it.
type DefRow struct {
	ID        int64
	Path      string
	Type      string // "class", "method" or "function"
	Name      string
	Owner     string
	Language  string
	StartLine int
	EndLine   int // last line of the whole declaration (decl_end_line)
}

// Definitions returns every class, method and function chunk of project,
// ordered by path and start line.
func Definitions(ctx context.Context, db *sql.DB, project string) ([]DefRow, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, file_path, chunk_type, name, owner, language, start_line, decl_end_line
		FROM code_chunks WHERE project_path=? AND chunk_type IN ('class','method','function')`, project)
	if err != nil {
		return nil, fmt.Errorf("load definitions: %w", err)
	}
	defer rows.Close()
	var out []DefRow
	for rows.Next() {
		var d DefRow
		if err := rows.Scan(&d.ID, &d.Path, &d.Type, &d.Name, &d.Owner, &d.Language, &d.StartLine, &d.EndLine); err != nil {
			return nil, fmt.Errorf("load definitions: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load definitions: %w", err)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.StartLine != b.StartLine {
			return a.StartLine < b.StartLine
		}
		return a.ID < b.ID
	})
	return out, nil
}

// RelationsFrom returns the relations of project whose from_name is one of
// names and whose kind is one of kinds (all kinds when kinds is empty),
// ordered by path, line, kind, from and to.
func RelationsFrom(ctx context.Context, db *sql.DB, project string, names, kinds []string) ([]RelationRow, error) {
	return relationsBy(ctx, db, project, "from_name", names, kinds)
}

// RelationsTo is RelationsFrom on the to_name side.
func RelationsTo(ctx context.Context, db *sql.DB, project string, names, kinds []string) ([]RelationRow, error) {
	return relationsBy(ctx, db, project, "to_name", names, kinds)
}

// RelationsOfFile returns the relations of one file with the given kinds.
func RelationsOfFile(ctx context.Context, db *sql.DB, project, path string, kinds []string) ([]RelationRow, error) {
	return relationsBy(ctx, db, project, "file_path", []string{path}, kinds)
}

func relationsBy(ctx context.Context, db *sql.DB, project, col string, names, kinds []string) ([]RelationRow, error) {
	if len(names) == 0 {
		return nil, nil
	}
	q := `SELECT file_path, from_name, to_name, relation_type, line, plain FROM code_relations
		WHERE project_path=? AND ` + col + ` IN (?` + strings.Repeat(",?", len(names)-1) + `)`
	args := []any{project}
	for _, n := range names {
		args = append(args, n)
	}
	if len(kinds) > 0 {
		q += ` AND relation_type IN (?` + strings.Repeat(",?", len(kinds)-1) + `)`
		for _, k := range kinds {
			args = append(args, k)
		}
	}
	// No ORDER BY: it would make SQLite walk code_relations_file (every
	// relation of the project) instead of the from/to index. Sorted below.
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("relations by %s: %w", col, err)
	}
	defer rows.Close()
	var out []RelationRow
	for rows.Next() {
		var r RelationRow
		var form int
		if err := rows.Scan(&r.Path, &r.From, &r.To, &r.Kind, &r.Line, &form); err != nil {
			return nil, fmt.Errorf("relations by %s: %w", col, err)
		}
		r.SetCallForm(form)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("relations by %s: %w", col, err)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.From != b.From {
			return a.From < b.From
		}
		return a.To < b.To
	})
	return out, nil
}

// RelationCounts returns the number of relations of project per kind.
func RelationCounts(ctx context.Context, db *sql.DB, project string) (map[string]int, error) {
	rows, err := db.QueryContext(ctx, `SELECT relation_type, COUNT(*) FROM code_relations WHERE project_path=? GROUP BY relation_type`, project)
	if err != nil {
		return nil, fmt.Errorf("count relations: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, fmt.Errorf("count relations: %w", err)
		}
		out[k] = n
	}
	return out, rows.Err()
}
