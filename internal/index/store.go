package index

import (
	"context"

	"github.com/coderag/coderag/internal/store"
)

// Store is what the index pipeline reads and writes of an index: the
// consumer-side interface of package store, as search.Index is search's.
// *store.Store implements it on SQLite and PostgreSQL alike; each method
// is documented there. Every method's errors are the index's.
type Store interface {
	// Projects lists every indexed project (CheckRoot).
	Projects(ctx context.Context) ([]store.Project, error)
	// GetProject returns project path's row, or store.ErrNotIndexed.
	GetProject(ctx context.Context, path string) (*store.Project, error)
	// PutProject records a project's embedder and dimension.
	PutProject(ctx context.Context, p store.Project) error
	// Files returns the fingerprints of project's files, by path.
	Files(ctx context.Context, project string) (map[string]store.FileRecord, error)
	// EachFile calls fn with each fingerprint of project, read in place
	// (the record's strings are valid only during the call).
	EachFile(ctx context.Context, project string, fn func(store.FileRecord) error) error
	// FileLanguages returns the language of each of project's files.
	FileLanguages(ctx context.Context, project string) (map[string]string, error)
	// ReplaceFiles replaces the rows of files and deletes those of
	// remove, in one transaction.
	ReplaceFiles(ctx context.Context, project string, files []store.FileData, remove []string) error
	// TouchFiles updates the size and mtime of unchanged files.
	TouchFiles(ctx context.Context, project string, recs []store.FileRecord) error
	// BeginRun records that an index run of project started, switching
	// embedders or not.
	BeginRun(ctx context.Context, project string, total int, switching bool) error
	// EndRun records that the run of project finished.
	EndRun(ctx context.Context, project string, total, failed int, changed bool, skipped ...store.Skipped) error
	// LangStats returns project's recorded language statistics
	// (langstats.go).
	LangStats(ctx context.Context, project string) (value string, ok bool, err error)
	// PutLangStats records project's language statistics.
	PutLangStats(ctx context.Context, project, value string) error
	// DirStates returns what the last parses of project's directories
	// read beyond each file (dirstate.go).
	DirStates(ctx context.Context, project string) (value string, ok bool, err error)
	// PutDirStates records project's directory states.
	PutDirStates(ctx context.Context, project, value string) error
	// DirRetry returns project's directories whose dependents the last
	// run failed to parse again ("" when none; dirstate.go).
	DirRetry(ctx context.Context, project string) (string, error)
	// PutDirRetry records project's retry list.
	PutDirRetry(ctx context.Context, project, value string) error
	// TreeListing returns the tree listing of project's last walk
	// (fresh.go).
	TreeListing(ctx context.Context, project string) (string, []store.DirRow, error)
	// PutTreeListing replaces project's tree listing.
	PutTreeListing(ctx context.Context, project, header string, rows []store.DirRow) error
	// FilesKey returns project's fingerprint key, "" when it has none
	// (snapshot.go).
	FilesKey(ctx context.Context, project string) (string, error)
	// EnsureFilesKey returns project's fingerprint key, first giving the
	// project one when it has none.
	EnsureFilesKey(ctx context.Context, project string) (string, error)
	// SidePath returns the file project.ext beside a local index, for
	// the fingerprint snapshot and the tree listing; "" when there is
	// none.
	SidePath(project, ext string) string
	// LockProject takes the exclusive right to index project (Lock).
	LockProject(ctx context.Context, project string, onWait func(string)) (release func(), err error)
	// Probe checks a little of every table before a run writes.
	Probe(ctx context.Context) error
	// Reclaim hands back the space of rows a run replaced wholesale.
	Reclaim(ctx context.Context)
	// ReadOnly reports whether the index cannot be written.
	ReadOnly() bool
	// FileVectors returns the stored vectors of a file's chunks, by
	// chunk id (store.DecodeVector reads one).
	FileVectors(ctx context.Context, project, path string) (map[int64][]byte, error)
	// ChunksByID returns the chunks with the given ids, by id.
	ChunksByID(ctx context.Context, ids []int64) (map[int64]store.ChunkRow, error)
	// ModelProbe returns project's model probe (probe.go), ok false when
	// it has none.
	ModelProbe(ctx context.Context, project string) (value string, ok bool, err error)
	// PutModelProbe records project's model probe.
	PutModelProbe(ctx context.Context, project, value string) error
	// RetireVectors gives project's vectors and fingerprints of embedder
	// the id store.RetiredID(embedder) and records probe, in one
	// transaction.
	RetireVectors(ctx context.Context, project, embedder, probe string) (int, error)
	// CompressesContent reports whether chunk text is stored compressed,
	// so the workers make its stored form (store.ChunkRow.Encoded).
	CompressesContent() bool
}

var _ Store = (*store.Store)(nil)
