package vec

import "testing"

// BenchmarkDotCodes4 scores four rows of 256 codes with DotCodes4 and,
// in the sub-benchmark rows, with four calls of DotCodes.
func BenchmarkDotCodes4(b *testing.B) {
	q := make([]float32, 256)
	for i := range q {
		q[i] = float32(i%7) - 3
	}
	c := make([]byte, 4*256)
	for i := range c {
		c[i] = byte(i * 31)
	}
	var out [4]float32
	b.Run("kernel", func(b *testing.B) {
		for b.Loop() {
			DotCodes4(q, c, 256, &out)
		}
	})
	b.Run("rows", func(b *testing.B) {
		for b.Loop() {
			dotCodes4Rows(q, c, 256, &out)
		}
	})
}
