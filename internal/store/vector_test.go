package store

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/coderag/coderag/internal/vec"
)

// TestVectorFormat pins the stored layout (vector.go): a float32 scale,
// then one int8 code per value, the codes round(v·127/max|v|) and the
// scale keeping the vector's length.
func TestVectorFormat(t *testing.T) {
	b := EncodeVector([]float32{1, -0.5})
	scale := float32(math.Sqrt(1.25) / math.Sqrt(127*127+64*64))
	want := binary.LittleEndian.AppendUint32(nil, math.Float32bits(scale))
	want = append(want, 127, byte(0x100-64))
	if !slices.Equal(b, want) {
		t.Fatalf("EncodeVector = % x, want % x", b, want)
	}
	if got := DecodeVector(b); len(got) != 2 || math.Abs(float64(got[0])-1) > 0.01 || math.Abs(float64(got[1])+0.5) > 0.01 {
		t.Errorf("DecodeVector = %v", got)
	}
	if z := EncodeVector([]float32{0, 0, 0}); !slices.Equal(z, make([]byte, 7)) {
		t.Errorf("zero vector = % x", z)
	}
	if DecodeVector([]byte{1, 2, 3, 4}) != nil || DecodeVector(nil) != nil || EncodeVector(nil) != nil {
		t.Error("malformed BLOB decoded")
	}
}

// TestQuantisedCosine: a stored vector keeps its float32 original's
// direction (cosine > 0.999) and its length, for dense (model-like) and
// sparse (feature-hashing-like) unit vectors of every usual dimension, and
// the score read from the codes (dotBlob, vec.DotCodes) is the cosine of the
// query to the stored vector; the cosine of two stored vectors is within
// 0.01 of their originals' cosine, so rankings hold.
func TestQuantisedCosine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	unit := func(dim int, sparse bool) []float32 {
		v := make([]float32, dim)
		for i := range v {
			if !sparse || rng.IntN(20) == 0 || i == 0 {
				v[i] = float32(rng.NormFloat64() * (1 + 3*rng.Float64()))
			}
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		for i := range v {
			v[i] = float32(float64(v[i]) / math.Sqrt(n))
		}
		return v
	}
	dot := func(a, b []float32) (s float64) {
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	worst, worstPair := 1.0, 0.0
	for _, dim := range []int{64, 256, 768, 1024, 4096} {
		for _, sparse := range []bool{false, true} {
			for range 50 {
				v, q := unit(dim, sparse), unit(dim, sparse)
				// q is mixed with v so pairs span high and low cosines
				for i := range q {
					q[i] = 0.5*q[i] + 0.5*v[i]
				}
				b := EncodeVector(v)
				if len(b) != dim+4 {
					t.Fatalf("dim %d: %d bytes", dim, len(b))
				}
				d := DecodeVector(b)
				worst = min(worst, dot(v, d)/math.Sqrt(dot(d, d)))
				if n := dot(d, d); math.Abs(n-1) > 1e-4 {
					t.Fatalf("dim %d: stored length² %v, want 1", dim, n)
				}
				if got, want := float64(dotBlob(q, b)), dot(q, d); math.Abs(got-want) > 1e-4 {
					t.Fatalf("dim %d: dotBlob %v, want %v", dim, got, want)
				}
				if got, want := float64(blobScale(b)*vec.DotCodes(q, appendCodes(nil, b))), dot(q, d); math.Abs(got-want) > 1e-4 {
					t.Fatalf("dim %d: DotCodes %v, want %v", dim, got, want)
				}
				dq := DecodeVector(EncodeVector(q))
				cq := dot(q, q)
				pair := math.Abs(dot(v, q)/math.Sqrt(cq) - dot(d, dq)/math.Sqrt(dot(dq, dq)))
				worstPair = max(worstPair, pair)
			}
		}
	}
	if !(worst > 0.999) {
		t.Errorf("worst cosine of a stored vector to its original %.5f, want > 0.999", worst)
	}
	if !(worstPair < 0.01) {
		t.Errorf("worst change of a pair's cosine %.5f, want < 0.01", worstPair)
	}
	t.Logf("worst cosine to the original %.6f; worst pair change %.6f", worst, worstPair)
}
