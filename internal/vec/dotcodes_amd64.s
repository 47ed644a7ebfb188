#include "textflag.h"

// func dotCodes4SSE(q *float32, c *byte, n int, stride int, acc *[16]float32)
//
// For rows r = 0..3 at c + r*stride, lane l = 0..3 of acc[4r:4r+4] is
// Σ q[i]·int8(c[r*stride+i]) over i ≡ l (mod 4), i < n (n a multiple of
// 4), summed in i's order with one float32 rounding per product and per
// sum: DotCodes' four accumulators, one XMM register per row. SSE2 only.
TEXT ·dotCodes4SSE(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ c+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ stride+24(FP), DX
	MOVQ acc+32(FP), AX
	XORPS X0, X0
	XORPS X1, X1
	XORPS X2, X2
	XORPS X3, X3
	LEAQ (DI)(DX*1), R8
	LEAQ (R8)(DX*1), R9
	LEAQ (R9)(DX*1), R10
	XORQ BX, BX

loop:
	CMPQ BX, CX
	JGE  done
	MOVUPS (SI)(BX*4), X4

	// four int8 codes -> four int32 (bytes spread to the top of each
	// dword, then shifted down arithmetically) -> four float32, exactly
	MOVL      (DI)(BX*1), X5
	PUNPCKLBW X5, X5
	PUNPCKLWL X5, X5
	PSRAL     $24, X5
	CVTPL2PS  X5, X5
	MULPS     X4, X5
	ADDPS     X5, X0

	MOVL      (R8)(BX*1), X6
	PUNPCKLBW X6, X6
	PUNPCKLWL X6, X6
	PSRAL     $24, X6
	CVTPL2PS  X6, X6
	MULPS     X4, X6
	ADDPS     X6, X1

	MOVL      (R9)(BX*1), X7
	PUNPCKLBW X7, X7
	PUNPCKLWL X7, X7
	PSRAL     $24, X7
	CVTPL2PS  X7, X7
	MULPS     X4, X7
	ADDPS     X7, X2

	MOVL      (R10)(BX*1), X8
	PUNPCKLBW X8, X8
	PUNPCKLWL X8, X8
	PSRAL     $24, X8
	CVTPL2PS  X8, X8
	MULPS     X4, X8
	ADDPS     X8, X3

	ADDQ $4, BX
	JMP  loop

done:
	MOVUPS X0, 0(AX)
	MOVUPS X1, 16(AX)
	MOVUPS X2, 32(AX)
	MOVUPS X3, 48(AX)
	RET
