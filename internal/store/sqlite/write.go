package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/store"
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

// WriteFiles is store.ReplaceFiles' body on SQLite (see the top of this
// file).
func (s *backend) WriteFiles(ctx context.Context, tx *sql.Tx, project string, files []store.FileData, remove []string) error {
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
	if err := store.NameIDs(ctx, tx, nameTable{}, names); err != nil {
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
		var pack store.VectorPack
		for _, c := range f.Chunks {
			id := next
			next++
			content, doc := c.Encoded, c.EncodedDoc
			if content == nil {
				var err error
				if content, doc, err = store.EncodeChunkText(c.Content, c.Doc); err != nil {
					return fmt.Errorf("insert chunks %s: %w", path, err)
				}
			}
			// the embedder is the file's (indexed_files.embedding_model,
			// which chunk reads take): none is stored per chunk; symbol,
			// params and signature point into the name where they can
			if err := chunks.add(ctx, id, fileID, c.Type, c.Name, c.Owner, store.EncodeNamePart(c.Name, c.Symbol),
				store.EncodeNamePart(c.Name, c.Params), store.EncodeNamePart(c.Name, c.Signature), c.Language,
				doc, c.StartLine, c.EndLine, c.DeclEndLine, c.StartByte, c.EndByte, content, ""); err != nil {
				return fmt.Errorf("insert chunks %s: %w", path, err)
			}
			if len(c.Vector) > 0 {
				if err := pack.Add(id, c, path); err != nil {
					return err
				}
			}
		}
		if pack.Len() > 0 {
			if err := vecs.add(ctx, fileID, pack.Embedder(), pack.Len(), pack.IDs(), pack.Vecs()); err != nil {
				return fmt.Errorf("insert vectors %s: %w", path, err)
			}
		}
		for _, r := range f.Relations {
			if err := rels.add(ctx, fileID, names[r.From], names[r.To], r.Kind, r.Line, lang.PackCall(r.Form, r.Args)); err != nil {
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
func lastOfEachPath(files []store.FileData) []store.FileData {
	last := make(map[string]int, len(files))
	for i, f := range files {
		last[f.Record.Path] = i
	}
	if len(last) == len(files) {
		return files
	}
	out := make([]store.FileData, 0, len(last))
	for i, f := range files {
		if last[f.Record.Path] == i {
			out = append(out, f)
		}
	}
	return out
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
		paths, err := store.Collect(rows, store.ScanString)
		if err != nil {
			return nil, fmt.Errorf("look up stored files: %w", err)
		}
		for _, p := range paths {
			out[p] = true
		}
	}
	return out, nil
}
