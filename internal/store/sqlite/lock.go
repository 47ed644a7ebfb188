package sqlite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// One index run per project at a time. A run (index.Run) takes an
// exclusive lock on <dir of the database>/locks/<sha256(root)[:16]>.lock
// (flock on Unix) for the whole run, so the CLI, a watcher and the MCP
// server never index the same project twice at once; a second run waits
// for the first (calling its OnWait once) and then finds the files already
// done. The lock is released when the run ends or its process dies.

// LockProject takes project's lock (lockProject) on the database file's
// directory.
func (s *backend) LockProject(ctx context.Context, project string, onWait func(string)) (release func(), err error) {
	return lockProject(ctx, s.path, project, onWait)
}

// lockPoll is how often a waiting run retries the lock.
const lockPoll = 50 * time.Millisecond

// lockPath returns the lock file of project root for the database at db.
func lockPath(db, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(filepath.Dir(db), "locks", hex.EncodeToString(sum[:8])+".lock")
}

// lockProject takes the project's lock, waiting (cancellably) while another
// run holds it; onWait, if set, is called once before waiting. The returned
// func releases it. A database without a file path (in memory) is not locked.
func lockProject(ctx context.Context, db, root string, onWait func(string)) (func(), error) {
	if db == "" || db == ":memory:" {
		return func() {}, nil
	}
	p := lockPath(db, root)
	// private as the index (createPrivate): a lock's name is a hash of
	// the project's path, which other users need not learn
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: %w", root, err)
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", root, err)
	}
	waited := false
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", root, err)
		}
		if ok {
			return func() { unlock(f); f.Close() }, nil
		}
		if !waited && onWait != nil {
			onWait(fmt.Sprintf("another coderag process is indexing %s; waiting for it to finish", root))
		}
		waited = true
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}
