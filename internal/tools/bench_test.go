//go:build unix

package tools

import (
	"context"
	"io"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU (user+system) used so far by this process and its
// waited-for children: a measure of work that other load on the machine
// does not inflate the way it inflates wall time.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	d := func(tv syscall.Timeval) time.Duration { return time.Duration(tv.Nano()) }
	return d(self.Utime) + d(self.Stime) + d(kids.Utime) + d(kids.Stime)
}

// reportCPU adds a cpu-ns/op metric for the b.N iterations since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// benchPatterns are the five benchmark searches over the Go standard
// library, with the equivalent arguments of a bare ripgrep run.
var benchPatterns = []struct {
	name string
	p    GrepParams
	rg   []string
}{
	{"literal", GrepParams{Pattern: "ErrServerClosed", FixedStrings: true}, []string{"-F", "ErrServerClosed"}},
	{"word", GrepParams{Pattern: `\bReadAll\b`}, []string{`\bReadAll\b`}},
	{"regex", GrepParams{Pattern: `func \(\w+ \*Server\) \w+\(`}, []string{`func \(\w+ \*Server\) \w+\(`}},
	{"ignorecase", GrepParams{Pattern: "errserverclosed", IgnoreCase: true}, []string{"-i", "errserverclosed"}},
	{"nomatch", GrepParams{Pattern: "zqxjkvbnotfound"}, []string{"zqxjkvbnotfound"}},
}

// BenchmarkGrepStdlib times, per pattern: bare `rg -n --json` (output
// drained through a pipe), the same with vendor/ excluded (the file set the
// tools search), Grep on ripgrep, and Grep on the native engine.
// Each also reports cpu-ns/op (this process and its rg children), which
// a loaded machine distorts less than wall time. bench/grep_bench.sh turns
// the figures into ratios.
func BenchmarkGrepStdlib(b *testing.B) {
	root := stdlibRoot(b)
	bin, err := exec.LookPath("rg")
	ctx := context.Background()
	for _, bp := range benchPatterns {
		b.Run(bp.name, func(b *testing.B) {
			bare := func(extra ...string) func(b *testing.B) {
				return func(b *testing.B) {
					if err != nil {
						b.Skip("ripgrep not installed")
					}
					args := append(append([]string{"-n", "--json"}, extra...), bp.rg...)
					args = append(args, ".")
					start := cpuTime()
					defer reportCPU(b, start)
					for i := 0; i < b.N; i++ {
						cmd := exec.Command(bin, args...)
						cmd.Dir, cmd.Stdout = root, io.Discard
						if err := cmd.Run(); err != nil {
							if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
								b.Fatal(err)
							}
						}
					}
				}
			}
			b.Run("rg-bare", bare())
			b.Run("rg-novendor", bare("-g", "!vendor/"))
			for _, e := range []string{EngineRipgrep, EngineNative} {
				b.Run(e, func(b *testing.B) {
					if e == EngineRipgrep && err != nil {
						b.Skip("ripgrep not installed")
					}
					p := bp.p
					p.Engine = e
					start := cpuTime()
					defer reportCPU(b, start)
					for i := 0; i < b.N; i++ {
						if _, err := Grep(ctx, root, p); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
