package store

import (
	"context"
	"fmt"
	"strings"
)

// The model probe of a project (package index) is one opaque value in
// meta, key "modelprobe\x00" + project path: the vector a remote embedder
// gave a fixed text, and the embedder id it was given under, so that a
// later run can tell that the model behind the same id was replaced. The
// store keeps it and never reads inside it. A project without one (indexed
// before it was kept, or by an in-process embedder) has no row.

// modelProbeKey is the meta key of project's model probe.
func modelProbeKey(project string) string { return "modelprobe\x00" + project }

// RetiredMark ends the embedder id RetireVectors gives the vectors and
// fingerprints of a model replaced behind the same id (RetiredID).
const RetiredMark = " (replaced model)"

// RetiredID is the embedder id under which RetireVectors keeps the
// vectors of id's model once another model answers under id: not id, so
// searches (which read the vectors of the project's embedder) pass them
// over and index runs (whose fingerprints of them are not current) embed
// their files again.
func RetiredID(id string) string { return id + RetiredMark }

// RetiredOf returns the embedder id a RetiredID was made of; ok is false
// for any other id.
func RetiredOf(label string) (id string, ok bool) {
	return strings.CutSuffix(label, RetiredMark)
}

// ModelProbe returns the model probe saved for project by PutModelProbe
// or RetireVectors; ok is false when there is none.
func (s *Store) ModelProbe(ctx context.Context, project string) (value string, ok bool, err error) {
	value, ok, err = s.metaValue(ctx, modelProbeKey(project))
	if err != nil {
		return "", false, fmt.Errorf("read model probe: %w", damaged(err))
	}
	return value, ok, nil
}

// PutModelProbe saves project's model probe, replacing the previous one.
func (s *Store) PutModelProbe(ctx context.Context, project, value string) error {
	if err := s.putMeta(ctx, modelProbeKey(project), value); err != nil {
		return fmt.Errorf("write model probe: %w", damaged(err))
	}
	return nil
}

// RetireVectors records that the model behind embedder (an id) was
// replaced: in one transaction, project's fingerprints recording embedder
// and the vectors made by it are given RetiredID(embedder) instead, and
// probe becomes the project's model probe (PutModelProbe). It returns how
// many files it retired. The project's data version is bumped and its
// fingerprint key changes (FilesKey), as for any write of its rows.
//
// Fingerprints recording embedder with a text analysis ("ID+ANALYSIS",
// in-process embedders only) are left as they are: a remote embedder's
// are the bare id.
func (s *Store) RetireVectors(ctx context.Context, project, embedder, probe string) (int, error) {
	retired := RetiredID(embedder)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("retire vectors: begin: %w", damaged(err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE code_vectors SET embedder=? WHERE embedder=?
		AND file_id IN (SELECT id FROM indexed_files WHERE project_path=?)`, retired, embedder, project); err != nil {
		return 0, fmt.Errorf("retire vectors: %w", damaged(err))
	}
	res, err := tx.ExecContext(ctx, `UPDATE indexed_files SET embedding_model=? WHERE project_path=? AND embedding_model=?`,
		retired, project, embedder)
	if err != nil {
		return 0, fmt.Errorf("retire vectors: %w", damaged(err))
	}
	n, _ := res.RowsAffected()
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES(?, ?)
		ON CONFLICT(key) DO UPDATE SET value=excluded.value`, modelProbeKey(project), probe); err != nil {
		return 0, fmt.Errorf("retire vectors: %w", damaged(err))
	}
	if err := bumpVersion(ctx, tx, project); err != nil {
		return 0, fmt.Errorf("retire vectors: %w", damaged(err))
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("retire vectors: %w", damaged(err))
	}
	return int(n), nil
}
