package static

// The weights file (weights.bin, embedded with go:embed) holds one model.
// All integers and floats are little-endian.
//
//	magic     [8]byte  "CRSTATIC"
//	version   uint32   format version, 1
//	name      uvarint length + bytes, the model name ("coderag-code-v6")
//	dim       uint32   vector dimension D
//	nvocab    uint32   named tokens V (code words, whole identifiers, Chinese words)
//	nbuckets  uint32   hash buckets B for tokens outside the vocabulary
//	vocab     V × (uvarint length + bytes), token strings in id order
//	wdoc      (V+B) × float32  per-token weight on the document (chunk) side
//	wquery    (V+B) × float32  per-token weight on the query side
//	scale     (V+B) × float32  per-row dequantisation scale
//	rows      (V+B) × D × int8 the token table, row r ≈ scale[r] · rows[r]
//	checksum  [32]byte sha256 of every byte before it
//
// Row V+b is the vector of every out-of-vocabulary token whose BucketOf is
// b. Rows are quantised symmetrically per row: scale = max|x|/127,
// q = round(x/scale), so a row keeps its direction to about 0.5% and the file
// is a quarter of float32. train/cmd/pack writes the file with Encode from
// the float32 table train/train.py leaves; the Embedder reads it with Decode.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"unsafe"
)

const (
	magic         = "CRSTATIC"
	formatVersion = 1
)

// ErrBadWeights is returned by Decode for a file that is not a weights file
// of this format (wrong magic or version, truncated, bad checksum, counts
// out of range).
var ErrBadWeights = errors.New("bad static model weights")

// Model is a decoded weights file. Rows are int8 with one float32 scale per
// row; Vocab[i] is the token of row i for i < len(Vocab), and rows
// len(Vocab)..len(Vocab)+Buckets-1 are the hash buckets.
type Model struct {
	Name    string
	Dim     int
	Vocab   []string
	Buckets int
	WDoc    []float32 // len(Vocab)+Buckets
	WQuery  []float32 // len(Vocab)+Buckets
	Scale   []float32 // len(Vocab)+Buckets
	Rows    []int8    // (len(Vocab)+Buckets)·Dim
}

// BucketOf returns the bucket, 0..buckets-1, of an out-of-vocabulary token:
// FNV-1a 32 of its bytes modulo buckets. train/train.py never computes it:
// the miner writes row ids, so this is the only definition.
func BucketOf(token string, buckets int) int {
	h := fnv.New32a()
	h.Write([]byte(token))
	return int(h.Sum32() % uint32(buckets))
}

// Quantize returns the int8 rows and per-row scales of a float32 table of
// n rows of dim values (row-major). An all-zero row gets scale 0.
func Quantize(table []float32, dim int) ([]int8, []float32) {
	n := len(table) / dim
	q := make([]int8, len(table))
	scale := make([]float32, n)
	for r := 0; r < n; r++ {
		row := table[r*dim : (r+1)*dim]
		var m float64
		for _, x := range row {
			m = math.Max(m, math.Abs(float64(x)))
		}
		if m == 0 {
			continue
		}
		s := m / 127
		scale[r] = float32(s)
		for j, x := range row {
			v := math.Round(float64(x) / s)
			q[r*dim+j] = int8(math.Max(-127, math.Min(127, v)))
		}
	}
	return q, scale
}

// Encode writes m in the format above.
func Encode(m *Model) ([]byte, error) {
	n := len(m.Vocab) + m.Buckets
	if m.Dim <= 0 || len(m.WDoc) != n || len(m.WQuery) != n || len(m.Scale) != n || len(m.Rows) != n*m.Dim {
		return nil, fmt.Errorf("encode: %w: sizes do not match %d rows of %d", ErrBadWeights, n, m.Dim)
	}
	var b bytes.Buffer
	b.WriteString(magic)
	u32 := func(v uint32) { binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) {
		var tmp [binary.MaxVarintLen64]byte
		b.Write(tmp[:binary.PutUvarint(tmp[:], uint64(len(s)))])
		b.WriteString(s)
	}
	u32(formatVersion)
	str(m.Name)
	u32(uint32(m.Dim))
	u32(uint32(len(m.Vocab)))
	u32(uint32(m.Buckets))
	for _, v := range m.Vocab {
		str(v)
	}
	for _, fs := range [][]float32{m.WDoc, m.WQuery, m.Scale} {
		binary.Write(&b, binary.LittleEndian, fs)
	}
	binary.Write(&b, binary.LittleEndian, m.Rows)
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:])
	return b.Bytes(), nil
}

// Decode parses a weights file and checks its checksum. The int8 rows alias
// data (no copy), so data must not change afterwards; the float tables and
// strings are copied.
func Decode(data []byte) (*Model, error) {
	if len(data) < len(magic)+4+32 || string(data[:len(magic)]) != magic {
		return nil, badWeights("no magic")
	}
	body := data[:len(data)-32]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], data[len(data)-32:]) {
		return nil, badWeights("checksum mismatch")
	}
	h, err := parseHeader(body[len(magic):])
	if err != nil {
		return nil, err
	}
	p := h.rest
	m := &Model{Name: h.name, Dim: h.dim, Buckets: h.buckets, Vocab: make([]string, h.nvocab)}
	for i := range m.Vocab {
		w, k := readWord(p)
		if k == 0 {
			return nil, badWeights("truncated vocabulary")
		}
		m.Vocab[i] = string(w)
		p = p[k:]
	}
	n := h.nvocab + h.buckets
	if len(p) != 3*4*n+n*m.Dim {
		return nil, badWeights(fmt.Sprintf("%d bytes of tables, want %d", len(p), 3*4*n+n*m.Dim))
	}
	floats := func() []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
		}
		p = p[4*n:]
		return out
	}
	m.WDoc, m.WQuery, m.Scale = floats(), floats(), floats()
	m.Rows = unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(p))), len(p))
	for i, f := range m.WDoc {
		if math.IsNaN(float64(f)) || math.IsNaN(float64(m.WQuery[i])) || math.IsNaN(float64(m.Scale[i])) {
			return nil, badWeights(fmt.Sprintf("NaN in row %d", i))
		}
	}
	return m, nil
}

func badWeights(what string) error { return fmt.Errorf("decode: %w: %s", ErrBadWeights, what) }

// header is the fixed part of a weights file after the magic, and the
// bytes after it (the vocabulary, then the tables).
type header struct {
	name                 string
	dim, nvocab, buckets int
	rest                 []byte
}

// parseHeader reads the version, name and counts at the start of p (the
// file without its magic and checksum) and checks them.
func parseHeader(p []byte) (header, error) {
	var h header
	if len(p) < 4 || binary.LittleEndian.Uint32(p) != formatVersion {
		ver := uint32(0)
		if len(p) >= 4 {
			ver = binary.LittleEndian.Uint32(p)
		}
		return h, badWeights(fmt.Sprintf("version %d, want %d", ver, formatVersion))
	}
	name, k := readWord(p[4:])
	if k == 0 {
		return h, badWeights("truncated name")
	}
	p = p[4+k:]
	if len(p) < 12 {
		return h, badWeights("header counts out of range")
	}
	dim, nv, nb := binary.LittleEndian.Uint32(p), binary.LittleEndian.Uint32(p[4:]), binary.LittleEndian.Uint32(p[8:])
	if dim == 0 || dim > 1<<14 || nv > 1<<24 || nb > 1<<24 || nb == 0 {
		return h, badWeights("header counts out of range")
	}
	return header{name: string(name), dim: int(dim), nvocab: int(nv), buckets: int(nb), rest: p[12:]}, nil
}
