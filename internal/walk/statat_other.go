//go:build !linux

package walk

import "time"

// statAt lstat's files (os.Lstat; on Linux relative to their directory).
type statAt struct{}

func newStatAt() *statAt { return &statAt{} }

// lstat returns abs's size and modification time and whether it is a
// regular file.
func (s *statAt) lstat(abs string) (int64, time.Time, bool, error) { return osLstat(abs) }

func (s *statAt) close() {}
