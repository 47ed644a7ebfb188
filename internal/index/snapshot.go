package index

// The fingerprint snapshot: a copy of a project's fingerprints (the
// indexed_files rows) in one file beside a local index, read in one go,
// as git reads its index file, where the rows cost one SQLite step each
// (on GOROOT/src, 9,052 rows were 28% of a no-change run's CPU).
//
// The index stays the truth. The snapshot is written under the store's
// fingerprint key (store.FilesKey), read before the rows it copies and
// found equal after them, and is used only while the store's key is still
// that one: any committed write of the fingerprints changes the key. A
// snapshot that is missing, damaged, of another format or of another key
// is as none: the rows are read from the store, and a run that wrote none
// of them (a no-change run, a search's check) writes the snapshot anew.
//
// Format (all integers little-endian; uvarint and varint as
// encoding/binary writes them):
//
//	"coderag-fp 1\n"                   magic and format version
//	uvarint len, bytes                 the project root
//	uvarint len, bytes                 the store's fingerprint key
//	uvarint E, then E × (uvarint len, bytes)
//	                                   the embedder ids, by number
//	uvarint N, then N records:
//	    uvarint len, bytes             path (root-relative)
//	    uvarint len, bytes             content SHA-256, hex
//	    uvarint                        embedder number
//	    varint                         size, bytes
//	    varint                         mtime, unix ns
//	    varint                         indexed at, unix ns
//	    uvarint                        chunks
//	    uvarint                        analysis version
//	uint32                             CRC-32C (Castagnoli) of everything before
//
// It is written to a temporary file in the same directory and renamed
// over the old one, so a reader sees a whole file or the previous one.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/walk"
)

// snapshotMagic starts every snapshot file; its number is the format's.
const snapshotMagic = "coderag-fp 1\n"

// fingerprints is what loadFingerprints read: every fingerprint of a
// project, with the strings the caller's to keep, and where they came
// from.
type fingerprints struct {
	recs []store.FileRecord
	// fromSnapshot: read from a current snapshot file, not the store
	fromSnapshot bool
	// key is the store's fingerprint key read before the rows ("" when
	// the store has none, or no snapshot can be kept); saveSnapshot
	// writes recs under it when the key is still the same.
	key  string
	file string // the snapshot file ("" when the store has no place for one)
}

// loadFingerprints reads every fingerprint of project root: from its
// snapshot file when that was written under the store's current
// fingerprint key, else from the store (the strings cloned). ensureKey:
// the store may be written, so a project without a key yet is given one
// (without it, no snapshot can be kept); best effort, a failure only
// loses the snapshot. Errors are the store's.
func loadFingerprints(ctx context.Context, st Store, root string, ensureKey bool) (*fingerprints, error) {
	fp := &fingerprints{file: st.SidePath(root, "fp")}
	if fp.file != "" {
		var key string
		var err error
		if ensureKey && !st.ReadOnly() {
			wctx, cancel := context.WithTimeout(ctx, bestEffortWrite)
			key, err = st.EnsureFilesKey(wctx, root)
			cancel()
			if err != nil {
				key, err = st.FilesKey(ctx, root)
			}
		} else {
			key, err = st.FilesKey(ctx, root)
		}
		if err != nil {
			return nil, err
		}
		fp.key = key
		if key != "" {
			if data, err := os.ReadFile(fp.file); err == nil {
				if recs, ok := decodeSnapshot(data, root, key); ok {
					fp.recs, fp.fromSnapshot = recs, true
					return fp, nil
				}
			}
		}
	}
	embedder := ""
	err := st.EachFile(ctx, root, func(r store.FileRecord) error {
		r.Path, r.SHA256 = strings.Clone(r.Path), strings.Clone(r.SHA256)
		if r.Embedder != embedder {
			embedder = strings.Clone(r.Embedder)
		}
		r.Embedder = embedder
		fp.recs = append(fp.recs, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return fp, nil
}

// byPath returns the index in fp.recs of each fingerprint, by path (a
// map of the records themselves, 88 bytes each, cost 4% of a no-change
// run's CPU to make).
func (fp *fingerprints) byPath() map[string]int32 {
	m := make(map[string]int32, len(fp.recs))
	for i, r := range fp.recs {
		m[r.Path] = int32(i)
	}
	return m
}

// saveSnapshot writes fp's records to its snapshot file when they were
// read from the store (a current snapshot needs no writing) under a key
// that is still the store's: no write of the fingerprints committed since
// (the caller's own included). Best effort: the snapshot is a cache, and
// a failure only leaves the next run reading the store.
func (fp *fingerprints) saveSnapshot(ctx context.Context, st Store, root string) {
	if fp.fromSnapshot || fp.key == "" || fp.file == "" {
		return
	}
	if now, err := st.FilesKey(ctx, root); err != nil || now != fp.key {
		return
	}
	_ = writeSnapshot(fp.file, encodeSnapshot(root, fp.key, fp.recs))
}

// writeSnapshot writes data to file through a temporary file renamed
// over it.
func writeSnapshot(file string, data []byte) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, filepath.Base(file)+".tmp*")
	if err != nil {
		return err
	}
	werr := f.Chmod(0o600) // as the index and its lock files: the listing names every file of the project
	if werr == nil {
		_, werr = f.Write(data)
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), file)
	}
	if werr != nil {
		os.Remove(f.Name())
	}
	return werr
}

// encodeSnapshot returns the snapshot file of recs (see the format above).
func encodeSnapshot(root, key string, recs []store.FileRecord) []byte {
	var b bytes.Buffer
	b.Grow(64 + len(recs)*128)
	var tmp [binary.MaxVarintLen64]byte
	uv := func(x uint64) { b.Write(tmp[:binary.PutUvarint(tmp[:], x)]) }
	sv := func(x int64) { b.Write(tmp[:binary.PutVarint(tmp[:], x)]) }
	str := func(s string) { uv(uint64(len(s))); b.WriteString(s) }
	b.WriteString(snapshotMagic)
	str(root)
	str(key)
	embNum := map[string]uint64{}
	var embs []string
	for _, r := range recs {
		if _, ok := embNum[r.Embedder]; !ok {
			embNum[r.Embedder] = uint64(len(embs))
			embs = append(embs, r.Embedder)
		}
	}
	uv(uint64(len(embs)))
	for _, e := range embs {
		str(e)
	}
	uv(uint64(len(recs)))
	for _, r := range recs {
		str(r.Path)
		str(r.SHA256)
		uv(embNum[r.Embedder])
		sv(r.Size)
		sv(r.MtimeNS)
		sv(r.IndexedAt)
		uv(uint64(max(r.Chunks, 0)))
		uv(uint64(max(r.Analysis, 0)))
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc32.Checksum(b.Bytes(), castagnoli))
	b.Write(sum[:])
	return b.Bytes()
}

// castagnoli is the CRC-32C table: amd64 and arm64 compute it with one
// instruction per 8 bytes.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// framed returns the body of a side file that starts with magic and ends
// with the CRC-32C of what precedes it; ok is false for any other file.
func framed(data []byte, magic string) (body []byte, ok bool) {
	if len(data) < len(magic)+4 || string(data[:len(magic)]) != magic {
		return nil, false
	}
	body = data[:len(data)-4]
	return body, crc32.Checksum(body, castagnoli) == binary.LittleEndian.Uint32(data[len(data)-4:])
}

// errSnapshot is any defect of a snapshot file (it is then not used).
var errSnapshot = errors.New("bad fingerprint snapshot")

// decodeSnapshot reads a snapshot file written by encodeSnapshot for
// root under key; ok is false when it is damaged, of another format, of
// another root or of another key. The records' strings point into data,
// which the caller must not change after.
func decodeSnapshot(data []byte, root, key string) (recs []store.FileRecord, ok bool) {
	body, ok := framed(data, snapshotMagic)
	if !ok {
		return nil, false
	}
	// the records' strings share data, which no one writes after (a
	// copy of it was 3% of a no-change run)
	d := newSnapReader(body, len(snapshotMagic))
	if d.str() != root || d.str() != key {
		return nil, false
	}
	embs := make([]string, d.count())
	for i := range embs {
		embs[i] = d.str()
	}
	n := d.count()
	if d.err != nil {
		return nil, false
	}
	recs = make([]store.FileRecord, n)
	for i := range recs {
		r := &recs[i]
		r.Path, r.SHA256 = d.str(), d.str()
		if e := d.uvarint(); e < uint64(len(embs)) {
			r.Embedder = embs[e]
		} else {
			d.err = errSnapshot
		}
		r.Size, r.MtimeNS, r.IndexedAt = d.varint(), d.varint(), d.varint()
		r.Chunks, r.Analysis = int(d.uvarint()), int(d.uvarint())
		if d.err != nil {
			return nil, false
		}
	}
	if d.at != len(d.s) {
		return nil, false
	}
	return recs, true
}

// snapReader reads the fields of a snapshot: b is the file's body and s
// the same bytes as a string, which the strings read share. The first
// defect sets err and every later read returns zero values.
type snapReader struct {
	b   []byte
	s   string
	at  int
	err error
}

// newSnapReader reads body from byte at.
func newSnapReader(body []byte, at int) *snapReader {
	return &snapReader{b: body, s: unsafe.String(&body[0], len(body)), at: at}
}

func (d *snapReader) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.b[d.at:])
	if n <= 0 {
		d.err = errSnapshot
		return 0
	}
	d.at += n
	return x
}

func (d *snapReader) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// count reads a uvarint that counts items of at least one byte each, so
// that a damaged count cannot ask for more than the file holds.
func (d *snapReader) count() int {
	n := d.uvarint()
	if n > uint64(len(d.s)-d.at) {
		d.err = errSnapshot
		return 0
	}
	return int(n)
}

func (d *snapReader) str() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	s := d.s[d.at : d.at+n]
	d.at += n
	return s
}

// The tree listing file: the project's tree listing (walk.Listing, see
// listTree) beside a local index, read in one go where its rows in the
// store (tree_dirs) cost one SQLite step each (6% of a no-change run on
// GOROOT/src). A listing caches the tree, not the index (walk.List checks
// every stamp it holds), so the file needs no key: one that is missing or
// damaged is as none. Format, in the snapshot's terms:
//
//	"coderag-tree 1\n"                 magic and format version
//	uvarint len, bytes                 the project root
//	uvarint len, bytes                 the listing's header (walk's key)
//	uvarint D, then D × (uvarint len, bytes: directory; uvarint len,
//	bytes: its data)                   the listing's rows (walk's encoding)
//	uint32                             CRC-32C of everything before
const listingMagic = "coderag-tree 1\n"

// encodeListingFile returns the listing file of root's listing (header
// and rows, as walk.Listing.Encode gives them).
func encodeListingFile(root, header string, rows []walk.DirData) []byte {
	n := 64 + len(root) + len(header)
	for _, r := range rows {
		n += len(r.Dir) + len(r.Data) + 8
	}
	b := make([]byte, 0, n)
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	b = append(b, listingMagic...)
	str(root)
	str(header)
	b = binary.AppendUvarint(b, uint64(len(rows)))
	for _, r := range rows {
		str(r.Dir)
		str(r.Data)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decodeListingFile reads a listing file of root written by
// encodeListingFile: the header and rows walk.DecodeListing takes; ok is
// false when it is damaged, of another format or of another root. The
// strings point into data, which the caller must not change after.
func decodeListingFile(data []byte, root string) (header string, rows []walk.DirData, ok bool) {
	body, ok := framed(data, listingMagic)
	if !ok {
		return "", nil, false
	}
	d := newSnapReader(body, len(listingMagic))
	if d.str() != root {
		return "", nil, false
	}
	header = d.str()
	rows = make([]walk.DirData, d.count())
	for i := range rows {
		rows[i] = walk.DirData{Dir: d.str(), Data: d.str()}
	}
	if d.err != nil || d.at != len(d.s) {
		return "", nil, false
	}
	return header, rows, true
}
