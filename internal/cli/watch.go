package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/walk"
)

// watchDebounce is how long the watcher waits after the last event before
// re-indexing (saves by editors come as bursts of events).
const watchDebounce = 300 * time.Millisecond

// watchRescan is how often the directories that could not be watched are
// rescanned (a stat of their files; only changed files are read) and the
// files whose last run failed are tried again.
const watchRescan = 10 * time.Second

// inotifyLimitFile holds the per-user limit on inotify watches (Linux).
const inotifyLimitFile = "/proc/sys/fs/inotify/max_user_watches"

// dirWatcher adds a directory to the watched set: fsnotify.Watcher.Add.
type dirWatcher interface {
	Add(dir string) error
}

// watchConfig tunes watchTree: rescan is the period of the rescan of
// unwatched directories (0: watchRescan); wrap, if set, wraps the
// watcher's Add (tests make it fail).
type watchConfig struct {
	rescan time.Duration
	wrap   func(dirWatcher) dirWatcher
}

// watchLoop re-indexes files as they are saved until the context ends.
// Each batch of saved files is one run of the root's index job (req with
// Paths set).
func watchLoop(e *env, eng *engine.Engine, root string, req engine.IndexRequest) error {
	return watchTree(e, eng, root, req, watchConfig{})
}

// watchSet adds the directories of a tree that walk.Rules enters to a
// watcher and keeps those whose Add failed, with the first error. Rules
// are built afresh for each tree added, so an edited ignore file or a
// build/ directory that became a package counts.
type watchSet struct {
	root      string
	w         dirWatcher
	watched   int
	unwatched map[string]error // root-relative directory -> Add error
	reported  int              // len(unwatched) when last reported
}

// addTree adds dir (absolute) and the directories below it that the walk
// enters. A directory whose Add fails is kept in unwatched (its
// subdirectories are still tried); a directory that was unwatched and is
// added now leaves it.
func (s *watchSet) addTree(dir string) {
	rules := walk.NewRules(s.root, walk.Options{})
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(s.root, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && !rules.Candidate(rel, d).OK {
			return filepath.SkipDir
		}
		if err := s.w.Add(p); err != nil {
			if _, ok := s.unwatched[rel]; !ok && !errors.Is(err, fs.ErrNotExist) {
				s.unwatched[rel] = err
			}
			return nil
		}
		if _, ok := s.unwatched[rel]; ok {
			delete(s.unwatched, rel)
			s.reported = min(s.reported, len(s.unwatched))
		}
		s.watched++
		return nil
	})
}

// report writes, when more directories are unwatched than at the last
// report, how many and why: for the inotify limit (ENOSPC), the limit's
// file and value and how to raise it.
func (s *watchSet) report(e *env, rescan time.Duration) {
	n := len(s.unwatched)
	if n <= s.reported {
		return
	}
	s.reported = n
	dirs := make([]string, 0, n)
	for d := range s.unwatched {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	first := dirs[0]
	ferr := s.unwatched[first]
	fallback := fmt.Sprintf("changes there are found by a rescan every %s instead of at once", rescan)
	for _, d := range dirs {
		if errors.Is(s.unwatched[d], syscall.ENOSPC) {
			limit := "unknown"
			if b, err := os.ReadFile(inotifyLimitFile); err == nil {
				limit = strings.TrimSpace(string(b))
			}
			fmt.Fprintf(e.stderr, "watch: %d of %d directories are not watched: the inotify watch limit is reached (%s = %s); %s; raise the limit with `sudo sysctl fs.inotify.max_user_watches=524288`\n",
				n, n+s.watched, inotifyLimitFile, limit, fallback)
			return
		}
	}
	fmt.Fprintf(e.stderr, "watch: %d of %d directories are not watched (first: %s: %s); %s\n",
		n, n+s.watched, walk.DisplayPath(first), e.errText(ferr), fallback)
}

// rescanPaths returns the unwatched directories ("." for the root),
// retrying Add for each first (a raised limit, or freed watches, let them
// be watched again); each is re-indexed as a path (expandPending).
func (s *watchSet) rescanPaths() []string {
	var out []string
	for d := range s.unwatched {
		out = append(out, d)
	}
	sort.Strings(out)
	for _, d := range out {
		if _, still := s.unwatched[d]; still {
			s.addTree(filepath.Join(s.root, filepath.FromSlash(d)))
		}
	}
	return out
}

// watchTree is watchLoop with its tuning (see watchConfig).
func watchTree(e *env, eng *engine.Engine, root string, req engine.IndexRequest, cfg watchConfig) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer w.Close()
	var add dirWatcher = w
	if cfg.wrap != nil {
		add = cfg.wrap(add)
	}
	if cfg.rescan <= 0 {
		cfg.rescan = watchRescan
	}
	rootGone := false // the root itself was removed or moved away
	ws := &watchSet{root: root, w: add, unwatched: map[string]error{}}
	ws.addTree(root)
	stopResident := serveResident(e)
	defer stopResident()
	fmt.Fprintf(e.stderr, "watching %s for changes (Ctrl-C to stop)\n", root)
	ws.report(e, cfg.rescan)
	pending := map[string]bool{}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	rescan := time.NewTicker(cfg.rescan)
	defer rescan.Stop()
	// failed holds the files whose last run failed (an embedding server
	// down or refusing them): each rescan tries them again, quietly until
	// one is written, since no event may come for them again
	failed := map[string]bool{}
	// moved is set when the root no longer leads to the directory that
	// was indexed (rootrule.ErrMoved), the project was removed from the
	// index (coderag remove) or the index file was deleted or replaced
	// under the watcher: every run would be refused, or would write
	// where no search reads, so the watch ends with that error
	var moved error
	// storeFile is the SQLite index file as the watch began (nil for
	// PostgreSQL): a run into a file unlinked since (CODERAG_HOME
	// deleted) would be lost without a word
	var storeFile os.FileInfo
	if p := eng.StorePath(); filepath.IsAbs(p) {
		storeFile, _ = os.Stat(p)
	}
	runAs := func(paths []string, retry bool) {
		if storeFile != nil {
			if fi, err := os.Stat(eng.StorePath()); err != nil || !os.SameFile(storeFile, fi) {
				moved = fmt.Errorf("the index %s was deleted or replaced while watching: changes are no longer saved; run `coderag index --watch` again", eng.StorePath())
				return
			}
		}
		if _, err := eng.Find(e.ctx, root, false); errors.Is(err, engine.ErrNotIndexed) {
			moved = fmt.Errorf("%s was removed from the index while watching (coderag remove)", root)
			return
		}
		r := req
		r.Paths = paths
		rep, err := indexNow(e, eng, root, r)
		if e.ctx.Err() != nil {
			return
		}
		if errors.Is(err, rootrule.ErrMoved) {
			moved = err
			return
		}
		if err != nil {
			if !retry {
				fmt.Fprintf(e.stderr, "watch: index: %s\n", e.errText(err))
			}
			return
		}
		if paths == nil {
			clear(failed)
		}
		for _, p := range paths {
			delete(failed, p)
		}
		for _, f := range rep.Failures {
			failed[f.Path] = true
		}
		if retry && rep.Changed+rep.Removed == 0 {
			return
		}
		if rep.Changed+rep.Removed+rep.Failed > 0 {
			fmt.Fprintf(e.stdout, "%s re-indexed: %d changed, %d removed, %d failed (%s)%s\n",
				time.Now().Format("15:04:05"), rep.Changed, rep.Removed, rep.Failed, rep.Elapsed.Round(time.Millisecond),
				savedNames(root, paths, e.cfg.AllowSecrets))
		}
	}
	run := func(paths []string) { runAs(paths, false) }
	reindex := func(paths []string) {
		if len(paths) > 0 {
			run(paths)
		}
	}
	// a whole run the watcher starts on its own (the root replaced, or
	// unwatched) does not drop a project whose directory holds none of
	// its files now, as a search's refresh does not: an unmounted disk
	// or an emptied checkout keeps its index until `coderag index` runs
	reindexAll := func() {
		if n, err := eng.Emptied(e.ctx, root); err == nil && n > 0 {
			fmt.Fprintf(e.stderr, "watch: %s holds none of its %d indexed files now: they are kept until `coderag index` runs (or a file comes back)\n", root, n)
			return
		}
		run(nil)
	}
	// keepEmptied reports, and says so, that a batch of events removing
	// files leaves the root holding none of its indexed files, or that
	// the root itself is gone (rm -rf of the tree): the project is kept
	// as reindexAll keeps it. The tree is listed only when a path of the
	// batch is gone.
	keepEmptied := func(paths []string) bool {
		gone := false
		for _, p := range paths {
			if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); errors.Is(err, fs.ErrNotExist) {
				gone = true
				break
			}
		}
		if !gone {
			return false
		}
		if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(e.stderr, "watch: %s is gone: its indexed files are kept until `coderag index` runs (or the directory comes back)\n", root)
			return true
		}
		if n, err := eng.Emptied(e.ctx, root); err == nil && n > 0 {
			fmt.Fprintf(e.stderr, "watch: %s holds none of its %d indexed files now: they are kept until `coderag index` runs (or a file comes back)\n", root, n)
			return true
		}
		return false
	}
	for {
		if moved != nil {
			fmt.Fprintf(e.stderr, "watch: stopped watching %s\n", root)
			return moved
		}
		select {
		case <-e.ctx.Done():
			// SIGTERM or SIGINT (main's signal.NotifyContext gives the
			// signal as the cause), or the caller: stop now, saying why
			why := ""
			if c := context.Cause(e.ctx); c != nil && c != e.ctx.Err() { // a signal's cause matches context.Canceled too
				why = " (" + c.Error() + ")"
			}
			fmt.Fprintf(e.stderr, "watch: stopped watching %s%s\n", root, why)
			return nil
		case err := <-w.Errors:
			fmt.Fprintf(e.stderr, "watch: %s\n", e.errText(err))
		case ev := <-w.Events:
			if ev.Name == root && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
				rootGone = true // the next rescan watches the root made again
			}
			rel, err := filepath.Rel(root, ev.Name)
			if err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			rel = filepath.ToSlash(rel)
			if ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Remove) {
				// a directory moved away (mv a b): its watches would go on
				// reporting its files under the old name, so they are
				// dropped, and the new name's Create watches it afresh
				unwatchTree(w, ev.Name)
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
					ws.addTree(ev.Name) // a new directory (or one moved in): watch it
					ws.report(e, cfg.rescan)
				}
			}
			pending[rel] = true
			timer.Reset(watchDebounce)
		case <-timer.C:
			paths := expandPending(root, pending)
			pending = map[string]bool{}
			if keepEmptied(paths) {
				continue
			}
			reindex(paths)
		case <-rescan.C:
			if _, err := os.Stat(root); err == nil && rootGone {
				// the root was replaced (removed or moved away, and made
				// again): its watches went with the old directory, so
				// watch the new tree and index it whole
				rootGone = false
				ws = &watchSet{root: root, w: add, unwatched: map[string]error{}}
				ws.addTree(root)
				ws.report(e, cfg.rescan)
				fmt.Fprintf(e.stderr, "watch: %s was replaced; watching the new tree\n", root)
				reindexAll()
				continue
			}
			if len(failed) > 0 {
				paths := make([]string, 0, len(failed))
				for p := range failed {
					paths = append(paths, p)
				}
				sort.Strings(paths)
				runAs(paths, true)
			}
			if len(ws.unwatched) == 0 {
				continue
			}
			set := map[string]bool{}
			for _, d := range ws.rescanPaths() {
				set[d] = true
			}
			if set["."] {
				// the root itself is unwatched: a full run finds every change
				reindexAll()
				continue
			}
			reindex(expandPending(root, set))
		}
	}
}

// unwatchTree removes the watches of dir and of every directory below it
// (by path, as fsnotify holds them); none is an error.
func unwatchTree(w *fsnotify.Watcher, dir string) {
	prefix := dir + string(filepath.Separator)
	for _, p := range w.WatchList() {
		if p == dir || strings.HasPrefix(p, prefix) {
			_ = w.Remove(p)
		}
	}
}

// expandPending turns event paths into file paths: a directory event
// stands for the files below it in the directories rules enter (the index
// checks each file with the same rules).
func expandPending(root string, pending map[string]bool) []string {
	rules := walk.NewRules(root, walk.Options{})
	set := map[string]bool{}
	for p := range pending {
		abs := filepath.Join(root, filepath.FromSlash(p))
		_ = filepath.WalkDir(abs, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(root, q)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if q != abs && !rules.Candidate(rel, d).OK {
					return filepath.SkipDir
				}
				return nil
			}
			set[rel] = true
			return nil
		})
		set[p] = true // deleted files and directories are diffed by the index
	}
	var out []string
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// watchNamesShown is how many file names a re-index line of --watch lists.
const watchNamesShown = 8

// savedNames lists the files of a --watch run over paths, as the end of
// its line: ": a.go, pkg/b.go, old.go (removed)", the files the index takes
// that exist (walk.Stat), then those that are gone, at most
// watchNamesShown with "and N more"; "" when there are none. Directories
// and files the index does not take are left out.
func savedNames(root string, paths []string, allowSecrets bool) string {
	files, _ := walk.Stat(root, paths, walk.Options{AllowSecrets: allowSecrets})
	var names []string
	for _, f := range files {
		names = append(names, walk.DisplayPath(f.Path))
	}
	for _, p := range paths {
		if !lang.Indexable(p) {
			continue // an editor's temporary file (sed's sedXXXXXX, a swap file) that came and went
		}
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); errors.Is(err, fs.ErrNotExist) {
			names = append(names, walk.DisplayPath(p)+" (removed)")
		}
	}
	if len(names) == 0 {
		return ""
	}
	more := ""
	if len(names) > watchNamesShown {
		more = fmt.Sprintf(" and %d more", len(names)-watchNamesShown)
		names = names[:watchNamesShown]
	}
	return ": " + strings.Join(names, ", ") + more
}
