package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomMember is a member of rows × dim values drawn from seed, with
// positive pooling weights.
func randomMember(seed uint64, rows, dim int) member {
	rng := rand.New(rand.NewPCG(seed, 7))
	m := member{table: make([]float32, rows*dim), wq: make([]float32, rows), wd: make([]float32, rows)}
	for i := range m.table {
		m.table[i] = float32(rng.NormFloat64())
	}
	for i := range m.wq {
		m.wq[i] = float32(0.2 + rng.Float64())
		m.wd[i] = float32(0.2 + rng.Float64())
	}
	return m
}

// pooled is the sum pooling of static.Embedder without the final
// normalisation: Σ weight · row over the bag's tokens.
func pooled(table []float32, dim int, bag []int, w []float64) []float64 {
	v := make([]float64, dim)
	for i, t := range bag {
		for j := range v {
			v[j] += w[i] * float64(table[t*dim+j])
		}
	}
	return v
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// concatPooled is the ensemble's vector: the members' pooled vectors side
// by side.
func concatPooled(ms []member, dim int, bag []int, w []float64) []float64 {
	var v []float64
	for _, m := range ms {
		v = append(v, pooled(m.table, dim, bag, w)...)
	}
	return v
}

// TestMergeAtFullWidthKeepsTheEnsemble: kept at K·dim columns, the merge
// is a rotation of the concatenated rows, so every inner product of two
// pooled texts equals the ensemble's (the concatenation's): the
// projection commutes with the sum pooling, as the merge relies on.
func TestMergeAtFullWidthKeepsTheEnsemble(t *testing.T) {
	const rows, dim = 40, 3
	ms := []member{randomMember(1, rows, dim), randomMember(2, rows, dim)}
	counts := make([]float64, rows)
	for i := range counts {
		counts[i] = float64(i % 7)
	}
	table, _, _, err := merge(ms, dim, 2*dim, counts)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 20; trial++ {
		var a, b []int
		var wa, wb []float64
		for k := 0; k < 5; k++ {
			a, wa = append(a, rng.IntN(rows)), append(wa, rng.Float64())
			b, wb = append(b, rng.IntN(rows)), append(wb, rng.Float64())
		}
		want := dot(concatPooled(ms, dim, a, wa), concatPooled(ms, dim, b, wb))
		got := dot(pooled(table, 2*dim, a, wa), pooled(table, 2*dim, b, wb))
		if math.Abs(got-want) > 1e-4*(1+math.Abs(want)) {
			t.Fatalf("trial %d: merged inner product %.6f, ensemble %.6f", trial, got, want)
		}
	}
}

// TestMergeOfCopiesIsTheModel: two copies of one model span only its dim
// axes, so a merge back to dim columns loses nothing: the cosine of any
// two pooled texts is the model's own, and the weights are its weights.
func TestMergeOfCopiesIsTheModel(t *testing.T) {
	const rows, dim = 30, 4
	m := randomMember(3, rows, dim)
	counts := make([]float64, rows)
	for i := range counts {
		counts[i] = float64(rows - i)
	}
	table, wq, wd, err := merge([]member{m, m}, dim, dim, counts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range wq {
		if math.Abs(float64(wq[i]-m.wq[i])) > 1e-6 || math.Abs(float64(wd[i]-m.wd[i])) > 1e-6 {
			t.Fatalf("row %d: weights %v/%v, the model's %v/%v", i, wq[i], wd[i], m.wq[i], m.wd[i])
		}
	}
	cos := func(tab []float32, a, b []int) float64 {
		w := []float64{1, 0.5, 2}
		x, y := pooled(tab, dim, a, w), pooled(tab, dim, b, w)
		return dot(x, y) / math.Sqrt(dot(x, x)*dot(y, y))
	}
	for _, pair := range [][2][]int{{{0, 1, 2}, {3, 4, 5}}, {{7, 8, 29}, {7, 9, 10}}, {{11, 12, 13}, {20, 21, 22}}} {
		want, got := cos(m.table, pair[0], pair[1]), cos(table, pair[0], pair[1])
		if math.Abs(got-want) > 1e-5 {
			t.Errorf("bags %v %v: merged cosine %.6f, the model's %.6f", pair[0], pair[1], got, want)
		}
	}
}

// TestMergeWeightsAreTheGeometricMean: the pooling weights of a merge are
// the members' geometric mean, row by row.
func TestMergeWeightsAreTheGeometricMean(t *testing.T) {
	const rows, dim = 10, 2
	a, b := randomMember(4, rows, dim), randomMember(5, rows, dim)
	_, wq, wd, err := merge([]member{a, b}, dim, dim, make([]float64, rows))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < rows; i++ {
		gq := math.Sqrt(float64(a.wq[i]) * float64(b.wq[i]))
		gd := math.Sqrt(float64(a.wd[i]) * float64(b.wd[i]))
		if math.Abs(float64(wq[i])-gq) > 1e-6 || math.Abs(float64(wd[i])-gd) > 1e-6 {
			t.Fatalf("row %d: %v/%v, want %v/%v", i, wq[i], wd[i], gq, gd)
		}
	}
}

// TestMergeIsDeterministicAndSignFixed: the same members give the same
// table, and each output column's projection axis has its largest
// component positive, so negating a member's whole table (an equally good
// model, whose principal axes the eigensolver may return with either
// sign) gives the same table up to the columns that axis flips, never a
// table that differs by an arbitrary sign choice run to run.
func TestMergeIsDeterministicAndSignFixed(t *testing.T) {
	const rows, dim = 50, 3
	ms := []member{randomMember(6, rows, dim), randomMember(7, rows, dim)}
	counts := make([]float64, rows)
	for i := range counts {
		counts[i] = float64(i)
	}
	t1, _, _, err := merge(ms, dim, dim, counts)
	if err != nil {
		t.Fatal(err)
	}
	t2, _, _, err := merge(ms, dim, dim, counts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(t1, t2) {
		t.Fatal("two merges of the same members differ")
	}
	// the same members in the other order: the same axes, their
	// components permuted, so the same signs and the same table
	t3, _, _, err := merge([]member{ms[1], ms[0]}, dim, dim, counts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range t1 {
		if math.Abs(float64(t1[i]-t3[i])) > 1e-4*(1+math.Abs(float64(t1[i]))) {
			t.Fatalf("value %d: %v with the members in order, %v swapped", i, t1[i], t3[i])
		}
	}
}

// TestMergeRefusesBadShapes: members of different sizes, a missing count
// or a width beyond the concatenation are errors, not a silent table.
func TestMergeRefusesBadShapes(t *testing.T) {
	a, b := randomMember(1, 10, 2), randomMember(2, 11, 2)
	if _, _, _, err := merge([]member{a, b}, 2, 2, make([]float64, 10)); err == nil {
		t.Error("members of 10 and 11 rows merged")
	}
	if _, _, _, err := merge([]member{a, a}, 2, 2, make([]float64, 9)); err == nil {
		t.Error("9 counts for 10 rows accepted")
	}
	if _, _, _, err := merge([]member{a, a}, 2, 5, make([]float64, 10)); err == nil {
		t.Error("dim 5 from two members of 2 accepted")
	}
	if _, _, _, err := merge(nil, 2, 2, nil); err == nil {
		t.Error("no member accepted")
	}
}
