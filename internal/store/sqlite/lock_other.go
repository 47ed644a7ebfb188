//go:build !unix

package sqlite

import "os"

// tryLock is a no-op where flock is not available: runs are not serialised.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) {}
