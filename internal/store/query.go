package store

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Scored is a chunk id with a retrieval score (higher is better).
type Scored struct {
	ID    int64
	Score float64
}

// scoredHeap is a min-heap on Score used for top-k selection.
type scoredHeap []Scored

func (h scoredHeap) Len() int { return len(h) }
func (h scoredHeap) Less(i, j int) bool {
	return h[i].Score < h[j].Score || (h[i].Score == h[j].Score && h[i].ID > h[j].ID)
}
func (h scoredHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *scoredHeap) Push(x any)   { *h = append(*h, x.(Scored)) }
func (h *scoredHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// TopKCosine scans every chunk of project embedded by embedder (its id) and
// returns the k with the
// highest cosine similarity to q (both L2-normalised, so cosine = dot
// product), best first. A stored vector whose dimension differs from len(q)
// is an error (the index was built by another embedder).
func (s *Store) TopKCosine(ctx context.Context, project, embedder string, q []float32, k int) ([]Scored, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, embedding FROM code_chunks
		WHERE project_path=? AND embedding_model=? AND embedding IS NOT NULL`, project, embedder)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	h := make(scoredHeap, 0, k+1)
	var blob sql.RawBytes
	var id int64
	for rows.Next() {
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, err
		}
		if len(blob) != 4*len(q) {
			return nil, fmt.Errorf("vector of chunk %d has dimension %d, query has %d: re-index with the same embedder", id, len(blob)/4, len(q))
		}
		var dot float32
		for i := range q {
			dot += q[i] * math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
		}
		sc := Scored{ID: id, Score: float64(dot)}
		if len(h) < k {
			heap.Push(&h, sc)
		} else if k > 0 && (sc.Score > h[0].Score || (sc.Score == h[0].Score && sc.ID < h[0].ID)) {
			h[0] = sc
			heap.Fix(&h, 0)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]Scored, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Scored)
	}
	return out, nil
}

// FTSWeights are the BM25 column weights of chunks_fts (name, path, body).
type FTSWeights struct{ Name, Path, Body float64 }

// FTSSearch runs an FTS5 MATCH expression (built by the caller from analysed,
// quoted terms; never raw user text) and returns the k best chunks of project
// by BM25 (Robertson & Zaragoza, 2009, as implemented by FTS5), Score = -bm25
// so higher is better.
func (s *Store) FTSSearch(ctx context.Context, project, match string, w FTSWeights, k int) ([]Scored, error) {
	if strings.TrimSpace(match) == "" {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, bm25(chunks_fts, ?, ?, ?) AS r
		FROM chunks_fts JOIN code_chunks c ON c.id = chunks_fts.rowid
		WHERE chunks_fts MATCH ? AND c.project_path = ?
		ORDER BY r, c.id LIMIT ?`, w.Name, w.Path, w.Body, match, project, k)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	defer rows.Close()
	var out []Scored
	for rows.Next() {
		var sc Scored
		if err := rows.Scan(&sc.ID, &sc.Score); err != nil {
			return nil, err
		}
		sc.Score = -sc.Score
		out = append(out, sc)
	}
	return out, rows.Err()
}

// LikeSearch is the seed's keyword route: chunks of project whose name or
// content contains keyword, case-insensitively for ASCII (SQLite LIKE), with
// '%', '_' and '\' escaped (LIKE ... ESCAPE '\'). At most limit rows; chunks
// whose name matches come first, then by id, so the cut is deterministic.
func (s *Store) LikeSearch(ctx context.Context, project, keyword string, limit int) ([]ChunkRow, error) {
	pat := "%" + likeEscape(keyword) + "%"
	rows, err := s.db.QueryContext(ctx, `SELECT `+chunkCols+` FROM code_chunks
		WHERE project_path=? AND (name LIKE ? ESCAPE '\' OR content LIKE ? ESCAPE '\')
		ORDER BY (name LIKE ? ESCAPE '\') DESC, id LIMIT ?`, project, pat, pat, pat, limit)
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	defer rows.Close()
	return scanChunks(rows)
}

const chunkCols = `id, file_path, chunk_type, name, owner, signature, language, doc, start_line, end_line,
	decl_end_line, start_byte, end_byte, content, embedding_model`

func scanChunks(rows *sql.Rows) ([]ChunkRow, error) {
	var out []ChunkRow
	for rows.Next() {
		var c ChunkRow
		if err := rows.Scan(&c.ID, &c.Path, &c.Type, &c.Name, &c.Owner, &c.Signature, &c.Language, &c.Doc,
			&c.StartLine, &c.EndLine, &c.DeclEndLine, &c.StartByte, &c.EndByte, &c.Content, &c.Embedder); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// ChunksByID returns the chunks with the given ids (without vectors), keyed by id.
func (s *Store) ChunksByID(ctx context.Context, ids []int64) (map[int64]ChunkRow, error) {
	out := make(map[int64]ChunkRow, len(ids))
	for start := 0; start < len(ids); start += 500 {
		end := min(start+500, len(ids))
		part := ids[start:end]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		q := `SELECT ` + chunkCols + ` FROM code_chunks WHERE id IN (?` + strings.Repeat(",?", len(part)-1) + `)`
		rows, err := s.db.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		cs, err := scanChunks(rows)
		rows.Close()
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			out[c.ID] = c
		}
	}
	return out, nil
}

// ChunksOfFile returns the chunks of one file ordered by start line.
func (s *Store) ChunksOfFile(ctx context.Context, project, path string) ([]ChunkRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+chunkCols+` FROM code_chunks WHERE project_path=? AND file_path=? ORDER BY start_line, id`, project, path)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanChunks(rows)
}

// Relations returns relations of project where name is the from or the to
// side (exact match), ordered by kind, from, to.
func (s *Store) Relations(ctx context.Context, project, name string) ([]RelationRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT file_path, from_name, to_name, relation_type, line FROM code_relations
		WHERE project_path=? AND (from_name=? OR to_name=?) ORDER BY relation_type, from_name, to_name, file_path, line`, project, name, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RelationRow
	for rows.Next() {
		var r RelationRow
		if err := rows.Scan(&r.Path, &r.From, &r.To, &r.Kind, &r.Line); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict ("ok").
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&v)
	return v, err
}
