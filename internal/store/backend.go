package store

// Backends. A backend package (store/sqlite, store/postgres) opens its
// database, wraps it with New and the Backend of its differences, and
// registers its Driver when it is imported, as database/sql drivers do;
// Open, Check and ReadProjects pick the driver by the target's form
// (IsPostgres). The binary imports both (through engine); a test that opens
// a store imports the backend it opens.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"slices"
	"sync"
)

// Backend is what one database does its own way, beneath the shared SQL
// of Store. Every method but the writes' runs outside any transaction.
type Backend interface {
	// WriteFiles is ReplaceFiles' body inside its transaction tx: it
	// deletes the rows of the files of remove and of files (the
	// full-text rows, then DeleteFile), and writes the rows of files. The
	// project row exists; Store bumps the data version and commits.
	WriteFiles(ctx context.Context, tx *sql.Tx, project string, files []FileData, remove []string) error
	// WriteFailed is called with the error of a ReplaceFiles that failed,
	// after its rollback, to clean up what the failure left (SQLite: a
	// WAL grown by a full disk). It never fails.
	WriteFailed(ctx context.Context, err error)
	// RemoveFTS deletes every full-text row of project in tx, first in
	// RemoveProject's transaction.
	RemoveFTS(ctx context.Context, tx *sql.Tx, project string) error
	// PruneNames deletes, in RemoveProject's transaction after the
	// project's relations, the names no relation uses any more, where
	// that is safe.
	PruneNames(ctx context.Context, tx *sql.Tx) error
	// KeywordSearch is Store.KeywordSearch.
	KeywordSearch(ctx context.Context, project string, terms []string, w FTSWeights, k int) ([]Scored, error)
	// Like is the operator that matches a LIKE pattern case-insensitively
	// for ASCII: "LIKE" on SQLite, "ILIKE" on PostgreSQL.
	Like() string
	// ContentText is the SQL expression of the text of the chunk text
	// column col as stored (content.go): the column itself where text is
	// stored as is (PostgreSQL), a function that inflates it where it may
	// be compressed (SQLite).
	ContentText(col string) string
	// NamesIn is the SQL condition, and its arguments, that the
	// code_names row alias has one of names (at least one): by the name
	// on PostgreSQL, by its hash and then the name on SQLite.
	NamesIn(alias string, names []string) (string, []any)
	// IDsIn is the SQL condition, and its arguments, that the integer
	// column col holds one of ids (at least one): a list of placeholders
	// on SQLite, one array argument on PostgreSQL (which a new server
	// process parses and plans in less CPU than hundreds of parameters).
	IDsIn(col string, ids []int64) (string, []any)
	// CompressesContent reports whether the backend stores chunk text
	// compressed (EncodeContent; ChunkRow.Encoded): true on SQLite, false
	// on PostgreSQL.
	CompressesContent() bool
	// LockProject is Store.LockProject.
	LockProject(ctx context.Context, project string, onWait func(string)) (release func(), err error)
	// Probe is Store.Probe.
	Probe(ctx context.Context) error
	// IntegrityCheck is Store.IntegrityCheck.
	IntegrityCheck(ctx context.Context) (string, error)
	// Compact is Store.Compact.
	Compact(ctx context.Context) (before, after int64, err error)
	// Reclaim is Store.Reclaim.
	Reclaim(ctx context.Context)
	// Size is Store.Size.
	Size() int64
	// EachRowInPlace runs `SELECT cols FROM from` with args and calls fn
	// with each row's values in the database's own memory: TEXT and BLOB
	// values are views valid during the call only (fn copies what it
	// keeps, and must not use the store), INTEGER values int64, REAL
	// float64, NULL nil. An error of fn ends the query and is returned as
	// it is. A backend that cannot (PostgreSQL) returns
	// errors.ErrUnsupported, and the caller scans through database/sql.
	EachRowInPlace(ctx context.Context, cols, from string, args []any, fn func(vals []driver.Value) error) error
}

// Driver opens and checks the databases of one backend, by target (a file
// path or a URL).
type Driver struct {
	// Open is Open for the backend's targets.
	Open func(ctx context.Context, target string) (*Store, error)
	// Check is Check for the backend's targets.
	Check func(ctx context.Context, target string, full bool) (*CheckReport, error)
	// ReadProjects is ReadProjects for the backend's targets.
	ReadProjects func(ctx context.Context, target string) ([]Project, error)
}

// The backend names Register takes: Open gives a target that IsPostgres
// to Postgres, any other to SQLite.
const (
	// SQLite is the backend of index files (store/sqlite).
	SQLite = "sqlite"
	// Postgres is the backend of PostgreSQL databases (store/postgres).
	Postgres = "postgres"
)

var (
	driversMu sync.RWMutex
	drivers   = map[string]Driver{}
)

// Register makes d the driver of the backend name (SQLite or Postgres);
// backend packages call it from init.
func Register(name string, d Driver) {
	driversMu.Lock()
	defer driversMu.Unlock()
	drivers[name] = d
}

// driverFor returns the registered driver of target's backend, or an error
// naming the package to import.
func driverFor(target string) (Driver, error) {
	name := SQLite
	if IsPostgres(target) {
		name = Postgres
	}
	driversMu.RLock()
	d, ok := drivers[name]
	driversMu.RUnlock()
	if !ok {
		return Driver{}, fmt.Errorf("open index %s: no %s backend in this program (import internal/store/%s)", Redact(target), name, name)
	}
	return d, nil
}

// Open opens (creating if needed) the index at target and migrates its
// schema: an SQLite file (store/sqlite), or, for a postgres:// URL or a
// keyword connection string (IsPostgres), that PostgreSQL database
// (store/postgres), whose backend refuses a database that holds other
// tables (ErrForeign). Errors name the target without its password.
func Open(ctx context.Context, target string) (*Store, error) {
	d, err := driverFor(target)
	if err != nil {
		return nil, err
	}
	return d.Open(ctx, target)
}

// Check examines the index at target without changing it and reports its
// problems (see CheckReport); the error is only for a check that could
// not run (context cancelled). On SQLite it checks the file's pages and
// the full-text index (full: every page); a PostgreSQL database is opened
// (creating the schema if needed) and probed, as the server checks its own
// pages. On both, a sound index also gets each project's vectors counted
// by embedder (CheckReport.Vectors: is any project mixed).
func Check(ctx context.Context, target string, full bool) (*CheckReport, error) {
	d, err := driverFor(target)
	if err != nil {
		return nil, err
	}
	return d.Check(ctx, target, full)
}

// ReadProjects lists the projects of the index at target, read-only and
// without any check: how doctor learns which projects, and with which
// embedders, a damaged index held. Rows it cannot read are an error.
func ReadProjects(ctx context.Context, target string) ([]Project, error) {
	d, err := driverFor(target)
	if err != nil {
		return nil, err
	}
	return d.ReadProjects(ctx, target)
}

// LockProject takes the exclusive right to index project, the lock every
// index run holds: on SQLite a file lock beside the database, on
// PostgreSQL a session advisory lock (runs on other machines share the
// database, not a lock file). While another process holds it, onWait (if
// set) is called once with a message naming the project, and LockProject
// waits, polling, until it is free or ctx ends (ctx's error). The returned
// func releases it.
func (s *Store) LockProject(ctx context.Context, project string, onWait func(string)) (release func(), err error) {
	return s.b.LockProject(ctx, project, onWait)
}

// Probe reads a little of every coderag table: a check of a few
// milliseconds that finds a missing table and damage at the root or either
// end of a b-tree (on PostgreSQL, one row of every table). Errors wrap
// ErrDamaged.
func (s *Store) Probe(ctx context.Context) error { return s.b.Probe(ctx) }

// IntegrityCheck runs SQLite's PRAGMA integrity_check and returns its
// verdict ("ok"). On PostgreSQL, which checks its own pages, it runs Probe
// and says "ok".
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) { return s.b.IntegrityCheck(ctx) }

// Compact gives the space freed by deletions back and returns the
// database's size (Size) before and after: on SQLite an incremental
// vacuum (or a one-time VACUUM) and a WAL checkpoint, on PostgreSQL VACUUM
// of coderag's tables.
func (s *Store) Compact(ctx context.Context) (before, after int64, err error) {
	return s.b.Compact(ctx)
}

// Reclaim hands back, best effort, the space of rows an index run
// replaced wholesale (every vector of a project, when its embedder
// changed): Compact on SQLite, whose file otherwise keeps the freed pages
// until they are reused; nothing on PostgreSQL, whose autovacuum does it.
// A failure leaves a valid, larger index.
func (s *Store) Reclaim(ctx context.Context) { s.b.Reclaim(ctx) }

// DB returns the store's pool of queries, for its backend and for tests
// that read or damage the database below the store.
func (s *Store) DB() *sql.DB { return s.db }

// Backend returns the backend New was given, for its package's tests.
func (s *Store) Backend() Backend { return s.b }

// The helpers below are shared by the backend packages.

// VectorPack is the code_vectors row of one file being written: the
// file's vectors packed in the format of vector.go, all from one embedder
// and of one dimension.
type VectorPack struct {
	emb string
	p   vecPack
}

// Add packs chunk c's vector under id; c of path must have the embedder
// and dimension of the pack's first vector, else the error says so.
func (v *VectorPack) Add(id int64, c ChunkRow, path string) error {
	if err := packable(&v.emb, &v.p, c, path); err != nil {
		return err
	}
	v.p.addFloats(id, c.Vector)
	return nil
}

// Len returns the number of vectors packed.
func (v *VectorPack) Len() int { return v.p.n }

// Embedder returns the embedder id of the packed vectors.
func (v *VectorPack) Embedder() string { return v.emb }

// IDs returns the packed chunk ids (the ids column).
func (v *VectorPack) IDs() []byte { return v.p.ids }

// Vecs returns the packed vectors (the vecs column).
func (v *VectorPack) Vecs() []byte { return v.p.vecs }

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

// NameStore is how a backend looks up and adds code_names rows, for
// NameIDs.
type NameStore interface {
	// Key returns name as the backend stores it.
	Key(name string) string
	// Lookup queries the (id, name) rows of the stored names among names
	// (at most 500 of them).
	Lookup(ctx context.Context, tx *sql.Tx, names []string) (*sql.Rows, error)
	// Add stores the names of missing (keys, in byte order), setting
	// their ids in ids when it assigns them itself; NameIDs looks up
	// those it does not set.
	Add(ctx context.Context, tx *sql.Tx, missing []string, ids map[string]int64) error
}

// NameIDs sets the code_names id of every name of names (its keys),
// adding the names not stored yet through ns. Names are added in byte
// order, so two PostgreSQL writers adding the same new names lock them in
// one order and cannot deadlock.
func NameIDs(ctx context.Context, tx *sql.Tx, ns NameStore, names map[string]int64) error {
	if len(names) == 0 {
		return nil
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, ns.Key(n))
	}
	slices.Sort(list)
	list = slices.Compact(list)
	byKey := make(map[string]int64, len(list))
	lookup := func(part []string) error {
		rows, err := ns.Lookup(ctx, tx, part)
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
	lookupAll := func(list []string) error {
		for i := 0; i < len(list); i += step {
			if err := lookup(list[i:min(i+step, len(list))]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := lookupAll(list); err != nil {
		return err
	}
	missing := unset(list, byKey)
	if len(missing) > 0 {
		if err := ns.Add(ctx, tx, missing, byKey); err != nil {
			return err
		}
		if err := lookupAll(unset(missing, byKey)); err != nil {
			return err
		}
	}
	for n := range names {
		id, ok := byKey[ns.Key(n)]
		if !ok {
			return fmt.Errorf("add names: %q has no id", n)
		}
		names[n] = id
	}
	return nil
}

// unset returns the keys of list that ids has no id for, in order.
func unset(list []string, ids map[string]int64) []string {
	var out []string
	for _, n := range list {
		if _, ok := ids[n]; !ok {
			out = append(out, n)
		}
	}
	return out
}

// EachRow calls fn for every row of rows and closes rows (see eachRow).
func EachRow(rows *sql.Rows, fn func() error) error { return eachRow(rows, fn) }

// Collect returns scan applied to every row of rows, in order, and closes
// rows (see collect).
func Collect[T any](rows *sql.Rows, scan func(*sql.Rows) (T, error)) ([]T, error) {
	return collect(rows, scan)
}

// ScanString scans a row of one text column.
func ScanString(rows *sql.Rows) (string, error) { return scanString(rows) }

// Drain runs query q on db and reads every row of its result, for checks
// that only need the database to answer.
func Drain(ctx context.Context, db *sql.DB, q string) error { return drain(ctx, db, q) }

// MarkDamaged wraps err with ErrDamaged when Damaged says so; other errors
// are returned as they are.
func MarkDamaged(err error) error { return damaged(err) }

// ProjectPaths returns the project paths of the database db, in order.
func ProjectPaths(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT project_path FROM projects ORDER BY project_path`)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanString)
}

// MaskSecrets returns msg with every credential of target masked.
func MaskSecrets(msg, target string) string { return maskSecrets(msg, target) }

// SecretFree returns err with target's credentials masked in its message;
// errors.Is and As still see err.
func SecretFree(err error, target string) error { return secretFree{err, target} }

// KeywordSearch returns the k best chunks of project for terms by BM25
// (Robertson & Zaragoza, 2009, as implemented by FTS5) over the project's
// own statistics, Score descending (higher is better), then id. Each term
// is one phrase of its tokens (FTS5's unicode61 tokens) and any term may
// match; a repeated term counts twice. No term is ever read as query
// syntax: quotes, OR, NOT and * are text. A NUL byte is a space; blank
// terms are dropped, and no terms give nil. Both backends take the terms
// themselves: SQLite quotes them into an FTS5 MATCH expression
// (store/sqlite), PostgreSQL tokenises them (store/postgres), so nothing
// parses a query language back.
func (s *Store) KeywordSearch(ctx context.Context, project string, terms []string, w FTSWeights, k int) ([]Scored, error) {
	return s.b.KeywordSearch(ctx, project, terms, w, k)
}
