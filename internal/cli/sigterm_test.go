//go:build unix

package cli_test

import (
	"bufio"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/coderag/coderag/internal/testutil"
)

// TestMCPSigtermExitsZero: SIGTERM, how a client stops a stdio MCP server,
// is a clean, requested stop: exit status 0, not 130.
func TestMCPSigtermExitsZero(t *testing.T) {
	t.Parallel() // a subprocess with its own environment; no t.Setenv
	if testing.Short() {
		t.Skip("-short: builds and runs the coderag binary")
	}
	bin := testutil.Binary(t)
	cmd := exec.Command(bin, "mcp", "--root", t.TempDir())
	cmd.Env = serverEnv(t)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	in.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("initialize: %q %v", line, err)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status %d after SIGTERM (%v), want 0", code, err)
	}
}
