package index

import "context"

// One run per project at a time. Run holds the store's lock of the
// project (store.Store.LockProject) for the whole run, so the CLI, a
// watcher and the MCP server never index the same project twice at once;
// a second run waits for the first (calling Options.OnWait once) and then
// finds the files already done. The lock is released when the run ends or
// its process dies.

// Lock takes the exclusive right to change project root in st, the lock
// every Run holds: st.LockProject, a file lock beside a SQLite database, a
// session advisory lock on PostgreSQL (runs on other machines share the
// database, not a lock file). While another process holds it, onWait (if
// set) is called once with a message naming root and Lock waits, polling,
// until it is free or ctx ends (ctx's error). The returned func releases
// it.
func Lock(ctx context.Context, st Store, root string, onWait func(string)) (release func(), err error) {
	return st.LockProject(ctx, root, onWait)
}
