package store

import (
	"context"
	"errors"
)

// KeywordColumns are the columns of a project's full-text rows, in the
// order of FTSWeights and of KeywordDump's column numbers.
var KeywordColumns = [...]string{"name", "owner", "path", "doc", "body"}

// KeywordStats are the collection statistics BM25 reads from a project's
// full-text index (FTS5's averages record): the row count and the token
// count over every column. Version is the project's DataVersion in the same
// snapshot, so a reader can key what it built from the dump by it.
type KeywordStats struct {
	Version string
	Rows    int64
	Tokens  int64
}

// KeywordVisitor receives a project's full-text index from DumpKeywords.
// Size is called once per row with its chunk id and its token count over
// every column (FTS5's docsize), in ascending id order; Instance once per
// token instance with the token (as the tokenizer folded it), the chunk id
// and the column (an index into KeywordColumns), ordered by token, then
// chunk id, then column and position. A token is valid during the call
// only (a view of the database's memory: clone what is kept). An error of either ends the dump and is returned as it is.
type KeywordVisitor struct {
	Size     func(id int64, tokens int) error
	Instance func(token string, id int64, col int) error
}

// keywordDumper is the optional Backend method behind DumpKeywords.
type keywordDumper interface {
	DumpKeywords(ctx context.Context, project, versionKey string, v KeywordVisitor) (KeywordStats, error)
}

// DumpKeywords reads project's whole full-text index in one read snapshot
// (its statistics, every row's size and every token instance, see
// KeywordVisitor), so that a long-lived process can answer KeywordSearch
// from memory with the same scores (search.Warm). On SQLite it reads the
// project's FTS5 table through fts5vocab; the cost is about one
// microsecond per token instance (GOROOT/src: 18 million, 9 s). Errors:
// errors.ErrUnsupported on a backend that cannot (PostgreSQL) and for a
// project whose rows are still in the shared legacy table; the
// visitor's errors; the database's.
func (s *Store) DumpKeywords(ctx context.Context, project string, v KeywordVisitor) (KeywordStats, error) {
	d, ok := s.b.(keywordDumper)
	if !ok {
		return KeywordStats{}, errors.ErrUnsupported
	}
	return d.DumpKeywords(ctx, project, versionKey(project), v)
}
