//go:build unix

package sqlite

import "golang.org/x/sys/unix"

// canWrite reports whether p may be written by this process: access(2)
// with W_OK, which answers EROFS on a read-only file system and EPERM for
// an immutable file or directory, for root too.
func canWrite(p string) bool { return unix.Access(p, unix.W_OK) == nil }
