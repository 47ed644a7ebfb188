//go:build unix

package index

import (
	"syscall"
	"testing"
	"time"
)

// reportCPU starts counting the process's CPU time (user and system);
// the function it returns reports it per op as "cpu-ms/op", a figure the
// other jobs of a shared machine disturb less than wall time.
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		b.ReportMetric(float64(cpu()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}
