package resident

import (
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// samePeer reports whether the process at the other end of c runs as this
// process's user (SO_PEERCRED). Any failure to tell is a no.
func samePeer(c net.Conn) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	same := false
	raw.Control(func(fd uintptr) {
		cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		same = err == nil && int(cred.Uid) == os.Getuid()
	})
	return same
}
