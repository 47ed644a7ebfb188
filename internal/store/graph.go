package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/coderag/coderag/internal/lang"
)

// Read queries for the relation graph (package relate) and for tools that
// name symbols. Relation lookups are served by the indexes
// code_relations_from and code_relations_to (by name id, from code_names'
// unique key, then the file's project is checked through indexed_files'
// primary key) and
// code_relations_file (a project's or a file's relations: its files by
// indexed_files' unique key, then their relations);
// Definitions reads the project's code_chunks rows once per query session
// (only the leading short columns, never content or embedding).

// DefRow is a definition chunk (class, method, function or macro) without its
// content: enough to name it and point at it.
type DefRow struct {
	ID        int64
	Path      string
	Type      string // "class", "method", "function" or "macro"
	Name      string // the chunk name as the chunker wrote it
	Owner     string // chunk.Symbol.Owner
	Symbol    string // chunk.Symbol.Name: the bare name
	Params    string // chunk.Symbol.Params
	Language  string
	StartLine int
	EndLine   int // last line of the whole declaration (decl_end_line)
}

// Definitions returns every class, method, function and macro chunk of project,
// ordered by path and start line.
func (s *Store) Definitions(ctx context.Context, project string) ([]DefRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, f.file_path, c.chunk_type, c.name, c.owner, c.symbol, c.params,
		c.language, c.start_line, c.decl_end_line FROM indexed_files f JOIN code_chunks c ON c.file_id = f.id
		WHERE f.project_path=? AND c.chunk_type IN ('class','method','function','macro')`, project)
	if err != nil {
		return nil, fmt.Errorf("load definitions: %w", err)
	}
	// one row's destinations, made once: the name's parts are read from
	// the name scanned before them (partScan)
	var d DefRow
	dst := []any{&d.ID, &d.Path, &d.Type, &d.Name, &d.Owner, &partScan{&d.Name, &d.Symbol}, &partScan{&d.Name, &d.Params},
		&d.Language, &d.StartLine, &d.EndLine}
	out, err := collect(rows, func(rows *sql.Rows) (DefRow, error) {
		d = DefRow{}
		err := rows.Scan(dst...)
		return d, err
	})
	if err != nil {
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
func (s *Store) RelationsFrom(ctx context.Context, project string, names, kinds []string) ([]RelationRow, error) {
	return s.relationsBy(ctx, project, "from_id", names, kinds)
}

// RelationsTo is RelationsFrom on the to_name side.
func (s *Store) RelationsTo(ctx context.Context, project string, names, kinds []string) ([]RelationRow, error) {
	return s.relationsBy(ctx, project, "to_id", names, kinds)
}

// RelationsOfFile returns the relations of one file with the given kinds
// (all kinds when kinds is empty), in the order of RelationsFrom.
func (s *Store) RelationsOfFile(ctx context.Context, project, path string, kinds []string) ([]RelationRow, error) {
	return s.relationsBy(ctx, project, "f.file_path", []string{path}, kinds)
}

func (s *Store) relationsBy(ctx context.Context, project, col string, names, kinds []string) ([]RelationRow, error) {
	if len(names) == 0 {
		return nil, nil
	}
	// By name, the names and then the relations drive the join (CROSS
	// JOIN fixes SQLite's join order; PostgreSQL plans it as an inner
	// join): with a dozen names SQLite's planner would otherwise walk every
	// file of the project and all its relations (70 ms instead of 3 on
	// GOROOT/src/runtime). By file, the file drives it.
	var q string
	var args []any
	if col == "f.file_path" {
		q = `indexed_files f JOIN code_relations r ON r.file_id = f.id
			JOIN code_names a ON a.id = r.from_id JOIN code_names b ON b.id = r.to_id
			WHERE f.project_path=? AND f.file_path IN (?` + strings.Repeat(",?", len(names)-1) + `)`
		args = append(args, project)
		for _, n := range names {
			args = append(args, n)
		}
	} else {
		in, inArgs := s.b.NamesIn("n", names)
		q = `code_names n CROSS JOIN code_relations r CROSS JOIN indexed_files f
			JOIN code_names a ON a.id = r.from_id JOIN code_names b ON b.id = r.to_id
			WHERE ` + in + ` AND r.` + col + ` = n.id
			AND f.id = r.file_id AND f.project_path=?`
		args = append(inArgs, project)
	}
	if len(kinds) > 0 {
		q += ` AND r.relation_type IN (?` + strings.Repeat(",?", len(kinds)-1) + `)`
		for _, k := range kinds {
			args = append(args, k)
		}
	}
	// No ORDER BY: it would make SQLite walk code_relations_file (every
	// relation of the project) instead of the from/to index. Sorted below.
	var out []RelationRow
	// read in place where the backend can (a search reads the calls of
	// its thin candidates)
	ok, err := s.eachRowInPlace(ctx, relationCols, q, args, func(v []driver.Value) error {
		line, _ := v[4].(int64)
		plain, _ := v[5].(int64)
		form, args := lang.UnpackCall(plain)
		out = append(out, RelationRow{Path: strings.Clone(TextArg(v[0])), From: strings.Clone(TextArg(v[1])),
			To: strings.Clone(TextArg(v[2])), Kind: strings.Clone(TextArg(v[3])), Line: int(line), Form: form, Args: args})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("relations by %s: %w", col, err)
	}
	if !ok {
		rows, err := s.db.QueryContext(ctx, `SELECT `+relationCols+` FROM `+q, args...)
		if err != nil {
			return nil, fmt.Errorf("relations by %s: %w", col, err)
		}
		if out, err = collect(rows, scanRelation); err != nil {
			return nil, fmt.Errorf("relations by %s: %w", col, err)
		}
	}
	SortRelations(out)
	return out, nil
}

// SortRelations puts rows in the order the store returns relations in:
// by path, line, kind, from and to.
func SortRelations(rows []RelationRow) {
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
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
}

// CallRelations calls fn with every "calls" relation of project, in no
// particular order; fn returning false stops the scan. Errors are the
// query's, wrapped.
func (s *Store) CallRelations(ctx context.Context, project string, fn func(RelationRow) bool) error {
	rows, err := s.db.QueryContext(ctx, `SELECT f.file_path, a.name, b.name, r.relation_type, r.line, r.plain
		FROM indexed_files f JOIN code_relations r ON r.file_id = f.id
		JOIN code_names a ON a.id = r.from_id JOIN code_names b ON b.id = r.to_id
		WHERE f.project_path=? AND r.relation_type='calls'`, project)
	if err != nil {
		return fmt.Errorf("call relations: %w", err)
	}
	if err := eachRow(rows, func() error {
		r, err := scanRelation(rows)
		if err != nil {
			return err
		}
		if !fn(r) {
			return errStop
		}
		return nil
	}); err != nil {
		return fmt.Errorf("call relations: %w", err)
	}
	return nil
}

// RelationNamesLike returns up to n distinct from/to names of project's
// relations that contain sub (case-insensitively for ASCII, as SQLite
// LIKE; '%', '_' and '\' in sub are literal), shortest first, then in byte
// order.
func (s *Store) RelationNamesLike(ctx context.Context, project, sub string, n int) ([]string, error) {
	pat := "%" + likeEscape(sub) + "%"
	like := s.b.Like() // PostgreSQL's LIKE is case-sensitive
	// the names that match, then whether one of the project's relations
	// uses them (by the from/to indexes and indexed_files' key)
	rows, err := s.db.QueryContext(ctx, `SELECT n.name FROM code_names n WHERE n.name `+like+` ? ESCAPE '\'
		AND (EXISTS (SELECT 1 FROM code_relations r JOIN indexed_files f ON f.id = r.file_id
				WHERE r.from_id = n.id AND f.project_path = ?)
			OR EXISTS (SELECT 1 FROM code_relations r JOIN indexed_files f ON f.id = r.file_id
				WHERE r.to_id = n.id AND f.project_path = ?))
		ORDER BY length(n.name), n.name LIMIT ?`, pat, project, project, n)
	if err != nil {
		return nil, fmt.Errorf("relation names like %q: %w", sub, err)
	}
	out, err := collect(rows, scanString)
	if err != nil {
		return nil, fmt.Errorf("relation names like %q: %w", sub, err)
	}
	return out, nil
}

// DataVersion returns a token that changes with every write of project's
// rows (meta data_version:PROJECT, bumped by ReplaceFiles and
// RemoveProject, never reset), so a reader can cache what it loaded of
// the project and reload when the token differs; "" for a project never
// written. Writes to other projects leave it unchanged.
func (s *Store) DataVersion(ctx context.Context, project string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, versionKey(project)).Scan(&v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("read index version of %s: %w", project, err)
	}
	return v, nil
}

// relationCols are the columns of relationsBy's rows, in scanRelation's
// order.
const relationCols = `f.file_path, a.name, b.name, r.relation_type, r.line, r.plain`

// scanRelation scans a row of (file_path, from_name, to_name,
// relation_type, line, plain).
func scanRelation(rows *sql.Rows) (RelationRow, error) {
	var r RelationRow
	var plain int64
	if err := rows.Scan(&r.Path, &r.From, &r.To, &r.Kind, &r.Line, &plain); err != nil {
		return r, err
	}
	r.Form, r.Args = lang.UnpackCall(plain)
	return r, nil
}
