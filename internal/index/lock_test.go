package index

import (
	"context"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
)

// TestOneRunPerProject: while one run (here: a held lock, as another
// process would hold it) indexes a project, a second run says it waits,
// waits, and then finds the files done; another project is not blocked.
func TestOneRunPerProject(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	emb, err := provider.New(embed.Options{Provider: "local"})
	if err != nil {
		t.Fatal(err)
	}
	root := resolved(t, t.TempDir())
	writeFile(t, root, "a.go", "package a\n\nfunc A() {}\n")
	other := resolved(t, t.TempDir())
	writeFile(t, other, "b.go", "package b\n\nfunc B() {}\n")

	release, err := st.LockProject(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan string, 1)
	done := make(chan error, 1)
	var waitedRep *Report
	go func() {
		rep, err := Run(context.Background(), st, emb, root, Options{OnWait: func(m string) { waiting <- m }})
		waitedRep = rep
		done <- err
	}()
	msg := <-waiting
	if !strings.Contains(msg, "another coderag process is indexing "+root) {
		t.Errorf("wait message: %q", msg)
	}
	select {
	case err := <-done:
		t.Fatalf("second run did not wait: %v", err)
	default:
	}
	if rep, err := Run(context.Background(), st, emb, other, Options{OnWait: func(m string) { t.Errorf("other project waited: %s", m) }}); err != nil || rep.Changed != 1 || rep.Waited != 0 || rep.WaitedMS != 0 {
		t.Errorf("other project: %+v %v", rep, err)
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// the wait is reported as such, apart from the run's own time (a new
	// user read "written in 6s" of a run that had waited 6s)
	if waitedRep.Waited <= 0 || waitedRep.WaitedMS != waitedRep.Waited.Milliseconds() || waitedRep.Elapsed <= 0 {
		t.Errorf("the run that waited: Waited %v, WaitedMS %d, Elapsed %v", waitedRep.Waited, waitedRep.WaitedMS, waitedRep.Elapsed)
	}
	// a cancelled wait returns the context's error
	release, _ = st.LockProject(context.Background(), root, nil)
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	_, err = Run(ctx, st, emb, root, Options{OnWait: func(string) { cancel() }})
	if err != context.Canceled {
		t.Errorf("cancelled wait: %v", err)
	}
}
