//go:build !linux

package static

import "time"

// threadCPU returns the wall time of f (no per-thread CPU clock here).
func threadCPU(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
