package embed

// Vectors here are float32 and L2-normalised. The store keeps them
// int8-quantised with one float32 scale each (its on-disk format is
// documented in internal/store/vector.go).

import (
	"fmt"
	"math"
	"unicode"
)

// Normalize scales v in place to unit L2 norm and returns it. A zero vector
// (or nil) is returned unchanged. The sum is taken in float64.
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

// Cosine returns the dot product of a and b, which is their cosine
// similarity when both are L2-normalised (as every Embedder returns), in
// [-1, 1]. It returns 0 when the lengths differ or either is empty.
func Cosine(a, b []float32) float32 {
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

// Validate checks vectors returned for non-empty inputs: nil slots (empty
// inputs) are skipped; every other vector must be non-empty, free of NaN and
// ±Inf (ErrBadVector), and have wantDim dimensions — or, when wantDim is 0,
// the dimension of the first non-nil vector (ErrDimMismatch). Errors name the
// vector's position.
func Validate(vecs [][]float32, wantDim int) error {
	for i, v := range vecs {
		if v == nil {
			continue
		}
		if len(v) == 0 {
			return fmt.Errorf("vector %d: %w: no values", i, ErrBadVector)
		}
		if wantDim == 0 {
			wantDim = len(v)
		}
		if len(v) != wantDim {
			return fmt.Errorf("vector %d: %w: got %d dimensions, want %d", i, ErrDimMismatch, len(v), wantDim)
		}
		for j, x := range v {
			if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("vector %d: %w: value %d is %v", i, ErrBadVector, j, x)
			}
		}
	}
	return nil
}

// Truncate returns s cut to at most maxRunes runes, never splitting a UTF-8
// sequence (invalid bytes count as one rune each). maxRunes <= 0 returns "".
// The input is returned unchanged when it is short enough.
func Truncate(s string, maxRunes int) string {
	if maxRunes <= 0 {
		return ""
	}
	if len(s) <= maxRunes { // bytes >= runes
		return s
	}
	n := 0
	for i := range s {
		if n == maxRunes {
			return s[:i]
		}
		n++
	}
	return s
}

// IsBlank reports whether s is empty or only Unicode white space; blank
// inputs are never sent to a server.
func IsBlank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}
