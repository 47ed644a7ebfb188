//go:build !unix

package walk

import (
	"fmt"
	"os"
)

// oNonblock: no non-blocking open outside Unix; FIFOs are a Unix hazard.
const oNonblock = 0

// openNoFollow opens p read-only after checking with Lstat that it is not a
// symlink (no O_NOFOLLOW here); the caller checks the descriptor with fstat.
func openNoFollow(p string) (*os.File, error) {
	st, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%w (a symlink)", ErrNotRegular)
	}
	return os.Open(p)
}
