package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"hash/fnv"
	"strings"

	"modernc.org/sqlite"
)

// code_names from schema 9 (namesTable): each name of a relation once,
// with its id (the rowid, which code_relations' from_id and to_id hold)
// and hash, a 24-bit hash of the name (nameHash). Names are found by the
// index on hash and then compared whole: the name itself is stored once.
// Until schema 8 a UNIQUE constraint on name found them, whose index held
// a second copy of every name (on the semble dev repos the table and its
// index were each 0.04-0.16x the source). Two names may share a hash;
// the writer (nameTable.Add, one transaction at a time) adds only names it
// did not find, so a name is still stored once.
const namesTable = `CREATE TABLE IF NOT EXISTS code_names (
	id   INTEGER PRIMARY KEY,
	hash INTEGER NOT NULL,
	name TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS code_names_hash ON code_names(hash);`

// namesByHash is the SQL half of the move to schema 9: code_names is
// copied with the hash of each name (coderag_name_hash) and without its
// UNIQUE index, keeping every id.
const namesByHash = `CREATE TABLE code_names9 (
	id   INTEGER PRIMARY KEY,
	hash INTEGER NOT NULL,
	name TEXT NOT NULL
);
INSERT INTO code_names9(id, hash, name) SELECT id, coderag_name_hash(name), name FROM code_names ORDER BY id;
DROP TABLE code_names;
ALTER TABLE code_names9 RENAME TO code_names;
CREATE INDEX code_names_hash ON code_names(hash);`

// nameHash is code_names.hash of name: the FNV-1a hash of its bytes,
// folded to a signed 24-bit integer (-2^23 to 2^23-1), which SQLite stores
// in 3 bytes.
func nameHash(name string) int64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int64(int32(h.Sum32()<<8) >> 8)
}

func init() {
	sqlite.MustRegisterDeterministicScalarFunction("coderag_name_hash", 1, nameHashFunc)
}

// nameHashFunc is the SQL function coderag_name_hash(name): nameHash of a
// TEXT (or BLOB) name, NULL for NULL.
func nameHashFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	switch v := args[0].(type) {
	case string:
		return nameHash(v), nil
	case []byte:
		return nameHash(string(v)), nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("coderag_name_hash: a %T is no name", args[0])
}

// namesIn is the condition, and its arguments, that the code_names row
// alias has one of names: by their hashes (the index), then whole.
func namesIn(alias string, names []string) (string, []any) {
	args := make([]any, 0, 2*len(names))
	seen := make(map[int64]bool, len(names))
	for _, n := range names {
		if h := nameHash(n); !seen[h] {
			seen[h] = true
			args = append(args, h)
		}
	}
	hashes := len(args)
	for _, n := range names {
		args = append(args, n)
	}
	return alias + `.hash IN (?` + strings.Repeat(",?", hashes-1) + `) AND ` +
		alias + `.name IN (?` + strings.Repeat(",?", len(names)-1) + `)`, args
}

// NamesIn is store.Backend.NamesIn: by hash, then whole (namesIn).
func (s *backend) NamesIn(alias string, names []string) (string, []any) { return namesIn(alias, names) }

// IDsIn is store.Backend.IDsIn: `col IN (?, ...)`, one placeholder an id.
func (s *backend) IDsIn(col string, ids []int64) (string, []any) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return col + ` IN (?` + strings.Repeat(",?", len(ids)-1) + `)`, args
}

// nameTable is how SQLite looks up and adds code_names rows
// (store.NameIDs): ids are assigned here, from max(id)+1.
type nameTable struct{}

// Key returns name: SQLite stores any text as it is.
func (nameTable) Key(name string) string { return name }

// Lookup queries the (id, name) rows of names.
func (nameTable) Lookup(ctx context.Context, tx *sql.Tx, part []string) (*sql.Rows, error) {
	cond, args := namesIn("code_names", part)
	return tx.QueryContext(ctx, `SELECT id, name FROM code_names WHERE `+cond, args...)
}

// Add inserts the names of missing with ids from max(id)+1, setting them
// in ids.
func (nameTable) Add(ctx context.Context, tx *sql.Tx, missing []string, ids map[string]int64) error {
	var next int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM code_names`).Scan(&next); err != nil {
		return fmt.Errorf("next name id: %w", err)
	}
	ins := newBulk(tx, "code_names", "id", "hash", "name")
	for _, n := range missing {
		ids[n] = next
		if err := ins.add(ctx, next, nameHash(n), n); err != nil {
			return fmt.Errorf("add names: %w", err)
		}
		next++
	}
	err := ins.flush(ctx)
	if ins.full != nil {
		ins.full.Close()
	}
	if err != nil {
		return fmt.Errorf("add names: %w", err)
	}
	return nil
}
