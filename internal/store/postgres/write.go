package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/coderag/coderag/internal/store"
)

// WriteFiles is store.ReplaceFiles' body on PostgreSQL: a file's chunks in
// one statement (pgInsertChunks), full-text statistics, vectors and
// relations of the batch at the end (pgFTS.flush).
func (s *backend) WriteFiles(ctx context.Context, tx *sql.Tx, project string, files []store.FileData, remove []string) error {
	for _, p := range remove {
		if err := deleteFile(ctx, tx, project, p); err != nil {
			return fmt.Errorf("remove %s: %w", p, err)
		}
	}
	var pgFTS ftsBatch
	now := time.Now().UnixNano()
	for _, f := range files {
		path := f.Record.Path
		if err := deleteFile(ctx, tx, project, path); err != nil {
			return fmt.Errorf("replace %s: %w", path, err)
		}
		r := f.Record
		var fileID int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO indexed_files(project_path, file_path, content_sha256,
			embedding_model, size, mtime_ns, language, chunk_count, indexed_at, analysis) VALUES(?,?,?,?,?,?,?,?,?,?) RETURNING id`,
			project, path, r.SHA256, r.Embedder, r.Size, r.MtimeNS, f.Language, len(f.Chunks), now, max(r.Analysis, 1)).Scan(&fileID); err != nil {
			return fmt.Errorf("fingerprint %s: %w", path, err)
		}
		ids, err := pgInsertChunks(ctx, tx, fileID, f.Chunks)
		if err != nil {
			return fmt.Errorf("insert chunks %s: %w", path, err)
		}
		var pack store.VectorPack
		for i, c := range f.Chunks {
			if len(c.Vector) > 0 {
				if err := pack.Add(ids[i], c, path); err != nil {
					return err
				}
			}
			pgFTS.add(ids[i], c)
		}
		if pack.Len() > 0 {
			pgFTS.addVectors(fileID, &pack)
		}
		for _, r := range f.Relations {
			pgFTS.addRelation(fileID, r)
		}
	}
	return pgFTS.flush(ctx, tx, project)
}

// deleteFile deletes the rows of one file: its full-text rows
// (pgDeleteFTS), then the rest (store.DeleteFile).
func deleteFile(ctx context.Context, tx *sql.Tx, project, path string) error {
	if err := pgDeleteFTS(ctx, tx, project, path); err != nil {
		return err
	}
	return store.DeleteFile(ctx, tx, project, path)
}
