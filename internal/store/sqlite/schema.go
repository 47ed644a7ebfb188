package sqlite

import "github.com/coderag/coderag/internal/store"

// migrations[v] upgrades a file of schema v to v+1; a new file is created at
// store.SchemaVersion directly from schema. store.DataMigrations[v], when there is
// one, runs after migrations[v] in the same transaction, for the rewrites
// SQL cannot do; both backends run it.
var migrations = map[int]string{
	1: `ALTER TABLE code_relations ADD COLUMN plain INTEGER NOT NULL DEFAULT 0`,
	2: `ALTER TABLE indexed_files ADD COLUMN analysis INTEGER NOT NULL DEFAULT 1`,
	3: `ALTER TABLE code_chunks ADD COLUMN symbol TEXT NOT NULL DEFAULT '';
		ALTER TABLE code_chunks ADD COLUMN params TEXT NOT NULL DEFAULT '';
		` + store.BackfillSymbols,
	4: ``, // vectors float32 -> int8 codes: store.DataMigrations[4]
	5: treeDirsTable,
	6: keyByFileID,
	7: ``,          // chunk texts written from now on may be compressed (store.EncodeContent); old rows stay as they are, which store.DecodeContent reads
	8: namesByHash, // names found by a hash, not a second copy (names.go); doc comments written from now on may be stored with the text, symbol, params and signature as positions in the name (store.EncodeChunkText, store.EncodeNamePart): old rows stay as they are, which store.DecodeChunkText and store.DecodeNamePart read
}

// keyByFileID is the SQL half of the move to schema 7 (the other half is
// packVectors): indexed_files gets an integer id (the table is copied,
// in the order of its old key, so the ids follow it); code_relations is
// copied with that id in place of project_path and file_path, and the ids
// of its names in code_names (namesTable7) in place of from_name and
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
` + namesTable7 + `
` + store.CopyRelations(relationsColumns) + `ALTER TABLE code_vectors RENAME TO code_vectors6;
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

// namesTable7 holds the names of code_relations in schemas 7 and 8
// (namesTable from schema 9, names.go): a
// relation's from and to are ids of this table, so a name is stored once
// however many relations and projects use it, and the from/to indexes are
// of integers (on gin, the relation rows and their indexes were 2.1x the
// source with the project path, file path and names in them, 1.0x with
// file ids, 0.66x with file and name ids, this table included).
// Names no relation uses any more are deleted by RemoveProject.
const namesTable7 = `CREATE TABLE IF NOT EXISTS code_names (
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

// schema is the SQLite form of the schema (see store's schema.go for what
// each table holds), in one file, index.db, in WAL mode.
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
