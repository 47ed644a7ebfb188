package walk

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular: the path names a FIFO, socket, device or directory (or,
// for ignore files, a symlink): coderag reads regular files only, so a FIFO
// in a hostile tree cannot hang a read and /dev/zero behind a symlink
// cannot exhaust memory.
var ErrNotRegular = errors.New("not a regular file")

// MaxIgnoreFileBytes caps how much of one .gitignore or .coderagignore is
// read (1 MiB); the rest is ignored and the cut is reported as a Skip with
// ReasonIgnoreFileCut.
const MaxIgnoreFileBytes = 1 << 20

// OpenRegular opens the root-relative path rel ('/' or OS separators) under
// r for reading and returns the file with the information of the open
// descriptor (fstat), or ErrNotRegular (the file is closed) when that
// descriptor is not a regular file. The open goes through os.Root, so `..`
// and symlinks that leave the root are refused at open time, with no window
// between a check and the open; symlinks that stay inside are followed. It
// opens with O_NONBLOCK, so a FIFO never blocks the open.
func OpenRegular(r *os.Root, rel string) (*os.File, fs.FileInfo, error) {
	f, err := r.OpenFile(rel, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%w (%s)", ErrNotRegular, Kind(info.Mode()))
	}
	return f, info, nil
}

// ReadRegular reads at most max bytes (max < 0: no cap) of the regular file
// rel under r (see OpenRegular) and reports whether the file held more.
func ReadRegular(r *os.Root, rel string, max int64) (data []byte, cut bool, err error) {
	f, info, err := OpenRegular(r, rel)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	return readCapped(f, info.Size(), max)
}

// readCapped reads f (whose size at open was size) up to max bytes.
func readCapped(f *os.File, size, max int64) ([]byte, bool, error) {
	want := size
	if max >= 0 && want > max {
		want = max
	}
	buf := make([]byte, 0, want+1)
	lim := io.Reader(f)
	if max >= 0 {
		lim = io.LimitReader(f, max+1)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lim.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, false, err
		}
	}
	if max >= 0 && int64(len(buf)) > max {
		return buf[:max], true, nil
	}
	return buf, false, nil
}

// readIgnoreFile reads the ignore file at absolute path p: only a regular
// file, never through a symlink (O_NOFOLLOW, then fstat of the descriptor),
// opened without blocking, at most MaxIgnoreFileBytes. A missing file is
// fs.ErrNotExist.
func readIgnoreFile(p string) (data []byte, cut bool, err error) {
	f, err := openNoFollow(p)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !info.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%w (%s)", ErrNotRegular, Kind(info.Mode()))
	}
	return readCapped(f, info.Size(), MaxIgnoreFileBytes)
}

// ReadDenied reports whether opening file p for reading fails with a
// permission error: the file is there, this user may not read it. It is
// opened without blocking (a FIFO swapped in does not hang) and closed.
func ReadDenied(p string) bool {
	f, err := os.OpenFile(p, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return errors.Is(err, fs.ErrPermission)
	}
	f.Close()
	return false
}

// Kind names a non-regular file mode for messages: "a FIFO", "a
// directory", ... ("not a regular file" for another mode).
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}
