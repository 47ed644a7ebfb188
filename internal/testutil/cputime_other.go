//go:build !linux

package testutil

import "time"

// ThreadCPU returns the wall time of f: this system has no per-thread CPU
// clock that getrusage reads.
func ThreadCPU(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
