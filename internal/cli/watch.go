package cli

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/walk"
)

// watchDebounce is how long the watcher waits after the last event before
// re-indexing (saves by editors come as bursts of events).
const watchDebounce = 300 * time.Millisecond

// watchLoop re-indexes files as they are saved until the context ends.
// Each batch of saved files is one run of the root's index job (req with
// Paths set).
func watchLoop(e *env, eng *engine.Engine, root string, req engine.IndexRequest) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer w.Close()
	m := walk.NewMatcher(root)
	addTree := func(dir string) {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if rel != "." {
				name := d.Name()
				m.Load(rel + "/x")
				if walk.SkipDir(p, name) || m.Ignored(rel, true) {
					return filepath.SkipDir
				}
			}
			_ = w.Add(p)
			return nil
		})
	}
	addTree(root)
	fmt.Fprintf(e.stderr, "watching %s for changes (Ctrl-C to stop)\n", root)
	pending := map[string]bool{}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-e.ctx.Done():
			return nil
		case err := <-w.Errors:
			fmt.Fprintf(e.stderr, "watch: %s\n", e.errText(err))
		case ev := <-w.Events:
			rel, err := filepath.Rel(root, ev.Name)
			if err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			rel = filepath.ToSlash(rel)
			if ev.Has(fsnotify.Create) {
				if fi, err := filepath.Glob(ev.Name); err == nil && len(fi) == 1 {
					addTree(ev.Name) // a new directory: watch it (no-op for files)
				}
			}
			pending[rel] = true
			timer.Reset(watchDebounce)
		case <-timer.C:
			paths := expandPending(root, pending)
			pending = map[string]bool{}
			if len(paths) == 0 {
				continue
			}
			r := req
			r.Paths = paths
			rep, err := indexNow(e, eng, root, r)
			if e.ctx.Err() != nil {
				return nil
			}
			if err != nil {
				fmt.Fprintf(e.stderr, "watch: index: %s\n", e.errText(err))
				continue
			}
			if rep.Changed+rep.Removed+rep.Failed > 0 {
				fmt.Fprintf(e.stdout, "%s re-indexed: %d changed, %d removed, %d failed (%s)\n",
					time.Now().Format("15:04:05"), rep.Changed, rep.Removed, rep.Failed, rep.Elapsed.Round(time.Millisecond))
			}
		}
	}
}

// expandPending turns event paths into file paths: a directory event
// stands for the indexed files below it.
func expandPending(root string, pending map[string]bool) []string {
	set := map[string]bool{}
	for p := range pending {
		abs := filepath.Join(root, filepath.FromSlash(p))
		_ = filepath.WalkDir(abs, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if !d.IsDir() {
				rel, _ := filepath.Rel(root, q)
				set[filepath.ToSlash(rel)] = true
			}
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
