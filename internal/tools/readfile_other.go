//go:build !unix

package tools

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/coderag/coderag/internal/walk"
)

// fileReader reads the files of one native-search worker through the
// query's os.Root (walk.OpenRegular).
type fileReader struct{ root *os.Root }

func newFileReader(r *os.Root) *fileReader { return &fileReader{root: r} }

// read fills buf (grown as needed) with root-relative file rel, at most
// max bytes (errTooLarge beyond).
func (fr *fileReader) read(rel string, buf []byte, max int64) ([]byte, error) {
	f, info, err := walk.OpenRegular(fr.root, filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := info.Size()
	if size > max {
		return nil, errTooLarge
	}
	if int64(cap(buf)) < size {
		buf = make([]byte, size+size/4)
	}
	n, err := io.ReadFull(f, buf[:size])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:n], nil
}

func (fr *fileReader) close() {}
