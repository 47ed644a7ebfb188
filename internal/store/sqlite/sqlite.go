// Package sqlite is the store on SQLite: one file, index.db, holding
// every project, in WAL mode with a busy timeout, so readers (search) run
// while a writer (index) commits. Every write of a batch of files happens
// in one IMMEDIATE transaction. Full-text search is FTS5, one table per
// project (fts.go); one index run per project holds a file lock beside the
// database (lock.go). Importing the package registers it with store.Open
// for every target that is not a PostgreSQL URL.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go, FTS5 built in)

	"github.com/coderag/coderag/internal/store"
)

func init() {
	store.Register(store.SQLite, store.Driver{Open: Open, Check: Check, ReadProjects: ReadProjects})
}

// backend is the SQLite side of a store.Store.
type backend struct {
	db   *sql.DB
	w    *sql.DB // the bulk writer's pool; nil when read-only
	path string
}

var _ store.Backend = (*backend)(nil)

// Open opens (creating if needed) the index at path, sets WAL mode and a 10 s
// busy timeout, and migrates the schema. Errors name the path.
//
// An existing file that cannot be written, or whose directory cannot be,
// is opened read-only (readonly.go): searches and stats work, writes fail.
//
// An existing file is first looked at read-only (see health.go): a file
// that is not SQLite, or an SQLite database without coderag's schema
// marker, is refused with store.ErrForeign and left byte for byte as it
// was; an index at the current schema with a table missing is
// store.ErrDamaged. Both messages say how to go on.
func Open(ctx context.Context, path string) (*store.Store, error) {
	if err := createPrivate(path); err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, diskError(path, err))
	}
	dsn, ro := readOnlyDSN(path)
	if ro {
		// before inspect, which would read the stale main file as damage
		if err := unmergedWAL(path, dsn); err != nil {
			return nil, fmt.Errorf("open index read-only: %w", err)
		}
	}
	if _, err := inspect(ctx, path); err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, diskError(path, err))
	}
	if ro {
		return openReadOnly(ctx, path, dsn) // readonly.go
	}
	// journal_size_limit: a WAL that grew (a big batch, a failed write)
	// is cut back to 64 MiB whenever it is reset; temp_store(2): statement
	// journals and sorts stay in memory (write.go)
	common := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_pragma=journal_size_limit(67108864)&_txlock=immediate" +
		"&_pragma=temp_store(2)"
	// readers memory-map the file (a search reads its pages without a
	// copy), all of it: mmap_size asks for 64 GiB and SQLite caps it at its
	// build's limit (2 GiB). With 1 GiB, a kernel index (2.0 GB) read the
	// rest of its vectors through the page cache, and freeing those pages
	// at close cost 0.15 s of a 1.4 s search; mapped whole it answers in
	// 0.72x the wall time (its mapped, reclaimable file pages count in its
	// RSS). The bulk writer (ReplaceFiles) does not map: every page an index
	// run reads for its inserts would stay resident, and on GOROOT/src
	// that was 360 MB of the run's peak. Its cache is 8 MiB: on tokio
	// 32 MiB cost 0.09x more CPU and 28 MiB more peak memory.
	// an index process maps nothing (store.WithUnmappedReads)
	mapSize := "68719476736"
	if store.UnmappedReads(ctx) {
		mapSize = "0"
	}
	db, err := sql.Open("sqlite", common+"&_pragma=mmap_size("+mapSize+")&_pragma=cache_size(-32768)")
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	w, err := sql.Open("sqlite", common+"&_pragma=mmap_size(0)&_pragma=cache_size(-8192)")
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	s := &backend{db: db, w: w, path: path}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		w.Close()
		if strings.Contains(err.Error(), "readonly database") {
			// a read-only CODERAG_HOME (or file): SQLite cannot create its
			// WAL files there, but the index can still be read
			return openReadOnly(ctx, path, "file:"+path+"?mode=ro&immutable=1")
		}
		if store.Damaged(err) {
			return nil, fmt.Errorf("open index %s: %w", path, store.MarkDamaged(err))
		}
		return nil, fmt.Errorf("open index %s: %w", path, diskError(path, err))
	}
	return store.New(store.Conn{DB: db, Writer: w, Path: path}, s), nil
}

// createPrivate makes a new index file, empty, readable and writable by
// its owner only (0600), in a directory made 0700 when it is new: the index
// holds the indexed code, whatever the modes of the source files, so no
// other user of the machine may read it. SQLite creates the -wal and -shm
// files with the database file's mode. An existing file or directory keeps
// its mode (doctor reports one other users can read:
// store.PrivateModeIssue).
func createPrivate(path string) error {
	if path == "" || path == ":memory:" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// openReadOnly opens an index that cannot be written with dsn (see
// readOnlyDSN). Its schema must be current, as it cannot be migrated;
// every write fails with SQLite's read-only error.
func openReadOnly(ctx context.Context, path, dsn string) (*store.Store, error) {
	if err := unmergedWAL(path, dsn); err != nil {
		return nil, fmt.Errorf("open index read-only: %w", err)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open index %s read-only: %w", path, err)
	}
	var v string
	if err := db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v); err != nil {
		db.Close()
		if store.Damaged(err) {
			return nil, fmt.Errorf("open index %s read-only: %w", path, store.MarkDamaged(err))
		}
		return nil, fmt.Errorf("open index %s read-only: %w", path, diskError(path, err))
	}
	if v != strconv.Itoa(store.SchemaVersion) {
		db.Close()
		return nil, fmt.Errorf("open index %s: schema %s needs an upgrade to %d, but the index is read-only", path, v, store.SchemaVersion)
	}
	return store.New(store.Conn{DB: db, Path: path, ReadOnly: true}, &backend{db: db, path: path}), nil
}

// migrate creates the schema of a new file or migrates an older one
// forward, and re-creates dropped indexes of a current one.
func (s *backend) migrate(ctx context.Context) error {
	var v string
	have := 0 // no meta table or row: a new file
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v)
	if err == nil {
		have, _ = strconv.Atoi(v)
		if have > store.SchemaVersion {
			return fmt.Errorf("%w (schema %d > %d): upgrade coderag", store.ErrNewerSchema, have, store.SchemaVersion)
		}
		if have == store.SchemaVersion {
			return s.restoreIndexes(ctx)
		}
	}
	// one connection: a new file's auto_vacuum, chosen outside a
	// transaction, holds only for the connection that creates the tables
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if have == 0 {
		if _, err := conn.ExecContext(ctx, newFilePragmas); err != nil && !strings.Contains(err.Error(), "readonly") {
			return fmt.Errorf("set up new index: %w", err)
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for n := have; n > 0 && n < store.SchemaVersion; n++ {
		if m := migrations[n]; m != "" {
			if _, err := tx.ExecContext(ctx, m); err != nil {
				return fmt.Errorf("migrate schema %d to %d: %w", n, n+1, err)
			}
		}
		if f := store.DataMigrations[n]; f != nil {
			if err := f(ctx, tx); err != nil {
				return fmt.Errorf("migrate schema %d to %d: %w", n, n+1, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES('schema_version',?)
		ON CONFLICT(key) DO UPDATE SET value=excluded.value`, strconv.Itoa(store.SchemaVersion)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if have > 0 && have < 7 {
		// the vectors were requantised in place (schema 5: each row
		// shrank to a quarter but kept its page) or the relations and
		// vectors copied into new tables (schema 7: the old ones' pages
		// are free but still in the file), so the file only gets smaller
		// once it is rewritten. A failure (no room for VACUUM's copy)
		// leaves a valid index that is merely larger; `coderag remove`
		// compacts too.
		conn.Close()
		_, _, _ = s.Compact(ctx)
	}
	return nil
}

// restoreIndexes re-creates any of the schema's indexes that were dropped
// (they hold no data of their own, so this loses nothing); a dropped table
// is damage and is refused earlier, by inspect.
func (s *backend) restoreIndexes(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type='index'`)
	if err != nil {
		return err
	}
	names, err := store.Collect(rows, store.ScanString)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	for _, line := range strings.Split(schema, "\n") {
		rest, ok := strings.CutPrefix(line, "CREATE INDEX IF NOT EXISTS ")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, " ")
		if have[name] {
			continue
		}
		if _, err := s.db.ExecContext(ctx, line); err != nil {
			return fmt.Errorf("restore index %s: %w", name, err)
		}
	}
	return nil
}

// newFilePragmas are set on a database before its first table: incremental
// auto-vacuum, so RemoveProject can hand freed pages back to the file
// system without rewriting the whole file.
const newFilePragmas = `PRAGMA auto_vacuum = INCREMENTAL`

// Size returns the bytes used by the database file and its WAL.
func (s *backend) Size() int64 {
	var n int64
	for _, suf := range []string{"", "-wal", "-shm"} {
		if st, err := os.Stat(s.path + suf); err == nil {
			n += st.Size()
		}
	}
	return n
}

// WriteFailed truncates the write-ahead log when the disk is full: the
// transaction was rolled back, and the WAL, grown by the pages written
// before the failure, is cut, so a full disk leaves the index no larger
// than before.
func (s *backend) WriteFailed(ctx context.Context, err error) {
	if diskFull(err) {
		_ = store.Drain(ctx, s.db, `PRAGMA wal_checkpoint(TRUNCATE)`) // best effort: the error stands
	}
}

// Checkpoint runs a PASSIVE checkpoint: it copies into the database
// file the log's frames no reader still needs, and waits for no other
// connection (store.Store.Close runs it beside the writer pool's close).
func (s *backend) Checkpoint(ctx context.Context) error {
	return store.Drain(ctx, s.db, `PRAGMA wal_checkpoint(PASSIVE)`)
}

// diskError returns err marked store.ErrDiskFull when it is a failure of
// the disk or file system (store.DiskProblem) other than a full disk and
// the file system holding path has (almost) no room left: SQLite reports a
// shared-memory file that cannot grow on a full disk as "disk I/O error
// (4874)", which does not say why. Other errors are returned as they are.
func diskError(path string, err error) error {
	switch p := store.DiskProblem(err); {
	case p == "", p == store.DiskFull, !noSpace(filepath.Dir(path)):
		return err
	}
	return fmt.Errorf("%w: %w", store.ErrDiskFull, err)
}

// diskFull reports SQLite's SQLITE_FULL ("database or disk is full").
func diskFull(err error) bool {
	return err != nil && strings.Contains(err.Error(), "disk is full")
}

// RemoveFTS drops project's full-text table and deletes its rows of the
// legacy shared table chunks_fts (fts.go).
func (s *backend) RemoveFTS(ctx context.Context, tx *sql.Tx, project string) error {
	if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+ftsTable(project)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM chunks_fts WHERE rowid IN (SELECT c.id FROM indexed_files f
			JOIN code_chunks c ON c.file_id = f.id WHERE f.project_path=?)`, project)
	return err
}

// PruneNames deletes the names no relation uses any more. SQLite's
// writers take turns, so no other writer holds a name's id it looked up
// and has not used yet (as one may on PostgreSQL).
func (s *backend) PruneNames(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM code_names WHERE
			NOT EXISTS (SELECT 1 FROM code_relations r WHERE r.from_id = code_names.id)
			AND NOT EXISTS (SELECT 1 FROM code_relations r WHERE r.to_id = code_names.id)`)
	return err
}

// Like returns "LIKE": SQLite's LIKE is case-insensitive for ASCII.
func (s *backend) Like() string { return "LIKE" }

// ContentText returns coderag_text(col): chunk texts may be compressed
// here (store.EncodeContent).
func (s *backend) ContentText(col string) string { return "coderag_text(" + col + ")" }

// CompressesContent is true: ReplaceFiles stores chunk text as
// store.EncodeContent makes it.
func (s *backend) CompressesContent() bool { return true }

// Reclaim runs Compact, ignoring its error: a failure leaves a valid,
// larger file whose pages later writes reuse.
func (s *backend) Reclaim(ctx context.Context) { _, _, _ = s.Compact(ctx) }

// deleteFile deletes the rows of one file; the project's full-text table
// must exist (ensureFTS).
func (s *backend) deleteFile(ctx context.Context, tx *sql.Tx, project, path string) error {
	for _, q := range []string{
		`DELETE FROM ` + ftsTable(project) + ` WHERE rowid IN (` + store.FileChunkIDs + `)`,
		`DELETE FROM chunks_fts WHERE rowid IN (` + store.FileChunkIDs + `)`,
	} {
		if _, err := tx.ExecContext(ctx, q, project, path); err != nil {
			return err
		}
	}
	return store.DeleteFile(ctx, tx, project, path)
}
