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
//
// From schema 9 a chunk's doc comment may be stored in the same block,
// after the text (EncodeChunkText): its lines are mostly those of the
// comment at the top of the text with the comment markers cut, so LZ4
// stores each as a few bytes that point back at the text (on the semble
// dev repos the doc column was 0.02-0.31x the source, a median 0.09x).
// Such a BLOB holds contentMark, docMark, the text's length and the doc's
// as uvarints, and the LZ4 block of the two; the doc column is then ''.
// docMark is a zero byte, which no schema 8 BLOB has there: the length it
// starts with is at least 1 (only a text that starts with contentMark is
// compressed below contentMinCompress bytes), and a uvarint of 1 or more
// never starts with a zero byte.
//
// A chunk's symbol, params and signature are parts of its name: on
// SQLite they are stored as a BLOB of two uvarints, where in the name the
// part starts and its length in bytes (EncodeNamePart), in place of the
// text (on the dev repos the three were a median 0.11x the source). The
// text columns hold TEXT otherwise, so a BLOB has one reading.

// contentMark starts every compressed chunk text; docMark follows it in
// one stored with its doc comment.
const (
	contentMark = "\x00"
	docMark     = '\x00'
)

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

// EncodeChunkText is the stored form of a chunk's text and doc comment,
// for backends that store BLOBs in the text column (SQLite): the value of
// the text column and that of the doc column. A doc that is not empty is
// compressed after the text in one block (the doc column is then empty), when
// that block is at least 1/8 smaller than the two; otherwise the text is
// stored as EncodeContent stores it, and the doc as it is. Errors: only
// the compressor's own, which writes to memory it sized.
func EncodeChunkText(text, doc string) (stored any, storedDoc string, err error) {
	if doc == "" || len(text)+len(doc) < contentMinCompress {
		stored, err = EncodeContent(text)
		return stored, doc, err
	}
	head := binary.AppendUvarint([]byte{contentMark[0], docMark}, uint64(len(text)))
	head = binary.AppendUvarint(head, uint64(len(doc)))
	both := make([]byte, 0, len(text)+len(doc))
	both = append(append(both, text...), doc...)
	out := make([]byte, len(head)+lz4.CompressBlockBound(len(both)))
	copy(out, head)
	c := compressors.Get().(*lz4.CompressorHC)
	n, err := c.CompressBlock(both, out[len(head):])
	compressors.Put(c)
	if err != nil {
		return nil, "", fmt.Errorf("compress chunk text: %w", err)
	}
	if n == 0 || len(head)+n > len(both)-len(both)/8 {
		stored, err = EncodeContent(text)
		return stored, doc, err
	}
	return out[:len(head)+n], "", nil
}

// DecodeContent is the text of a stored chunk text (EncodeContent's or
// EncodeChunkText's output, as a string or the bytes of a BLOB), without
// the doc comment stored with it. Errors: a compressed text whose length
// or block is damaged.
func DecodeContent(v string) (string, error) {
	text, _, _, err := decodeBlock(v)
	return text, err
}

// DecodeChunkText is the text and doc comment of a chunk stored as v (the
// text column, as a string or the bytes of a BLOB) and doc (the doc
// column): the doc stored in v's block when there is one, doc otherwise.
// Errors: a compressed text whose lengths or block are damaged.
func DecodeChunkText(v, doc string) (string, string, error) {
	text, d, withDoc, err := decodeBlock(v)
	if err != nil || !withDoc {
		return text, doc, err
	}
	return text, d, nil
}

// decodeBlock is the text of v and the doc comment stored with it (withDoc
// reports whether v held one).
func decodeBlock(v string) (text, doc string, withDoc bool, err error) {
	if !strings.HasPrefix(v, contentMark) {
		return v, "", false, nil
	}
	b := unsafe.Slice(unsafe.StringData(v), len(v))[len(contentMark):]
	var docLen uint64
	if withDoc = len(b) > 0 && b[0] == docMark; withDoc {
		b = b[1:]
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > contentMaxLen {
		return "", "", false, errors.New("chunk text is damaged: bad length")
	}
	b = b[k:]
	if withDoc {
		if docLen, k = binary.Uvarint(b); k <= 0 || docLen > contentMaxLen {
			return "", "", false, errors.New("chunk text is damaged: bad doc length")
		}
		b = b[k:]
	}
	out := make([]byte, n+docLen)
	m, err := lz4.UncompressBlock(b, out)
	if err != nil || uint64(m) != n+docLen {
		return "", "", false, fmt.Errorf("chunk text is damaged: %d of %d bytes (%v)", m, n+docLen, err)
	}
	all := unsafe.String(unsafe.SliceData(out), len(out))
	return all[:n], all[n:], withDoc, nil
}

// namePartMin is the shortest part of a name, in bytes, that
// EncodeNamePart stores as a position: a shorter one is no longer as text.
const namePartMin = 4

// EncodeNamePart is the stored form of part, a part of a chunk's name
// (its symbol, params or signature), for backends that store BLOBs in
// text columns (SQLite): a []byte of two uvarints, the byte offset in name
// of the last occurrence of part and part's length, when part occurs in
// name and is at least namePartMin bytes; otherwise part itself, a string.
func EncodeNamePart(name, part string) any {
	if len(part) < namePartMin {
		return part
	}
	i := strings.LastIndex(name, part)
	if i < 0 {
		return part
	}
	return binary.AppendUvarint(binary.AppendUvarint(make([]byte, 0, 4), uint64(i)), uint64(len(part)))
}

// DecodeNamePart is the text of a stored symbol, params or signature v of
// the chunk named name (EncodeNamePart): v itself when it is a string,
// the part of name it points at when it is a []byte, "" for nil. The
// result shares name's memory. Errors: a BLOB that does not point inside
// name, or a value of another type.
func DecodeNamePart(name string, v any) (string, error) {
	switch b := v.(type) {
	case string:
		return b, nil
	case nil:
		return "", nil
	case []byte:
		i, k := binary.Uvarint(b)
		n, k2 := binary.Uvarint(b[max(k, 0):])
		if k <= 0 || k2 <= 0 || k+k2 != len(b) || i > uint64(len(name)) || n > uint64(len(name))-i {
			return "", fmt.Errorf("name part %x of %q is damaged", b, name)
		}
		return name[i : i+n], nil
	}
	return "", fmt.Errorf("name part of %q: a %T is no text", name, v)
}
