//go:build !unix

package tools

import (
	"errors"
	"io"
	"os"
)

// readFile fills buf from the start of file p and returns the bytes read
// (fewer at end of file).
func readFile(p string, buf []byte) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:n], nil
}
