// Package postgres is the store on PostgreSQL: the same store on a
// database server, for a team.
//
// A target that starts with postgres:// or postgresql://, or a keyword
// connection string (store.IsPostgres), opens the database it names (the
// pgx v5 driver through database/sql); importing the package registers it
// with store.Open for those targets. The queries of package store are
// shared: written once with '?' placeholders and portable SQL, and the
// connections of a PostgreSQL store rewrite them (pgConn below). What
// differs lives in this package:
//   - the schema (pgSchema): BIGINT columns, identity ids, BYTEA vectors;
//   - full-text ranking: FTS5 does not exist, so the store keeps its own
//     term statistics per project (fts_* tables) and computes FTS5's BM25
//     over them (bm25.go: the server returns the statistics of a query's
//     terms, the sum is taken in Go);
//   - text: PostgreSQL text holds neither NUL bytes nor invalid UTF-8, so
//     string arguments are made valid (NUL and bad bytes become U+FFFD);
//   - one index run per project: a session advisory lock (LockProject),
//     so runs on several machines serialise per project while different
//     projects index concurrently.
//
// Vectors are BYTEA rows in SQLite's format (vector.go: a float32 scale
// and int8 codes) scored in Go, as on SQLite
// (keyword candidates by CosineByID, a streaming top-k scan by TopKCosine);
// pgvector is not used.
package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/coderag/coderag/internal/store"
)

func init() {
	store.Register(store.Postgres, store.Driver{Open: Open, Check: Check, ReadProjects: ReadProjects})
}

// backend is the PostgreSQL side of a store.Store.
type backend struct {
	db    *sql.DB
	path  string       // the URL without its password
	conns *pgConnector // db's connector
}

// maxConns bounds the connections of a store's pool.
const maxConns = 16

var _ store.Backend = (*backend)(nil)

// Open connects to the database at target and migrates its schema,
// creating coderag's tables in a database that has none and refusing
// one that holds other tables (store.ErrForeign). Its errors name the
// database by store.Redact(target) and carry no credential of target
// (store.MaskSecrets: a parse error of pgx quotes the string it could not
// parse).
func Open(ctx context.Context, target string) (*store.Store, error) {
	name := store.Redact(target)
	cfg, err := pgx.ParseConfig(target)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %s", name, store.MaskSecrets(err.Error(), target))
	}
	if plain := loopbackPlain(target, cfg); plain != "" {
		if c, err := pgx.ParseConfig(plain); err == nil {
			cfg = c
		}
	}
	conns := newConnector(stdlib.GetConnector(*cfg))
	db := sql.OpenDB(conns)
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	s := &backend{db: db, path: name, conns: conns}
	// no ping first: the schema check is the connection's first round
	// trip, and an error of connecting is its error
	if err := s.migratePG(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open index %s: %w", name, store.SecretFree(err, target))
	}
	return store.New(store.Conn{DB: db, Path: name, Remote: true}, s), nil
}

// loopbackPlain returns target with sslmode=allow added when target sets
// nothing about TLS (no ssl* or service parameter, no PGSSLMODE,
// PGREQUIRESSL or PGSERVICE in the environment) and every host cfg
// connects to is this machine's (localhost or a loopback address); ""
// otherwise. pgx's default, sslmode=prefer, first tries TLS, and on
// loopback the handshake (a few round trips and the server's signature,
// 5-10 ms a connection on the 2-core test machine) protects nothing:
// allow connects without TLS first and with TLS when the server demands
// it.
func loopbackPlain(target string, cfg *pgx.ConnConfig) string {
	low := strings.ToLower(target)
	if strings.Contains(low, "ssl") || strings.Contains(low, "service") {
		return ""
	}
	for _, env := range []string{"PGSSLMODE", "PGREQUIRESSL", "PGSERVICE"} {
		if os.Getenv(env) != "" {
			return ""
		}
	}
	hosts := []string{cfg.Host}
	for _, f := range cfg.Fallbacks {
		hosts = append(hosts, f.Host)
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); h != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return ""
		}
	}
	if !strings.HasPrefix(target, "postgres://") && !strings.HasPrefix(target, "postgresql://") {
		return target + " sslmode=allow" // a keyword/value string
	}
	u, err := url.Parse(target)
	if err != nil {
		return ""
	}
	q := u.Query()
	q.Set("sslmode", "allow")
	// Encode writes a space as '+', which pgx reads as a '+' (an options
	// parameter "-c a=b" became "-c+a=b"); a '+' of a value it writes as
	// %2B, so every '+' it writes is a space
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	return u.String()
}

// migrateLockKey is the advisory lock that serialises schema creation and
// migration between processes opening the same database at once.
const migrateLockKey = 0x636f6465726167 // "coderag" in ASCII

// migratePG creates the schema of a new database or checks the version of
// an existing one. A database at store.SchemaVersion is recognised by one
// statement, outside any transaction and without the lock (currentSchema):
// every search process opens the store, and on a database server the
// transaction, the lock and the statements of the full check were several
// round trips to a new server process each time. Any other database is
// created or migrated under a transaction-scoped advisory lock.
func (s *backend) migratePG(ctx context.Context) error {
	if ok, err := s.currentSchema(ctx); ok || err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(migrateLockKey)); err != nil {
		return fmt.Errorf("lock schema: %w", err)
	}
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT to_regclass('meta') IS NOT NULL`).Scan(&exists); err != nil {
		return err
	}
	if exists {
		var v string
		err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		have, _ := strconv.Atoi(v)
		if have > store.SchemaVersion {
			return fmt.Errorf("%w (schema %d > %d): upgrade coderag", store.ErrNewerSchema, have, store.SchemaVersion)
		}
		if err == nil && have == 0 {
			return fmt.Errorf("%w: schema_version %q", store.ErrDamaged, v)
		}
		if have == store.SchemaVersion {
			// no DDL at all: CREATE INDEX IF NOT EXISTS takes a SHARE lock
			// on its table even when the index exists, which would wait
			// for (and can deadlock with) writers in other processes
			return tx.Commit()
		}
		for n := have; n > 0 && n < store.SchemaVersion; n++ {
			m, ok := pgMigrations[n]
			if !ok {
				return fmt.Errorf("no migration from schema %d on PostgreSQL: create a new database and index again", n)
			}
			if m != "" {
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
	} else {
		var foreign int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&foreign); err != nil {
			return err
		}
		if foreign > 0 {
			return fmt.Errorf("%w: the database holds %d other tables; give coderag a database of its own", store.ErrForeign, foreign)
		}
	}
	if _, err := tx.ExecContext(ctx, pgSchema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES('schema_version',?)
		ON CONFLICT(key) DO UPDATE SET value=excluded.value`, strconv.Itoa(store.SchemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// currentSchema reports whether the database holds coderag's schema at
// store.SchemaVersion. A migration writes the version in its own
// transaction, so the version read here is that of a finished migration;
// false (no meta table, an older or newer version, an error of the
// server) leaves the answer to migratePG's locked check. The statement is
// the first a new store sends, so an error that is not the server's
// answer (connecting failed: the address, the password, the database) is
// returned.
func (s *backend) currentSchema(ctx context.Context) (bool, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v)
	var pgErr *pgconn.PgError
	var connErr *pgconn.ConnectError
	if err != nil && !errors.Is(err, sql.ErrNoRows) && (!errors.As(err, &pgErr) || errors.As(err, &connErr)) {
		return false, err
	}
	return err == nil && v == strconv.Itoa(store.SchemaVersion), nil
}

// pgMigrations[v] upgrades a PostgreSQL database of schema v to v+1 (the
// first PostgreSQL schema was 3); a new database is created at
// store.SchemaVersion directly from pgSchema. The symbol backfill is SQLite's
// with strpos for instr.
var pgMigrations = map[int]string{
	3: `ALTER TABLE code_chunks ADD COLUMN symbol TEXT COLLATE "C" NOT NULL DEFAULT '';
		ALTER TABLE code_chunks ADD COLUMN params TEXT COLLATE "C" NOT NULL DEFAULT '';
		` + strings.ReplaceAll(store.BackfillSymbols, "instr(", "strpos("),
	4: ``, // store.DataMigrations[4]
	5: pgTreeDirsTable,
	6: pgKeyByFileID,
	7: ``, // schema 8 compresses chunk text on SQLite only (store.EncodeContent)
	8: ``, // schema 9 stores doc comments with the text and name parts as positions on SQLite only (store.EncodeChunkText, store.EncodeNamePart)
}

// pgKeyByFileID is keyByFileID on PostgreSQL: the identity column gives
// every existing fingerprint an id; code_relations is copied with it and
// the ids of its names, and code_vectors renamed for packVectors.
var pgKeyByFileID = `ALTER TABLE indexed_files ADD COLUMN id BIGINT GENERATED BY DEFAULT AS IDENTITY UNIQUE;
` + pgNamesTable + `
` + store.CopyRelations(pgRelationsColumns) + `ALTER TABLE code_vectors RENAME TO code_vectors6;
DROP INDEX IF EXISTS code_chunks_name;
DROP INDEX IF EXISTS code_chunks_defs;
DROP INDEX IF EXISTS code_chunks_file;
ALTER TABLE code_chunks ADD COLUMN file_id BIGINT;
UPDATE code_chunks c SET file_id = f.id FROM indexed_files f WHERE f.project_path = c.project_path AND f.file_path = c.file_path;
DELETE FROM code_chunks WHERE file_id IS NULL;
ALTER TABLE code_chunks ALTER COLUMN file_id SET NOT NULL;
ALTER TABLE code_chunks DROP COLUMN project_path;
ALTER TABLE code_chunks DROP COLUMN file_path;
` + pgVectorsTable

// pgRelationsColumns is relationsColumns on PostgreSQL.
const pgRelationsColumns = `(
	file_id       BIGINT NOT NULL,
	from_id       BIGINT NOT NULL,
	to_id         BIGINT NOT NULL,
	relation_type TEXT COLLATE "C" NOT NULL,
	line          BIGINT NOT NULL DEFAULT 0,
	plain         BIGINT NOT NULL DEFAULT 0
)`

// pgNamesTable is namesTable on PostgreSQL.
const pgNamesTable = `CREATE TABLE IF NOT EXISTS code_names (
	id   BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	name TEXT COLLATE "C" NOT NULL UNIQUE
);`

// pgVectorsTable is vectorsTable on PostgreSQL.
const pgVectorsTable = `CREATE TABLE IF NOT EXISTS code_vectors (
	file_id  BIGINT PRIMARY KEY,
	embedder TEXT COLLATE "C" NOT NULL,
	n        BIGINT NOT NULL,
	ids      BYTEA NOT NULL,
	vecs     BYTEA NOT NULL
);`

// pgTreeDirsTable is treeDirsTable on PostgreSQL.
const pgTreeDirsTable = `CREATE TABLE IF NOT EXISTS tree_dirs (
	project_path TEXT COLLATE "C" NOT NULL,
	dir_path     TEXT COLLATE "C" NOT NULL,
	data         TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (project_path, dir_path)
);`

// pgSchema is the PostgreSQL form of the schema (see store's schema.go for the
// meaning of each table; text is compared byte by byte, COLLATE "C", as
// SQLite does) plus the full-text statistics FTS5 keeps on
// SQLite, per project (project = projectKey(project_path)):
//
//	fts_stats(project, docs, tokens)   rows and total tokens of the project
//	fts_terms(project, term, df)       documents holding the term
//	fts_docs(id, project, len)         tokens of chunk id (all columns)
//	fts_postings(project, term, id,    occurrences of term in each column of
//	  f_name .. f_body)                chunk id
const pgSchema = pgTreeDirsTable + `
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT COLLATE "C" PRIMARY KEY,
	value TEXT COLLATE "C" NOT NULL
);
CREATE TABLE IF NOT EXISTS projects (
	project_path TEXT COLLATE "C" PRIMARY KEY,
	embedder     TEXT COLLATE "C" NOT NULL,
	dim          BIGINT NOT NULL DEFAULT 0,
	created_at   BIGINT NOT NULL,
	updated_at   BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS indexed_files (
	id              BIGINT GENERATED BY DEFAULT AS IDENTITY UNIQUE,
	project_path    TEXT COLLATE "C" NOT NULL,
	file_path       TEXT COLLATE "C" NOT NULL,
	content_sha256  TEXT COLLATE "C" NOT NULL,
	embedding_model TEXT COLLATE "C" NOT NULL,
	size            BIGINT NOT NULL,
	mtime_ns        BIGINT NOT NULL,
	language        TEXT COLLATE "C" NOT NULL DEFAULT '',
	chunk_count     BIGINT NOT NULL DEFAULT 0,
	indexed_at      BIGINT NOT NULL,
	analysis        BIGINT NOT NULL DEFAULT 1,
	PRIMARY KEY (project_path, file_path)
);
CREATE TABLE IF NOT EXISTS code_chunks (
	id              BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	file_id         BIGINT NOT NULL,
	chunk_type      TEXT COLLATE "C" NOT NULL,
	name            TEXT COLLATE "C" NOT NULL,
	owner           TEXT COLLATE "C" NOT NULL DEFAULT '',
	symbol          TEXT COLLATE "C" NOT NULL DEFAULT '',
	params          TEXT COLLATE "C" NOT NULL DEFAULT '',
	signature       TEXT COLLATE "C" NOT NULL DEFAULT '',
	language        TEXT COLLATE "C" NOT NULL DEFAULT '',
	doc             TEXT COLLATE "C" NOT NULL DEFAULT '',
	start_line      BIGINT NOT NULL,
	end_line        BIGINT NOT NULL,
	decl_end_line   BIGINT NOT NULL,
	start_byte      BIGINT NOT NULL,
	end_byte        BIGINT NOT NULL,
	content         TEXT COLLATE "C" NOT NULL,
	embedding_model TEXT COLLATE "C" NOT NULL DEFAULT ''
);
` + pgVectorsTable + `
CREATE INDEX IF NOT EXISTS code_chunks_file ON code_chunks(file_id, chunk_type);
` + pgNamesTable + `
CREATE TABLE IF NOT EXISTS code_relations ` + pgRelationsColumns + `;
CREATE INDEX IF NOT EXISTS code_relations_file ON code_relations(file_id);
CREATE INDEX IF NOT EXISTS code_relations_from ON code_relations(from_id);
CREATE INDEX IF NOT EXISTS code_relations_to ON code_relations(to_id);
CREATE TABLE IF NOT EXISTS fts_stats (
	project BIGINT PRIMARY KEY,
	docs    BIGINT NOT NULL,
	tokens  BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS fts_terms (
	project BIGINT NOT NULL,
	term    TEXT COLLATE "C" NOT NULL,
	df      BIGINT NOT NULL,
	PRIMARY KEY (project, term)
);
CREATE TABLE IF NOT EXISTS fts_docs (
	id      BIGINT PRIMARY KEY,
	project BIGINT NOT NULL,
	len     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS fts_docs_project ON fts_docs(project);
CREATE TABLE IF NOT EXISTS fts_postings (
	project BIGINT NOT NULL,
	term    TEXT COLLATE "C" NOT NULL,
	id      BIGINT NOT NULL,
	f_name  INTEGER NOT NULL,
	f_owner INTEGER NOT NULL,
	f_path  INTEGER NOT NULL,
	f_doc   INTEGER NOT NULL,
	f_body  INTEGER NOT NULL,
	PRIMARY KEY (project, term, id)
);
CREATE INDEX IF NOT EXISTS fts_postings_id ON fts_postings(id);
`

// pgTables are the tables of pgSchema, for Probe.
var pgTables = []string{"meta", "projects", "indexed_files", "code_chunks", "code_vectors", "code_relations", "code_names",
	"fts_stats", "fts_terms", "fts_docs", "fts_postings"}

// projectKey is the int64 key of project in the fts_* tables and its
// advisory lock: the FNV-1a 64-bit hash of the path.
func projectKey(project string) int64 {
	h := fnv.New64a()
	h.Write([]byte(project))
	return int64(h.Sum64())
}

// LockProject takes the exclusive right to index project: a session
// advisory lock keyed by the project, held on a connection of its own
// until release is called or the process dies. While another process
// holds it, onWait (if set) is called once with a message naming the
// project, and LockProject waits, polling, until the lock is free or ctx
// ends (ctx's error).
func (s *backend) LockProject(ctx context.Context, project string, onWait func(string)) (release func(), err error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", project, err)
	}
	key := projectKey(project)
	waited := false
	for {
		var ok bool
		if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(?)`, key).Scan(&ok); err != nil {
			conn.Close()
			return nil, fmt.Errorf("lock %s: %w", project, err)
		}
		if ok {
			return func() {
				_, err := conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(?)`, key)
				if err != nil {
					// a connection that cannot unlock is dropped, which
					// ends its session and so its lock
					_ = conn.Raw(func(any) error { return driver.ErrBadConn })
				}
				conn.Close()
			}, nil
		}
		if !waited && onWait != nil {
			onWait(fmt.Sprintf("project %s is being indexed by another process; waiting", project))
		}
		waited = true
		select {
		case <-ctx.Done():
			conn.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// pgInsertChunks inserts the chunks of one file in one statement and
// returns their ids in the order of cs. The rows are inserted in that
// order (ORDER BY ord), so the identity column gives them ascending ids.
func pgInsertChunks(ctx context.Context, tx *sql.Tx, fileID int64, cs []store.ChunkRow) ([]int64, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	n := len(cs)
	typ, name, owner, symbol, params := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	sig, lang, doc, content, emb := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	sl, el, dl, sb, eb := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, c := range cs {
		typ[i], name[i], owner[i], symbol[i], params[i] = c.Type, c.Name, c.Owner, c.Symbol, c.Params
		sig[i], lang[i], doc[i], content[i], emb[i] = c.Signature, c.Language, c.Doc, c.Content, c.Embedder
		sl[i], el[i], dl[i], sb[i], eb[i] = int64(c.StartLine), int64(c.EndLine), int64(c.DeclEndLine), int64(c.StartByte), int64(c.EndByte)
	}
	rows, err := tx.QueryContext(ctx, `INSERT INTO code_chunks(file_id, chunk_type, name, owner,
		symbol, params, signature, language, doc, start_line, end_line, decl_end_line, start_byte, end_byte, content,
		embedding_model)
		SELECT ?, t, n, o, sy, pa, sg, l, d, sl, el, dl, sb, eb, c, e
		FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
			?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::text[], ?::text[]) WITH ORDINALITY
			AS u(t, n, o, sy, pa, sg, l, d, sl, el, dl, sb, eb, c, e, ord)
		ORDER BY ord RETURNING id`,
		fileID, typ, name, owner, symbol, params, sig, lang, doc, sl, el, dl, sb, eb, content, emb)
	if err != nil {
		return nil, err
	}
	ids, err := store.Collect(rows, func(rows *sql.Rows) (int64, error) {
		var id int64
		err := rows.Scan(&id)
		return id, err
	})
	if err != nil {
		return nil, err
	}
	if len(ids) != n {
		return nil, fmt.Errorf("%d chunks inserted, %d ids returned", n, len(ids))
	}
	slices.Sort(ids)
	return ids, nil
}

// pgConnector opens pgx connections that speak the package's '?' SQL. A
// connection opened ahead (preconnect) is handed out before a new one is
// opened.
type pgConnector struct {
	c driver.Connector

	mu      sync.Mutex
	pending int              // connections opened ahead and not yet claimed
	ready   chan driver.Conn // their outcomes: a connection, or nil when it failed
	closed  bool
	stop    context.CancelFunc // ends the dials under way at Close
	life    context.Context
	dials   sync.WaitGroup
}

func newConnector(c driver.Connector) *pgConnector {
	p := &pgConnector{c: c, ready: make(chan driver.Conn, maxConns)}
	p.life, p.stop = context.WithCancel(context.Background())
	return p
}

// Connect returns a connection opened ahead when there is one (waiting for
// one being opened), else opens one.
func (p *pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	p.mu.Lock()
	claimed := p.pending > 0 && !p.closed
	if claimed {
		p.pending--
	}
	p.mu.Unlock()
	if claimed {
		select {
		case c := <-p.ready:
			if c != nil {
				return c, nil
			}
			// it failed: open one here, and report this attempt's error
		case <-ctx.Done():
			// the claimed connection is closed when it comes
			go func() {
				if c := <-p.ready; c != nil {
					c.Close()
				}
			}()
			return nil, ctx.Err()
		}
	}
	return p.dial(ctx)
}

func (p *pgConnector) dial(ctx context.Context) (driver.Conn, error) {
	c, err := p.c.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pgConn{c: c.(*stdlib.Conn), checked: time.Now()}, nil
}

// preconnect starts opening n connections in the background, each handed
// to a later Connect; a connection that fails to open is not reported
// here (the Connect that claims it opens one itself and reports that
// error).
func (p *pgConnector) preconnect(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n = min(n, maxConns-p.pending)
	if p.closed || n <= 0 {
		return
	}
	p.pending += n
	for range n {
		p.dials.Add(1)
		go func() {
			defer p.dials.Done()
			c, _ := p.dial(p.life) // nil when it failed
			p.ready <- c           // never blocks: at most maxConns are pending
		}()
	}
}

// Close ends the dials under way and closes the connections opened ahead
// that no Connect claimed; database/sql calls it from DB.Close.
func (p *pgConnector) Close() error {
	p.mu.Lock()
	p.closed = true
	unclaimed := p.pending // the others are a waiting Connect's
	p.pending = 0
	p.mu.Unlock()
	p.stop()
	p.dials.Wait()
	for range unclaimed {
		if c := <-p.ready; c != nil {
			c.Close()
		}
	}
	return nil
}

func (p *pgConnector) Driver() driver.Driver { return p.c.Driver() }

// Preconnect starts opening, in the background, the connections the pool
// lacks to hold n, so that up to n goroutines about to query at once
// (store.Store.Preconnect) find one open rather than each waiting for a
// new server process in turn.
func (s *backend) Preconnect(n int) {
	st := s.db.Stats()
	s.conns.preconnect(n - st.OpenConnections - s.conns.claimable())
}

// claimable returns how many connections opened ahead are not claimed.
func (p *pgConnector) claimable() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pending
}

// pgConn is a pgx connection whose queries have '?' placeholders rewritten
// to $1, $2, ... (rebind) and whose string arguments are made storable
// (pgText).
//
// A query the connection has not run before is sent in one round trip
// (queryOnce); from its second run on it goes through pgx's statement
// cache (prepared once, then executed in one round trip). A search
// process runs each of its queries about once on a new connection, where
// preparing first would double the round trips; an index run or a server
// repeats its statements.
type pgConn struct {
	c       *stdlib.Conn
	seen    map[string]struct{} // queries run on this connection (at most maxSeen)
	checked time.Time           // when the connection last proved alive: made, or pinged by ResetSession
}

// maxSeen bounds pgConn.seen; a full set is emptied.
const maxSeen = 4096

func (c *pgConn) Prepare(q string) (driver.Stmt, error) { return c.c.Prepare(rebind(q)) }
func (c *pgConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	return c.c.PrepareContext(ctx, rebind(q))
}
func (c *pgConn) Close() error { return c.c.Close() }
func (c *pgConn) Begin() (driver.Tx, error) {
	return c.c.BeginTx(context.Background(), driver.TxOptions{})
}
func (c *pgConn) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	return c.c.BeginTx(ctx, o)
}
func (c *pgConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	return c.c.ExecContext(ctx, rebind(q), args)
}
func (c *pgConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	q = rebind(q)
	if _, ok := c.seen[q]; ok {
		return c.c.QueryContext(ctx, q, args)
	}
	if c.seen == nil || len(c.seen) >= maxSeen {
		c.seen = map[string]struct{}{}
	}
	c.seen[q] = struct{}{}
	return c.queryOnce(ctx, q, args)
}
func (c *pgConn) Ping(ctx context.Context) error { return c.c.Ping(ctx) }

// ResetSession is stdlib's (a ping when the connection has not been
// checked for a second) except on a connection made or checked less than a
// second ago: the first reuse of a new connection pinged it, a round trip
// a short process paid for nothing.
func (c *pgConn) ResetSession(ctx context.Context) error {
	if c.c.Conn().IsClosed() {
		return driver.ErrBadConn
	}
	if time.Since(c.checked) < time.Second {
		return nil
	}
	c.checked = time.Now()
	return c.c.ResetSession(ctx)
}
func (c *pgConn) IsValid() bool { return !c.c.Conn().IsClosed() }
func (c *pgConn) CheckNamedValue(nv *driver.NamedValue) error {
	nv.Value = pgValue(nv.Value)
	return nil
}

// pgValue makes a string argument storable in a text column: PostgreSQL
// refuses NUL bytes and invalid UTF-8, which source files may hold; both
// become U+FFFD. Other values pass through for pgx to encode.
func pgValue(v any) any {
	switch x := v.(type) {
	case string:
		return pgText(x)
	case []string:
		out := x
		for i, s := range x {
			if t := pgText(s); t != s {
				if &out[0] == &x[0] {
					out = append([]string(nil), x...)
				}
				out[i] = t
			}
		}
		return out
	}
	return v
}

func pgText(s string) string {
	if utf8.ValidString(s) && !strings.Contains(s, "\x00") {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// rebind rewrites the '?' placeholders of q to $1, $2, ..., leaving those
// inside string literals, quoted identifiers and comments alone.
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(q) {
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			end := min(j+1, len(q))
			b.WriteString(q[i:end])
			i = end - 1
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i - 1
			}
			b.WriteString(q[i : i+j+1])
			i += j
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Size returns the size of the database (0 when it cannot be read).
func (s *backend) Size() int64 {
	var n int64
	_ = s.db.QueryRow(`SELECT pg_database_size(current_database())`).Scan(&n)
	return n
}

// WriteFailed does nothing: a rolled-back transaction leaves nothing
// behind on PostgreSQL.
func (s *backend) WriteFailed(context.Context, error) {}

// RemoveFTS deletes every full-text row of project (pgRemoveFTS).
func (s *backend) RemoveFTS(ctx context.Context, tx *sql.Tx, project string) error {
	return pgRemoveFTS(ctx, tx, project)
}

// PruneNames keeps every name: a writer of another project may hold a
// name's id, looked up and not yet used, and a name no relation uses is
// never read (store.Store.RelationNamesLike asks for a relation).
func (s *backend) PruneNames(context.Context, *sql.Tx) error { return nil }

// Like returns "ILIKE": PostgreSQL's LIKE is case-sensitive.
func (s *backend) Like() string { return "ILIKE" }

// ContentText returns col: PostgreSQL stores chunk text as is (its TOAST
// compresses long values).
func (s *backend) ContentText(col string) string { return col }

// NamesIn is `alias.name = ANY(names)`, names one text[] argument:
// code_names' UNIQUE index on name finds them.
func (s *backend) NamesIn(alias string, names []string) (string, []any) {
	return alias + `.name = ANY(?::text[])`, []any{names}
}

// IDsIn is `col = ANY(ids)`, ids one bigint[] argument: a new server
// process parses and plans it in less CPU than a list of hundreds of
// parameters (bench/PROFILE.md, session 14).
func (s *backend) IDsIn(col string, ids []int64) (string, []any) {
	return col + ` = ANY(?::bigint[])`, []any{ids}
}

// CompressesContent is false: chunk text is stored as is.
func (s *backend) CompressesContent() bool { return false }

// EachRowInPlace is errors.ErrUnsupported: pgx hands rows to database/sql
// only, so the store scans them there (store.Backend.EachRowInPlace).
func (s *backend) EachRowInPlace(context.Context, string, string, []any, func([]driver.Value) error) error {
	return errors.ErrUnsupported
}

// Probe reads one row of every table of pgSchema. Errors wrap
// store.ErrDamaged.
func (s *backend) Probe(ctx context.Context) error {
	for _, t := range pgTables {
		if err := store.Drain(ctx, s.db, "SELECT * FROM "+t+" LIMIT 1"); err != nil {
			return fmt.Errorf("%w: reading its tables: %w", store.ErrDamaged, err)
		}
	}
	return nil
}

// IntegrityCheck runs Probe and says "ok": the server checks its own
// pages.
func (s *backend) IntegrityCheck(ctx context.Context) (string, error) {
	if err := s.Probe(ctx); err != nil {
		return "", err
	}
	return "ok", nil
}

// Compact runs VACUUM on coderag's tables and returns the database's size
// before and after.
func (s *backend) Compact(ctx context.Context) (before, after int64, err error) {
	before = s.Size()
	_, err = s.db.ExecContext(ctx, `VACUUM `+strings.Join(pgTables, ", "))
	if err != nil {
		err = fmt.Errorf("compact %s: %w", s.path, err)
	}
	return before, s.Size(), err
}

// Reclaim does nothing: autovacuum hands back the space of replaced rows.
func (s *backend) Reclaim(context.Context) {}
