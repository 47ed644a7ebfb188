package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/testutil"
)

// The index and project of TestDoctorLeavesIndexOnIOError's child process.
const (
	fsizeHomeEnv = "CODERAG_TEST_FSIZE_HOME"
	fsizeRootEnv = "CODERAG_TEST_FSIZE_ROOT"
)

// TestDoctorLeavesIndexOnIOError: on a healthy index that SQLite cannot
// read because a file cannot grow (RLIMIT_FSIZE of 16 KiB: the 32 KiB -shm
// file fails with "disk I/O error (4874)", as on a full disk), doctor and
// doctor --rebuild say in one line that the index cannot be read for an
// I/O error and that nothing was moved, exit 1, and move nothing; stats
// and search name the I/O error in one line. Before, doctor called the
// file damaged and --rebuild moved it aside and left an empty index. The
// limit is set in a child process (this test binary again) that runs the
// commands; the parent then finds the same file in place and healthy.
func TestDoctorLeavesIndexOnIOError(t *testing.T) {
	if home := os.Getenv(fsizeHomeEnv); home != "" {
		doctorIOErrorChild(t, home, os.Getenv(fsizeRootEnv))
		return
	}
	home := setHome(t)
	root := bigFixture(t, 3)
	if code, out, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	path := filepath.Join(home, "index.db")
	before := fileSum(t, path)
	cmd := exec.Command(os.Args[0], "-test.run=^TestDoctorLeavesIndexOnIOError$", "-test.v")
	cmd.Env = append(os.Environ(), fsizeHomeEnv+"="+home, fsizeRootEnv+"="+root)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestDoctorLeavesIndexOnIOError") {
		t.Fatalf("the child under RLIMIT_FSIZE: %v\n%s", err, out)
	}
	if m, _ := filepath.Glob(path + ".damaged-*"); len(m) != 0 {
		t.Fatalf("doctor moved the index aside: %v", m)
	}
	if fileSum(t, path) != before {
		t.Fatal("index.db changed")
	}
	if code, out, errs := run(t, "doctor"); code != 0 || !strings.Contains(out, "ok (schema") || !strings.Contains(out, "1 project)") {
		t.Errorf("doctor without the limit: %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if code, out, errs := run(t, "search", "--project", root, "Handler1"); code != 0 || !strings.Contains(out, "h001.go") {
		t.Errorf("search without the limit: %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

func doctorIOErrorChild(t *testing.T, home, root string) {
	setenv(t, "CODERAG_HOME", home)
	setenv(t, "EMBEDDING_PROVIDER", "")
	testutil.LimitFileSize(t, 16<<10)
	for _, args := range [][]string{{"doctor"}, {"doctor", "--rebuild"}} {
		code, out, errs := run(t, args...)
		line := strings.TrimSpace(errs)
		if code != 1 || strings.Contains(line, "\n") || !strings.Contains(line, "cannot read "+filepath.Join(home, "index.db")+": an I/O error (") ||
			!strings.Contains(line, "nothing was moved") || strings.Contains(line, "is damaged") || strings.Contains(out+errs, "moved the damaged") {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errs)
		}
	}
	code, out, _ := run(t, "doctor", "--json")
	var rep doctorOut
	if err := json.Unmarshal([]byte(out), &rep); code != 1 || err != nil || rep.Healthy || !strings.HasPrefix(rep.Unreadable, store.IOError) ||
		len(rep.Problems) != 0 || rep.MovedTo != "" {
		t.Errorf("doctor --json: exit %d, %v\n%s", code, err, out)
	}
	for _, args := range [][]string{{"stats"}, {"search", "--project", root, "Handler1"}} {
		code, out, errs := run(t, args...)
		line := strings.TrimSpace(errs)
		if code != 1 || strings.Contains(line, "\n") || !strings.Contains(line, "disk I/O error") ||
			!strings.Contains(line, "an I/O error of the disk or file system, not damage to the index") || strings.Contains(line, "doctor") {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errs)
		}
	}
}
