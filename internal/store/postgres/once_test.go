package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/coderag/coderag/internal/testutil"
)

// TestQueryOnceMatchesPrepared: a query's first run on a connection
// (queryOnce: one round trip, nothing prepared) and its later runs (pgx's
// statement cache) read the same values, for every kind of column and
// argument the store uses; the first run leaves no prepared statement on
// the server and the second prepares one.
func TestQueryOnceMatchesPrepared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, testutil.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE TEMP TABLE once_t (i BIGINT, n INTEGER, f FLOAT8, t TEXT, b BYTEA, ok BOOLEAN)`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO once_t VALUES (1, 7, 0.1, 'a', '\x00ff'::bytea, true), (-5, NULL, 1e300, '', NULL, false)`); err != nil {
		t.Fatal(err)
	}
	q := `SELECT i, n, f, t, b, ok, sum(i) OVER () AS total, ? || t AS cat, ?::bytea AS raw, ?::text AS rawtext
		FROM once_t WHERE t = ANY(?::text[]) AND i <> ? AND f < ? ORDER BY i`
	args := []any{"x\u00e9", []byte{0, 1, 2, 255}, []byte("plain"), []string{"a", "", `q"uote`}, int64(99), 1e301}
	read := func() ([][]any, error) {
		rows, err := conn.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out [][]any
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return nil, err
			}
			out = append(out, vals)
		}
		return out, rows.Err()
	}
	prepared := func() int { // q's prepared statements (the pattern is split so as not to match this query)
		var n int
		if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%sum(i) ' || 'OVER%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	first, err := read()
	if err != nil {
		t.Fatal(err)
	}
	if n := prepared(); n != 0 {
		t.Errorf("after the first run: %d prepared statements, want 0", n)
	}
	second, err := read()
	if err != nil {
		t.Fatal(err)
	}
	if n := prepared(); n != 1 {
		t.Errorf("after the second run: %d prepared statements, want 1", n)
	}
	if len(first) != 2 {
		t.Fatalf("first run: %d rows, want 2: %v", len(first), first)
	}
	if !reflect.DeepEqual(first, second) {
		t.Errorf("first run %v\nsecond run %v", first, second)
	}
	want := []any{int64(-5), nil, 1e300, "", nil, false, int64(-4), "x\u00e9", []byte{0, 1, 2, 255}, "plain"}
	if fmt.Sprint(first[0]) != fmt.Sprint(want) {
		t.Errorf("first row %#v, want %#v", first[0], want)
	}
	// an error of the server is the error of the query, and the
	// connection stays usable
	if _, err := conn.QueryContext(ctx, `SELECT no_such_column FROM once_t`); err == nil {
		t.Error("a bad query gave no error")
	}
	var one int64
	if err := conn.QueryRowContext(ctx, `SELECT 1::bigint WHERE ? = 'y'`, "y").Scan(&one); err != nil || one != 1 {
		t.Errorf("after an error: %d, %v", one, err)
	}
	if err := conn.QueryRowContext(ctx, `SELECT i FROM once_t WHERE i = ?`, int64(404)).Scan(&one); err != sql.ErrNoRows {
		t.Errorf("no row: %v, want sql.ErrNoRows", err)
	}
}

// TestLoopbackPlain: a target on this machine that says nothing about TLS
// connects with sslmode=allow; any TLS setting or another host is kept.
func TestLoopbackPlain(t *testing.T) {
	for _, c := range []struct{ target, want string }{
		{"postgres://u:p@localhost:5432/db", "postgres://u:p@localhost:5432/db?sslmode=allow"},
		{"postgresql://u@127.0.0.1/db?application_name=x", "postgresql://u@127.0.0.1/db?application_name=x&sslmode=allow"},
		{"postgres://u@[::1]:5432/db", "postgres://u@[::1]:5432/db?sslmode=allow"},
		{"postgres://u@localhost/db?options=-c%20search_path%3Dx", "postgres://u@localhost/db?options=-c%20search_path%3Dx&sslmode=allow"},
		{"host=localhost user=u dbname=db", "host=localhost user=u dbname=db sslmode=allow"},
		{"postgres://u@localhost/db?sslmode=require", ""},
		{"postgres://u@localhost/db?sslmode=disable", ""},
		{"host=localhost dbname=db sslmode=prefer", ""},
		{"postgres://u@db.example.com/db", ""},
		{"postgres://u@localhost,db.example.com/db", ""},
		{"postgres://u@10.0.0.1/db", ""},
	} {
		cfg, err := pgx.ParseConfig(c.target)
		if err != nil {
			t.Fatalf("%s: %v", c.target, err)
		}
		got := loopbackPlain(c.target, cfg)
		if got != c.want {
			t.Errorf("loopbackPlain(%q) = %q, want %q", c.target, got, c.want)
		}
		if got == "" {
			continue
		}
		// the server is asked for the same session as before
		plain, err := pgx.ParseConfig(got)
		if err != nil {
			t.Fatalf("%s: %v", got, err)
		}
		if !reflect.DeepEqual(plain.RuntimeParams, cfg.RuntimeParams) {
			t.Errorf("loopbackPlain(%q): runtime parameters %v, want %v", c.target, plain.RuntimeParams, cfg.RuntimeParams)
		}
	}
	t.Setenv("PGSSLMODE", "require")
	cfg, _ := pgx.ParseConfig("postgres://u@localhost/db")
	if got := loopbackPlain("postgres://u@localhost/db", cfg); got != "" {
		t.Errorf("with PGSSLMODE set: %q, want \"\"", got)
	}
}
