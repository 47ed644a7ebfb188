package vec

import (
	"math"
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
