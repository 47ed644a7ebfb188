package embed

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/vec"
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
// One bad input does not sink the others. A request that fails for a reason
// other than the server as a whole (see Stop: a 5xx, a 400/413/422, a NaN in
// the answer, a wrong count) is split in halves, without further 5xx
// retries, down to single inputs; an input the server says is too long is
// sent again cut to half its runes (at most five times); a vector with NaN,
// Inf or no values fails only its input. When some inputs fail and others
// succeed, Batch returns the vectors (nil at the failed positions) together
// with a *PartialError naming each failed input and its reason.
//
// Errors, each wrapped with the batch number and input range: the context's
// error once it is done; an error for which Stop is true, at once; an
// ErrServerFailing error when every input of a request of four or more
// failed on its own (the server, not the inputs, is broken); ErrDimMismatch
// when valid vectors have another dimension than dim remembers (dim nil
// means check only within the call).
func Batch(ctx context.Context, texts []string, size int, prefix string, dim *DimLock, send SendFunc) ([][]float32, error) {
	if size <= 0 {
		size = DefaultBatchSize
	}
	if dim == nil {
		dim = new(DimLock)
	}
	b := &batcher{send: send, dim: dim, out: make([][]float32, len(texts))}
	for i, t := range texts {
		if IsBlank(t) {
			continue
		}
		b.pos = append(b.pos, i)
		b.sent = append(b.sent, Truncate(prefix+t, MaxInputRunes))
	}
	for n, start := 0, 0; start < len(b.sent); n, start = n+1, start+size {
		end := min(start+size, len(b.sent))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		failedBefore := len(b.failed)
		if err := b.do(ctx, start, end, false); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, ctxErr
			}
			return nil, fmt.Errorf("embed batch %d (inputs %d-%d): %w", n, b.pos[start], b.pos[end-1], err)
		}
		if failed := len(b.failed) - failedBefore; end-start >= minServerFailing && failed == end-start {
			first := b.failed[b.pos[start]]
			return nil, fmt.Errorf("embed batch %d (inputs %d-%d): %w: each of its %d inputs failed alone; input %d: %w",
				n, b.pos[start], b.pos[end-1], ErrServerFailing, failed, b.pos[start], first)
		}
	}
	if len(b.failed) > 0 {
		return b.out, &PartialError{Failed: b.failed, Inputs: len(b.sent)}
	}
	return b.out, nil
}

// minServerFailing is the smallest request whose inputs, all failing
// alone, mean the server is broken: in a smaller one (the last of a run,
// say) they may all be bad inputs.
const minServerFailing = 4

// maxHalvings bounds how often an input the server calls too long is cut
// in half and sent again (2000 runes -> 62).
const maxHalvings = 5

type batcher struct {
	send   SendFunc
	dim    *DimLock
	pos    []int    // input positions of the non-blank texts
	sent   []string // prepared texts, parallel to pos
	out    [][]float32
	failed map[int]error // by input position
}

func (b *batcher) fail(k int, err error) {
	if b.failed == nil {
		b.failed = map[int]error{}
	}
	b.failed[b.pos[k]] = err
}

// do embeds sent[lo:hi] into out. It returns only errors that stop the
// whole call; failures of single inputs are recorded in failed.
func (b *batcher) do(ctx context.Context, lo, hi int, splitting bool) error {
	sctx := ctx
	if splitting {
		sctx = context.WithValue(ctx, noRetry5xxKey{}, true)
	}
	vecs, err := b.send(sctx, b.sent[lo:hi])
	if err == nil && len(vecs) != hi-lo {
		err = fmt.Errorf("%w: sent %d texts, server returned %d vectors", ErrCountMismatch, hi-lo, len(vecs))
	}
	if err == nil {
		return b.accept(lo, vecs)
	}
	if ctx.Err() != nil || Stop(err) {
		return err
	}
	if hi-lo == 1 {
		return b.single(ctx, lo, err)
	}
	mid := lo + (hi-lo)/2
	if err := b.do(ctx, lo, mid, true); err != nil {
		return err
	}
	return b.do(ctx, mid, hi, true)
}

// single handles one input whose request failed with err: an input the
// server calls too long is cut in half and sent again; otherwise (or when
// cutting does not help) the input is recorded as failed.
func (b *batcher) single(ctx context.Context, k int, err error) error {
	text := b.sent[k]
	for h := 0; h < maxHalvings && TooLong(err); h++ {
		n := utf8.RuneCountInString(text) / 2
		if n < 1 {
			break
		}
		text = Truncate(text, n)
		vecs, err2 := b.send(context.WithValue(ctx, noRetry5xxKey{}, true), []string{text})
		if err2 == nil && len(vecs) != 1 {
			err2 = fmt.Errorf("%w: sent 1 text, server returned %d vectors", ErrCountMismatch, len(vecs))
		}
		if err2 == nil {
			return b.accept(k, vecs)
		}
		if ctx.Err() != nil || Stop(err2) {
			return err2
		}
		err = err2
	}
	b.fail(k, err)
	return nil
}

// accept validates vectors for sent[lo:lo+len(vecs)]: a missing, empty or
// non-finite vector fails its input only; the others must agree with the
// remembered dimension.
func (b *batcher) accept(lo int, vecs [][]float32) error {
	good := make([][]float32, 0, len(vecs))
	idx := make([]int, 0, len(vecs))
	for j, v := range vecs {
		if v == nil {
			b.fail(lo+j, fmt.Errorf("%w: server returned no vector", ErrBadVector))
			continue
		}
		if err := Validate([][]float32{v}, 0); err != nil {
			b.fail(lo+j, err)
			continue
		}
		good = append(good, v)
		idx = append(idx, lo+j)
	}
	if err := b.dim.Check(good); err != nil {
		return err
	}
	for j, v := range good {
		b.out[b.pos[idx[j]]] = vec.Normalize(v)
	}
	return nil
}

// noRetry5xxKey marks a request context of a split batch: PostJSON does not
// retry its 5xx answers (the whole batch was retried already; a 5xx now most
// likely belongs to one input).
type noRetry5xxKey struct{}

// PartialError is returned by Batch (and so by Embed) when some inputs could
// not be embedded while the others were: the vectors returned alongside it
// are valid, with nil at the failed positions.
type PartialError struct {
	// Failed maps an input position (an index into Embed's texts) to why it
	// failed: the server's message for that input alone, or ErrBadVector.
	Failed map[int]error
	// Inputs is the number of non-blank inputs sent.
	Inputs int
}

// Error is "N of M inputs could not be embedded; first: input I: REASON",
// or just the reason when a single input was sent.
func (e *PartialError) Error() string {
	ps := e.positions()
	if len(ps) == 0 {
		return "no input failed"
	}
	if e.Inputs == 1 {
		return e.Failed[ps[0]].Error()
	}
	return fmt.Sprintf("%d of %d inputs could not be embedded; first: input %d: %v", len(e.Failed), e.Inputs, ps[0], e.Failed[ps[0]])
}

// Unwrap returns the per-input errors in input order, so errors.Is and
// errors.As see through a PartialError (errors.Is(err, ErrBadVector)).
func (e *PartialError) Unwrap() []error {
	var out []error
	for _, p := range e.positions() {
		out = append(out, e.Failed[p])
	}
	return out
}

func (e *PartialError) positions() []int {
	ps := make([]int, 0, len(e.Failed))
	for p := range e.Failed {
		ps = append(ps, p)
	}
	sort.Ints(ps)
	return ps
}

// Redact rewrites every per-input error with f (providers mask secrets).
func (e *PartialError) Redact(f func(error) error) {
	for i, err := range e.Failed {
		e.Failed[i] = f(err)
	}
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
