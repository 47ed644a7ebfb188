package store

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Chunk text is stored compressed where that pays (issue #29). Before
// schema 8 the text of code_chunks was about 1× the indexed source, the
// largest single part of index.db (the rest of the row, the full-text
// index and the vectors are each a fraction of the source). Each chunk is
// compressed on its own with DEFLATE (RFC 1951, compress/flate), so
// reading the 10–50 chunks of an answer inflates only those; a chunk of
// code shrinks to about half (whole files would shrink further, but every
// read would then inflate the whole file).
//
// Format: a compressed text is a BLOB holding contentMark followed by the
// raw DEFLATE stream; any other value is the text itself. A text that
// starts with contentMark (a NUL byte) is always compressed, so the mark
// never has two readings. PostgreSQL's TEXT cannot hold a NUL, and its
// TOAST already compresses long values, so its backend stores text as is;
// DecodeContent reads both.

// contentMark starts every compressed chunk text.
const contentMark = "\x00"

// contentMinCompress is the shortest text worth compressing, in bytes:
// DEFLATE's block header and end code eat most of what a shorter text
// could save.
const contentMinCompress = 96

var (
	deflaters = sync.Pool{New: func() any {
		w, _ := flate.NewWriter(io.Discard, flate.BestSpeed)
		return w
	}}
	inflaters = sync.Pool{New: func() any { return flate.NewReader(strings.NewReader("")) }}
)

// EncodeContent is the stored form of a chunk's text: a []byte (contentMark
// and the DEFLATE stream) when that is at least 1/8 smaller than the text,
// or when the text itself starts with contentMark; otherwise the text as a
// string. For backends that store BLOBs in the text column (SQLite).
// Errors: only the compressor's own, which writes to memory.
func EncodeContent(s string) (any, error) {
	marked := strings.HasPrefix(s, contentMark)
	if len(s) < contentMinCompress && !marked {
		return s, nil
	}
	var buf bytes.Buffer
	buf.Grow(len(s)/2 + 16)
	buf.WriteString(contentMark)
	w := deflaters.Get().(*flate.Writer)
	w.Reset(&buf)
	_, err := io.WriteString(w, s)
	if err == nil {
		err = w.Close()
	}
	deflaters.Put(w)
	switch {
	case err != nil:
		return nil, fmt.Errorf("compress chunk text: %w", err)
	case !marked && buf.Len() > len(s)-len(s)/8:
		return s, nil
	}
	return buf.Bytes(), nil
}

// DecodeContent is the text of a stored chunk text (EncodeContent's
// output, as a string or the bytes of a BLOB). Errors: a compressed text
// whose DEFLATE stream is damaged.
func DecodeContent(v string) (string, error) {
	if !strings.HasPrefix(v, contentMark) {
		return v, nil
	}
	r := inflaters.Get().(io.ReadCloser)
	defer inflaters.Put(r)
	if err := r.(flate.Resetter).Reset(strings.NewReader(v[len(contentMark):]), nil); err != nil {
		return "", fmt.Errorf("chunk text: %w", err)
	}
	var b strings.Builder
	b.Grow(2 * len(v))
	if _, err := io.Copy(&b, r); err != nil {
		return "", fmt.Errorf("chunk text is damaged: %w", err)
	}
	return b.String(), nil
}
