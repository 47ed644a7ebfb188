//go:build !unix

package index

import "testing"

// reportCPU reports nothing where getrusage is not there.
func reportCPU(*testing.B) func() { return func() {} }
