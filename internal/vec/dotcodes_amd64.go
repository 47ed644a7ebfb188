package vec

// dotCodes4SSE is DotCodes4's kernel (dotcodes_amd64.s): the four lanes of
// four rows of codes, stride bytes apart, into acc (row r's lanes at
// acc[4r:4r+4]); n is a multiple of 4, q holds n values and c 3*stride+n
// bytes.
//
//go:noescape
func dotCodes4SSE(q *float32, c *byte, n int, stride int, acc *[16]float32)

// dotCodes4 is DotCodes4 on amd64: the SSE2 kernel when len(q) is a
// non-zero multiple of 4 (the lanes' sums as DotCodes adds them, then
// added up as DotCodes adds them up), else DotCodes row by row.
func dotCodes4(q []float32, c []byte, stride int, out *[4]float32) {
	n := len(q)
	if n == 0 || n%4 != 0 {
		dotCodes4Rows(q, c, stride, out)
		return
	}
	_ = c[3*stride+n-1] // the kernel reads c[r*stride : r*stride+n], r < 4
	var acc [16]float32
	dotCodes4SSE(&q[0], &c[0], n, stride, &acc)
	for r := range out {
		out[r] = acc[4*r] + acc[4*r+1] + acc[4*r+2] + acc[4*r+3]
	}
}
