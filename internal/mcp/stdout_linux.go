package mcp

import (
	"fmt"
	"os"
	"syscall"
)

// ReserveStdout keeps the process's standard output for the protocol alone:
// it returns a new file on the original stdout, then points file descriptor
// 1 and os.Stdout at standard error, so that anything else that writes to
// stdout (a library's fmt.Print, C code in a cgo grammar, a child process
// inheriting fd 1) lands on stderr instead of corrupting the JSON-RPC
// stream. restore undoes it.
func ReserveStdout() (proto *os.File, restore func(), err error) {
	fd, err := syscall.Dup(1)
	if err != nil {
		return nil, nil, fmt.Errorf("reserve stdout: dup: %w", err)
	}
	syscall.CloseOnExec(fd)
	saved := os.Stdout
	if err := syscall.Dup3(2, 1, 0); err != nil {
		syscall.Close(fd)
		return nil, nil, fmt.Errorf("reserve stdout: dup3: %w", err)
	}
	os.Stdout = os.Stderr
	proto = os.NewFile(uintptr(fd), "/dev/stdout (mcp)")
	restore = func() {
		_ = syscall.Dup3(fd, 1, 0)
		os.Stdout = saved
		proto.Close()
	}
	return proto, restore, nil
}
