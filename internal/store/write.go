package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The SQLite write path of ReplaceFiles, in the order that keeps a batch
// cheap:
//
//  1. the rows of removed files, and of files of the batch that have rows,
//     are deleted (a file new to the index costs one look-up, not six
//     deletes);
//  2. chunk ids are assigned here, from max(id)+1 in order (the ids
//     SQLite would choose), so no insert needs RETURNING;
//  3. chunks, vectors, relations and fingerprints go in with multi-row
//     INSERTs of bulkRows rows (the rest one row at a time: a statement
//     of another length would be parsed anew). A multi-row INSERT opens a
//     statement journal; the connection keeps it in memory
//     (temp_store=MEMORY), where it would otherwise spill to a temporary
//     file past 64 KiB;
//  4. the full-text rows go in last, one prepared single-row INSERT each.
//
// The order of 3 and 4 matters. FTS5 keeps the terms of a transaction in
// memory and writes them as one segment at commit; but every statement
// that opens a statement journal (a multi-row INSERT, RETURNING, which is
// a trigger) makes SQLite call the savepoint method of each virtual table
// written in the transaction, and FTS5 flushes its pending terms to a new
// segment there. Interleaved, that was one segment (and later merges) per
// chunk: a tenth of the CPU of indexing tokio. A single-row INSERT into
// the FTS table opens no statement journal.

// bulkRows is how many rows one multi-row INSERT carries (at most 18
// columns each: 1,800 variables, far below SQLite's 32,766).
const bulkRows = 100

// bulkInsert buffers the rows of one table and writes them with multi-row
// INSERT statements of bulkRows rows (one prepared statement) and one
// shorter statement for the rest.
type bulkInsert struct {
	tx   *sql.Tx
	head string // "INSERT INTO t(a, b, c) VALUES"
	cols int
	full *sql.Stmt // bulkRows rows, prepared on first use
	args []any
}

func newBulk(tx *sql.Tx, table string, cols ...string) *bulkInsert {
	return &bulkInsert{tx: tx, head: `INSERT INTO ` + table + `(` + strings.Join(cols, ", ") + `) VALUES`, cols: len(cols)}
}

// values returns the VALUES list of n rows.
func (b *bulkInsert) values(n int) string {
	row := "(?" + strings.Repeat(",?", b.cols-1) + ")"
	return b.head + row + strings.Repeat(","+row, n-1)
}

// add buffers one row (exactly cols values) and writes the buffer when it
// holds bulkRows rows.
func (b *bulkInsert) add(ctx context.Context, vals ...any) error {
	b.args = append(b.args, vals...)
	if len(b.args) < bulkRows*b.cols {
		return nil
	}
	if b.full == nil {
		st, err := b.tx.PrepareContext(ctx, b.values(bulkRows))
		if err != nil {
			return err
		}
		b.full = st
	}
	_, err := b.full.ExecContext(ctx, b.args...)
	b.args = b.args[:0]
	return err
}

// flush writes the rows still buffered.
func (b *bulkInsert) flush(ctx context.Context) error {
	if len(b.args) == 0 {
		return nil
	}
	one, err := b.tx.PrepareContext(ctx, b.values(1))
	if err != nil {
		return err
	}
	defer one.Close()
	for i := 0; i < len(b.args); i += b.cols {
		if _, err := one.ExecContext(ctx, b.args[i:i+b.cols]...); err != nil {
			return err
		}
	}
	b.args = b.args[:0]
	return nil
}

// writeFiles is replaceFiles' body on SQLite (see the top of this file).
func (s *Store) writeFiles(ctx context.Context, tx *sql.Tx, project string, files []FileData, remove []string) error {
	if err := ensureFTS(ctx, tx, project); err != nil {
		return err
	}
	for _, p := range remove {
		if err := s.deleteFile(ctx, tx, project, p); err != nil {
			return fmt.Errorf("remove %s: %w", p, err)
		}
	}
	if len(files) == 0 {
		return nil
	}
	files = lastOfEachPath(files)
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Record.Path
	}
	stored, err := pathsWithRows(ctx, tx, project, paths)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if stored[p] {
			if err := s.deleteFile(ctx, tx, project, p); err != nil {
				return fmt.Errorf("replace %s: %w", p, err)
			}
		}
	}
	var next, nextFile int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM code_chunks`).Scan(&next); err != nil {
		return fmt.Errorf("next chunk id: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM indexed_files`).Scan(&nextFile); err != nil {
		return fmt.Errorf("next file id: %w", err)
	}
	chunks := newBulk(tx, "code_chunks", "id", "file_id", "chunk_type", "name", "owner",
		"symbol", "params", "signature", "language", "doc", "start_line", "end_line", "decl_end_line", "start_byte", "end_byte",
		"content", "embedding_model")
	vecs := newBulk(tx, "code_vectors", "file_id", "embedder", "n", "ids", "vecs")
	rels := newBulk(tx, "code_relations", "file_id", "from_id", "to_id", "relation_type", "line", "plain")
	names := map[string]int64{}
	for _, f := range files {
		for _, r := range f.Relations {
			names[r.From], names[r.To] = 0, 0
		}
	}
	if err := nameIDs(ctx, tx, false, names); err != nil {
		return err
	}
	recs := newBulk(tx, "indexed_files", "id", "project_path", "file_path", "content_sha256", "embedding_model", "size", "mtime_ns",
		"language", "chunk_count", "indexed_at", "analysis")
	all := []*bulkInsert{chunks, vecs, rels, recs}
	defer func() {
		for _, b := range all {
			if b.full != nil {
				b.full.Close()
			}
		}
	}()
	now := time.Now().UnixNano()
	first := next
	for _, f := range files {
		path := f.Record.Path
		fileID := nextFile
		nextFile++
		var pack vecPack
		emb := ""
		for _, c := range f.Chunks {
			id := next
			next++
			if err := chunks.add(ctx, id, fileID, c.Type, c.Name, c.Owner, c.Symbol, c.Params, c.Signature, c.Language,
				c.Doc, c.StartLine, c.EndLine, c.DeclEndLine, c.StartByte, c.EndByte, c.Content, c.Embedder); err != nil {
				return fmt.Errorf("insert chunks %s: %w", path, err)
			}
			if len(c.Vector) > 0 {
				if err := packable(&emb, &pack, c, path); err != nil {
					return err
				}
				pack.addFloats(id, c.Vector)
			}
		}
		if pack.n > 0 {
			if err := vecs.add(ctx, fileID, emb, pack.n, pack.ids, pack.vecs); err != nil {
				return fmt.Errorf("insert vectors %s: %w", path, err)
			}
		}
		for _, r := range f.Relations {
			if err := rels.add(ctx, fileID, names[r.From], names[r.To], r.Kind, r.Line, int(r.Form)); err != nil {
				return fmt.Errorf("insert relations %s: %w", path, err)
			}
		}
		r := f.Record
		if err := recs.add(ctx, fileID, project, path, r.SHA256, r.Embedder, r.Size, r.MtimeNS, f.Language, len(f.Chunks), now,
			max(r.Analysis, 1)); err != nil {
			return fmt.Errorf("fingerprint %s: %w", path, err)
		}
	}
	for _, b := range all {
		if err := b.flush(ctx); err != nil {
			return fmt.Errorf("insert rows: %w", err)
		}
	}
	// last: see the top of this file
	ins, err := tx.PrepareContext(ctx, `INSERT INTO `+ftsTable(project)+`(rowid, name, owner, path, doc, body) VALUES(?,?,?,?,?,?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	id := first
	for _, f := range files {
		for _, c := range f.Chunks {
			if _, err := ins.ExecContext(ctx, id, c.NameTerms, c.OwnerTerms, c.PathTerms, c.DocTerms, c.BodyTerms); err != nil {
				return fmt.Errorf("insert fts %s: %w", f.Record.Path, err)
			}
			id++
		}
	}
	return nil
}

// lastOfEachPath returns files without the earlier entries of a path that
// appears more than once (the last one is the file's new state), in order.
func lastOfEachPath(files []FileData) []FileData {
	last := make(map[string]int, len(files))
	for i, f := range files {
		last[f.Record.Path] = i
	}
	if len(last) == len(files) {
		return files
	}
	out := make([]FileData, 0, len(last))
	for i, f := range files {
		if last[f.Record.Path] == i {
			out = append(out, f)
		}
	}
	return out
}

// packable checks that chunk c's vector can join the file's pack: the
// vectors of one file share its code_vectors row, so they must come from
// one embedder (*emb, set by the first) and have one dimension.
func packable(emb *string, p *vecPack, c ChunkRow, path string) error {
	if p.n == 0 {
		*emb = c.Embedder
		return nil
	}
	if c.Embedder != *emb || (len(p.vecs)/p.n != vecHeader+len(c.Vector)) {
		return fmt.Errorf("insert vectors %s: chunks embedded by %s (%d values) and %s (%d values) in one file",
			path, *emb, len(p.vecs)/p.n-vecHeader, c.Embedder, len(c.Vector))
	}
	return nil
}

// pathsWithRows returns which of paths have a fingerprint in project
// (chunks, relations and vectors hang on the fingerprint's id).
func pathsWithRows(ctx context.Context, tx *sql.Tx, project string, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	const step = 300
	for i := 0; i < len(paths); i += step {
		part := paths[i:min(i+step, len(paths))]
		in := "(?" + strings.Repeat(",?", len(part)-1) + ")"
		args := make([]any, 0, len(part)+1)
		args = append(args, project)
		for _, p := range part {
			args = append(args, p)
		}
		rows, err := tx.QueryContext(ctx, `SELECT file_path FROM indexed_files WHERE project_path=? AND file_path IN `+in, args...)
		if err != nil {
			return nil, fmt.Errorf("look up stored files: %w", err)
		}
		paths, err := collect(rows, scanString)
		if err != nil {
			return nil, fmt.Errorf("look up stored files: %w", err)
		}
		for _, p := range paths {
			out[p] = true
		}
	}
	return out, nil
}

// nameIDs sets the code_names id of every name of names (its keys),
// adding the names not stored yet; on SQLite their ids are assigned here
// from max(id)+1, on PostgreSQL by the identity column. Names are added
// in byte order, so two PostgreSQL writers adding the same new names lock
// them in one order and cannot deadlock.
func nameIDs(ctx context.Context, tx *sql.Tx, pg bool, names map[string]int64) error {
	if len(names) == 0 {
		return nil
	}
	// PostgreSQL stores a name made storable (pgText); look it up by that
	key := func(n string) string { return n }
	if pg {
		key = pgText
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, key(n))
	}
	slices.Sort(list)
	list = slices.Compact(list)
	byKey := make(map[string]int64, len(list))
	lookup := func(part []string) error {
		var rows *sql.Rows
		var err error
		if pg {
			rows, err = tx.QueryContext(ctx, `SELECT id, name FROM code_names WHERE name = ANY(?::text[])`, part)
		} else {
			args := make([]any, len(part))
			for i, n := range part {
				args[i] = n
			}
			rows, err = tx.QueryContext(ctx, `SELECT id, name FROM code_names WHERE name IN (?`+strings.Repeat(",?", len(part)-1)+`)`, args...)
		}
		if err != nil {
			return fmt.Errorf("look up names: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var n string
			if err := rows.Scan(&id, &n); err != nil {
				return fmt.Errorf("look up names: %w", err)
			}
			byKey[n] = id
		}
		return rows.Err()
	}
	const step = 500
	for i := 0; i < len(list); i += step {
		if err := lookup(list[i:min(i+step, len(list))]); err != nil {
			return err
		}
	}
	var missing []string
	for _, n := range list {
		if _, ok := byKey[n]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		if pg {
			if _, err := tx.ExecContext(ctx, `INSERT INTO code_names(name) SELECT n FROM unnest(?::text[]) AS u(n) ORDER BY n
				ON CONFLICT (name) DO NOTHING`, missing); err != nil {
				return fmt.Errorf("add names: %w", err)
			}
			for i := 0; i < len(missing); i += step {
				if err := lookup(missing[i:min(i+step, len(missing))]); err != nil {
					return err
				}
			}
		} else {
			var next int64
			if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM code_names`).Scan(&next); err != nil {
				return fmt.Errorf("next name id: %w", err)
			}
			ins := newBulk(tx, "code_names", "id", "name")
			for _, n := range missing {
				byKey[n] = next
				if err := ins.add(ctx, next, n); err != nil {
					return fmt.Errorf("add names: %w", err)
				}
				next++
			}
			err := ins.flush(ctx)
			if ins.full != nil {
				ins.full.Close()
			}
			if err != nil {
				return fmt.Errorf("add names: %w", err)
			}
		}
	}
	for n := range names {
		id, ok := byKey[key(n)]
		if !ok {
			return fmt.Errorf("add names: %q has no id", n)
		}
		names[n] = id
	}
	return nil
}
