package postgres

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// allBinary asks for every result column in binary format (one format code
// applies to all columns).
var allBinary = []int16{pgx.BinaryFormatCode}

// queryOnce runs q with args in one round trip: Parse of the unnamed
// statement, Bind, Describe and Execute go out together (pgconn's
// ExecParams). The arguments are sent with no type (onceParams), so the
// server gives each the type it infers from q, as it does when pgx
// prepares q; the results come back in binary, as pgx's statement cache
// asks for the types it knows. Errors: the server's, or driver.ErrBadConn when the
// query could not be sent (database/sql then retries on another
// connection).
func (c *pgConn) queryOnce(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	conn := c.c.Conn()
	if conn.IsClosed() {
		return nil, driver.ErrBadConn
	}
	vals, formats, err := onceParams(conn.TypeMap(), args)
	if err != nil {
		return nil, err
	}
	rr := conn.PgConn().ExecParams(ctx, q, vals, nil, formats, allBinary)
	rows := pgx.RowsFromResultReader(conn.TypeMap(), rr)
	// the first row is read now, as stdlib does, so that an error of the
	// query is the error of QueryContext
	more := rows.Next()
	if err := rows.Err(); err != nil {
		rows.Close()
		if pgconn.SafeToRetry(err) {
			return nil, driver.ErrBadConn
		}
		return nil, err
	}
	return &onceRows{rows: rows, more: more, first: true}, nil
}

// onceParams encodes args for a statement whose parameter types the
// server infers: a []byte as its bytes in binary format (the binary form of
// both bytea and text), anything else in pgx's text format for its Go type
// (a string as is, an int64 in decimal, a []string as an array literal),
// nil as NULL. Errors: a value pgx cannot encode.
func onceParams(m *pgtype.Map, args []driver.NamedValue) ([][]byte, []int16, error) {
	vals := make([][]byte, len(args))
	formats := make([]int16, len(args))
	for i, a := range args {
		switch x := a.Value.(type) {
		case nil:
		case []byte:
			vals[i], formats[i] = x, pgx.BinaryFormatCode
		case string:
			vals[i] = []byte(x)
		default:
			b, err := m.Encode(0, pgx.TextFormatCode, x, nil)
			if err != nil {
				return nil, nil, fmt.Errorf("argument %d: %w", i+1, err)
			}
			vals[i] = b
		}
	}
	return vals, formats, nil
}

// onceRows is the driver.Rows of queryOnce: pgx decodes each column by its
// type, and the values that are not driver values (smaller integers and
// floats, pgx's own types) are converted to them.
type onceRows struct {
	rows        pgx.Rows
	first, more bool // the first row was read by queryOnce; more: it exists
}

// Columns returns the names of the result's columns.
func (r *onceRows) Columns() []string {
	fds := r.rows.FieldDescriptions()
	names := make([]string, len(fds))
	for i, fd := range fds {
		names[i] = fd.Name
	}
	return names
}

// Close reads what is left of the result and returns the query's error,
// if any.
func (r *onceRows) Close() error {
	r.rows.Close()
	return r.rows.Err()
}

// Next fills dest with the next row; io.EOF after the last.
func (r *onceRows) Next(dest []driver.Value) error {
	more := r.more
	if r.first {
		r.first = false
	} else {
		more = r.rows.Next()
	}
	if !more {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return io.EOF
	}
	vals, err := r.rows.Values()
	if err != nil {
		return err
	}
	for i, v := range vals {
		if dest[i], err = driverValue(v); err != nil {
			return fmt.Errorf("convert column %d: %w", i, err)
		}
	}
	return nil
}

// driverValue converts a value pgx decoded to a driver.Value.
func driverValue(v any) (driver.Value, error) {
	switch x := v.(type) {
	case nil, int64, float64, bool, []byte, string:
		return x, nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case float32:
		return float64(x), nil
	case driver.Valuer:
		return x.Value()
	}
	return driver.DefaultParameterConverter.ConvertValue(v)
}
