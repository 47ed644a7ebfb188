//go:build !linux

package walk

import "time"

// statAt lstat's files (os.Lstat; on Linux relative to their directory).
type statAt struct{}

func newStatAt() *statAt { return &statAt{} }

// lstat returns abs's size and modification time and whether it is a
// regular file.
func (s *statAt) lstat(abs string) (int64, time.Time, bool, error) { return osLstat(abs) }

// lstatRun is lstat (run, the files of abs's directory listed with it,
// matters only on Linux).
func (s *statAt) lstatRun(abs string, _ int) (int64, time.Time, bool, error) { return osLstat(abs) }

func (s *statAt) close() {}
