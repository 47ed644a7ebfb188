package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"gonum.org/v1/gonum/mat"
)

// member is one trained model of train.py: a table of rows × dim float32
// values, row-major, and the two per-token pooling weights (query side,
// document side), one per row.
type member struct {
	table  []float32
	wq, wd []float32
}

// merge turns K models trained from the same pairs with different seeds
// into one of the same size: an ensemble compressed back to dim columns.
//
// Why: one training is one draw. Two seeds of the same recipe differ by
// up to 0.05 MRR@10 on the function-level query sets and by 0.008 on the
// held-out pairs, and the ensemble of two (the mean of their cosines) is
// better than either (held-out MRR@10 0.493 against 0.473 and 0.472 on
// the first 2,000 held-out pairs, float tables). The ensemble's vector is
// the members' pooled vectors side by side, which pools the concatenated
// rows [E1 … EK] with one weight per token; that doubles the table. The
// merge keeps dim columns: it projects the concatenated rows on their dim
// leading principal axes (uncentred, so inner products are what is
// kept), and since the projection P is linear it commutes with the sum
// pooling: pool(rows·P) = pool(rows)·P. Each row counts in the principal
// axes by its weight sqrt(1+count), count being how many training texts
// hold the token: pooled vectors are sums of the rows of the words texts
// use, so the axes of frequent rows are the ones to keep; unweighted, the
// many rows of rare words and hash buckets pick them (0.480 against 0.486
// on the same pairs). Averaging the members' rows after an orthogonal
// Procrustes rotation of one onto the other (a "model soup") kept less
// (0.481): the two tables differ by more than a rotation.
//
// The pooling weights are the members' geometric mean (their raw,
// log-space values averaged). Every member must have the same rows and
// dim; counts has one entry per row. The output is rows × dim float32,
// row-major. Each principal axis's sign is fixed (its largest component
// positive, the first on a tie), so the output depends only on the
// inputs: the eigensolver's sign is arbitrary. Errors: no member, members
// of different shapes, dim larger than K·memberDim, or an eigensolver that
// does not converge.
//
// Principal axes of a concatenated ensemble: the idea of "meta-embeddings"
// (Yin and Schütze, "Learning Word Meta-Embeddings", ACL 2016; Coates and
// Bollegala, "Frustratingly Easy Meta-Embedding", NAACL 2018, which
// concatenates and reduces by SVD).
func merge(ms []member, memberDim, dim int, counts []float64) (table, wq, wd []float32, err error) {
	if len(ms) == 0 {
		return nil, nil, nil, fmt.Errorf("merge: no model")
	}
	rows := len(ms[0].wq)
	for i, m := range ms {
		if len(m.table) != rows*memberDim || len(m.wq) != rows || len(m.wd) != rows {
			return nil, nil, nil, fmt.Errorf("merge: model %d has %d values and %d/%d weights, want %d rows of %d", i+1, len(m.table), len(m.wq), len(m.wd), rows, memberDim)
		}
	}
	if len(counts) != rows {
		return nil, nil, nil, fmt.Errorf("merge: %d counts for %d rows", len(counts), rows)
	}
	wide := len(ms) * memberDim
	if dim <= 0 || dim > wide {
		return nil, nil, nil, fmt.Errorf("merge: dim %d outside 1..%d", dim, wide)
	}
	// X: the weighted concatenated rows; its Gram matrix's eigenvectors
	// are the principal axes.
	x := mat.NewDense(rows, wide, nil)
	for r := 0; r < rows; r++ {
		w := math.Sqrt(1 + counts[r])
		for k, m := range ms {
			src := m.table[r*memberDim : (r+1)*memberDim]
			for j, v := range src {
				x.Set(r, k*memberDim+j, w*float64(v))
			}
		}
	}
	var gram mat.SymDense
	gram.SymOuterK(1, x.T())
	var eig mat.EigenSym
	if !eig.Factorize(&gram, true) {
		return nil, nil, nil, fmt.Errorf("merge: the eigensolver did not converge")
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	// eigenvalues come ascending: the last dim columns, largest first
	p := make([][]float64, dim)
	for a := 0; a < dim; a++ {
		col := wide - 1 - a
		v := make([]float64, wide)
		best := 0
		for i := range v {
			v[i] = vecs.At(i, col)
			if math.Abs(v[i]) > math.Abs(v[best]) {
				best = i
			}
		}
		if v[best] < 0 {
			for i := range v {
				v[i] = -v[i]
			}
		}
		p[a] = v
	}
	table = make([]float32, rows*dim)
	row := make([]float64, wide)
	for r := 0; r < rows; r++ {
		for k, m := range ms {
			for j, v := range m.table[r*memberDim : (r+1)*memberDim] {
				row[k*memberDim+j] = float64(v)
			}
		}
		for a, v := range p {
			s := 0.0
			for i, c := range v {
				s += row[i] * c
			}
			table[r*dim+a] = float32(s)
		}
	}
	wq, wd = make([]float32, rows), make([]float32, rows)
	for r := 0; r < rows; r++ {
		var lq, ld float64
		for _, m := range ms {
			lq += math.Log(float64(m.wq[r]))
			ld += math.Log(float64(m.wd[r]))
		}
		wq[r] = float32(math.Exp(lq / float64(len(ms))))
		wd[r] = float32(math.Exp(ld / float64(len(ms))))
	}
	return table, wq, wd, nil
}

// tokenCounts returns, per row of a table of rows rows, how many of the
// training texts hold the token: the occurrences of its id in the miner's
// tq.ids and td.ids (little-endian int32; each text lists a token once).
// Errors: a file cannot be read, or holds an id outside the rows.
func tokenCounts(pairs string, rows int) ([]float64, error) {
	counts := make([]float64, rows)
	for _, side := range []string{"tq", "td"} {
		b, err := os.ReadFile(pairs + "/" + side + ".ids")
		if err != nil {
			return nil, err
		}
		for i := 0; i+4 <= len(b); i += 4 {
			id := int32(binary.LittleEndian.Uint32(b[i:]))
			if id < 0 || int(id) >= rows {
				return nil, fmt.Errorf("%s.ids: id %d outside the %d rows", side, id, rows)
			}
			counts[id]++
		}
	}
	return counts, nil
}
