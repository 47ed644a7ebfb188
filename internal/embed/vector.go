package embed

// Vectors here are float32 and L2-normalised. The store keeps them
// int8-quantised with one float32 scale each (its on-disk format is
// documented in internal/store/vector.go).

import (
	"fmt"
	"math"
	"unicode"
)

// MaxDim is the most dimensions a vector may have (the largest models
// served today have 4,096): a server sending two million values a vector
// made a 58 MB index of 16 chunks.
const MaxDim = 16384

// Validate checks vectors returned for non-empty inputs: nil slots (empty
// inputs) are skipped; every other vector must be non-empty, at most
// MaxDim long, free of NaN and ±Inf (ErrBadVector), and have wantDim
// dimensions — or, when wantDim is 0, the dimension of the first non-nil
// vector (ErrDimMismatch). Errors name the vector's position.
func Validate(vecs [][]float32, wantDim int) error {
	for i, v := range vecs {
		if v == nil {
			continue
		}
		if len(v) == 0 {
			return fmt.Errorf("vector %d: %w: no values", i, ErrBadVector)
		}
		if len(v) > MaxDim {
			return fmt.Errorf("vector %d: %w: %d dimensions, at most %d", i, ErrBadVector, len(v), MaxDim)
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
