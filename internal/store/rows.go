package store

import (
	"database/sql"
	"errors"
)

// The one loop over query results: every read of more than one row goes
// through eachRow or collect, so a result set is always closed and its
// iteration error (rows.Err) never forgotten.

// eachRow calls fn for every row of rows (fn scans it with rows.Scan and
// keeps what it needs) and closes rows. An error from fn stops the loop and
// is returned; errStop stops it without an error. Otherwise the error is
// rows.Err().
func eachRow(rows *sql.Rows, fn func() error) error {
	defer rows.Close()
	for rows.Next() {
		if err := fn(); err != nil {
			if errors.Is(err, errStop) {
				return nil
			}
			return err
		}
	}
	return rows.Err()
}

// errStop, returned by an eachRow callback, ends the loop early without an
// error.
var errStop = errors.New("stop")

// collect returns scan applied to every row of rows, in order, and closes
// rows. Errors: the first of scan's, then rows.Err(); the values are nil
// then.
func collect[T any](rows *sql.Rows, scan func(*sql.Rows) (T, error)) ([]T, error) {
	var out []T
	err := eachRow(rows, func() error {
		v, err := scan(rows)
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanString scans a row of one text column.
func scanString(rows *sql.Rows) (string, error) {
	var s string
	err := rows.Scan(&s)
	return s, err
}
