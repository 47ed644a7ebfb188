package cli

import (
	"errors"
	"fmt"

	"github.com/coderag/coderag/internal/english"
	"github.com/coderag/coderag/internal/store"
)

func init() {
	register(command{name: "remove", summary: "drop an indexed project from the index (files on disk are untouched)", run: runRemove})
}

// noRemovePath is remove's usage error for a PATH missing or empty: it
// has no default, as removing the current directory's project by
// accident would lose its index.
const noRemovePath = "PATH is empty or missing (an unset shell variable?): give the root of the indexed project to drop ('coderag stats' lists them)"

// runRemove deletes one project's rows through the engine (engine.Remove:
// no index run of the project, here or in another process, writes
// meanwhile). PATH must be the project's root, so running it inside a
// project never removes the enclosing one by accident.
func runRemove(e *env, args []string) (err error) {
	fs := newFlags(e, "remove", "[flags] PATH",
		`Drop the project indexed at PATH from $CODERAG_HOME/index.db: its chunks, vectors,
relations and fingerprints, in one transaction. Files on disk are not touched, and other
projects in the index are kept. PATH must be the root that was indexed ('coderag stats'
lists them); a directory inside a project is refused with the project's root. The space
the project took is given back to the file system (incremental vacuum and a WAL
checkpoint), so the index file shrinks.`)
	asJSON := fs.Bool("json", false, `print what was removed as JSON; an error as {"error": MSG}`)
	defer func() { err = e.jsonError(*asJSON, err) }()
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0 || len(pos) == 1 && pos[0] == "":
		// `coderag remove $DIR` of an unset variable gives no PATH
		// unquoted and "" quoted: one message for both
		return usagef("%s", noRemovePath)
	case len(pos) > 1:
		return usagef("want one PATH (the indexed root), got %d arguments", len(pos))
	}
	if exists, err := store.Exists(e.cfg.DBPath()); err != nil {
		return err
	} else if !exists {
		return fmt.Errorf("%s is not indexed (no index at %s)", pos[0], store.Redact(e.cfg.DBPath()))
	} else if emptyIndexFile(e.cfg.DBPath()) {
		return fmt.Errorf("%s is not indexed (the index file %s is empty: 0 bytes, no project in it)", pos[0], store.Redact(e.cfg.DBPath()))
	}
	eng, release, err := openEngine(e)
	if err != nil {
		return err
	}
	defer release()
	// a recorded root is removed by its name, before any symlink in it is
	// followed (engine.RemoveTarget)
	root, ok := eng.RemoveTarget(e.ctx, pos[0])
	if !ok {
		return fmt.Errorf("remove %s: not a path", pos[0])
	}
	// the engine holds the root (and its cross-process lock, waited for
	// when another process is indexing it) from the check to the delete
	rm, err := eng.Remove(e.ctx, root, func(msg string) { fmt.Fprintln(e.stderr, msg) })
	if errors.Is(err, store.ErrNotIndexed) {
		if p, ferr := eng.Find(e.ctx, root, true); ferr == nil {
			// the enclosing project is not what was asked for: say what
			// removing it would drop, not that it is the fix
			return fmt.Errorf("%s is not an indexed project: it is a directory of the indexed project %s, and nothing was removed (`coderag remove %s` would drop the whole of that project)", root, p.Path, p.Path)
		}
		return fmt.Errorf("%s is not an indexed project ('coderag stats' lists them)", root)
	}
	if err != nil {
		return err
	}
	files, before, after, cerr := rm.Files, rm.BytesBefore, rm.BytesAfter, rm.CompactErr
	if *asJSON {
		out := map[string]any{"removed": root, "files": files, "db_bytes_before": before, "db_bytes_after": after}
		if cerr != nil {
			out["compact_error"] = e.errText(cerr)
		}
		return writeJSON(e.stdout, out)
	}
	fmt.Fprintf(e.stdout, "removed %s from the index (%s); index file %.1f MiB -> %.1f MiB\n", root, english.Counted(files, "file"),
		float64(before)/(1<<20), float64(after)/(1<<20))
	if cerr != nil {
		fmt.Fprintf(e.stderr, "note: the space was not all given back (%s); `coderag remove` of another project, or VACUUM with free disk space, retries it\n", e.errText(cerr))
	}
	return nil
}
