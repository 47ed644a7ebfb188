package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Language statistics of a project (package index) are one opaque value
// per project in meta, key "langstats\x00" + project path; the store keeps
// it and never reads inside it.

func langStatsKey(project string) string { return "langstats\x00" + project }

// LangStats returns the language statistics value saved for project by
// PutLangStats; ok is false when there is none.
func (s *Store) LangStats(ctx context.Context, project string) (value string, ok bool, err error) {
	value, ok, err = s.metaValue(ctx, langStatsKey(project))
	if err != nil {
		return "", false, fmt.Errorf("read language stats: %w", err)
	}
	return value, ok, nil
}

// PutLangStats saves project's language statistics value, replacing the
// previous one.
func (s *Store) PutLangStats(ctx context.Context, project, value string) error {
	if err := s.putMeta(ctx, langStatsKey(project), value); err != nil {
		return fmt.Errorf("write language stats: %w", err)
	}
	return nil
}

// metaValue reads the value of meta's key; ok is false when there is no
// such row.
func (s *Store) metaValue(ctx context.Context, key string) (value string, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, key).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return value, true, nil
}

// putMeta sets meta's key to value, replacing the row there was.
func (s *Store) putMeta(ctx context.Context, key, value string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES(?, ?)
		ON CONFLICT(key) DO UPDATE SET value=excluded.value`, key, value)
	return err
}

// FileLanguages returns path -> language of every indexed file of project.
func (s *Store) FileLanguages(ctx context.Context, project string) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT file_path, language FROM indexed_files WHERE project_path=?`, project)
	if err != nil {
		return nil, fmt.Errorf("read file languages: %w", err)
	}
	out := map[string]string{}
	if err := eachRow(rows, func() error {
		var p, l string
		if err := rows.Scan(&p, &l); err != nil {
			return err
		}
		out[p] = l
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read file languages: %w", err)
	}
	return out, nil
}
