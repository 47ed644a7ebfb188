package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
)

// The fingerprint key: what a caller that keeps a copy of a project's
// fingerprints (index's snapshot file) compares to know that its copy is
// still the index's. It is two meta values of the project:
//
//	data_version:PROJECT   bumped by every ReplaceFiles and RemoveProject
//	                       (bumpVersion), by this coderag and older ones
//	files_token:PROJECT    a random token, set anew by every write of the
//	                       project's fingerprints (ReplaceFiles,
//	                       RemoveProject, TouchFiles)
//
// A key read before a caller reads the fingerprints and read again, equal,
// after, says that no write of them committed in between (neither value
// ever comes back: the version only grows, the token is random, so a
// database made anew in the same place has other keys). An older coderag
// writing the same schema bumps data_version on every write of rows but
// leaves the token as it is when it only touches (TouchFiles: size and
// mtime of a file whose content was unchanged); a copy stale that way
// holds an older stat, which makes the file look changed, never unchanged.

// filesTokenKey is the meta key of project's fingerprint token.
func filesTokenKey(project string) string { return "files_token:" + project }

// newFilesToken sets project's fingerprint token to a new random value in
// tx (see FilesKey).
func newFilesToken(ctx context.Context, tx *sql.Tx, project string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES(?,?)
		ON CONFLICT(key) DO UPDATE SET value=excluded.value`, filesTokenKey(project), randomToken())
	return err
}

// randomToken returns 128 random bits in hex.
func randomToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b[:])
}

// FilesKey returns project's fingerprint key: a string that changes with
// every committed write of the project's fingerprints (see the comment
// above), "" when the project has no token yet (an index written before
// tokens, or a project never written; EnsureFilesKey makes one). Errors
// are the database's.
func (s *Store) FilesKey(ctx context.Context, project string) (string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM meta WHERE key IN (?,?)`, versionKey(project), filesTokenKey(project))
	if err != nil {
		return "", fmt.Errorf("read fingerprint key: %w", err)
	}
	var version, token string
	err = eachRow(rows, func() error {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		if k == versionKey(project) {
			version = v
		} else {
			token = v
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read fingerprint key: %w", err)
	}
	if token == "" {
		return "", nil
	}
	return version + "/" + token, nil
}

// EnsureFilesKey returns project's fingerprint key (FilesKey), first
// giving the project a token when it has none (a short write). Errors are
// the database's (a read-only index cannot be given one).
func (s *Store) EnsureFilesKey(ctx context.Context, project string) (string, error) {
	if k, err := s.FilesKey(ctx, project); err != nil || k != "" {
		return k, err
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES(?,?) ON CONFLICT(key) DO NOTHING`,
		filesTokenKey(project), randomToken())
	if err != nil {
		return "", fmt.Errorf("write fingerprint key: %w", err)
	}
	return s.FilesKey(ctx, project)
}

// SidePath returns the file project.ext beside a local index, in which a
// caller may keep what it derives of the project (index's fingerprint
// snapshot and tree listing): <dir of the database>/fresh/<sha256(name of
// the database, NUL, project)[:8] in hex>.<ext>, so that two databases in
// one directory keep theirs apart. It is "" for a database that is not a
// local file (PostgreSQL, in memory): there is no place beside it that
// every process using it shares.
func (s *Store) SidePath(project, ext string) string {
	if s.remote || s.path == "" || s.path == ":memory:" || IsPostgres(s.path) {
		return ""
	}
	sum := sha256.Sum256([]byte(filepath.Base(s.path) + "\x00" + project))
	return filepath.Join(filepath.Dir(s.path), "fresh", hex.EncodeToString(sum[:8])+"."+ext)
}
