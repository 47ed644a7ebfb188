package sqlite

// Health: what Open checks before it writes anything, what a caller checks
// after a failure, and what `coderag doctor` runs.
//
//   - A non-empty file that is not SQLite, or an SQLite database without
//     coderag's meta table and schema_version row, is not an index: Open
//     refuses it (store.ErrForeign) after looking at it read-only, so no command
//     ever writes coderag's tables (or the WAL header) into someone else's
//     database.
//   - An index at the current schema must hold every table (requiredTables);
//     one dropped is store.ErrDamaged, not "up to date".
//   - Probe reads the first and last row of every table and the full-text
//     index's structure record: milliseconds, so index runs it every time;
//     it finds damaged roots and ends of b-trees, not every damaged page.
//   - Check runs PRAGMA quick_check (or integrity_check) and FTS5's
//     integrity-check: every page, so it is for doctor, not for every run.
//   - store.Damaged recognises SQLite's own words for damage in any error
//     ("database disk image is malformed", "no such table", "file is not a
//     database") so every front end can end such an error with how to
//     repair the index, in its own words (the CLI names `coderag doctor`).
//   - A failure of the disk or file system (store.DiskProblem: SQLITE_FULL,
//     SQLITE_IOERR, ENOSPC, EIO, ...) is none of these: on a full disk
//     SQLite cannot grow the -shm file and every read says "disk I/O
//     error", of a file that is whole. Probe and Check report it as what
//     it is (diskError adds "the disk is full" when statfs says so), and
//     doctor moves nothing on its account.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/walk"
)

// requiredTables are the tables (and the FTS5 virtual table) of schema.
var requiredTables = []string{"meta", "projects", "indexed_files", "code_chunks", "code_vectors", "code_relations", "code_names", "chunks_fts"}

// inspect looks at an existing file read-only, before Open writes
// anything: it returns the schema version recorded in meta (0 for an empty
// database), store.ErrForeign for a file that is not SQLite or an SQLite
// database without coderag's meta, store.ErrDamaged when a table is missing at
// the current schema.
func inspect(ctx context.Context, path string) (int, error) {
	st, err := os.Stat(path)
	if err == nil && !st.Mode().IsRegular() {
		// SQLite would answer "disk I/O error"; a directory is nobody's
		// damaged index, and nothing here moves or rebuilds it
		return 0, fmt.Errorf("%w: %s is %s, not an index file", store.ErrForeign, path, walk.Kind(st.Mode()))
	}
	if err != nil || st.Size() == 0 {
		return 0, nil // new or empty: created by Open
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return 0, err
	}
	defer func() { db.Close() }()
	tables, err := tableNames(ctx, db)
	if err != nil && !store.Damaged(err) && !strings.Contains(strings.ToLower(err.Error()), "not a database") {
		// a read-only directory without the WAL's -shm file: read the
		// main file as it is (a consistent snapshot at a checkpoint)
		db.Close()
		if db, err = sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1"); err != nil {
			return 0, err
		}
		tables, err = tableNames(ctx, db)
	}
	if err != nil {
		if strings.Contains(strings.ToLower(err.Error()), "not a database") {
			return 0, fmt.Errorf("%w: %s is not an SQLite database (a damaged index, or another file; a new index is built once it is moved away)", store.ErrForeign, path)
		}
		return 0, store.MarkDamaged(err)
	}
	if len(tables) == 0 {
		return 0, nil
	}
	ours := 0
	for _, t := range requiredTables {
		if tables[t] {
			ours++
		}
	}
	var v string
	verr := sql.ErrNoRows
	if tables["meta"] {
		verr = db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v)
	}
	switch {
	case verr != nil && ours == 0:
		names := make([]string, 0, len(tables))
		for n := range tables {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) > 5 {
			names = append(names[:5], "...")
		}
		return 0, fmt.Errorf("%w: %s is an SQLite database of something else (tables %s)",
			store.ErrForeign, path, strings.Join(names, ", "))
	case errors.Is(verr, sql.ErrNoRows):
		return 0, fmt.Errorf("%w: coderag tables without their schema_version row", store.ErrDamaged)
	case verr != nil && store.DiskProblem(verr) != "":
		return 0, fmt.Errorf("read schema_version: %w", verr)
	case verr != nil:
		return 0, fmt.Errorf("%w: read schema_version: %w", store.ErrDamaged, verr)
	}
	have, err := strconv.Atoi(v)
	if err != nil || have < 1 {
		return 0, fmt.Errorf("%w: schema_version %q in %s", store.ErrDamaged, v, path)
	}
	if have == store.SchemaVersion {
		if missing := missingTables(tables); len(missing) > 0 {
			return have, fmt.Errorf("%w: table %s is missing", store.ErrDamaged, strings.Join(missing, ", "))
		}
	}
	return have, nil
}

func tableNames(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type='table'`)
	if err != nil {
		return nil, err
	}
	names, err := store.Collect(rows, store.ScanString)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out, nil
}

func missingTables(tables map[string]bool) []string {
	var out []string
	for _, t := range requiredTables {
		if !tables[t] {
			out = append(out, t)
		}
	}
	return out
}

// Probe reads the first and last row of every coderag table and the
// full-text index's structure, and runs one full-text query: a check of a
// few milliseconds that finds a missing table and damage at the root or
// either end of a b-tree. Errors wrap store.ErrDamaged, except a failure
// of the disk or file system (store.DiskProblem), which is returned as such.
func (s *backend) Probe(ctx context.Context) error {
	tables, err := tableNames(ctx, s.db)
	if err != nil {
		return store.MarkDamaged(fmt.Errorf("reading its tables: %w", diskError(s.path, err)))
	}
	if missing := missingTables(tables); len(missing) > 0 {
		return fmt.Errorf("%w: table %s is missing", store.ErrDamaged, strings.Join(missing, ", "))
	}
	var qs []string
	for _, t := range requiredTables {
		if t == "chunks_fts" {
			continue
		}
		qs = append(qs, "SELECT * FROM "+t+" ORDER BY rowid LIMIT 1", "SELECT * FROM "+t+" ORDER BY rowid DESC LIMIT 1")
	}
	qs = append(qs, `SELECT block FROM chunks_fts_data WHERE id IN (1, 10)`,
		`SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH '"coderagprobe"' LIMIT 1`)
	for _, q := range qs {
		if err := store.Drain(ctx, s.db, q); err != nil {
			if store.DiskProblem(err) != "" {
				return fmt.Errorf("reading its tables: %w", diskError(s.path, err))
			}
			return fmt.Errorf("%w: reading its tables: %w", store.ErrDamaged, err)
		}
	}
	return nil
}

// Check examines the index at path without changing it: the file is
// SQLite with coderag's schema marker, every table exists, PRAGMA
// quick_check (integrity_check with full) finds nothing, and FTS5's
// integrity-check passes (run inside a transaction that is rolled back);
// then, when all passed, it counts each project's vectors by embedder
// (CheckReport.Vectors). Problems go into the report; the error is only for a check that could
// not run (context cancelled). A missing file is reported as a problem.
// Only damage (store.Damaged) is a problem: a check that fails for another
// cause, above all the disk or file system (store.DiskProblem: full, an
// I/O error), goes into Unreadable, and no check after it runs.
func Check(ctx context.Context, path string, full bool) (*store.CheckReport, error) {
	rep := &store.CheckReport{Path: path}
	if _, err := os.Stat(path); err != nil {
		rep.Problems = append(rep.Problems, fmt.Sprintf("no index: %v", err))
		return rep, nil
	}
	// notDamage records in rep.Unreadable the failure of a check that
	// says nothing of the file's content (not store.Damaged): the disk's,
	// in store.DiskProblem's words, or another, as a lock held too long.
	// It reports whether err was such a failure.
	notDamage := func(what string, err error) bool {
		if store.Damaged(err) {
			return false
		}
		if p := store.DiskProblem(diskError(path, err)); p != "" {
			rep.Unreadable = fmt.Sprintf("%s (%s: %v)", p, what, err)
		} else {
			rep.Unreadable = fmt.Sprintf("%s: %v", what, err)
		}
		return true
	}
	dsn, ro := readOnlyDSN(path)
	if ro {
		if err := unmergedWAL(path, dsn); err != nil {
			// not damage: the checks would read a stale or torn view
			rep.Unreadable = err.Error()
			return rep, nil
		}
	}
	have, err := inspect(ctx, path)
	rep.Schema = have
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rep.Foreign = errors.Is(err, store.ErrForeign)
		if !rep.Foreign && notDamage("reading its schema", err) {
			return rep, nil
		}
		rep.Problems = append(rep.Problems, err.Error())
		if rep.Foreign {
			return rep, nil
		}
	}
	if !ro {
		dsn = "file:" + path + "?_pragma=busy_timeout(10000)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	ps, err := store.ProjectPaths(ctx, db)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if notDamage("reading its projects", err) {
			return rep, nil // doctor must not move an index whose projects it cannot name
		}
		rep.ProjectsError = err.Error()
	}
	rep.Projects = ps
	pragma := "PRAGMA quick_check"
	if full {
		pragma = "PRAGMA integrity_check"
	}
	rows, err := db.QueryContext(ctx, pragma)
	if err == nil {
		err = store.EachRow(rows, func() error {
			var line string
			if rows.Scan(&line) == nil && line != "ok" && len(rep.Problems) < 20 {
				rep.Problems = append(rep.Problems, line)
			}
			return nil
		})
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if notDamage(pragma, err) {
			return rep, nil
		}
		rep.Problems = append(rep.Problems, fmt.Sprintf("%s: %v", pragma, err))
	}
	switch {
	case have == store.SchemaVersion && ro:
		// FTS5's integrity-check is an INSERT, which a read-only index
		// refuses: say it was not run rather than report the refusal
		rep.Skipped = append(rep.Skipped, "full-text index check (the index cannot be written, and FTS5 checks through an INSERT)")
	case have == store.SchemaVersion:
		if err := ftsCheck(ctx, db); err != nil && !notDamage("full-text index check", err) {
			rep.Problems = append(rep.Problems, fmt.Sprintf("full-text index: %v", err))
		}
	}
	if have == store.SchemaVersion && len(rep.Problems) == 0 && rep.Unreadable == "" {
		vectorCheck(ctx, db, rep)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return rep, nil
}

// vectorCheck reads each project's embedders of vectors into rep.Vectors
// (store.ReadVectors). Damage found on the way is a problem; any other
// failure leaves the check out (rep.Skipped): the file passed the checks
// that say it is sound.
func vectorCheck(ctx context.Context, db *sql.DB, rep *store.CheckReport) {
	vs, err := store.ReadVectors(ctx, db)
	switch {
	case err == nil:
		rep.Vectors = vs
	case store.Damaged(err):
		rep.Problems = append(rep.Problems, fmt.Sprintf("reading the vectors' embedders: %v", err))
	case ctx.Err() == nil:
		rep.Skipped = append(rep.Skipped, fmt.Sprintf("the embedders of each project's vectors (%v)", err))
	}
}

// ftsCheck runs FTS5's integrity-check command, which is an INSERT, in a
// transaction that is always rolled back.
func ftsCheck(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ts, err := ftsTables(ctx, db)
	if err != nil {
		return err
	}
	for _, t := range append([]string{"chunks_fts"}, ts...) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+t+`(`+t+`, rank) VALUES('integrity-check', 0)`); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
	}
	return nil
}

// Compact gives the pages freed by deletions back to the file system and
// empties the write-ahead log: PRAGMA incremental_vacuum on an index made
// with auto_vacuum=INCREMENTAL (every index this coderag creates), else a
// one-time VACUUM that also switches the file to incremental auto-vacuum;
// then a TRUNCATE checkpoint, which also shrinks a WAL left large by a
// failed write (disk full). It returns the bytes of the file and its WAL
// before and after. A reader holding an old snapshot can keep the WAL from
// shrinking until it finishes; that is not an error. VACUUM needs free disk
// space about the size of the index; when it fails (disk full) the
// checkpoint still runs and the VACUUM error is returned.
func (s *backend) Compact(ctx context.Context) (before, after int64, err error) {
	before = s.Size()
	var mode int
	if err := s.db.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&mode); err != nil {
		return before, before, store.MarkDamaged(fmt.Errorf("compact: %w", err))
	}
	var vacErr error
	if mode == 2 {
		vacErr = store.Drain(ctx, s.db, `PRAGMA incremental_vacuum`)
	} else {
		// VACUUM cannot run inside a transaction and rewrites the file;
		// the new auto_vacuum mode takes effect with it
		if _, err := s.db.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err == nil {
			_, vacErr = s.db.ExecContext(ctx, `VACUUM`)
		}
	}
	if err := store.Drain(ctx, s.db, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil && vacErr == nil {
		vacErr = err
	}
	after = s.Size()
	if vacErr != nil {
		return before, after, fmt.Errorf("compact %s: %w", s.path, store.MarkDamaged(vacErr))
	}
	return before, after, nil
}

// ReadProjects lists the projects of the index at path, read-only and
// without any check: how doctor learns which projects, and with which
// embedders, a damaged index held. Rows it cannot read are an error.
func ReadProjects(ctx context.Context, path string) ([]store.Project, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	s := store.New(store.Conn{DB: db, Path: path, ReadOnly: true}, &backend{db: db, path: path})
	ps, err := s.Projects(ctx)
	return ps, diskError(path, err)
}
