package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/coderag/coderag/internal/store"
	"modernc.org/sqlite"
)

// EachRowInPlace runs `SELECT cols FROM from` with args and calls fn with
// each row's values, in SQLite's own memory: TEXT and BLOB values are
// views valid during the call only (fn copies what it keeps, and must not
// use the database), INTEGER values int64, REAL float64, NULL nil. The
// rows go to fn inside the query, through the aggregate coderag_each_row
// (rowScanFunc), so database/sql copies and converts none of them. An
// error of fn ends the query and is returned as it is
// (store.Backend.EachRowInPlace).
func (s *backend) EachRowInPlace(ctx context.Context, cols, from string, args []any, fn func(vals []driver.Value) error) error {
	token, scan := startRowScan(fn)
	defer rowScans.Delete(token)
	var done any
	err := s.db.QueryRowContext(ctx, `SELECT coderag_each_row(?, `+cols+`) FROM `+from, append([]any{token}, args...)...).Scan(&done)
	if scan.err != nil {
		return scan.err
	}
	return err
}

// rowScan is one EachRowInPlace call: the callback its aggregate calls,
// and the first error, which ends the query.
type rowScan struct {
	fn  func(vals []driver.Value) error
	err error
}

// rowScans holds the scans going on, by the token their query passes to
// coderag_each_row; scanTokens numbers them.
var (
	rowScans   sync.Map // int64 -> *rowScan
	scanTokens atomic.Int64
)

// startRowScan registers a scan of fn and returns its token; the caller
// deletes it from rowScans when its query is done.
func startRowScan(fn func(vals []driver.Value) error) (int64, *rowScan) {
	token := scanTokens.Add(1)
	scan := &rowScan{fn: fn}
	rowScans.Store(token, scan)
	return token, scan
}

// rowScanFunc is the SQL aggregate coderag_each_row(token, values...): for
// each row it calls the callback of the scan registered under token with
// the row's values. Its arguments are zero-copy views of SQLite's memory
// (VolatileArgs), valid during the call only. The result is NULL; an
// error of the callback is kept in the scan and ends the query.
var rowScanFunc = &sqlite.FunctionImpl{
	NArgs:        -1,
	VolatileArgs: true,
	MakeAggregate: func(sqlite.FunctionContext) (sqlite.AggregateFunction, error) {
		return &rowAgg{}, nil
	},
}

func init() {
	sqlite.MustRegisterFunction("coderag_each_row", rowScanFunc)
	sqlite.MustRegisterDeterministicScalarFunction("coderag_text", 1, contentText)
}

// contentText is the SQL function coderag_text(v): the text of a stored
// chunk text (store.DecodeContent), for SQL that matches it (LIKE).
func contentText(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	switch v := args[0].(type) {
	case string:
		return v, nil
	case []byte:
		return store.DecodeContent(string(v))
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("coderag_text: a %T is no chunk text", args[0])
}

// rowAgg is one evaluation of coderag_each_row.
type rowAgg struct{ scan *rowScan }

// Step hands one row to the scan's callback (sqlite.AggregateFunction).
func (a *rowAgg) Step(_ *sqlite.FunctionContext, args []driver.Value) error {
	if a.scan == nil {
		token, _ := args[0].(int64)
		v, ok := rowScans.Load(token)
		if !ok {
			return fmt.Errorf("coderag_each_row: no scan %d", token)
		}
		a.scan = v.(*rowScan)
	}
	if err := a.scan.fn(args[1:]); err != nil {
		a.scan.err = err
		return err
	}
	return nil
}

// WindowInverse refuses: coderag_each_row is no window function.
func (a *rowAgg) WindowInverse(*sqlite.FunctionContext, []driver.Value) error {
	return errors.New("coderag_each_row is not a window function")
}

// WindowValue is the aggregate's result, NULL.
func (a *rowAgg) WindowValue(*sqlite.FunctionContext) (driver.Value, error) { return nil, nil }

// Final does nothing: the callback has had every row.
func (a *rowAgg) Final(*sqlite.FunctionContext) {}
