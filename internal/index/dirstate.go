package index

import (
	"context"
	"encoding/json"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/coderag/coderag/internal/walk"
)

// A file's parse can read more than the file: a Go file is typed with the
// declarations of its whole package (goPackages), and a .h file is a C++
// header when C++ sources sit beside it (cppDirs). Its rows then depend
// on its siblings, and a run that re-parses only the files that changed
// would leave the rows of an unchanged sibling as its old neighbours made
// them (a call typed by a struct whose file was deleted). Each run records
// what the parses of each directory read (dirState); a run that changes
// the bytes of a file of a directory, adds one or removes one compares,
// after its own files, the directory's state now with the recorded one
// and parses its unchanged Go files again when the package's declarations
// differ, its .h files when its C++ evidence does (rereadDependents).
// Editing a function body leaves the declarations as they were, so the
// siblings are not parsed again. A directory with no recorded state (an
// index made before the states were kept) counts as changed: its files
// are parsed again once. The result is the index a run over the whole
// tree from scratch would make.

// dirState is what the parses of one directory's files read beyond each
// file: Go, the digest of its Go package's declarations
// (chunk.GoPackage.Digest); Cpp, whether it holds C++ sources. Nil: not
// recorded.
type dirState struct {
	Go  *string `json:"go,omitempty"`
	Cpp *bool   `json:"cpp,omitempty"`
}

// loadDirStates returns the recorded states of the project's directories,
// by root-relative directory ("." for the root); a record that cannot be
// decoded is as none (every directory then counts as changed).
func (r *run) loadDirStates(ctx context.Context) (map[string]dirState, error) {
	v, ok, err := r.st.DirStates(ctx, r.root)
	if err != nil {
		return nil, err
	}
	states := map[string]dirState{}
	if ok {
		if json.Unmarshal([]byte(v), &states) != nil {
			states = map[string]dirState{}
		}
	}
	return states, nil
}

// rereadDependents parses again, after the run's own files (c), the
// unchanged files whose parse read a directory that changed (see above):
// for each directory where the run added or changed the bytes of a .go
// file, or removed one (gone), its other indexed Go files when the
// package's declaration digest differs from the one recorded; where a C++
// source came or went, its other .h files when its C++ evidence differs.
// They go through the pipeline as if changed (run.reread), and c takes
// the second pipeline's results; Report.Reread counts them. A file whose
// stat changed but whose bytes did not (a touch, a racy mtime) changes
// nothing here, so such runs load no package for this.
func (r *run) rereadDependents(ctx context.Context, c *collector, gone []string) error {
	goDirs, cppDirs := map[string]bool{}, map[string]bool{}
	trigger := func(p string) {
		if strings.HasSuffix(p, ".go") {
			goDirs[path.Dir(p)] = true
		} else if isCppSource(p) {
			cppDirs[path.Dir(p)] = true
		}
	}
	for _, p := range c.changed {
		trigger(p)
	}
	for _, p := range gone {
		trigger(p)
	}
	// the directories whose dependents an earlier run failed to parse
	// again: their recorded states are the old ones, so the comparison
	// below finds them changed and parses those files again
	retry, err := r.loadDirRetry(ctx)
	if err != nil {
		return err
	}
	r.retried = retry
	for _, d := range retry {
		goDirs[d], cppDirs[d] = true, true
	}
	if len(goDirs) == 0 && len(cppDirs) == 0 {
		return nil
	}
	// the dependents: indexed files of such a directory that this run
	// neither parsed (with the directory as it is now) nor removed
	done := make(map[string]bool, len(c.parsed)+len(gone))
	for _, p := range c.parsed {
		done[p] = true
	}
	for _, p := range gone {
		done[p] = true
	}
	type deps struct{ goFiles, headers []string }
	byDir := map[string]*deps{}
	for _, rec := range r.fps.recs {
		if done[rec.Path] {
			continue
		}
		d := path.Dir(rec.Path)
		isGo := goDirs[d] && strings.HasSuffix(rec.Path, ".go")
		isH := cppDirs[d] && strings.EqualFold(path.Ext(rec.Path), ".h")
		if !isGo && !isH {
			continue
		}
		if byDir[d] == nil {
			byDir[d] = &deps{}
		}
		if isGo {
			byDir[d].goFiles = append(byDir[d].goFiles, rec.Path)
		} else {
			byDir[d].headers = append(byDir[d].headers, rec.Path)
		}
	}
	if len(byDir) == 0 {
		return nil
	}
	states, err := r.loadDirStates(ctx)
	if err != nil {
		return err
	}
	r.states = states
	var add []string
	for d, dp := range byDir {
		st, abs := states[d], filepath.Join(r.root, filepath.FromSlash(d))
		if len(dp.goFiles) > 0 {
			if now, ok := r.gopkgs.digest(abs); !ok || st.Go == nil || *st.Go != now {
				add = append(add, dp.goFiles...)
			}
		}
		if len(dp.headers) > 0 {
			if now := r.cpp.dir(abs); st.Cpp == nil || *st.Cpp != now {
				add = append(add, dp.headers...)
			}
		}
	}
	if len(add) == 0 {
		return nil
	}
	sort.Strings(add)
	r.reread = make(map[string]bool, len(add))
	for _, p := range add {
		r.reread[p] = true
	}
	// stat'ed as a scan of those paths does; one that cannot be read now
	// is the next scan's to find
	files, _ := walk.Stat(r.root, add, walk.Options{AllowSecrets: r.opts.AllowSecrets})
	// each was counted unchanged once: by diff (its stat was the same) or
	// by the collector (its bytes were)
	counted := make(map[string]bool, len(c.touch))
	for _, t := range c.touch {
		counted[t.Path] = true
	}
	if r.opts.Paths == nil {
		inTodo := make(map[string]bool, len(r.todo))
		for _, f := range r.todo {
			inTodo[f.Path] = true
		}
		for _, f := range r.files {
			if !inTodo[f.Path] {
				counted[f.Path] = true
			}
		}
	}
	for _, f := range files {
		if counted[f.Path] {
			r.rep.Unchanged--
		}
	}
	r.todo, r.done = files, 0
	c2, err := r.pipeline(ctx)
	if c2 != nil {
		c.touch = append(c.touch, c2.touch...)
		c.skips = append(c.skips, c2.skips...)
		c.parsed = append(c.parsed, c2.parsed...)
		c.dim = max(c.dim, c2.dim)
		for p := range c2.reanalysed {
			if c.reanalysed == nil {
				c.reanalysed = map[string]bool{}
			}
			c.reanalysed[p] = true
		}
	}
	return err
}

// saveDirStates records, after a run, the state of every directory whose
// files it parsed (or checked in rereadDependents), over the recorded
// states. complete: the run got through both of its passes. A directory
// keeps its recorded state when some of its indexed files may still hold
// rows made with the old one, so that the next run that touches it parses
// them again: after an incomplete run, every directory that held indexed
// files before it (its dependents may not have been reached); after a
// complete one, the directory of a file that the second pass parsed
// again and that failed. The files of the other directories were all
// parsed with the state recorded, or are not indexed yet (an interrupted
// first run), or failed and are retried by their fingerprint.
func (r *run) saveDirStates(ctx context.Context, complete bool) error {
	if err := r.saveDirRetry(ctx, complete); err != nil {
		return err
	}
	digests, cpp := r.gopkgs.loadedDigests(), r.cpp.looked()
	if len(digests) == 0 && len(cpp) == 0 {
		return nil
	}
	states := r.states
	if states == nil {
		var err error
		if states, err = r.loadDirStates(ctx); err != nil {
			return err
		}
	}
	keep := map[string]bool{} // directories whose recorded state stays
	if !complete {
		for _, rec := range r.fps.recs {
			keep[path.Dir(rec.Path)] = true
		}
	}
	for _, f := range r.rep.Failures {
		if r.reread[f.Path] {
			keep[path.Dir(f.Path)] = true
		}
	}
	rel := func(abs string) (string, bool) {
		d, err := filepath.Rel(r.root, abs)
		if err != nil || d == ".." || strings.HasPrefix(d, ".."+string(filepath.Separator)) {
			return "", false
		}
		d = filepath.ToSlash(d)
		return d, !keep[d]
	}
	changed := false
	for abs, dg := range digests {
		if d, ok := rel(abs); ok {
			if st := states[d]; st.Go == nil || *st.Go != dg {
				st.Go = &dg
				states[d], changed = st, true
			}
		}
	}
	for abs, has := range cpp {
		if d, ok := rel(abs); ok {
			if st := states[d]; st.Cpp == nil || *st.Cpp != has {
				st.Cpp = &has
				states[d], changed = st, true
			}
		}
	}
	if !changed {
		return nil
	}
	b, err := json.Marshal(states)
	if err != nil {
		return err
	}
	return r.st.PutDirStates(ctx, r.root, string(b))
}

// loadDirRetry returns the project's retry list: the root-relative
// directories where a run parsed dependents again and some failed (an
// embedding server down), so their recorded states stayed the old ones. A
// list that cannot be decoded is as none.
func (r *run) loadDirRetry(ctx context.Context) ([]string, error) {
	v, err := r.st.DirRetry(ctx, r.root)
	if err != nil || v == "" {
		return nil, err
	}
	var dirs []string
	if json.Unmarshal([]byte(v), &dirs) != nil {
		return nil, nil
	}
	return dirs, nil
}

// saveDirRetry records the retry list after a run: the directories of the
// files its second pass parsed again and that failed, and, after a run
// that did not get through both passes, the list it started with too (its
// second pass may not have come to them). Without the list, such a
// directory's dependents would wait for the next change in it: their own
// bytes did not change, so their fingerprints never ask for a parse. It
// writes only when the list changes.
func (r *run) saveDirRetry(ctx context.Context, complete bool) error {
	set := map[string]bool{}
	if !complete {
		for _, d := range r.retried {
			set[d] = true
		}
	}
	for _, f := range r.rep.Failures {
		if r.reread[f.Path] {
			set[path.Dir(f.Path)] = true
		}
	}
	dirs := make([]string, 0, len(set))
	for d := range set {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	if slices.Equal(dirs, r.retried) { // nil and empty alike
		return nil
	}
	b, err := json.Marshal(dirs)
	if err != nil {
		return err
	}
	return r.st.PutDirRetry(ctx, r.root, string(b))
}
