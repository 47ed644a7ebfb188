package embed

import (
	"context"
	"fmt"
	"sync"
)

// SendFunc sends one request holding texts (each non-blank, prefixed and cut
// to MaxInputRunes) and returns the server's vectors for them, in the same
// order. It need not validate or normalise; Batch does.
type SendFunc func(ctx context.Context, texts []string) ([][]float32, error)

// Batch is the batching every remote provider shares. It prepends prefix to
// each non-blank text, cuts the result to MaxInputRunes runes, sends the
// texts size at a time (size <= 0 means DefaultBatchSize) through send, one
// request after another, and returns one L2-normalised vector per input in
// input order, with nil for blank inputs (which are never sent; all-blank
// input sends nothing).
//
// Errors: the context's error once it is done; ErrCountMismatch when a
// request returns a different number of vectors than texts (a 200 with zero
// vectors included); ErrBadVector / ErrDimMismatch from Validate against dim
// (which remembers the first dimension seen; nil means check only within the
// call). Each is wrapped with the batch number and input range.
func Batch(ctx context.Context, texts []string, size int, prefix string, dim *DimLock, send SendFunc) ([][]float32, error) {
	if size <= 0 {
		size = DefaultBatchSize
	}
	if dim == nil {
		dim = new(DimLock)
	}
	out := make([][]float32, len(texts))
	var pos []int // input positions of the non-blank texts
	var sent []string
	for i, t := range texts {
		if IsBlank(t) {
			continue
		}
		pos = append(pos, i)
		sent = append(sent, Truncate(prefix+t, MaxInputRunes))
	}
	for b, start := 0, 0; start < len(sent); b, start = b+1, start+size {
		end := min(start+size, len(sent))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vecs, err := send(ctx, sent[start:end])
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, ctxErr
			}
			return nil, fmt.Errorf("embed batch %d (inputs %d-%d): %w", b, pos[start], pos[end-1], err)
		}
		if len(vecs) != end-start {
			return nil, fmt.Errorf("embed batch %d (inputs %d-%d): %w: sent %d texts, server returned %d vectors",
				b, pos[start], pos[end-1], ErrCountMismatch, end-start, len(vecs))
		}
		for j, v := range vecs {
			if v == nil { // a server "null" for a non-empty input
				return nil, fmt.Errorf("embed batch %d: input %d: %w: server returned no vector", b, pos[start+j], ErrBadVector)
			}
		}
		if err := dim.Check(vecs); err != nil {
			return nil, fmt.Errorf("embed batch %d (inputs %d-%d): %w", b, pos[start], pos[end-1], err)
		}
		for j, v := range vecs {
			out[pos[start+j]] = Normalize(v)
		}
	}
	return out, nil
}

// DimLock remembers the dimension of the first vectors an embedder returned
// and rejects later vectors of another dimension. The zero value is ready;
// it is safe for concurrent use.
type DimLock struct {
	mu  sync.Mutex
	dim int
}

// Dim returns the remembered dimension, 0 before the first Check.
func (d *DimLock) Dim() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dim
}

// Check validates vecs (see Validate) against the remembered dimension and,
// when none is remembered yet and vecs are valid, remembers theirs.
func (d *DimLock) Check(vecs [][]float32) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := Validate(vecs, d.dim); err != nil {
		if d.dim != 0 {
			return fmt.Errorf("%w (earlier vectors from this model had %d)", err, d.dim)
		}
		return err
	}
	if d.dim == 0 {
		for _, v := range vecs {
			if v != nil {
				d.dim = len(v)
				break
			}
		}
	}
	return nil
}
