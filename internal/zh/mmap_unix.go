//go:build unix

package zh

import (
	"os"
	"syscall"
	"unsafe"
)

// readShared maps the file read-only into memory and returns it as a
// string: a binary search touches a few pages, so opening a large cache
// costs microseconds. The mapping lives as long as the process.
func readShared(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if st.Size() == 0 {
		return "", nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return "", err
	}
	return unsafe.String(&b[0], len(b)), nil
}
