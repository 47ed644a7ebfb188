package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestVectorMaths(t *testing.T) {
	t.Parallel()
	v := Normalize([]float32{3, 4})
	if v[0] != 0.6 || v[1] != 0.8 || math.Abs(Norm(v)-1) > 1e-7 {
		t.Errorf("Normalize(3,4) = %v", v)
	}
	if z := Normalize([]float32{0, 0}); z[0] != 0 || z[1] != 0 {
		t.Errorf("zero vector changed: %v", z)
	}
	if n := Norm([]float32{3, 4}); n != 5 {
		t.Errorf("Norm(3,4) = %v", n)
	}
	if c := Dot([]float32{0.6, 0.8}, []float32{0.8, 0.6}); math.Abs(float64(c)-0.96) > 1e-6 {
		t.Errorf("Dot = %v, want 0.96", c)
	}
	if c := Dot([]float32{1, 0}, []float32{1, 0, 0}); c != 0 {
		t.Errorf("length mismatch: %v, want 0", c)
	}
	if c := Dot(nil, nil); c != 0 {
		t.Errorf("empty: %v", c)
	}
	odd := Normalize([]float32{1, 2, 3, 4, 5, 6, 7})
	if c := Dot(odd, odd); math.Abs(float64(c)-1) > 1e-6 {
		t.Errorf("self cosine (7 values) = %v", c)
	}
	// codes are int8 in bytes: 0xff is -1; c may be longer than q
	q := []float32{1, 2, 3, 4, 5}
	if got := DotCodes(q, []byte{1, 0xff, 2, 0, 0x80, 9}); got != 1-2+6+0-5*128 {
		t.Errorf("DotCodes = %v, want %v", got, 1-2+6+0-5*128)
	}
}

// TestDotCodes4EqualsDotCodes: DotCodes4 (the SSE2 kernel on amd64) gives
// DotCodes' sums to the bit for four rows, over every code value, signed
// queries of mixed magnitudes (subnormal to large, so the roundings
// differ by order), lengths that are and are not multiples of 4, and
// strides longer than a row.
func TestDotCodes4EqualsDotCodes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 9))
	for _, dim := range []int{1, 3, 4, 8, 12, 64, 255, 256, 257, 384} {
		for trial := 0; trial < 50; trial++ {
			q := make([]float32, dim)
			for i := range q {
				switch rng.IntN(4) {
				case 0:
					q[i] = float32(rng.NormFloat64())
				case 1:
					q[i] = float32(rng.NormFloat64() * 1e-30)
				case 2:
					q[i] = float32(rng.NormFloat64() * 1e-40) // subnormal
				default:
					q[i] = float32(rng.NormFloat64() * 1e6)
				}
			}
			stride := dim + rng.IntN(5)
			c := make([]byte, 3*stride+dim+rng.IntN(3))
			for i := range c {
				c[i] = byte(rng.IntN(256))
			}
			if trial == 0 {
				for i := range c {
					c[i] = byte(i) // every code value, 0x80 (-128) and 0xff (-1) among them
				}
			}
			var got [4]float32
			DotCodes4(q, c, stride, &got)
			for r := range got {
				want := DotCodes(q, c[r*stride:])
				if math.Float32bits(got[r]) != math.Float32bits(want) {
					t.Fatalf("dim %d trial %d row %d: DotCodes4 %v (%#x), DotCodes %v (%#x)",
						dim, trial, r, got[r], math.Float32bits(got[r]), want, math.Float32bits(want))
				}
			}
		}
	}
	// the codes are signed: -128..127, against a float64 sum
	q := []float32{1, 1, 1, 1}
	var got [4]float32
	DotCodes4(q, []byte{0x80, 0xff, 0x7f, 1, 0, 0, 0, 0, 2, 2, 2, 2, 0xfe, 0xfe, 0xfe, 0xfe}, 4, &got)
	if got != [4]float32{-128 - 1 + 127 + 1, 0, 8, -8} {
		t.Errorf("DotCodes4 = %v, want [-1 0 8 -8]", got)
	}
	DotCodes4(nil, nil, 0, &got)
	if got != [4]float32{} {
		t.Errorf("empty query: %v", got)
	}
}
