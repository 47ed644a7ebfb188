package store

import (
	"context"
	"database/sql"
	"strings"
)

// SchemaVersion is the version of the format below, the same on both
// backends. Open migrates an older index forward and refuses a newer one.
const SchemaVersion = 9

// The schema, the same tables on both backends (store/sqlite: schema.go;
// store/postgres: pgSchema, with the full-text statistics FTS5 keeps on
// SQLite). One index holds
// every project; a project is its project_path, the absolute,
// symlink-resolved root, in projects and indexed_files, and the rows of a
// file's chunks, vectors and relations carry its indexed_files.id.
//
//	meta(key, value)                 schema_version and other facts, among
//	                                 them per project data_version and
//	                                 files_token (FilesKey: fileskey.go)
//	projects                         one row per indexed root: embedder id
//	                                 ("provider:model"), vector dimension, times
//	indexed_files                    id (the file id of code_chunks,
//	                                 code_relations and code_vectors);
//	                                 unique (project_path,
//	                                 file_path); content_sha256
//	                                 and embedding_model are the fingerprint that
//	                                 lets unchanged files be skipped; size and
//	                                 mtime_ns feed the stat fast path; analysis
//	                                 is the version of chunking and term analysis
//	                                 the file's rows were made with
//	code_chunks                      one row per chunk of the file file_id
//	                                 (indexed_files.id): text, lines, names;
//	                                 name is the chunk name as the chunker
//	                                 wrote it, symbol, owner and params its
//	                                 parts (chunk.Symbol); from schema 8
//	                                 the text may be compressed (content.go)
//	                                 and embedding_model is '' in new rows
//	                                 (the file's is read); from schema 9 the
//	                                 doc may be compressed with the text (doc
//	                                 is then '') and symbol, params and
//	                                 signature may be positions in the name
//	                                 (content.go)
//	code_vectors                     one row per file (file_id =
//	                                 indexed_files.id): the embeddings of its
//	                                 chunks, int8-quantised with a float32
//	                                 scale, packed in one BLOB with the chunk
//	                                 ids beside it (vector.go), kept apart so a
//	                                 vector scan reads no chunk text and one
//	                                 row per file
//	meta.data_version:PROJECT        bumped by every write of the project,
//	                                 so readers can cache its vectors and
//	                                 resolver and know when to reload
//	code_relations                   imports/extends/implements/contains/calls
//	                                 of the file file_id (indexed_files.id),
//	                                 from the name from_id to the name to_id
//	                                 (code_names.id); plain = 1 for a Go call
//	                                 written without a receiver (it can only
//	                                 reach a function), 2 for one on the
//	                                 method's own receiver, 3 for one on
//	                                 another value (see lang.CallForm)
//	code_names                       every name of a relation, once; on
//	                                 SQLite from schema 9 found by a 24-bit
//	                                 hash column (store/sqlite names.go)
//	chunks_fts                       FTS5, contentless with delete support,
//	                                 rowid = code_chunks.id; columns hold
//	                                 pre-analysed terms (identifier sub-words,
//	                                 stems, CJK bigrams) so BM25 works on
//	                                 code-aware terms: name (the bare symbol),
//	                                 owner (its class/receiver), path, doc
//	                                 (doc comment), body (the chunk text)
//	tree_dirs                        the tree listing of the last walk, by
//	                                 directory (treedirs.go); beside a
//	                                 local index, package index keeps it
//	                                 in a file instead (SidePath) and reads
//	                                 these rows only while that is missing

// DataMigrations[v], when there is one, runs after a backend's SQL
// migration of schema v to v+1, in the same transaction, for the rewrites
// SQL cannot do; both backends run it.
var DataMigrations = map[int]func(context.Context, *sql.Tx) error{
	4: requantise,
	6: packVectors, // vector.go
}

// CopyRelations is the SQL, the same on both backends, that fills
// code_names and copies code_relations with file and name ids into a new
// table of the columns cols (the backend's relationsColumns), which
// replaces it.
func CopyRelations(cols string) string {
	return `INSERT INTO code_names(name) SELECT from_name FROM code_relations UNION SELECT to_name FROM code_relations ORDER BY 1;
CREATE TABLE code_relations7 ` + cols + `;
INSERT INTO code_relations7(file_id, from_id, to_id, relation_type, line, plain)
	SELECT f.id, a.id, b.id, r.relation_type, r.line, r.plain FROM code_relations r
	JOIN indexed_files f ON f.project_path = r.project_path AND f.file_path = r.file_path
	JOIN code_names a ON a.name = r.from_name JOIN code_names b ON b.name = r.to_name ORDER BY r.id;
DROP TABLE code_relations;
ALTER TABLE code_relations7 RENAME TO code_relations;
`
}

// BackfillSymbols fills code_chunks.symbol and params of rows written
// before those columns from the chunk name, by the rules of
// chunk.ParseSymbol: the name is cut at its first '(' (the rest, less a
// final ')', is params); a method named "Owner.m" keeps m, any other name
// its last dotted segment; a class keeps the last dotted segment of its
// whole name; text chunks name no symbol. last(x), the text after the last
// '.', is replace(x, rtrim(x, <x without dots>), ”): rtrim strips the
// trailing run of characters that are not '.', leaving the prefix through
// the last '.'.
var BackfillSymbols = strings.NewReplacer(
	"HEAD", "(CASE WHEN instr(name, '(') > 0 THEN substr(name, 1, instr(name, '(') - 1) ELSE name END)",
	"PARAMS", "(CASE WHEN instr(name, '(') > 0 THEN substr(name, instr(name, '(') + 1) ELSE '' END)",
).Replace(strings.NewReplacer(
	"LAST(HEAD)", "replace(HEAD, rtrim(HEAD, replace(HEAD, '.', '')), '')",
	"LAST(name)", "replace(name, rtrim(name, replace(name, '.', '')), '')",
).Replace(`UPDATE code_chunks SET
	symbol = CASE
		WHEN chunk_type = 'class' THEN LAST(name)
		WHEN chunk_type = 'text' THEN ''
		WHEN owner <> '' AND substr(HEAD, 1, length(owner) + 1) = owner || '.' THEN substr(HEAD, length(owner) + 2)
		ELSE LAST(HEAD) END,
	params = CASE
		WHEN chunk_type IN ('class', 'text') THEN ''
		WHEN PARAMS LIKE '%)' THEN substr(PARAMS, 1, length(PARAMS) - 1)
		ELSE PARAMS END`))
