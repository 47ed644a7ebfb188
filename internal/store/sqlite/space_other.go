//go:build !(linux || darwin)

package sqlite

// noSpace reports false: without statfs(2) a full disk is not told from
// another I/O error (store.DiskProblem still names both).
func noSpace(string) bool { return false }
