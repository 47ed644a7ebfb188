package store

import (
	"context"
	"database/sql"
	"strings"
)

// SchemaVersion is the version of the on-disk format below. Open migrates an
// older file forward and refuses a newer one.
const SchemaVersion = 7

// migrations[v] upgrades a file of schema v to v+1; a new file is created at
// SchemaVersion directly from schema. dataMigrations[v], when there is
// one, runs after migrations[v] in the same transaction, for the rewrites
// SQL cannot do; both backends run it.
var migrations = map[int]string{
	1: `ALTER TABLE code_relations ADD COLUMN plain INTEGER NOT NULL DEFAULT 0`,
	2: `ALTER TABLE indexed_files ADD COLUMN analysis INTEGER NOT NULL DEFAULT 1`,
	3: `ALTER TABLE code_chunks ADD COLUMN symbol TEXT NOT NULL DEFAULT '';
		ALTER TABLE code_chunks ADD COLUMN params TEXT NOT NULL DEFAULT '';
		` + backfillSymbols,
	4: ``, // vectors float32 -> int8 codes: dataMigrations[4]
	5: treeDirsTable,
	6: keyByFileID,
}

var dataMigrations = map[int]func(context.Context, *sql.Tx) error{
	4: requantise,
	6: packVectors, // vector.go
}

// keyByFileID is the SQL half of the move to schema 7 (the other half is
// packVectors): indexed_files gets an integer id (the table is copied,
// in the order of its old key, so the ids follow it); code_relations is
// copied with that id in place of project_path and file_path, and the ids
// of its names in code_names (namesTable) in place of from_name and
// to_name; the old code_vectors is renamed code_vectors6 for packVectors,
// which copies its rows into the new code_vectors and drops it. A relation or vector
// whose file has no fingerprint row is not copied: no write leaves one
// (a file's rows and its fingerprint are written in one transaction), and
// a file without a fingerprint is indexed anew, with all its rows, by the
// next run.
//
// code_chunks is copied with the file id in place of project_path and
// file_path too (on PostgreSQL the column is added and the two dropped),
// and its indexes become one: code_chunks_name (project_path, name) was
// used by no query (the name searches are LIKE '%...%' and walk the
// project's rows), and the eight columns of code_chunks_defs stopped
// covering Definitions when symbol and params were added; code_chunks_file
// (file_id, chunk_type) serves a file's chunks, a project's (through
// indexed_files' key), Definitions and the counts by type.
var keyByFileID = `CREATE TABLE indexed_files7 ` + filesColumns + `;
INSERT INTO indexed_files7(project_path, file_path, content_sha256, embedding_model, size, mtime_ns, language,
	chunk_count, indexed_at, analysis)
	SELECT project_path, file_path, content_sha256, embedding_model, size, mtime_ns, language, chunk_count,
	indexed_at, analysis FROM indexed_files ORDER BY project_path, file_path;
DROP TABLE indexed_files;
ALTER TABLE indexed_files7 RENAME TO indexed_files;
` + namesTable + `
` + copyRelations(relationsColumns) + `ALTER TABLE code_vectors RENAME TO code_vectors6;
CREATE TABLE code_chunks7 ` + chunksColumns + `;
INSERT INTO code_chunks7 SELECT c.id, f.id, c.chunk_type, c.name, c.owner, c.symbol, c.params, c.signature, c.language,
	c.doc, c.start_line, c.end_line, c.decl_end_line, c.start_byte, c.end_byte, c.content, c.embedding_model
	FROM code_chunks c JOIN indexed_files f ON f.project_path = c.project_path AND f.file_path = c.file_path ORDER BY c.id;
DROP TABLE code_chunks;
ALTER TABLE code_chunks7 RENAME TO code_chunks;
` + vectorsTable

// The columns of the tables schema 7 rebuilds (keyByFileID), as
// "(...)" for CREATE TABLE.
const (
	filesColumns = `(
	id              INTEGER PRIMARY KEY,
	project_path    TEXT NOT NULL,
	file_path       TEXT NOT NULL,
	content_sha256  TEXT NOT NULL,
	embedding_model TEXT NOT NULL,
	size            INTEGER NOT NULL,
	mtime_ns        INTEGER NOT NULL,
	language        TEXT NOT NULL DEFAULT '',
	chunk_count     INTEGER NOT NULL DEFAULT 0,
	indexed_at      INTEGER NOT NULL,
	analysis        INTEGER NOT NULL DEFAULT 1,
	UNIQUE (project_path, file_path)
)`
	chunksColumns = `(
	id              INTEGER PRIMARY KEY,
	file_id         INTEGER NOT NULL,
	chunk_type      TEXT NOT NULL,
	name            TEXT NOT NULL,
	owner           TEXT NOT NULL DEFAULT '',
	symbol          TEXT NOT NULL DEFAULT '',
	params          TEXT NOT NULL DEFAULT '',
	signature       TEXT NOT NULL DEFAULT '',
	language        TEXT NOT NULL DEFAULT '',
	doc             TEXT NOT NULL DEFAULT '',
	start_line      INTEGER NOT NULL,
	end_line        INTEGER NOT NULL,
	decl_end_line   INTEGER NOT NULL,
	start_byte      INTEGER NOT NULL,
	end_byte        INTEGER NOT NULL,
	content         TEXT NOT NULL,
	embedding_model TEXT NOT NULL DEFAULT ''
)`
	relationsColumns = `(
	file_id       INTEGER NOT NULL,
	from_id       INTEGER NOT NULL,
	to_id         INTEGER NOT NULL,
	relation_type TEXT NOT NULL,
	line          INTEGER NOT NULL DEFAULT 0,
	plain         INTEGER NOT NULL DEFAULT 0
)`
)

// copyRelations is the SQL, the same on both backends, that fills
// code_names and copies code_relations with file and name ids into a new
// table of the columns cols (the backend's relationsColumns), which
// replaces it.
func copyRelations(cols string) string {
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

// namesTable holds the names of code_relations from schema 7 on: a
// relation's from and to are ids of this table, so a name is stored once
// however many relations and projects use it, and the from/to indexes are
// of integers (on gin, the relation rows and their indexes were 2.1x the
// source with the project path, file path and names in them, 1.0x with
// file ids, 0.66x with file and name ids, this table included).
// Names no relation uses any more are deleted by RemoveProject.
const namesTable = `CREATE TABLE IF NOT EXISTS code_names (
	id   INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE
);`

// vectorsTable is code_vectors from schema 7 on (vector.go): one row per
// file and embedder, the file's vectors packed in one BLOB.
const vectorsTable = `CREATE TABLE IF NOT EXISTS code_vectors (
	file_id  INTEGER PRIMARY KEY,
	embedder TEXT NOT NULL,
	n        INTEGER NOT NULL,
	ids      BLOB NOT NULL,
	vecs     BLOB NOT NULL
);`

// treeDirsTable holds each project's tree listing (treedirs.go); schema 6.
const treeDirsTable = `CREATE TABLE IF NOT EXISTS tree_dirs (
	project_path TEXT NOT NULL,
	dir_path     TEXT NOT NULL,
	data         TEXT NOT NULL,
	PRIMARY KEY (project_path, dir_path)
);`

// backfillSymbols fills code_chunks.symbol and params of rows written
// before those columns from the chunk name, by the rules of
// chunk.ParseSymbol: the name is cut at its first '(' (the rest, less a
// final ')', is params); a method named "Owner.m" keeps m, any other name
// its last dotted segment; a class keeps the last dotted segment of its
// whole name; text chunks name no symbol. last(x), the text after the last
// '.', is replace(x, rtrim(x, <x without dots>), ”): rtrim strips the
// trailing run of characters that are not '.', leaving the prefix through
// the last '.'.
var backfillSymbols = strings.NewReplacer(
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

// schema is the on-disk format of index.db (SQLite, WAL mode). One file holds
// every project; a project is its project_path, the absolute,
// symlink-resolved root, in projects and indexed_files, and the rows of a
// file's chunks, vectors and relations carry its indexed_files.id.
//
//	meta(key, value)                 schema_version and other facts
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
//	                                 parts (chunk.Symbol)
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
//	                                 (code_names.id);
//	code_names                       every name of a relation, once
//	                                 plain = 1 for a Go call written without a
//	                                 receiver (it can only reach a function), 2
//	                                 for one on the method's own receiver, 3 for
//	                                 one on another value (see lang.CallForm)
//	chunks_fts                       FTS5, contentless with delete support,
//	                                 rowid = code_chunks.id; columns hold
//	                                 pre-analysed terms (identifier sub-words,
//	                                 stems, CJK bigrams) so BM25 works on
//	                                 code-aware terms: name (the bare symbol),
//	                                 owner (its class/receiver), path, doc
//	                                 (doc comment), body (the chunk text)
//	tree_dirs                        the tree listing of the last walk, by
//	                                 directory (treedirs.go)
const schema = treeDirsTable + `
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS projects (
	project_path TEXT PRIMARY KEY,
	embedder     TEXT NOT NULL,
	dim          INTEGER NOT NULL DEFAULT 0,
	created_at   INTEGER NOT NULL,
	updated_at   INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS indexed_files ` + filesColumns + `;
CREATE TABLE IF NOT EXISTS code_chunks ` + chunksColumns + `;
` + vectorsTable + `
CREATE INDEX IF NOT EXISTS code_chunks_file ON code_chunks(file_id, chunk_type);
` + namesTable + `
CREATE TABLE IF NOT EXISTS code_relations ` + relationsColumns + `;
CREATE INDEX IF NOT EXISTS code_relations_file ON code_relations(file_id);
CREATE INDEX IF NOT EXISTS code_relations_from ON code_relations(from_id);
CREATE INDEX IF NOT EXISTS code_relations_to ON code_relations(to_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
	name, owner, path, doc, body,
	content='', contentless_delete=1,
	tokenize='unicode61 remove_diacritics 2'
);
`
