//go:build linux && !amd64 && !arm64

package walk

import "golang.org/x/sys/unix"

// fstatat is unix.Fstatat(s.fd, name, st, AT_SYMLINK_NOFOLLOW) (on amd64
// and arm64 without a copy of name per call).
func (s *statAt) fstatat(name string, st *unix.Stat_t) error {
	return unix.Fstatat(s.fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
}
