package walk

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/coderag/coderag/internal/lang"
)

// Rules is the one rule that decides whether a path of a project is a
// candidate: Walk lists exactly the files it accepts, the index checks the
// paths --watch reports with it (Stat), --watch watches the directories it
// accepts, and grep filters ripgrep's file list with it.
//
// A directory is entered unless it or a directory above it is hidden or
// default-skipped (SkipDir) or excluded by an ignore file. Options.Dir, the
// directory a walk starts from, and the directories above it are exempt
// from SkipDir (asking for .github/ searches it) but not from ignore files.
// A file is a candidate when its directory is entered, no ignore file
// excludes it, it is a regular file (a symlink is a skip with
// ReasonSymlink), a language claims its name (unless Options.AllFiles;
// else it is counted as unindexed) and it is at most the size cap (else a
// skip with ReasonTooLarge). A regular file or symlink whose name looks
// like a secret (SecretName) is a skip with ReasonSecret unless
// Options.AllowSecrets, whatever language claims it. Hidden files are
// candidates. Content rules
// (binary, invalid UTF-8) apply when the file is read (IsBinary).
//
// Options.NoIgnore lifts the ignore files and the SkipDirs rule,
// Options.Hidden the hidden-directory rule (as ripgrep's --no-ignore and
// --hidden); neither lifts the secret-name rule.
//
// Ignore files are loaded as paths are checked and kept; a Rules is for one
// goroutine.
type Rules struct {
	root string
	opts Options
	max  int64
	base string // Options.Dir cleaned; "" for the root
	m    *Matcher
	dirs map[string]bool // root-relative directory -> entered
	// builtin holds the directories refused by the SkipDirs rule alone
	// (no ignore file, not hidden): what Options.ReportDirs reports.
	builtin map[string]bool
}

// Verdict is what Rules says of one path.
type Verdict struct {
	// OK: a candidate file, or a directory the walk enters.
	OK bool
	// Skip is set for a file passed over that is reported as a skip
	// (ReasonSymlink, ReasonTooLarge, ReasonUnreadable with Err).
	Skip Reason
	Err  string
	// Unindexed: a regular file no language claims (see Options.Unindexed).
	Unindexed bool
	// Info is the file's information (from the entry) when OK, for files.
	Info fs.FileInfo
}

// NewRules returns the rules of a walk of root (absolute) with opts.
func NewRules(root string, opts Options) *Rules {
	max := opts.MaxFileBytes
	if max == 0 {
		max = MaxFileBytes
	}
	base := ""
	if opts.Dir != "" && opts.Dir != "." {
		base = path.Clean(opts.Dir)
	}
	m := NewMatcher(root)
	m.off = opts.NoIgnore
	return &Rules{root: root, opts: opts, max: max, base: base, m: m, dirs: map[string]bool{}, builtin: map[string]bool{}}
}

// Candidate applies the rule to root-relative '/' path rel. d is its
// directory entry (lstat information: a symlink is not followed); a nil d
// applies only the path rules (directories, ignore files, language unless
// AllFiles) to a file. For a directory, OK says whether the walk enters it
// (or passes through it to Options.Dir); "" and "." are the root. With
// Options.Dir, a file outside it is not a candidate.
func (r *Rules) Candidate(rel string, d fs.DirEntry) Verdict {
	if rel == "." {
		rel = ""
	}
	under := r.base == "" || rel == r.base || strings.HasPrefix(rel, r.base+"/")
	if rel == "" || (d != nil && d.IsDir()) {
		if strings.Count(rel, "/") >= MaxDirDepth {
			return Verdict{Skip: ReasonTooDeep}
		}
		above := rel == "" || strings.HasPrefix(r.base, rel+"/")
		return Verdict{OK: (under || above) && r.dirOK(rel)}
	}
	if !under {
		return Verdict{}
	}
	dir := path.Dir(rel)
	if dir == "." {
		dir = ""
	}
	if !r.dirOK(dir) {
		return Verdict{}
	}
	r.m.load(dir) // dirOK loaded the ignore files above dir
	if !r.opts.NoIgnore && r.m.Ignored(rel, false) {
		return Verdict{}
	}
	name := path.Base(rel)
	indexable := r.opts.AllFiles || lang.Indexable(name)
	secret := !r.opts.AllowSecrets && SecretName(rel)
	if d == nil {
		if secret {
			return Verdict{Skip: ReasonSecret}
		}
		return Verdict{OK: indexable}
	}
	switch t := d.Type(); {
	case secret && (t.IsRegular() || t&fs.ModeSymlink != 0):
		return Verdict{Skip: ReasonSecret}
	case t&fs.ModeSymlink != 0:
		if indexable {
			return Verdict{Skip: ReasonSymlink}
		}
		if r.symlinkedDir(rel, name) {
			return Verdict{Skip: ReasonSymlinkDir}
		}
		return Verdict{}
	case !t.IsRegular():
		if indexable && t&fs.ModeDir == 0 {
			return Verdict{Skip: ReasonNotRegular}
		}
		return Verdict{}
	case !indexable:
		return Verdict{Unindexed: true}
	}
	info, err := d.Info()
	if err != nil {
		return Verdict{Skip: ReasonUnreadable, Err: err.Error()}
	}
	if r.max > 0 && info.Size() > r.max {
		return Verdict{Skip: ReasonTooLarge}
	}
	return Verdict{OK: true, Info: info}
}

// symlinkedDir reports whether the symlink at rel points to a directory
// the walk would have entered had it been one: not hidden (unless
// Options.Hidden), not passed over by the SkipDirs rule and not ignored as a
// directory, so that a linked node_modules is as silent as a real one. A
// dangling link is not.
func (r *Rules) symlinkedDir(rel, name string) bool {
	if strings.HasPrefix(name, ".") && !r.opts.Hidden {
		return false
	}
	abs := filepath.Join(r.root, filepath.FromSlash(rel))
	st, err := os.Stat(abs)
	if err != nil || !st.IsDir() {
		return false
	}
	return r.opts.NoIgnore || !SkipDir(abs, name) && !r.m.Ignored(rel, true)
}

// dirOK reports whether the walk enters root-relative directory rel ("" is
// the root), deciding each directory once.
func (r *Rules) dirOK(rel string) bool {
	if rel == "" {
		return true
	}
	if ok, seen := r.dirs[rel]; seen {
		return ok
	}
	parent := path.Dir(rel)
	if parent == "." {
		parent = ""
	}
	ok := r.dirOK(parent)
	if ok {
		r.m.load(parent) // dirOK(parent) loaded those above it
		exempt := r.base != "" && (rel == r.base || strings.HasPrefix(r.base, rel+"/"))
		name := path.Base(rel)
		hidden := strings.HasPrefix(name, ".") && !r.opts.Hidden
		builtin := !r.opts.NoIgnore && !strings.HasPrefix(name, ".") && SkipDir(filepath.Join(r.root, filepath.FromSlash(rel)), name)
		ignored := r.m.Ignored(rel, true)
		ok = (exempt || !hidden && !builtin) && !ignored
		if !ok && builtin && !hidden && !ignored {
			r.builtin[rel] = true
		}
	}
	r.dirs[rel] = ok
	return ok
}

// Stat applies Rules (with opts) to each of paths (root-relative '/'
// paths of files, as --watch reports them) by lstat, and returns the
// candidates, in the order given, and the skips, as Walk would list them.
// A path that no longer exists, or names a directory or the root itself
// (an event on the root, which may now be a symlink), is left out (the
// caller diffs what is gone).
func Stat(root string, paths []string, opts Options) ([]File, []Skip) {
	r := NewRules(root, opts)
	var files []File
	var skips []Skip
	for _, p := range paths {
		if p == "" || p == "." {
			continue
		}
		abs := filepath.Join(root, filepath.FromSlash(p))
		st, err := os.Lstat(abs)
		if err != nil || st.IsDir() {
			continue
		}
		v := r.Candidate(p, fs.FileInfoToDirEntry(st))
		switch {
		case v.OK && v.Info != nil:
			files = append(files, File{Path: p, Abs: abs, Size: v.Info.Size(), ModTime: v.Info.ModTime()})
		case v.Skip != "":
			skips = append(skips, Skip{Path: p, Reason: v.Skip, Err: v.Err})
		}
	}
	return files, skips
}
