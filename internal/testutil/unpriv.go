// Package testutil holds helpers shared by tests of several packages.
package testutil

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// NobodyUID and NobodyGID are the ids an unprivileged re-run uses (the
// "nobody" user and group of Debian and most Linux systems).
const (
	NobodyUID = "65534"
	NobodyGID = "65534"
)

// RerunUnprivileged makes a test about unreadable files meaningful under
// root, which reads mode-000 files. Called first in such a test: as a normal
// user it returns false and the test goes on; as root it runs this test
// again in a copy of the test binary as user nobody (util-linux setpriv),
// fails t if that run fails, and returns true: the caller then returns.
// Without setpriv the test is skipped.
func RerunUnprivileged(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("running as root without setpriv: unreadable files cannot be tested")
	}
	dir, err := os.MkdirTemp("", "coderag-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "test.bin")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid="+NobodyUID, "--regid="+NobodyGID, "--clear-groups",
		bin, "-test.run", "^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("unprivileged run as uid %s failed: %v\n%s", NobodyUID, err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("unprivileged run as uid %s did not pass:\n%s", NobodyUID, out)
	}
	t.Logf("ran as uid %s: passed", NobodyUID)
	return true
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
