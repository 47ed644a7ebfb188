// Package vec is coderag's vector arithmetic, in one place: the dot
// product, the L2 norm and normalisation of float32 vectors, and the dot
// product of a float32 query with int8 codes (the store's quantised
// vectors, see internal/store/vector.go). Every embedder returns
// L2-normalised vectors, so Dot of two of them is their cosine.
//
// Sums of float32 values run in four float32 lanes, in a fixed order, so
// a score is the same wherever it is computed; norms are summed in
// float64.
package vec

import "math"

// Dot returns Σ a[i]·b[i], the cosine similarity of a and b when both are
// L2-normalised (as every embedder returns), in [-1, 1] then. It returns 0
// when the lengths differ or either is empty.
func Dot(a, b []float32) float32 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// Norm returns the L2 norm of v, summed in float64.
func Norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// Normalize scales v in place to unit L2 norm and returns it. A zero vector
// (or nil), or one whose norm overflows, is returned unchanged. The sum is
// taken in float64.
func Normalize(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return v
	}
	inv := 1 / math.Sqrt(s)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return v
}

// codeValue maps a code byte to its int8 value as a float32. A table
// look-up (one L1 load) is as fast as reading a float32 and twice as fast
// as converting the byte (measured in pure Go on amd64), so scoring codes
// costs what scoring float32 did while reading a quarter of the bytes.
var codeValue = func() (t [256]float32) {
	for i := range t {
		t[i] = float32(int8(uint8(i)))
	}
	return t
}()

// DotCodes returns Σ q[i]·int8(c[i]) over len(q) values, c holding one
// int8 code per byte (c may be longer, not shorter), in four float32
// lanes. Times a vector's scale it is q·v for a quantised v. Each product
// is rounded to float32 before it is added (the conversions say so: no
// fused multiply-add), as DotCodes4's SIMD kernel rounds it, so both give
// the same sums on every platform.
func DotCodes(q []float32, c []byte) float32 {
	c = c[:len(q)]
	var s0, s1, s2, s3 float32
	n := len(q) &^ 3
	for i := 0; i < n; i += 4 {
		s0 += float32(q[i] * codeValue[c[i]])
		s1 += float32(q[i+1] * codeValue[c[i+1]])
		s2 += float32(q[i+2] * codeValue[c[i+2]])
		s3 += float32(q[i+3] * codeValue[c[i+3]])
	}
	for i := n; i < len(q); i++ {
		s0 += float32(q[i] * codeValue[c[i]])
	}
	return s0 + s1 + s2 + s3
}

// DotCodes4 sets out[r] to DotCodes(q, c[r*stride:]) for the four rows r
// = 0..3 of codes that start stride bytes apart in c (c holds at least
// 3*stride+len(q) bytes, stride >= 0; it panics otherwise). The results are DotCodes'
// to the bit; on amd64 one pass of SSE2 scores the four rows, each row's
// four lanes in one register, which is 2-3 times faster than four calls
// of DotCodes (a scan of cached vectors is most of a warm search).
func DotCodes4(q []float32, c []byte, stride int, out *[4]float32) {
	if len(q) == 0 {
		*out = [4]float32{}
		return
	}
	if stride < 0 || 3*stride+len(q) > len(c) {
		panic("vec: DotCodes4: codes shorter than four rows")
	}
	dotCodes4(q, c, stride, out)
}

// dotCodes4Rows is DotCodes4 as four calls of DotCodes.
func dotCodes4Rows(q []float32, c []byte, stride int, out *[4]float32) {
	for r := range out {
		out[r] = DotCodes(q, c[r*stride:])
	}
}
