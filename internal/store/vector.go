package store

// On-disk vector format (SQLite BLOB and PostgreSQL BYTEA alike), one
// vector, schema 5 on:
//
//	offset 0   float32 little-endian scale s
//	offset 4   dim int8 codes c[0..dim-1]
//
// The vector is s·c. Codes are round(v[i]·127/max|v|), symmetric int8
// quantisation with one scale per vector, and s = ‖v‖/‖c‖, so the stored
// vector keeps v's length exactly and only its direction is rounded: the
// cosine of a stored vector to its float32 original is above 0.999 for
// the dimensions embedders return (64 to 4096; see
// TestQuantisedCosine). A 768-d vector takes 772 bytes instead of 3072,
// so five rows fit an SQLite page where one did, and a scan reads a
// quarter of the bytes. The dimension is len(blob)-4.
//
// Schemas 1-4 stored the float32 values themselves (4 bytes each, little
// endian); the migration to schema 5 (requantise) rewrites those rows in
// this format in place, so an older index stays searchable without being
// re-embedded.
//
// Schema 7 on, a file's vectors are one code_vectors row (file_id,
// embedder, n, ids, vecs), so a scan of a project's vectors reads one row
// per file instead of one per chunk, and no row repeats the project path
// and embedder (a vector scan of GOROOT/src/runtime read 14,023 rows
// through an index, and the path and embedder were a tenth of the bytes):
//
//	n     the number of vectors
//	ids   the n chunk ids (code_chunks.id), each a zig-zag varint of its
//	      difference from the one before (the first from 0)
//	vecs  the n vectors in the format above, one after the other, each
//	      len(vecs)/n bytes
//
// Schemas 5 and 6 had one row per chunk (id, project_path, embedder,
// vec); the migration to 7 (packVectors) packs those rows by file.
//
// Scoring reads the codes directly: q·v = s·Σ q[i]·c[i] (vec.DotCodes), with
// the query kept in float32, so no vector is ever expanded back to
// float32, in the in-memory cache either (vectorSet holds the codes).

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/coderag/coderag/internal/vec"
)

// vecHeader is the bytes before the codes: the float32 scale.
const vecHeader = 4

// EncodeVector returns v in the stored format above: a float32 scale and
// one int8 code per value, len(v)+4 bytes. A zero vector is stored as
// scale 0 and zero codes; nil or empty v gives nil. NaN and ±Inf must have
// been rejected before (embed.Validate).
func EncodeVector(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return appendVector(make([]byte, 0, vecHeader+len(v)), v)
}

// appendVector appends EncodeVector(v) to dst; v must not be empty.
func appendVector(dst []byte, v []float32) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, vecHeader+len(v))...)
	b := dst[start:]
	var maxAbs float64
	for _, x := range v {
		maxAbs = max(maxAbs, math.Abs(float64(x)))
	}
	if maxAbs == 0 {
		return dst
	}
	var norm, cnorm float64
	k := 127 / maxAbs
	for i, x := range v {
		c := math.Round(float64(x) * k)
		b[vecHeader+i] = byte(int8(c))
		norm += float64(x) * float64(x)
		cnorm += c * c
	}
	binary.LittleEndian.PutUint32(b, math.Float32bits(float32(math.Sqrt(norm/cnorm))))
	return dst
}

// vecPack builds the ids and vecs of one code_vectors row.
type vecPack struct {
	n         int
	last      int64
	ids, vecs []byte
}

// add appends chunk id's vector, encoded (EncodeVector) or as floats.
func (p *vecPack) add(id int64, blob []byte) {
	p.ids = binary.AppendVarint(p.ids, id-p.last)
	p.last = id
	p.vecs = append(p.vecs, blob...)
	p.n++
}

func (p *vecPack) addFloats(id int64, v []float32) {
	p.ids = binary.AppendVarint(p.ids, id-p.last)
	p.last = id
	p.vecs = appendVector(p.vecs, v)
	p.n++
}

// unpack calls fn with each chunk id of a code_vectors row and its vector
// in the one-vector format (a sub-slice of vecs); an error for a row
// whose parts do not agree (a damaged index).
func unpack(n int, ids, vecs []byte, fn func(id int64, blob []byte) error) error {
	if n <= 0 || len(vecs)%n != 0 || len(vecs)/n <= vecHeader {
		return fmt.Errorf("%w: a vector row of %d vectors holds %d bytes", ErrDamaged, n, len(vecs))
	}
	size := len(vecs) / n
	var id int64
	for i := 0; i < n; i++ {
		d, k := binary.Varint(ids)
		if k <= 0 {
			return fmt.Errorf("%w: a vector row's ids end after %d of %d", ErrDamaged, i, n)
		}
		ids = ids[k:]
		id += d
		if err := fn(id, vecs[i*size:(i+1)*size]); err != nil {
			return err
		}
	}
	return nil
}

// DecodeVector returns the float32 vector a BLOB written by EncodeVector
// stands for (scale times codes); nil for a BLOB shorter than the header
// or without codes. Search never calls it: it scores the codes (vec.DotCodes).
func DecodeVector(b []byte) []float32 {
	if len(b) <= vecHeader {
		return nil
	}
	s := blobScale(b)
	out := make([]float32, len(b)-vecHeader)
	for i, c := range b[vecHeader:] {
		out[i] = s * float32(int8(c))
	}
	return out
}

// blobDim is the dimension of a stored vector.
func blobDim(b []byte) int { return len(b) - vecHeader }

// blobScale is the scale of a stored vector.
func blobScale(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }

// dotBlob is q·v for the stored vector b, whose dimension must be len(q).
func dotBlob(q []float32, b []byte) float32 {
	return blobScale(b) * vec.DotCodes(q, b[vecHeader:])
}

// appendCodes appends the code bytes of a stored vector to dst.
func appendCodes(dst []byte, b []byte) []byte { return append(dst, b[vecHeader:]...) }

// requantise rewrites every float32 vector of a schema 4 index (4 bytes
// per value) in the schema 5 format, inside the migration's transaction,
// a thousand rows at a time by id (one statement at a time on the
// transaction's connection, as PostgreSQL requires). A row is float32 when
// its length is 4 times its project's dimension (any multiple of 4 when
// the project records none); any other row was not written by a schema 4
// coderag and is left as it is (a search reports a dimension mismatch).
func requantise(ctx context.Context, tx *sql.Tx) error {
	type row struct {
		id  int64
		dim int
		vec []byte
	}
	var last int64 = math.MinInt64
	for {
		rows, err := tx.QueryContext(ctx, `SELECT v.id, coalesce(p.dim, 0), v.vec FROM code_vectors v
			LEFT JOIN projects p ON p.project_path = v.project_path
			WHERE v.id > ? ORDER BY v.id LIMIT 1000`, last)
		if err != nil {
			return fmt.Errorf("requantise vectors: %w", err)
		}
		batch, err := collect(rows, func(rows *sql.Rows) (row, error) {
			var r row
			err := rows.Scan(&r.id, &r.dim, &r.vec)
			return r, err
		})
		if err != nil {
			return fmt.Errorf("requantise vectors: %w", err)
		}
		if len(batch) == 0 {
			return nil
		}
		for _, r := range batch {
			last = r.id
			if len(r.vec) == 0 || len(r.vec)%4 != 0 || (r.dim > 0 && len(r.vec) != 4*r.dim) {
				continue
			}
			v := make([]float32, len(r.vec)/4)
			for i := range v {
				v[i] = math.Float32frombits(binary.LittleEndian.Uint32(r.vec[4*i:]))
			}
			if _, err := tx.ExecContext(ctx, `UPDATE code_vectors SET vec = ? WHERE id = ?`, EncodeVector(v), r.id); err != nil {
				return fmt.Errorf("requantise vector %d: %w", r.id, err)
			}
		}
	}
}

// packVectors is the data half of the move to schema 7 (keyByFileID is
// the SQL half): the rows of code_vectors6 (one per chunk) are packed into
// code_vectors by the file of their chunk and embedder, a few hundred files
// at a time (one statement at a time on the transaction's connection, as
// PostgreSQL requires), and code_vectors6 is dropped. A file whose chunks
// were embedded by more than one embedder (no run writes one) keeps the
// vectors of the embedder that embedded most of them. The SQL is the same
// on both backends.
func packVectors(ctx context.Context, tx *sql.Tx) error {
	var last int64 = math.MinInt64
	for {
		rows, err := tx.QueryContext(ctx, `SELECT id FROM indexed_files WHERE id > ? ORDER BY id LIMIT 500`, last)
		if err != nil {
			return fmt.Errorf("pack vectors: %w", err)
		}
		var files []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("pack vectors: %w", err)
			}
			files = append(files, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("pack vectors: %w", err)
		}
		if len(files) == 0 {
			_, err := tx.ExecContext(ctx, `DROP TABLE code_vectors6`)
			return err
		}
		last = files[len(files)-1]
		rows, err = tx.QueryContext(ctx, `SELECT c.file_id, v.embedder, v.id, v.vec FROM code_vectors6 v
			JOIN code_chunks c ON c.id = v.id
			WHERE c.file_id >= ? AND c.file_id <= ? ORDER BY c.file_id, v.embedder, v.id`, files[0], last)
		if err != nil {
			return fmt.Errorf("pack vectors: %w", err)
		}
		type key struct {
			file int64
			emb  string
		}
		packs := map[key]*vecPack{}
		var order []key
		for rows.Next() {
			var k key
			var id int64
			var vec []byte
			if err := rows.Scan(&k.file, &k.emb, &id, &vec); err != nil {
				rows.Close()
				return fmt.Errorf("pack vectors: %w", err)
			}
			p := packs[k]
			if p == nil {
				p = &vecPack{}
				packs[k] = p
				order = append(order, k)
			}
			p.add(id, vec)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("pack vectors: %w", err)
		}
		best := map[int64]key{}
		for _, k := range order {
			if b, ok := best[k.file]; !ok || packs[k].n > packs[b].n {
				best[k.file] = k
			}
		}
		for _, k := range order {
			if best[k.file] != k {
				continue
			}
			p := packs[k]
			if _, err := tx.ExecContext(ctx, `INSERT INTO code_vectors(file_id, embedder, n, ids, vecs) VALUES(?,?,?,?,?)`,
				k.file, k.emb, p.n, p.ids, p.vecs); err != nil {
				return fmt.Errorf("pack vectors of file %d: %w", k.file, err)
			}
		}
	}
}
