//go:build unix

package walk

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// oNonblock makes opening a FIFO return at once instead of waiting for a
// writer.
const oNonblock = syscall.O_NONBLOCK

// openNoFollow opens p read-only without blocking and fails (ELOOP, turned
// into ErrNotRegular) when p itself is a symlink.
func openNoFollow(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%w (a symlink)", ErrNotRegular)
	}
	return f, err
}
