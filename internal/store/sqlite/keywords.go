package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/coderag/coderag/internal/store"
)

// DumpKeywords is store.Store.DumpKeywords on SQLite. On one connection,
// in one read transaction (one WAL snapshot): the project's data version
// (meta versionKey), FTS5's averages record (row 1 of the table's _data:
// a varint row count, then a varint token total per column, SQLite's
// varint format), every row of _docsize (a varint token count per
// column), and every token instance through a temporary fts5vocab
// table of type 'instance' (sorted by term, row, column, offset). Rows go
// to the visitor in place (coderag_each_row). A project without a table of
// its own (rows in the legacy shared table) is errors.ErrUnsupported.
func (s *backend) DumpKeywords(ctx context.Context, project, versionKey string, v store.KeywordVisitor) (st store.KeywordStats, err error) {
	t := ftsTable(project)
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return st, fmt.Errorf("dump keywords: %w", err)
	}
	defer conn.Close()
	ok, err := hasTable(ctx, conn, t)
	if err != nil {
		return st, fmt.Errorf("dump keywords: %w", err)
	}
	if !ok {
		return st, errors.ErrUnsupported
	}
	// the vocabulary table lives in this connection's temp schema, and is
	// dropped with it; it is created before the snapshot starts
	vocab := "temp.vocab_" + t[len("chunks_fts_"):]
	if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS `+vocab+` USING fts5vocab(main, `+t+`, 'instance')`); err != nil {
		return st, fmt.Errorf("dump keywords: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DROP TABLE IF EXISTS `+vocab)
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return st, fmt.Errorf("dump keywords: %w", err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, versionKey).Scan(&st.Version); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("dump keywords: version: %w", err)
	}
	var avg []byte
	if err := tx.QueryRowContext(ctx, `SELECT block FROM `+t+`_data WHERE id=1`).Scan(&avg); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return st, nil // no row was ever written
		}
		return st, fmt.Errorf("dump keywords: averages: %w", err)
	}
	n, i := varint(avg)
	st.Rows = int64(n)
	for c := 0; c < len(store.KeywordColumns) && i < len(avg); c++ {
		n, w := varint(avg[i:])
		st.Tokens += int64(n)
		i += w
	}
	each := func(q string, fn func(vals []driver.Value) error) error {
		token, scan := startRowScan(fn)
		defer rowScans.Delete(token)
		var done any
		err := tx.QueryRowContext(ctx, `SELECT coderag_each_row(?, `+q, token).Scan(&done)
		if scan.err != nil {
			return scan.err
		}
		return err
	}
	if err := each(`id, sz) FROM `+t+`_docsize ORDER BY id`, func(vals []driver.Value) error {
		id, _ := vals[0].(int64)
		sz := store.BlobArg(vals[1])
		tokens := 0
		for i := 0; i < len(sz); {
			n, w := varint(sz[i:])
			tokens += int(n)
			i += w
		}
		return v.Size(id, tokens)
	}); err != nil {
		return st, fmt.Errorf("dump keywords: sizes: %w", err)
	}
	cols := map[string]int{}
	for i, c := range store.KeywordColumns {
		cols[c] = i
	}
	if err := each(`term, doc, col) FROM `+vocab, func(vals []driver.Value) error {
		id, _ := vals[1].(int64)
		c, ok := cols[store.TextArg(vals[2])]
		if !ok {
			return fmt.Errorf("unknown full-text column %q", store.TextArg(vals[2]))
		}
		return v.Instance(store.TextArg(vals[0]), id, c)
	}); err != nil {
		return st, fmt.Errorf("dump keywords: instances: %w", err)
	}
	return st, nil
}

// varint decodes one SQLite varint (big-endian groups of 7 bits, the
// ninth byte whole) at the start of b, returning it and its length; an
// empty or cut b gives what it holds.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return v, len(b)
}
