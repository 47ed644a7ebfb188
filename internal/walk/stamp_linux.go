//go:build linux

package walk

import (
	"io/fs"
	"strconv"
	"syscall"
)

// sysStamp is the part of a stamp only the system's stat gives: the inode
// and the change time (which no tool sets back, unlike mtime), as git's
// index and untracked cache keep them.
func sysStamp(fi fs.FileInfo) (string, int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", 0
	}
	c := st.Ctim.Nano()
	return strconv.FormatUint(st.Ino, 10) + ":" + strconv.FormatInt(c, 10), c
}
