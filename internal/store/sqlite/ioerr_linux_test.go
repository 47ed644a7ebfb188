package sqlite

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/testutil"
	"modernc.org/sqlite"
)

// fsizeEnv names, in the child process of TestIOErrorIsNotDamage, the
// index it reads under a file size limit.
const fsizeEnv = "CODERAG_TEST_FSIZE_INDEX"

// TestIOErrorIsNotDamage: a healthy index read by a process that cannot
// grow a file past 16 KiB (RLIMIT_FSIZE: SQLite cannot size the 32 KiB
// -shm file, and says "disk I/O error (4874)", SQLITE_IOERR_SHMSIZE, just
// as on a full disk) is unreadable, not damaged: the driver's error is an
// I/O error to store.DiskProblem and no damage to store.Damaged, Check
// reports it in Unreadable with no problem, and Open's error says the same.
// The limit is set in a child process (this test binary again), which
// then runs the checks; the parent finds the file healthy afterwards.
func TestIOErrorIsNotDamage(t *testing.T) {
	ctx := context.Background()
	if path := os.Getenv(fsizeEnv); path != "" {
		ioErrorChild(ctx, t, path)
		return
	}
	path := filled(t, 5)
	cmd := exec.Command(os.Args[0], "-test.run=^TestIOErrorIsNotDamage$", "-test.v")
	cmd.Env = append(os.Environ(), fsizeEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestIOErrorIsNotDamage") {
		t.Fatalf("the child under RLIMIT_FSIZE: %v\n%s", err, out)
	}
	rep, err := Check(ctx, path, false)
	if err != nil || len(rep.Problems) != 0 || rep.Unreadable != "" || len(rep.Projects) != 1 {
		t.Fatalf("Check without the limit = %+v, %v: want healthy, project /p", rep, err)
	}
}

func ioErrorChild(ctx context.Context, t *testing.T, path string) {
	testutil.LimitFileSize(t, 16<<10)
	// the driver's error, as every read of the index returns it
	s, err := Open(ctx, path)
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded: the file size limit did not stop SQLite")
	}
	var e *sqlite.Error
	if !errors.As(err, &e) || e.Code()&0xff != 10 {
		t.Fatalf("Open = %v (%T), want SQLITE_IOERR from the driver", err, err)
	}
	if p := store.DiskProblem(err); p != store.IOError || store.Damaged(err) || !strings.Contains(err.Error(), path) {
		t.Errorf("Open = %v: DiskProblem %q, Damaged %v; want an I/O error naming the file, no damage", err, p, store.Damaged(err))
	}
	rep, err := Check(ctx, path, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rep.Unreadable, store.IOError+" (") || len(rep.Problems) != 0 || rep.Foreign {
		t.Errorf("Check = %+v: want Unreadable naming an I/O error, no problems", rep)
	}
	if _, err := ReadProjects(ctx, path); store.DiskProblem(err) != store.IOError {
		t.Errorf("ReadProjects = %v, want an I/O error", err)
	}
}
