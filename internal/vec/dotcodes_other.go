//go:build !amd64

package vec

// dotCodes4 is DotCodes4 where no kernel is written: DotCodes row by
// row.
func dotCodes4(q []float32, c []byte, stride int, out *[4]float32) {
	dotCodes4Rows(q, c, stride, out)
}
