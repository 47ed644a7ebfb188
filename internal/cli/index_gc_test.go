package cli

import (
	"runtime/debug"
	"testing"
)

// TestScanGC: scanGC sets the collector's target for the scan and its
// function sets back the one before, once: a second call (runIndex calls
// it at the first changed file and again at the end) leaves a target set
// since as it is.
func TestScanGC(t *testing.T) {
	before := debug.SetGCPercent(150)
	defer debug.SetGCPercent(before)
	restore := scanGC()
	if got := debug.SetGCPercent(scanGCPercent); got != scanGCPercent {
		t.Fatalf("during the scan GOGC = %d, want %d", got, scanGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(120); got != 150 {
		t.Fatalf("after restore GOGC = %d, want the 150 before", got)
	}
	restore()
	if got := debug.SetGCPercent(150); got != 120 {
		t.Fatalf("a second restore changed GOGC to %d; want 120 left as it was", got)
	}
}
