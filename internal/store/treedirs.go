package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// The tree listing: what the last walk of a project found in each of its
// directories (walk.Listing), so the next walk re-lists only the
// directories whose mtime changed, as git's untracked cache does.
//
//	tree_dirs(project_path, dir_path, data)   one row per directory the walk
//	                                          entered; data is walk's own
//	                                          encoding, opaque to the store
//	meta.tree_listing:PROJECT                 the listing's header (format
//	                                          version, options, time taken)
//
// The listing caches the tree, not the index: it is never out of step with
// the indexed rows, only possibly with the tree, which the walk checks.

// DirRow is one directory of a stored tree listing: Dir is root-relative
// ("" for the root), Data what walk.Listing wrote for it.
type DirRow struct {
	Dir  string
	Data string
}

// treeKey is the meta key of project's tree listing header.
func treeKey(project string) string { return "tree_listing:" + project }

// TreeListing returns the stored tree listing of project: its header and
// rows, by directory. A project without one has header "" and no rows;
// errors are the database's.
func (s *Store) TreeListing(ctx context.Context, project string) (string, []DirRow, error) {
	var header string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, treeKey(project)).Scan(&header)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("read tree listing: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT dir_path, data FROM tree_dirs WHERE project_path=?`, project)
	if err != nil {
		return "", nil, fmt.Errorf("read tree listing: %w", err)
	}
	out, err := collect(rows, func(rows *sql.Rows) (DirRow, error) {
		var r DirRow
		err := rows.Scan(&r.Dir, &r.Data)
		return r, err
	})
	if err != nil {
		return "", nil, fmt.Errorf("read tree listing: %w", err)
	}
	return header, out, nil
}

// PutTreeListing replaces project's tree listing with header and rows in
// one transaction; header "" removes it. Errors are the database's.
func (s *Store) PutTreeListing(ctx context.Context, project, header string, rows []DirRow) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("write tree listing: %w", err)
	}
	defer tx.Rollback()
	if err := deleteTreeListing(ctx, tx, project); err != nil {
		return err
	}
	if header != "" {
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES(?,?)`, treeKey(project), header); err != nil {
			return fmt.Errorf("write tree listing: %w", err)
		}
		st, err := tx.PrepareContext(ctx, `INSERT INTO tree_dirs(project_path, dir_path, data) VALUES(?,?,?)`)
		if err != nil {
			return fmt.Errorf("write tree listing: %w", err)
		}
		defer st.Close()
		for _, r := range rows {
			if _, err := st.ExecContext(ctx, project, r.Dir, r.Data); err != nil {
				return fmt.Errorf("write tree listing %q: %w", r.Dir, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write tree listing: %w", err)
	}
	return nil
}

// deleteTreeListing removes project's tree listing inside tx.
func deleteTreeListing(ctx context.Context, tx *sql.Tx, project string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM tree_dirs WHERE project_path=?`, project); err != nil {
		return fmt.Errorf("delete tree listing: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key=?`, treeKey(project)); err != nil {
		return fmt.Errorf("delete tree listing: %w", err)
	}
	return nil
}
