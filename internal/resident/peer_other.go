//go:build !linux

package resident

import "net"

// samePeer reports whether the process at the other end of c runs as this
// process's user. Without SO_PEERCRED the socket's mode (0600, in the
// index's home directory) is the only guard, so any Unix peer is taken.
func samePeer(c net.Conn) bool {
	_, ok := c.(*net.UnixConn)
	return ok
}
