// Package walk discovers the files of a project: it applies the default
// directory skips, hidden directories, nested .gitignore files (with
// negation) and .coderagignore files, the size cap, and refuses symlinks.
// Skipped files are returned as data (Skip with a Reason), never logged and
// lost (after zoekt's SkipReason).
package walk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// MaxFileBytes is the default size cap: larger files are not indexed (1 MiB).
const MaxFileBytes = 1 << 20

// BinarySniffBytes is how much of a file's head is checked for a NUL byte.
const BinarySniffBytes = 4096

// SkipDirs are directory names never descended into, besides hidden ones.
// The build-output names among them (OutputDirs) are still entered when
// they hold source packages (see isSourcePackage).
var SkipDirs = map[string]bool{
	"node_modules": true, "target": true, "build": true, "dist": true,
	"vendor": true, ".git": true, ".idea": true,
}

// OutputDirs are the names in SkipDirs that build tools write their output
// to (Gradle build/, Maven target/, JS dist/) but that are also ordinary
// package names: Go's go/build and cmd/dist, a Java package ...build.
var OutputDirs = map[string]bool{"build": true, "dist": true, "target": true}

// SkipDir reports whether the walk passes over the directory named name at
// absolute path abs: a hidden directory, or one of SkipDirs unless it is an
// output-directory name holding a source package. Every walker of the
// project (index, watch, grep, glob) decides with it.
func SkipDir(abs, name string) bool {
	if strings.HasPrefix(name, ".") {
		return true
	}
	return SkipDirs[name] && !(OutputDirs[name] && isSourcePackage(abs))
}

// isSourcePackage reports whether dir directly holds a Go file, a Java file
// or a Python __init__.py: then it is a package of the project, not build
// output (compilers write .class, .o and bundles there, and generated
// sources one level deeper, e.g. build/generated/). A directory that cannot
// be listed counts as a package: the walk then enters it and reports it
// unreadable, so rows indexed from it earlier are kept, not dropped as if
// it were build output.
func isSourcePackage(dir string) bool {
	es, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	for _, e := range es {
		n := e.Name()
		if e.Type().IsRegular() && (strings.HasSuffix(n, ".go") || strings.HasSuffix(n, ".java") || n == "__init__.py") {
			return true
		}
	}
	return false
}

// Reason says why a file was skipped.
type Reason string

// Skip reasons.
const (
	ReasonTooLarge Reason = "too large"
	ReasonSymlink  Reason = "symlink"
	// ReasonSymlinkDir: a symlink to a directory; the walk does not follow
	// it (its files may lie outside the root, or be listed twice).
	ReasonSymlinkDir Reason = "symlinked directory, not followed"
	// ReasonNotRegular: a FIFO, socket or device whose name a language
	// claims; it is not read (a FIFO would block the reader).
	ReasonNotRegular Reason = "not a regular file"
	ReasonBinary     Reason = "binary"
	ReasonUnreadable Reason = "unreadable"
	ReasonNotUTF8    Reason = "invalid utf-8"
	// ReasonIgnoreFileCut: an ignore file is larger than
	// MaxIgnoreFileBytes; only its first MiB of patterns applies.
	ReasonIgnoreFileCut Reason = "ignore file over 1 MiB, read in part"
	// ReasonIgnoreFileNotRead: an ignore file is a symlink, FIFO, device
	// or directory, or could not be read; its patterns do not apply.
	ReasonIgnoreFileNotRead Reason = "ignore file not read"
	// ReasonTooDeep: a directory more than MaxDirDepth levels below the
	// root; the walk does not enter it.
	ReasonTooDeep Reason = "directory nested too deep"
	// ReasonIgnorePatterns: some patterns of an ignore file have more
	// than MaxIgnoreStars "**" parts after repeats are merged; they do
	// not apply.
	ReasonIgnorePatterns Reason = "ignore patterns with too many ** parts skipped"
	// ReasonIgnoreTooCostly: an ignore file's patterns cost more than
	// MaxIgnoreCost to try on a path (ignorecost.go); only the first
	// ones within it apply, and Err says how many.
	ReasonIgnoreTooCostly Reason = "ignore file too costly to apply in full"
	// ReasonBuiltinDir: a directory passed over by the built-in SkipDirs
	// rule (build/, node_modules/, ...), reported with Options.ReportDirs.
	ReasonBuiltinDir Reason = "built-in rule"
)

// MaxDirDepth is how many directory levels below the root a walk enters.
// Source trees are a few dozen levels deep at most; a tree a thousand
// levels deep (a hostile clone) would make every ignore-pattern match
// cost as much as its depth, on every entry.
const MaxDirDepth = 64

// MaxIgnoreStars is the most "**" parts an ignore pattern may keep. Each
// one can match any number of directories, so matching a path of depth d
// against a pattern with k of them can take d^k steps: a cloned
// repository's .gitignore of such lines would stall every walk. Real
// patterns use one or two.
const MaxIgnoreStars = 4

// File is one candidate file. Path is root-relative with '/' separators.
type File struct {
	Path    string
	Abs     string
	Size    int64 // bytes
	ModTime time.Time
}

// Skip records a file that was passed over and why.
type Skip struct {
	Path   string `json:"path"`
	Reason Reason `json:"reason"`
	Err    string `json:"error,omitempty"` // detail for ReasonUnreadable
}

// Options tune a walk. The zero value indexes like `coderag index`.
type Options struct {
	// MaxFileBytes caps file size; 0 means MaxFileBytes, < 0 means no cap.
	MaxFileBytes int64
	// AllFiles lists every non-ignored regular file, not only those whose
	// language lang.Detect knows (used by glob and the native grep).
	AllFiles bool
	// Dir restricts the walk to this root-relative sub-directory ("" = root).
	Dir string
	// AllowSecrets lists files whose names look like secrets (SecretName);
	// without it they are skips with ReasonSecret, whatever the ignore
	// and hidden-file rules say of them.
	AllowSecrets bool
	// Unindexed, when non-nil, counts the regular files passed over because
	// lang.Detect does not know them, by lower-case extension ("(none)" for
	// a name without one), so nothing is skipped without being counted.
	Unindexed map[string]int
	// NoIgnore, as ripgrep's --no-ignore: no .gitignore or .coderagignore
	// applies (none is read) and the built-in SkipDirs rule does not
	// either; hidden directories stay skipped unless Hidden. Rules that
	// protect rather than tidy (size cap, symlinks, confinement) still
	// apply. Used by grep and glob only.
	NoIgnore bool
	// Hidden, as ripgrep's --hidden: hidden directories (".github",
	// ".git") are entered. Hidden files are candidates either way.
	Hidden bool
	// ReportDirs makes Walk report every directory it passes over by the
	// built-in SkipDirs rule alone (no ignore file excludes it) as a Skip
	// with ReasonBuiltinDir, so an exact tool can say what it did not
	// search.
	ReportDirs bool
}

// ExtKey is the key under which Options.Unindexed counts a file name: its
// lower-case extension with the dot, or "(none)".
func ExtKey(name string) string {
	if e := strings.ToLower(path.Ext(name)); e != "" && e != name {
		return e
	}
	return "(none)"
}

// Walk calls fn for each candidate file under root in lexical order and
// returns the files it skipped. Ignored files (ignore rules, hidden or
// default-skipped directories) are not reported. An fn error or a cancelled
// ctx stops the walk and is returned.
func Walk(ctx context.Context, root string, opts Options, fn func(File) error) ([]Skip, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	r := NewRules(root, opts)
	m := r.m
	var skips []Skip
	start := root
	if r.base != "" {
		start = filepath.Join(root, filepath.FromSlash(r.base))
		// an ignored start directory (or one under an ignored directory)
		// yields nothing
		if !r.dirOK(r.base) {
			return m.Problems(), nil
		}
		m.load(r.base)
	}
	err = filepath.WalkDir(start, func(p string, d fs.DirEntry, werr error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if werr != nil {
			if p == start {
				return werr
			}
			skips = append(skips, Skip{Path: rel, Reason: ReasonUnreadable, Err: werr.Error()})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if rel == "." {
			m.load("")
			return nil
		}
		v := r.Candidate(rel, d)
		if d.IsDir() {
			if !v.OK && opts.ReportDirs && r.builtin[rel] {
				skips = append(skips, Skip{Path: rel, Reason: ReasonBuiltinDir})
			}
			if !v.OK {
				if v.Skip != "" {
					skips = append(skips, Skip{Path: rel, Reason: v.Skip})
				}
				return fs.SkipDir
			}
			m.load(rel)
			return nil
		}
		switch {
		case v.OK:
			return fn(File{Path: rel, Abs: p, Size: v.Info.Size(), ModTime: v.Info.ModTime()})
		case v.Skip != "":
			skips = append(skips, Skip{Path: rel, Reason: v.Skip, Err: v.Err})
		case v.Unindexed && opts.Unindexed != nil:
			opts.Unindexed[ExtKey(d.Name())]++
		}
		return nil
	})
	return append(skips, m.Problems()...), err
}

// Collect returns every candidate file of a walk, sorted by path, and the skips.
func Collect(ctx context.Context, root string, opts Options) ([]File, []Skip, error) {
	var files []File
	skips, err := Walk(ctx, root, opts, func(f File) error {
		files = append(files, f)
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, skips, err
}

// IsBinary reports whether head (the first BinarySniffBytes of a file, or
// all of it) contains a NUL byte, the test git uses for binary files.
func IsBinary(head []byte) bool {
	if len(head) > BinarySniffBytes {
		head = head[:BinarySniffBytes]
	}
	for _, b := range head {
		if b == 0 {
			return true
		}
	}
	return false
}

// SniffBinary opens path and applies IsBinary to its head; a path that is
// not a regular file is ErrNotRegular (opened without blocking, checked on
// the descriptor).
func SniffBinary(p string) (bool, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return false, err
	} else if !st.Mode().IsRegular() {
		return false, fmt.Errorf("%s: %w (%s)", p, ErrNotRegular, Kind(st.Mode()))
	}
	buf := make([]byte, BinarySniffBytes)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	return IsBinary(buf[:n]), nil
}

// Matcher applies the ignore files of a tree: every directory's .gitignore
// and .coderagignore, with git's rules (go-git's gitignore patterns): a
// pattern is scoped to the directory of its file, the last matching pattern
// wins, deeper files override shallower ones and "!pattern" re-includes
// what an earlier pattern excluded ("tmpd/*" then "!tmpd/keep.py").
//
// Ignore files are read only when they are regular files, never through a
// symlink, without blocking and at most MaxIgnoreFileBytes each (see
// readIgnoreFile); the others are listed by Problems.
type Matcher struct {
	root     string
	off      bool                       // Options.NoIgnore: nothing is read, nothing ignored
	levels   map[string][]ignorePattern // by root-relative dir ("" = root); nil = no ignore file
	problems []Skip                     // ignore files not read, read in part, or too costly
	steps    atomic.Int64               // cost units spent by Ignored (ignorecost.go)
}

// Problems returns the ignore files loaded so far that were not read (not
// regular files, unreadable) or were cut at MaxIgnoreFileBytes, as skips.
func (m *Matcher) Problems() []Skip {
	return append([]Skip(nil), m.problems...)
}

// NewMatcher returns a Matcher for root; ignore files are loaded lazily by
// Walk, or eagerly for any path with Load.
func NewMatcher(root string) *Matcher {
	return &Matcher{root: root, levels: map[string][]ignorePattern{}}
}

// Load reads the ignore files of every directory from the root down to the
// directory holding rel (a root-relative file path).
func (m *Matcher) Load(rel string) {
	dir := path.Dir(rel)
	m.load("")
	if dir == "." {
		return
	}
	cur := ""
	for _, part := range strings.Split(dir, "/") {
		if cur == "" {
			cur = part
		} else {
			cur += "/" + part
		}
		m.load(cur)
	}
}

func (m *Matcher) load(dir string) {
	if _, ok := m.levels[dir]; ok || m.off {
		return
	}
	var domain []string
	if dir != "" {
		domain = strings.Split(dir, "/")
	}
	var pats []ignorePattern
	for _, name := range []string{".gitignore", ".coderagignore"} {
		rel := path.Join(dir, name)
		data, cut, err := readIgnoreFile(filepath.Join(m.root, filepath.FromSlash(dir), name))
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ENAMETOOLONG):
			continue // no such ignore file (Load may be given any path)
		case errors.Is(err, fs.ErrPermission) && !visible(filepath.Join(m.root, filepath.FromSlash(dir), name)):
			// the directory cannot be searched: the walk reports it once,
			// and whether it holds ignore files is unknown
			continue
		case err != nil:
			m.problems = append(m.problems, Skip{Path: rel, Reason: ReasonIgnoreFileNotRead, Err: err.Error()})
			continue
		case cut:
			m.problems = append(m.problems, Skip{Path: rel, Reason: ReasonIgnoreFileCut})
			data = data[:bytes.LastIndexByte(data, '\n')+1] // not half a pattern
		}
		skipped := 0
		var lines []string
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimRight(line, "\r")
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			line, ok := boundIgnorePattern(line)
			if !ok {
				skipped++
				continue
			}
			lines = append(lines, line)
		}
		if skipped > 0 {
			m.problems = append(m.problems, Skip{Path: rel, Reason: ReasonIgnorePatterns, Err: fmt.Sprintf("%d skipped", skipped)})
		}
		kept, total := budgetPatterns(dedupePatterns(lines), MaxIgnoreCost)
		if len(kept) < total {
			m.problems = append(m.problems, Skip{Path: rel, Reason: ReasonIgnoreTooCostly,
				Err: fmt.Sprintf("first %d of %d patterns applied", len(kept), total)})
		}
		for _, line := range kept {
			pats = append(pats, ignorePattern{gitignore.ParsePattern(line, domain), patternCost(line), rel})
		}
	}
	m.levels[dir] = pats
}

// visible reports whether p can be lstat'ed: false when it does not exist
// or its directory cannot be searched.
func visible(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// boundIgnorePattern merges the repeated "**/" parts of an ignore pattern
// ("**/**/x" matches what "**/x" does) and reports false when more than
// MaxIgnoreStars "**" parts remain.
func boundIgnorePattern(line string) (string, bool) {
	if !strings.Contains(line, "**") {
		return line, true
	}
	for strings.Contains(line, "**/**/") {
		line = strings.ReplaceAll(line, "**/**/", "**/")
	}
	for strings.Contains(line, "/**/**") {
		line = strings.ReplaceAll(line, "/**/**", "/**")
	}
	return line, strings.Count(line, "**") <= MaxIgnoreStars
}

// Ignored reports whether root-relative path rel (a directory when isDir) is
// excluded by the ignore files loaded so far, from the root's down to the
// directory holding rel; the last matching pattern decides, as in git:
// patterns are tried from the deepest file's last one up, until one
// matches. Each try adds its pattern's cost to Steps.
func (m *Matcher) Ignored(rel string, isDir bool) bool {
	return m.IgnoredBy(rel, isDir) != ""
}

// IgnoredBy is Ignored that names the ignore file whose pattern excludes
// rel, root-relative (".gitignore", "sub/.coderagignore"); "" when rel
// is not ignored.
func (m *Matcher) IgnoredBy(rel string, isDir bool) string {
	parts := strings.Split(rel, "/")
	var spent int64
	defer func() { m.steps.Add(spent) }()
	for i := len(parts) - 1; i >= 0; i-- {
		pats := m.levels[strings.Join(parts[:i], "/")]
		for j := len(pats) - 1; j >= 0; j-- {
			spent += int64(pats[j].cost)
			if r := pats[j].Match(parts, isDir); r != gitignore.NoMatch {
				if r == gitignore.Exclude {
					return pats[j].file
				}
				return ""
			}
		}
	}
	return ""
}

// BuiltinSkips returns the directories under opts.Dir that a walk with
// opts passes over by the built-in SkipDirs rule alone (see
// Options.ReportDirs), in walk order, at most max of them (all when max
// < 1), and whether there were more. It reads directories only, not file
// information, so an engine that lists files another way (ripgrep) can
// still say what it did not search.
func BuiltinSkips(ctx context.Context, root string, opts Options, max int) ([]string, bool, error) {
	p, err := passedOver(ctx, root, opts, max, false)
	return p.Builtin, p.More, err
}

// Passed is what a walk passes over by its rules alone, without reading a
// file (PassedOver).
type Passed struct {
	// Builtin lists the directories refused by the built-in SkipDirs rule
	// alone, at most the max asked for, in walk order; More says there
	// were more (BuiltinSkips).
	Builtin []string
	More    bool
	// Secrets lists the files withheld for their secret-looking names
	// (ReasonSecret), root-relative, in walk order; none with
	// Options.AllowSecrets.
	Secrets []string
}

// PassedOver is BuiltinSkips that also lists the files under opts.Dir
// that a walk with opts withholds for their names (SecretName, unless
// Options.AllowSecrets), so an engine that lists files another way
// (ripgrep, which lists matching files only) can say how many it did not
// search without searching them. Listing them takes the whole walk of
// the directories; no file is opened or stat'ed.
func PassedOver(ctx context.Context, root string, opts Options, max int) (Passed, error) {
	return passedOver(ctx, root, opts, max, !opts.AllowSecrets)
}

// passedOver is PassedOver; secrets says whether to list the withheld
// files (else the walk ends once max directories are found).
func passedOver(ctx context.Context, root string, opts Options, max int, secrets bool) (Passed, error) {
	var out Passed
	root, err := filepath.Abs(root)
	if err != nil {
		return out, err
	}
	r := NewRules(root, opts)
	start := root
	if r.base != "" {
		if !r.dirOK(r.base) {
			return out, nil
		}
		start = filepath.Join(root, filepath.FromSlash(r.base))
	}
	errStop := errors.New("stop")
	err = filepath.WalkDir(start, func(p string, d fs.DirEntry, werr error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if werr != nil || !d.IsDir() || p == start {
			if werr != nil && d != nil && d.IsDir() && p != start {
				return fs.SkipDir
			}
			if n := d.Name(); werr == nil && secrets && !d.IsDir() && (SecretName(n) || secretPathName(n)) {
				rel, _ := filepath.Rel(root, p)
				rel = filepath.ToSlash(rel)
				if SecretName(rel) && r.Candidate(rel, d).Skip == ReasonSecret {
					out.Secrets = append(out.Secrets, rel)
				}
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if r.Candidate(rel, d).OK {
			return nil
		}
		if r.builtin[rel] {
			switch {
			case max > 0 && len(out.Builtin) >= max && !secrets:
				out.More = true
				return errStop
			case max > 0 && len(out.Builtin) >= max:
				out.More = true
			default:
				out.Builtin = append(out.Builtin, rel)
			}
		}
		return fs.SkipDir
	})
	if err == errStop {
		err = nil
	}
	return out, err
}
