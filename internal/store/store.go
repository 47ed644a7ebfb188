// Package store is coderag's index: the row types, the schema version and
// the SQL that both backends share (queries are written once, with '?'
// placeholders and portable SQL), over a database that a backend package
// opens: store/sqlite (one file, FTS5) or store/postgres (a database
// server, for a team). What differs between them (schema, write path,
// keyword search, locks, health checks) is the Backend interface
// (backend.go); Open picks the backend by the target's form (IsPostgres). It
// knows nothing of embedding providers or parsers: callers hand it
// finished rows.
//
// Concurrency: readers (search) run while a writer (index) commits. Read
// paths never write. Every write of a batch of files happens in one
// transaction, so a killed process leaves each file either fully old or
// fully new.
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
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coderag/coderag/internal/lang"
)

// Sentinel errors.
var (
	// ErrNotIndexed means the project has no rows in the index.
	ErrNotIndexed = errors.New("not indexed yet")
	// ErrNewerSchema means the file was written by a newer coderag.
	ErrNewerSchema = errors.New("index was written by a newer coderag")
)

// Store is an open index database: the shared SQL over the connections
// and the Backend a backend package gave New.
type Store struct {
	db       *sql.DB
	w        *sql.DB // ReplaceFiles' pool (one connection, no mmap); nil: db
	path     string
	readOnly bool    // opened read-only (store/sqlite: readonly.go)
	remote   bool    // a database server (Conn.Remote)
	b        Backend // what the database it runs on does its own way

	vmu     sync.Mutex
	cacheOn atomic.Bool
	cache   map[string]*vectorSet  // by project + "\x00" + embedder
	loading map[string]*vectorLoad // loads going on, by the same key (query.go)
}

// Conn is how a backend opened its database, for New.
type Conn struct {
	// DB is the pool of queries and of most writes.
	DB *sql.DB
	// Writer, if set, is the pool of ReplaceFiles' transactions; else DB.
	Writer *sql.DB
	// Path names the database in messages: the file path, or the
	// PostgreSQL URL without its password.
	Path string
	// ReadOnly is true when the database was opened read-only.
	ReadOnly bool
	// Remote is true when the database is a server's (PostgreSQL): each
	// connection of the pool is a new server process, tens of
	// milliseconds to open, where SQLite's is a file handle.
	Remote bool
}

// New returns the Store over c whose backend differences are b. Backend
// packages call it from their Open; Close closes c's pools.
func New(c Conn, b Backend) *Store {
	return &Store{db: c.DB, w: c.Writer, path: c.Path, readOnly: c.ReadOnly, remote: c.Remote, b: b}
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

// ReadOnly reports whether the index was opened read-only (its file or
// directory cannot be written): queries work, writes fail.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Remote reports whether the index is on a database server (Conn.Remote):
// a caller that would read it from two goroutines at once, to overlap the
// reads with other work, opens a second connection, a new server process,
// which costs a one-shot process more than the overlap saves.
func (s *Store) Remote() bool { return s.remote }

// Preconnect starts opening, in the background, the connections a
// database server's pool (Remote) lacks to hold n, and returns at once: a
// caller about to query from n goroutines calls it first, so that the
// new server processes start together, beside the work it does before,
// rather than each when its goroutine first queries. A connection that
// fails to open is reported by the query that would have used it. It does
// nothing on SQLite.
func (s *Store) Preconnect(n int) {
	if p, ok := s.b.(interface{ Preconnect(int) }); ok {
		p.Preconnect(n)
	}
}

// CompressesContent reports whether the index stores chunk text compressed
// (EncodeContent), so a writer may hand it over already in that form
// (ChunkRow.Encoded) and one that does not compress need not make it.
func (s *Store) CompressesContent() bool { return s.b.CompressesContent() }

// Path returns the database file path, or the PostgreSQL URL without its
// password.
func (s *Store) Path() string { return s.path }

// unmappedKey marks a context whose Open maps no reads (WithUnmappedReads).
type unmappedKey struct{}

// WithUnmappedReads returns ctx telling Open that the process will index,
// not search: an SQLite index is then opened with its readers not
// memory-mapping the file (mmap_size 0), as its bulk writer never does.
// A search reads fewer pages through a map (see store/sqlite), but the
// mapped pages of a large index stay resident, and at the end of a run on
// the Linux kernel's drivers/ they took an index process's peak RSS from
// 428 to 530 MiB (bench/PROFILE.md, session 12). PostgreSQL ignores it.
func WithUnmappedReads(ctx context.Context) context.Context {
	return context.WithValue(ctx, unmappedKey{}, true)
}

// UnmappedReads reports whether ctx came from WithUnmappedReads.
func UnmappedReads(ctx context.Context) bool {
	on, _ := ctx.Value(unmappedKey{}).(bool)
	return on
}

// checkpointer is a backend whose write-ahead log is copied into the
// database file when the last connection closes (SQLite's WAL).
type checkpointer interface {
	// Checkpoint copies what it can of the log into the database file
	// without waiting for other connections.
	Checkpoint(ctx context.Context) error
}

// Close closes the database.
//
// When the bulk writer's pool (SQLite) holds a connection, as after an
// index run, that connection is closed while a reader's connection
// copies the write-ahead log into the file (checkpointer), so that the
// writer's freeing of its page cache (hundreds of madvise calls for a few
// MiB of pages: 10-130 ms on this machine, bench/PROFILE.md, session 14)
// runs beside the copy's writes and fsync instead of before them. The
// readers' pool closes last, its last connection deleting the log as
// before; the file is the same. A process that never wrote through the
// bulk writer (a search) closes as before, and copies no log another
// process is writing.
func (s *Store) Close() error {
	if s.w == nil {
		return s.db.Close()
	}
	cp, ok := s.b.(checkpointer)
	if !ok || s.w.Stats().OpenConnections == 0 {
		s.w.Close() // its connection's errors are the writes', returned then
		return s.db.Close()
	}
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		s.w.Close()
	}()
	// best effort: the close of the last connection checkpoints anyway
	_ = cp.Checkpoint(context.Background())
	<-closed
	return s.db.Close()
}

// writer returns the pool of bulk writes (ReplaceFiles).
func (s *Store) writer() *sql.DB {
	if s.w != nil {
		return s.w
	}
	return s.db
}

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
// one transaction, then the project's files beside a local index
// (SidePath), and returns how many files it held; ErrNotIndexed when
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
	if err := s.b.RemoveFTS(ctx, tx, path); err != nil {
		return 0, fmt.Errorf("remove project %s: %w", path, err)
	}
	for _, q := range []string{
		`DELETE FROM code_vectors WHERE file_id IN (SELECT id FROM indexed_files WHERE project_path=?)`,
		`DELETE FROM code_relations WHERE file_id IN (SELECT id FROM indexed_files WHERE project_path=?)`,
		`DELETE FROM code_chunks WHERE file_id IN (SELECT id FROM indexed_files WHERE project_path=?)`,
		`DELETE FROM indexed_files WHERE project_path=?`,
		`DELETE FROM projects WHERE project_path=?`,
	} {
		if _, err := tx.ExecContext(ctx, q, path); err != nil {
			return 0, fmt.Errorf("remove project %s: %w", path, err)
		}
	}
	if err := s.b.PruneNames(ctx, tx); err != nil {
		return 0, fmt.Errorf("remove project %s: %w", path, err)
	}
	for _, key := range []string{runKey(path), dirStatesKey(path), dirRetryKey(path), modelProbeKey(path)} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, key); err != nil {
			return 0, fmt.Errorf("remove project %s: %w", path, err)
		}
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
	// what callers kept beside the index of the project (its fingerprint
	// snapshot, stale from now on, and its tree listing) goes too; a
	// file that cannot be removed is only space
	for _, ext := range []string{"fp", "tree"} {
		if f := s.SidePath(path, ext); f != "" {
			_ = os.Remove(f)
		}
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
	// the rows of one embedder share its string; the records go straight
	// into the map (a slice of them first was grown by copying: a tenth
	// of this read's CPU in a no-change run on GOROOT/src)
	out := map[string]FileRecord{}
	embedder := ""
	err := s.EachFile(ctx, project, func(r FileRecord) error {
		r.Path, r.SHA256 = strings.Clone(r.Path), strings.Clone(r.SHA256)
		if r.Embedder != embedder {
			embedder = strings.Clone(r.Embedder)
		}
		r.Embedder = embedder
		out[r.Path] = r
		return nil
	})
	if err != nil {
		return nil, err
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
	if ok, err := s.eachRowInPlace(ctx, cols, `indexed_files WHERE project_path=?`, []any{project}, func(v []driver.Value) error {
		r := FileRecord{Path: TextArg(v[0]), SHA256: TextArg(v[1]), Embedder: TextArg(v[2])}
		r.Size, _ = v[3].(int64)
		r.MtimeNS, _ = v[4].(int64)
		r.IndexedAt, _ = v[5].(int64)
		c, _ := v[6].(int64)
		a, _ := v[7].(int64)
		r.Chunks, r.Analysis = int(c), int(a)
		return fn(r)
	}); ok {
		return err
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
	// Encoded and EncodedDoc are Content and Doc as EncodeChunkText
	// stores them, when the caller has made them already (the indexer
	// does, on its parallel workers, so the one writer does not); Encoded
	// nil: a backend that compresses makes them.
	Encoded    any
	EncodedDoc string
	Vector     []float32
	Embedder   string
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
	// Args is how many arguments a call passes (chunk.Relation.Args),
	// packed with Form into code_relations.plain (lang.PackCall).
	Args lang.Arity
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
// the rows of the paths in remove, in one transaction (the backend's
// WriteFiles). After a failure the backend may clean up (WriteFailed): on
// SQLite, when the disk is full, the write-ahead log grown by the pages
// written before the failure is truncated, so a full disk leaves the index
// no larger than before.
func (s *Store) ReplaceFiles(ctx context.Context, project string, files []FileData, remove []string) error {
	err := s.replaceFiles(ctx, project, files, remove)
	if err != nil {
		s.b.WriteFailed(context.WithoutCancel(ctx), err)
	}
	return err
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
	if err := s.b.WriteFiles(ctx, tx, project, files, remove); err != nil {
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

// versionKey is the meta key of a project's data version.
func versionKey(project string) string { return "data_version:" + project }

// bumpVersion increments the project's data version (meta
// data_version:PROJECT) and gives it a new fingerprint token (FilesKey),
// last in a write transaction. On PostgreSQL the rows stay locked until
// commit; they are the project's own, so writers of different projects do
// not wait for each other, and readers of one project keep their caches
// while another is written.
func bumpVersion(ctx context.Context, tx *sql.Tx, project string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES(?,'1')
		ON CONFLICT(key) DO UPDATE SET value=CAST(CAST(meta.value AS BIGINT)+1 AS TEXT)`, versionKey(project))
	if err != nil {
		return err
	}
	return newFilesToken(ctx, tx, project)
}

// FileChunkIDs selects the chunk ids of one file; its arguments are the
// project and the file's path. Backends delete a file's full-text rows by
// it, before DeleteFile.
const FileChunkIDs = `SELECT c.id FROM indexed_files f JOIN code_chunks c ON c.file_id = f.id
	WHERE f.project_path=? AND f.file_path=?`

// DeleteFile deletes the rows of one file of project in tx: its vectors,
// relations, chunks and fingerprint. The backend's WriteFiles calls it
// after deleting the file's full-text rows, which FileChunkIDs finds
// through the chunks.
func DeleteFile(ctx context.Context, tx *sql.Tx, project, path string) error {
	for _, q := range []string{
		`DELETE FROM code_vectors WHERE file_id IN (SELECT id FROM indexed_files WHERE project_path=? AND file_path=?)`,
		`DELETE FROM code_relations WHERE file_id IN (SELECT id FROM indexed_files WHERE project_path=? AND file_path=?)`,
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
// unchanged, so the stat fast path skips them next time, and gives the
// project a new fingerprint token (FilesKey): the data version, which
// caches of chunks and vectors follow, stays as it is.
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
	if err := newFilesToken(ctx, tx, project); err != nil {
		return err
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

// Size returns the bytes the database uses (Backend.Size): on SQLite the
// file and its WAL, on PostgreSQL the database (0 when it cannot be read).
func (s *Store) Size() int64 { return s.b.Size() }

// likeEscape escapes LIKE wildcards with '\' for use with ESCAPE '\'.
func likeEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}
