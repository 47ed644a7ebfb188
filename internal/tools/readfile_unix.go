//go:build unix

package tools

import (
	"errors"
	"fmt"
	"os"
	"path"

	"golang.org/x/sys/unix"

	"github.com/coderag/coderag/internal/walk"
)

// fileReader reads the files of one native-search worker. It keeps the
// directory of the last file open (opened through the query's os.Root, so
// it is inside the root whatever was swapped since the walk) and opens each
// file relative to that descriptor with O_NOFOLLOW|O_NONBLOCK, then checks
// the descriptor with fstat: a file swapped for a symlink is refused
// (ELOOP), a FIFO neither blocks nor is read. Plain syscalls, one openat
// per file: os.Root would walk every path component again, and os.File
// would try to register each descriptor with the network poller.
type fileReader struct {
	root *os.Root
	dir  string   // root-relative '/' directory of dirF
	dirF *os.File // nil until the first file
}

func newFileReader(r *os.Root) *fileReader { return &fileReader{root: r} }

// read fills buf (grown as needed) with root-relative file rel, at most
// max bytes (errTooLarge beyond).
func (fr *fileReader) read(rel string, buf []byte, max int64) ([]byte, error) {
	dir, base := path.Split(rel)
	dir = path.Clean("./" + dir)
	if fr.dirF == nil || dir != fr.dir {
		fr.close()
		f, err := fr.root.Open(dir)
		if err != nil {
			return nil, err
		}
		fr.dir, fr.dirF = dir, f
	}
	var fd int
	var err error
	for {
		fd, err = unix.Openat(int(fr.dirF.Fd()), base, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("%w (a symlink)", walk.ErrNotRegular)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: rel, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "fstat", Path: rel, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, walk.ErrNotRegular
	}
	size := st.Size
	if size > max {
		return nil, errTooLarge
	}
	if int64(cap(buf)) < size {
		buf = make([]byte, size+size/4)
	}
	buf = buf[:size]
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: rel, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
	}
	return buf[:n], nil
}

// close closes the cached directory.
func (fr *fileReader) close() {
	if fr.dirF != nil {
		fr.dirF.Close()
		fr.dirF = nil
	}
}
