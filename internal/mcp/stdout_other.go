//go:build !linux

package mcp

import "os"

// ReserveStdout keeps standard output for the protocol alone: it returns
// the original os.Stdout and points os.Stdout at standard error, so Go code
// that prints to os.Stdout lands on stderr. (On Linux file descriptor 1 is
// redirected too.) restore undoes it.
func ReserveStdout() (proto *os.File, restore func(), err error) {
	saved := os.Stdout
	os.Stdout = os.Stderr
	return saved, func() { os.Stdout = saved }, nil
}
