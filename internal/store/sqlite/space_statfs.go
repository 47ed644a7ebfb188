//go:build linux || darwin

package sqlite

import (
	"os"

	"golang.org/x/sys/unix"
)

// noSpace reports whether the file system holding dir has less than 1 MiB
// left for this process (the blocks kept for root count for root): too
// little for SQLite to grow a shared-memory file or a log. It reports
// false when dir's file system cannot be asked.
func noSpace(dir string) bool {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return false
	}
	free := st.Bavail
	if os.Geteuid() == 0 {
		free = st.Bfree
	}
	return free*uint64(st.Bsize) < 1<<20
}
