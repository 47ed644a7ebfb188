//go:build linux

package testutil

import (
	"runtime"
	"syscall"
	"time"
)

// ThreadCPU runs f locked to one OS thread and returns the CPU time (user +
// system) that thread spent (getrusage RUSAGE_THREAD): a per-core figure
// that a busy shared machine does not distort the way wall time does.
// Benchmarks of throughput per core use it.
func ThreadCPU(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const rusageThread = 1 // RUSAGE_THREAD
	var a, b syscall.Rusage
	syscall.Getrusage(rusageThread, &a)
	f()
	syscall.Getrusage(rusageThread, &b)
	d := func(r syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return d(b) - d(a)
}
