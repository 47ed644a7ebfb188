// Package store is coderag's SQLite index: schema and migrations, chunk and
// relation rows, the FTS5 full-text index and int8-quantised vector BLOBs
// (vector.go). It knows
// nothing of embedding providers or parsers: callers hand it finished rows.
//
// Concurrency: the file is opened in WAL mode with a busy timeout, so readers
// (search) run while a writer (index) commits. Read paths never write. Every
// write of a batch of files happens in one IMMEDIATE transaction, so a killed
// process leaves each file either fully old or fully new.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go, FTS5 built in)

	"github.com/coderag/coderag/internal/lang"
)

// Sentinel errors.
var (
	// ErrNotIndexed means the project has no rows in the index.
	ErrNotIndexed = errors.New("not indexed yet")
	// ErrNewerSchema means the file was written by a newer coderag.
	ErrNewerSchema = errors.New("index was written by a newer coderag")
)

// Store is an open index database.
type Store struct {
	db       *sql.DB
	w        *sql.DB // ReplaceFiles' pool (one connection, no mmap); nil: db
	path     string
	readOnly bool // opened by openReadOnly
	pg       bool // on PostgreSQL (pg.go); path is the URL without its password

	vmu     sync.Mutex
	cacheOn atomic.Bool
	cache   map[string]*vectorSet  // by project + "\x00" + embedder
	loading map[string]*vectorLoad // loads going on, by the same key (query.go)
}

// Exists reports whether an index file exists at path. A path that cannot
// be checked (its directory is a file or unreadable) is an error, not "no
// index": the caller must not report an empty index over a real one.
//
// A PostgreSQL URL (IsPostgres) always exists: Open creates the schema in
// the database it names.
func Exists(path string) (bool, error) {
	if IsPostgres(path) {
		return true, nil
	}
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("index %s: %w (check CODERAG_HOME)", path, err)
}

// Open opens (creating if needed) the index at path, sets WAL mode and a 10 s
// busy timeout, and migrates the schema. Errors name the path. A path that
// is a postgres:// URL opens that PostgreSQL database instead (see pg.go),
// creating coderag's tables in it when it has none and refusing a
// database that holds other tables (ErrForeign).
//
// An existing file that cannot be written, or whose directory cannot be,
// is opened read-only (readonly.go): searches and stats work, writes fail.
//
// An existing file is first looked at read-only (see health.go): a file
// that is not SQLite, or an SQLite database without coderag's schema
// marker, is refused with ErrForeign and left byte for byte as it was; an
// index at the current schema with a table missing is ErrDamaged. Both
// messages say how to go on.
func Open(ctx context.Context, path string) (*Store, error) {
	if IsPostgres(path) {
		return openPostgres(ctx, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	if _, err := inspect(ctx, path); err != nil {
		if errors.Is(err, ErrDamaged) {
			return nil, fmt.Errorf("open index %s: %w", path, err)
		}
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	if dsn, ro := readOnlyDSN(path); ro {
		return openReadOnly(ctx, path, dsn) // readonly.go
	}
	// journal_size_limit: a WAL that grew (a big batch, a failed write)
	// is cut back to 64 MiB whenever it is reset; temp_store(2): statement
	// journals and sorts stay in memory (write.go)
	common := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_pragma=journal_size_limit(67108864)&_txlock=immediate" +
		"&_pragma=temp_store(2)"
	// readers memory-map the file (a search reads its pages without a
	// copy); the bulk writer (ReplaceFiles) does not: every page an index
	// run reads for its inserts would stay resident, and on GOROOT/src
	// that was 360 MB of the run's peak. Its cache is 8 MiB: on tokio
	// 32 MiB cost 0.09x more CPU and 28 MiB more peak memory.
	db, err := sql.Open("sqlite", common+"&_pragma=mmap_size(1073741824)&_pragma=cache_size(-32768)")
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
	s := &Store{db: db, w: w, path: path}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		w.Close()
		if strings.Contains(err.Error(), "readonly database") {
			// a read-only CODERAG_HOME (or file): SQLite cannot create its
			// WAL files there, but the index can still be read
			return openReadOnly(ctx, path, "file:"+path+"?mode=ro&immutable=1")
		}
		if Damaged(err) {
			return nil, fmt.Errorf("open index %s: %w", path, damaged(err))
		}
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	return s, nil
}

// openReadOnly opens an index that cannot be written with dsn (see
// readOnlyDSN). Its schema must be current, as it cannot be migrated;
// every write fails with SQLite's read-only error.
func openReadOnly(ctx context.Context, path, dsn string) (*Store, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open index %s read-only: %w", path, err)
	}
	var v string
	if err := db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v); err != nil {
		db.Close()
		if Damaged(err) {
			return nil, fmt.Errorf("open index %s read-only: %w", path, damaged(err))
		}
		return nil, fmt.Errorf("open index %s read-only: %w", path, err)
	}
	if v != strconv.Itoa(SchemaVersion) {
		db.Close()
		return nil, fmt.Errorf("open index %s: schema %s needs an upgrade to %d, but the index is read-only", path, v, SchemaVersion)
	}
	return &Store{db: db, path: path, readOnly: true}, nil
}

// ReadOnly reports whether the index was opened read-only (its file or
// directory cannot be written): queries work, writes fail.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Path returns the database file path, or the PostgreSQL URL without its
// password.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error {
	if s.w != nil {
		s.w.Close() // its connection's errors are the writes', returned then
	}
	return s.db.Close()
}

// writer returns the pool of bulk writes (ReplaceFiles).
func (s *Store) writer() *sql.DB {
	if s.w != nil {
		return s.w
	}
	return s.db
}

func (s *Store) migrate(ctx context.Context) error {
	var v string
	have := 0 // no meta table or row: a new file
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v)
	if err == nil {
		have, _ = strconv.Atoi(v)
		if have > SchemaVersion {
			return fmt.Errorf("%w (schema %d > %d): upgrade coderag", ErrNewerSchema, have, SchemaVersion)
		}
		if have == SchemaVersion {
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
	for n := have; n > 0 && n < SchemaVersion; n++ {
		if m := migrations[n]; m != "" {
			if _, err := tx.ExecContext(ctx, m); err != nil {
				return fmt.Errorf("migrate schema %d to %d: %w", n, n+1, err)
			}
		}
		if f := dataMigrations[n]; f != nil {
			if err := f(ctx, tx); err != nil {
				return fmt.Errorf("migrate schema %d to %d: %w", n, n+1, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES('schema_version',?)
		ON CONFLICT(key) DO UPDATE SET value=excluded.value`, strconv.Itoa(SchemaVersion)); err != nil {
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
func (s *Store) restoreIndexes(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type='index'`)
	if err != nil {
		return err
	}
	names, err := collect(rows, scanString)
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

// Project is one indexed root.
type Project struct {
	Path      string // absolute, symlink-resolved
	Embedder  string // "provider:model"
	Dim       int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// GetProject returns the project row for path, or ErrNotIndexed.
func (s *Store) GetProject(ctx context.Context, path string) (*Project, error) {
	var p Project
	var c, u int64
	err := s.db.QueryRowContext(ctx, `SELECT project_path, embedder, dim, created_at, updated_at
		FROM projects WHERE project_path=?`, path).Scan(&p.Path, &p.Embedder, &p.Dim, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotIndexed
	}
	if err != nil {
		return nil, err
	}
	p.CreatedAt, p.UpdatedAt = time.Unix(c, 0), time.Unix(u, 0)
	return &p, nil
}

// FindProject returns the nearest indexed root that is dir or one of its
// ancestors (as git finds its repository), or ErrNotIndexed.
func (s *Store) FindProject(ctx context.Context, dir string) (*Project, error) {
	for d := dir; ; {
		p, err := s.GetProject(ctx, d)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, ErrNotIndexed) {
			return nil, err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, ErrNotIndexed
		}
		d = parent
	}
}

// RemoveProject deletes every row of project (full-text rows, vectors,
// chunks, relations, fingerprints, the project row and its run record) in
// one transaction and returns how many files it held; ErrNotIndexed when
// path is not a project root. Files on disk are not touched. The freed
// pages stay in the file until Compact.
func (s *Store) RemoveProject(ctx context.Context, path string) (int, error) {
	if _, err := s.GetProject(ctx, path); err != nil {
		return 0, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	var files int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM indexed_files WHERE project_path=?`, path).Scan(&files); err != nil {
		return 0, err
	}
	var qs []string
	if s.pg {
		if err := pgRemoveFTS(ctx, tx, path); err != nil {
			return 0, fmt.Errorf("remove project %s: %w", path, err)
		}
	} else {
		if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+ftsTable(path)); err != nil {
			return 0, err
		}
		qs = append(qs, `DELETE FROM chunks_fts WHERE rowid IN (SELECT c.id FROM indexed_files f
			JOIN code_chunks c ON c.file_id = f.id WHERE f.project_path=?)`)
	}
	for _, q := range append(qs,
		`DELETE FROM code_vectors WHERE file_id IN (SELECT id FROM indexed_files WHERE project_path=?)`,
		`DELETE FROM code_relations WHERE file_id IN (SELECT id FROM indexed_files WHERE project_path=?)`,
		`DELETE FROM code_chunks WHERE file_id IN (SELECT id FROM indexed_files WHERE project_path=?)`,
		`DELETE FROM indexed_files WHERE project_path=?`,
		`DELETE FROM projects WHERE project_path=?`,
	) {
		if _, err := tx.ExecContext(ctx, q, path); err != nil {
			return 0, fmt.Errorf("remove project %s: %w", path, err)
		}
	}
	if !s.pg {
		// names no relation uses any more. SQLite only: its writers take
		// turns, but on PostgreSQL a writer of another project may hold a
		// name's id, looked up and not yet used, and a name no relation
		// uses is never read (RelationNamesLike asks for a relation)
		if _, err := tx.ExecContext(ctx, `DELETE FROM code_names WHERE
			NOT EXISTS (SELECT 1 FROM code_relations r WHERE r.from_id = code_names.id)
			AND NOT EXISTS (SELECT 1 FROM code_relations r WHERE r.to_id = code_names.id)`); err != nil {
			return 0, fmt.Errorf("remove project %s: %w", path, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, runKey(path)); err != nil {
		return 0, fmt.Errorf("remove project %s: %w", path, err)
	}
	if err := deleteTreeListing(ctx, tx, path); err != nil {
		return 0, fmt.Errorf("remove project %s: %w", path, err)
	}
	if err := bumpVersion(ctx, tx, path); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("remove project %s: %w", path, err)
	}
	return files, nil
}

// Projects lists every indexed project, by path.
func (s *Store) Projects(ctx context.Context) ([]Project, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT project_path, embedder, dim, created_at, updated_at FROM projects ORDER BY project_path`)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(rows *sql.Rows) (Project, error) {
		var p Project
		var c, u int64
		err := rows.Scan(&p.Path, &p.Embedder, &p.Dim, &c, &u)
		p.CreatedAt, p.UpdatedAt = time.Unix(c, 0), time.Unix(u, 0)
		return p, err
	})
}

// PutProject inserts or updates a project row (embedder, dim, updated_at).
func (s *Store) PutProject(ctx context.Context, p Project) error {
	now := time.Now().Unix()
	_, err := s.db.ExecContext(ctx, `INSERT INTO projects(project_path, embedder, dim, created_at, updated_at)
		VALUES(?,?,?,?,?) ON CONFLICT(project_path) DO UPDATE SET embedder=excluded.embedder,
		dim=excluded.dim, updated_at=excluded.updated_at`, p.Path, p.Embedder, p.Dim, now, now)
	return err
}

// FileRecord is the fingerprint of one indexed file.
type FileRecord struct {
	Path      string
	SHA256    string // hex
	Embedder  string // "provider:model"
	Size      int64
	MtimeNS   int64
	IndexedAt int64 // unix nanoseconds when the fingerprint was written
	Chunks    int
	// Analysis is the version of chunking and term analysis the file's
	// rows were made with (index.AnalysisVersion); 1 for files indexed
	// before it was recorded.
	Analysis int
}

// Files returns the fingerprints of every file of project, by path.
func (s *Store) Files(ctx context.Context, project string) (map[string]FileRecord, error) {
	// the rows of one embedder share its string
	var recs []FileRecord
	err := s.EachFile(ctx, project, func(r FileRecord) error {
		r.Path, r.SHA256 = strings.Clone(r.Path), strings.Clone(r.SHA256)
		if n := len(recs); n > 0 && recs[n-1].Embedder == r.Embedder {
			r.Embedder = recs[n-1].Embedder
		} else {
			r.Embedder = strings.Clone(r.Embedder)
		}
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]FileRecord, len(recs))
	for _, r := range recs {
		out[r.Path] = r
	}
	return out, nil
}

// EachFile calls fn with the fingerprint of every file of project, in no
// particular order. On SQLite the rows are read in place
// (eachRowInPlace): the record's strings are valid during the call only,
// so fn copies those it keeps, and must not use the store. An error of fn
// ends the scan and is returned as it is.
func (s *Store) EachFile(ctx context.Context, project string, fn func(FileRecord) error) error {
	const cols = `file_path, content_sha256, embedding_model, size, mtime_ns, indexed_at, chunk_count, analysis`
	if !s.pg {
		return s.eachRowInPlace(ctx, cols, `indexed_files WHERE project_path=?`, []any{project}, func(v []driver.Value) error {
			r := FileRecord{Path: textArg(v[0]), SHA256: textArg(v[1]), Embedder: textArg(v[2])}
			r.Size, _ = v[3].(int64)
			r.MtimeNS, _ = v[4].(int64)
			r.IndexedAt, _ = v[5].(int64)
			c, _ := v[6].(int64)
			a, _ := v[7].(int64)
			r.Chunks, r.Analysis = int(c), int(a)
			return fn(r)
		})
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+cols+` FROM indexed_files WHERE project_path=?`, project)
	if err != nil {
		return err
	}
	return eachRow(rows, func() error {
		var r FileRecord
		if err := rows.Scan(&r.Path, &r.SHA256, &r.Embedder, &r.Size, &r.MtimeNS, &r.IndexedAt, &r.Chunks, &r.Analysis); err != nil {
			return err
		}
		return fn(r)
	})
}

// ChunkRow is one chunk to store. Vector may be nil (not embedded).
type ChunkRow struct {
	ID          int64
	Path        string
	Type        string
	Name        string // the chunk name as the chunker wrote it
	Owner       string // chunk.Symbol.Owner
	Symbol      string // chunk.Symbol.Name: the bare name ("" for text chunks)
	Params      string // chunk.Symbol.Params
	Signature   string
	Language    string
	Doc         string
	StartLine   int
	EndLine     int
	DeclEndLine int
	StartByte   int
	EndByte     int
	Content     string
	Vector      []float32
	Embedder    string
	// Full-text terms (space-separated, already analysed); not read back.
	NameTerms, OwnerTerms, PathTerms, DocTerms, BodyTerms string
}

// RelationRow is one relation to store.
type RelationRow struct {
	Path string
	From string
	To   string
	Kind string
	Line int
	// Form is how a call is written (chunk.Relation.Form), stored as its
	// number in code_relations.plain.
	Form lang.CallForm
}

// FileData is the complete new state of one file: its fingerprint, chunks and
// relations.
type FileData struct {
	Record    FileRecord
	Language  string
	Chunks    []ChunkRow
	Relations []RelationRow
}

// ReplaceFiles atomically replaces the rows of the given files (old chunks,
// full-text rows, relations and fingerprints out, new ones in) and deletes
// the rows of the paths in remove, in one transaction. When the disk is
// full the transaction is rolled back and the write-ahead log, grown by
// the pages written before the failure, is truncated, so a full disk
// leaves the index no larger than before.
func (s *Store) ReplaceFiles(ctx context.Context, project string, files []FileData, remove []string) error {
	err := s.replaceFiles(ctx, project, files, remove)
	if diskFull(err) {
		_ = drain(context.WithoutCancel(ctx), s.db, `PRAGMA wal_checkpoint(TRUNCATE)`) // best effort: the error stands
	}
	return err
}

// diskFull reports SQLite's SQLITE_FULL ("database or disk is full").
func diskFull(err error) bool {
	return err != nil && strings.Contains(err.Error(), "disk is full")
}

func (s *Store) replaceFiles(ctx context.Context, project string, files []FileData, remove []string) error {
	tx, err := s.writer().BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if len(files) > 0 {
		// a project removed while it was being indexed gets no rows back
		// without its project row (they would be unreachable orphans)
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM projects WHERE project_path=?`, project).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: %s was removed from the index during the run", ErrNotIndexed, project)
		}
		if err != nil {
			return err
		}
	}
	if s.pg {
		err = s.pgReplaceFiles(ctx, tx, project, files, remove)
	} else {
		err = s.writeFiles(ctx, tx, project, files, remove) // write.go
	}
	if err != nil {
		return err
	}
	if err := bumpVersion(ctx, tx, project); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// pgReplaceFiles is replaceFiles' body on PostgreSQL: a file's chunks in
// one statement (pgInsertChunks), full-text statistics, vectors and
// relations of the batch at the end (pgFTS.flush).
func (s *Store) pgReplaceFiles(ctx context.Context, tx *sql.Tx, project string, files []FileData, remove []string) error {
	for _, p := range remove {
		if err := s.deleteFile(ctx, tx, project, p); err != nil {
			return fmt.Errorf("remove %s: %w", p, err)
		}
	}
	var pgFTS ftsBatch
	now := time.Now().UnixNano()
	for _, f := range files {
		path := f.Record.Path
		if err := s.deleteFile(ctx, tx, project, path); err != nil {
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
		var pack vecPack
		emb := ""
		for i, c := range f.Chunks {
			if len(c.Vector) > 0 {
				if err := packable(&emb, &pack, c, path); err != nil {
					return err
				}
				pack.addFloats(ids[i], c.Vector)
			}
			pgFTS.add(ids[i], c)
		}
		if pack.n > 0 {
			pgFTS.addVectors(fileID, emb, &pack)
		}
		for _, r := range f.Relations {
			pgFTS.addRelation(fileID, r)
		}
	}
	return pgFTS.flush(ctx, tx, project)
}

// versionKey is the meta key of a project's data version.
func versionKey(project string) string { return "data_version:" + project }

// bumpVersion increments the project's data version (meta
// data_version:PROJECT), last in a write transaction. On PostgreSQL the
// row stays locked until commit; it is one row per project, so writers of
// different projects do not wait for each other, and readers of one
// project keep their caches while another is written.
func bumpVersion(ctx context.Context, tx *sql.Tx, project string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES(?,'1')
		ON CONFLICT(key) DO UPDATE SET value=CAST(CAST(meta.value AS BIGINT)+1 AS TEXT)`, versionKey(project))
	return err
}

// fileChunkIDs selects the chunk ids of one file (project, path).
const fileChunkIDs = `SELECT c.id FROM indexed_files f JOIN code_chunks c ON c.file_id = f.id
	WHERE f.project_path=? AND f.file_path=?`

// deleteFile deletes the rows of one file; on SQLite the project's
// full-text table must exist (ensureFTS).
func (s *Store) deleteFile(ctx context.Context, tx *sql.Tx, project, path string) error {
	qs := []string{
		`DELETE FROM code_vectors WHERE file_id IN (SELECT id FROM indexed_files WHERE project_path=? AND file_path=?)`,
		`DELETE FROM code_relations WHERE file_id IN (SELECT id FROM indexed_files WHERE project_path=? AND file_path=?)`,
	}
	if s.pg {
		if err := pgDeleteFTS(ctx, tx, project, path); err != nil {
			return err
		}
	} else {
		qs = append(qs,
			`DELETE FROM `+ftsTable(project)+` WHERE rowid IN (`+fileChunkIDs+`)`,
			`DELETE FROM chunks_fts WHERE rowid IN (`+fileChunkIDs+`)`)
	}
	for _, q := range qs {
		if _, err := tx.ExecContext(ctx, q, project, path); err != nil {
			return err
		}
	}
	for _, q := range []string{
		`DELETE FROM code_chunks WHERE file_id IN (SELECT id FROM indexed_files WHERE project_path=? AND file_path=?)`,
		`DELETE FROM indexed_files WHERE project_path=? AND file_path=?`,
	} {
		if _, err := tx.ExecContext(ctx, q, project, path); err != nil {
			return err
		}
	}
	return nil
}

// StaleFiles counts the files of project whose rows were made with an
// analysis version other than version (see FileRecord.Analysis).
func (s *Store) StaleFiles(ctx context.Context, project string, version int) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM indexed_files WHERE project_path=? AND analysis<>?`,
		project, version).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count stale files: %w", err)
	}
	return n, nil
}

// TouchFiles updates size and mtime of files whose content hash was found
// unchanged, so the stat fast path skips them next time.
func (s *Store) TouchFiles(ctx context.Context, project string, recs []FileRecord) error {
	if len(recs) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now().UnixNano()
	for _, r := range recs {
		if _, err := tx.ExecContext(ctx, `UPDATE indexed_files SET size=?, mtime_ns=?, indexed_at=?
			WHERE project_path=? AND file_path=?`, r.Size, r.MtimeNS, now, project, r.Path); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Counts holds row counts of one project.
type Counts struct {
	Files, Chunks, Embedded, Relations int
	RelationsByKind                    map[string]int
	ChunksByType                       map[string]int
}

// Count returns the row counts of project.
func (s *Store) Count(ctx context.Context, project string) (Counts, error) {
	c := Counts{RelationsByKind: map[string]int{}, ChunksByType: map[string]int{}}
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM indexed_files WHERE project_path=?`, project).Scan(&c.Files); err != nil {
		return c, err
	}
	if err := s.db.QueryRowContext(ctx, `SELECT CAST(coalesce(sum(v.n), 0) AS BIGINT) FROM indexed_files f
		JOIN code_vectors v ON v.file_id = f.id WHERE f.project_path=?`, project).Scan(&c.Embedded); err != nil {
		return c, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT c.chunk_type, count(*) FROM indexed_files f
		JOIN code_chunks c ON c.file_id = f.id WHERE f.project_path=? GROUP BY c.chunk_type`, project)
	if err != nil {
		return c, err
	}
	if err := eachRow(rows, func() error {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return err
		}
		c.ChunksByType[t] = n
		c.Chunks += n
		return nil
	}); err != nil {
		return c, err
	}
	rows, err = s.db.QueryContext(ctx, `SELECT r.relation_type, count(*) FROM indexed_files f
		JOIN code_relations r ON r.file_id = f.id WHERE f.project_path=? GROUP BY r.relation_type`, project)
	if err != nil {
		return c, err
	}
	return c, eachRow(rows, func() error {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return err
		}
		c.RelationsByKind[t] = n
		c.Relations += n
		return nil
	})
}

// Size returns the bytes used by the database file and its WAL; on
// PostgreSQL, the size of the database (0 when it cannot be read).
func (s *Store) Size() int64 {
	var n int64
	if s.pg {
		_ = s.db.QueryRow(`SELECT pg_database_size(current_database())`).Scan(&n)
		return n
	}
	for _, suf := range []string{"", "-wal", "-shm"} {
		if st, err := os.Stat(s.path + suf); err == nil {
			n += st.Size()
		}
	}
	return n
}

// likeEscape escapes LIKE wildcards with '\' for use with ESCAPE '\'.
func likeEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}
