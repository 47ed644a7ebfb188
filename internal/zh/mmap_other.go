//go:build !unix

package zh

import "os"

// readShared reads the whole file (no memory mapping on this platform).
func readShared(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}
