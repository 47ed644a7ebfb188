package store

// On-disk vector format (code_vectors.vec, SQLite BLOB and PostgreSQL
// BYTEA alike), schema 5 on:
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
	var maxAbs float64
	for _, x := range v {
		maxAbs = max(maxAbs, math.Abs(float64(x)))
	}
	b := make([]byte, vecHeader+len(v))
	if maxAbs == 0 {
		return b
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
	return b
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
