package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/pierrec/lz4/v4"
)

// Chunk text is stored compressed where that pays (issue #29). Before
// schema 8 the text of code_chunks was about 1× the indexed source, the
// largest single part of index.db (the rest of the row, the full-text
// index and the vectors are each a fraction of the source). Each chunk is
// compressed on its own as an LZ4 block (github.com/pierrec/lz4, its
// high-compression mode), so reading the hundreds of candidates of one
// search inflates only those, at a cost per chunk far below DEFLATE's:
// on gin's chunks LZ4 read back at 245 MB/s and DEFLATE at 29 MB/s (its
// per-stream setup dominates a chunk of a few hundred bytes), for a
// stored size of 0.65 of the text against 0.54.
//
// Format: a compressed text is a BLOB holding contentMark, the text's
// length in bytes as a uvarint (LZ4 blocks do not record it; a read
// allocates the text once, at its size) and the LZ4 block; any other value
// is the text itself. A text that starts with contentMark (a NUL byte) is
// always compressed, so the mark never has two readings. PostgreSQL's TEXT
// cannot hold a NUL, and its TOAST already compresses long values, so its
// backend stores text as is; DecodeContent reads both.

// contentMark starts every compressed chunk text.
const contentMark = "\x00"

// contentMinCompress is the shortest text worth compressing, in bytes.
const contentMinCompress = 96

// contentMaxLen bounds the length a compressed text may claim, in bytes,
// so a damaged length cannot ask for a huge allocation: far above the
// largest file the indexer reads.
const contentMaxLen = 1 << 30

// compressors holds LZ4 high-compression states (each holds its hash
// tables, about 256 KB), reused across chunks and goroutines.
var compressors = sync.Pool{New: func() any { return &lz4.CompressorHC{Level: lz4.Level9} }}

// EncodeContent is the stored form of a chunk's text: a []byte (contentMark,
// the length and the LZ4 block) when that is at least 1/8 smaller than the
// text, or when the text itself starts with contentMark; otherwise the text
// as a string. For backends that store BLOBs in the text column (SQLite).
// Errors: only the compressor's own, which writes to memory it sized.
func EncodeContent(s string) (any, error) {
	marked := strings.HasPrefix(s, contentMark)
	if len(s) < contentMinCompress && !marked {
		return s, nil
	}
	head := binary.AppendUvarint([]byte(contentMark), uint64(len(s)))
	out := make([]byte, len(head)+lz4.CompressBlockBound(len(s)))
	copy(out, head)
	c := compressors.Get().(*lz4.CompressorHC)
	n, err := c.CompressBlock(unsafe.Slice(unsafe.StringData(s), len(s)), out[len(head):])
	compressors.Put(c)
	switch {
	case err != nil:
		return nil, fmt.Errorf("compress chunk text: %w", err)
	case n == 0 && marked:
		// LZ4 found nothing to shrink, but a marked text must be stored
		// compressed: as one run of literals
		return literalBlock(head, s), nil
	case n == 0 || !marked && len(head)+n > len(s)-len(s)/8:
		return s, nil
	}
	return out[:len(head)+n], nil
}

// literalBlock is the LZ4 block of s as one run of literals (the format's
// last sequence: a token, the literal length's extra bytes, the bytes),
// after head; for a text that must be stored compressed but that LZ4
// cannot shrink.
func literalBlock(head []byte, s string) []byte {
	out := append([]byte(nil), head...)
	n := len(s)
	if n < 15 {
		out = append(out, byte(n<<4))
	} else {
		out = append(out, 0xF0)
		for n -= 15; n >= 255; n -= 255 {
			out = append(out, 255)
		}
		out = append(out, byte(n))
	}
	return append(out, s...)
}

// DecodeContent is the text of a stored chunk text (EncodeContent's
// output, as a string or the bytes of a BLOB). Errors: a compressed text
// whose length or block is damaged.
func DecodeContent(v string) (string, error) {
	if !strings.HasPrefix(v, contentMark) {
		return v, nil
	}
	b := unsafe.Slice(unsafe.StringData(v), len(v))[len(contentMark):]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > contentMaxLen {
		return "", errors.New("chunk text is damaged: bad length")
	}
	out := make([]byte, n)
	m, err := lz4.UncompressBlock(b[k:], out)
	if err != nil || uint64(m) != n {
		return "", fmt.Errorf("chunk text is damaged: %d of %d bytes (%v)", m, n, err)
	}
	return unsafe.String(unsafe.SliceData(out), len(out)), nil
}
