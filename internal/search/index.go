package search

import (
	"context"

	"github.com/coderag/coderag/internal/store"
)

// Index is what a Searcher reads of a project's index: the consumer-side
// interface of package store, as litestream declares one interface per
// consumer, so that search can run over a fake. *store.Store implements it
// over SQLite and PostgreSQL alike. Every method's errors are the index's.
type Index interface {
	// KeywordSearch returns the k best chunks of project for terms by
	// BM25 with column weights w, best first; terms are text, never a
	// query language (store.Store.KeywordSearch).
	KeywordSearch(ctx context.Context, project string, terms []string, w store.FTSWeights, k int) ([]store.Scored, error)
	// TopKCosine returns the k chunks of project embedded by embedder
	// whose vectors are nearest q (cosine, best first).
	TopKCosine(ctx context.Context, project, embedder string, q []float32, k int) ([]store.Scored, error)
	// CosineByID returns the cosine of q to the stored vectors of ids
	// (those embedded by embedder).
	CosineByID(ctx context.Context, project, embedder string, ids []int64, q []float32) ([]store.Scored, error)
	// ChunksByID returns the chunks of ids, without vectors, by id.
	ChunksByID(ctx context.Context, ids []int64) (map[int64]store.ChunkRow, error)
	// LikeSearch returns up to limit chunks of project whose name or
	// content holds keyword (the seed ranker's keyword route).
	LikeSearch(ctx context.Context, project, keyword string, limit int) ([]store.ChunkRow, error)
	// FileLanguages returns path -> language of every indexed file of
	// project.
	FileLanguages(ctx context.Context, project string) (map[string]string, error)
	// RelationsFrom returns the relations of kinds from names.
	RelationsFrom(ctx context.Context, project string, names, kinds []string) ([]store.RelationRow, error)
	// DataVersion returns a token that changes with every write of
	// project ("" for a project never written).
	DataVersion(ctx context.Context, project string) (string, error)
	// RunNotes reports, from one read of the run record, whether
	// project's index is partial (Incomplete) and whether some of its
	// files carry vectors of another embedder than the project's (Mixed:
	// a change of embedder that did not finish), which a search does not
	// read.
	RunNotes(ctx context.Context, project string) (store.RunNotes, error)
	// LastRun returns the record of project's last index run (its chunk
	// count sizes the vector route's share); ok is false when there is
	// none.
	LastRun(ctx context.Context, project string) (r store.RunState, ok bool, err error)
}

var _ Index = (*store.Store)(nil)
