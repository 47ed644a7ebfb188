// Package tools holds the exact tools that the CLI (`coderag grep|glob|read`),
// the MCP server and the agent share, so all three behave identically:
//
//   - Grep (grep_code): a regular-expression search over the project's
//     non-ignored text files, backed by ripgrep when it is on PATH and by a
//     parallel native Go search otherwise. Both engines apply the same ignore
//     rules (internal/walk), the same 2 MiB size cap and binary skip, the same
//     Go RE2 pattern semantics, and return the same matches in path order.
//   - Glob (glob_files): `**` globs over the same file list, sorted, capped.
//   - Read (read_file): numbered lines of one file inside the project root.
//
// Every result is bounded (per-file, total and character limits) and says when
// a limit cut it (Partial with the reasons), so a caller never mistakes a cut
// or a failure for the whole answer. Paths in results are relative to the
// project root with '/' separators.
package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/walk"
)

// Sentinel errors; wrapped with context, test them with errors.Is.
var (
	// ErrOutsideRoot: the path (lexically, or after resolving symlinks) is
	// not inside the project root.
	ErrOutsideRoot = errors.New("path is outside the project root")
	// ErrBinary: the file has a NUL byte in its first 4096 bytes.
	ErrBinary = errors.New("binary file")
	// ErrBadPattern wraps a regular-expression (or glob) compile error.
	ErrBadPattern = errors.New("invalid pattern")
	// ErrSearchUnavailable: ripgrep is missing or failed and the native
	// search failed too; it is not the same as zero matches.
	ErrSearchUnavailable = errors.New("search unavailable")
	// ErrOffsetPastEnd: a read offset is beyond the last line of the file.
	ErrOffsetPastEnd = errors.New("offset past end of file")
	// ErrNotFound: the path does not exist.
	ErrNotFound = errors.New("no such file or directory")
	// ErrIsDir: read_file was given a directory.
	ErrIsDir = errors.New("is a directory")
	// ErrNotIndexed: ReadIndexed was given a file the index does not take.
	ErrNotIndexed = errors.New("not indexed")
	// ErrSecret: the file's name looks like a secret (walk.SecretName)
	// and the call does not allow secrets.
	ErrSecret = errors.New("withheld: the name looks like a secret file")
)

// Target is a path confined to a project root by Confine. Every file under
// it is opened through Root (an os.Root), never by path name.
type Target struct {
	root  string      // absolute project root as given (not symlink-resolved)
	rel   string      // root-relative '/' path of the resolved target; "." for the root
	asked string      // root-relative '/' path as requested (lexically cleaned)
	info  fs.FileInfo // of the resolved target
	fs    *os.Root    // the project root, open for the life of the Target
}

// indexTakes reports whether an index run would take t's path: as a
// directory, one it enters (not hidden, skipped or ignored); as a file,
// one it indexes (walk.Rules.Candidate with the index's options).
func (t *Target) indexTakes() bool {
	var d fs.DirEntry // nil: the path rules of a file
	if t.info.IsDir() {
		d = fs.FileInfoToDirEntry(t.info)
	}
	return walk.NewRules(t.root, walk.Options{}).Candidate(t.rel, d).OK
}

// Confine maps p (relative to root, or absolute inside it; "" is the root)
// to a Target inside root, built on os.Root: `..` escapes and absolute
// paths elsewhere are refused lexically, and the target is looked up
// through an os.Root of root, which refuses a symlink leading out (or an
// absolute symlink) at the moment of each lookup and open, so a component
// swapped for a symlink after Confine returns still cannot reach outside.
// Symlinks that stay inside are followed; Rel names the file they lead to.
//
// p may also be the quoted form walk.DisplayPath gives a name that is not
// valid UTF-8 or holds control characters (`"bad\xff.go"`): when no file
// has the literal name, the unquoted one is used.
//
// Errors: ErrOutsideRoot (the message never names where a symlink leads),
// ErrNotFound for a missing path, or the error opening root. The caller
// closes the Target.
func Confine(root, p string) (*Target, error) {
	p = unquotePath(root, p)
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolve root %q: %w", root, err)
	}
	realRoot, err := filepath.EvalSymlinks(absRoot)
	if err != nil {
		return nil, fmt.Errorf("resolve root %q: %w", root, notFound(err))
	}
	cand := absRoot
	if p != "" {
		if filepath.IsAbs(p) {
			cand = filepath.Clean(p)
		} else {
			cand = filepath.Join(absRoot, filepath.FromSlash(p))
		}
	}
	asked, ok := Within(absRoot, cand)
	if !ok {
		if asked, ok = Within(realRoot, cand); !ok {
			return nil, fmt.Errorf("%q: %w", p, ErrOutsideRoot)
		}
	}
	r, err := os.OpenRoot(absRoot)
	if err != nil {
		return nil, fmt.Errorf("open root: %w", notFound(err))
	}
	info, err := r.Stat(filepath.FromSlash(asked))
	if err == nil {
		var rel string
		if rel, err = realRel(r, asked); err == nil {
			return &Target{root: absRoot, rel: rel, asked: asked, info: info, fs: r}, nil
		}
	}
	r.Close()
	return nil, fmt.Errorf("%q: %w", p, openError(err))
}

// recordedRoot refuses a project root that is a symbolic link, or that
// leads elsewhere through a directory above it that became one
// (rootrule.Unmoved): the Indexed variants (ReadIndexed, GrepIndexed,
// GlobIndexed) serve a project's recorded root, which the index stores
// resolved (index.ResolveRoot), so such a root was swapped after it was
// indexed, and os.OpenRoot would follow it wherever it leads. Errors:
// ErrOutsideRoot; a root that cannot be looked at is left to Confine's
// error.
func recordedRoot(root string) error {
	if fi, err := os.Lstat(root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("the project root %s is a symbolic link now, not the directory that was indexed (index it again to serve where it leads): %w", root, ErrOutsideRoot)
	}
	if err := rootrule.Unmoved(root); err != nil {
		return fmt.Errorf("%w: %w", err, ErrOutsideRoot)
	}
	return nil
}

// maxLinks bounds the symlinks realRel follows (as the kernel's ELOOP).
const maxLinks = 40

// realRel returns the root-relative '/' path that rel names once every
// symlink on it is followed, looking each component up through r (Lstat,
// Readlink): the name a symlink inside the root leads to. A link that
// leads out of the root is an error that os.Root would give ("path escapes
// from parent").
func realRel(r *os.Root, rel string) (string, error) {
	todo := strings.Split(rel, "/")
	var out []string
	links := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(out) == 0 {
				return "", errEscapes(rel)
			}
			out = out[:len(out)-1]
			continue
		}
		cur := path.Join(append(out, c)...)
		fi, err := r.Lstat(filepath.FromSlash(cur))
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			out = append(out, c)
			continue
		}
		if links++; links > maxLinks {
			return "", &fs.PathError{Op: "resolve", Path: rel, Err: syscall.ELOOP}
		}
		dst, err := r.Readlink(filepath.FromSlash(cur))
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(dst) {
			return "", errEscapes(rel)
		}
		todo = append(strings.Split(filepath.ToSlash(dst), "/"), todo...)
	}
	if len(out) == 0 {
		return ".", nil
	}
	return path.Join(out...), nil
}

// errEscapes is the error os.Root gives for a path that leaves the root.
func errEscapes(rel string) error {
	return &fs.PathError{Op: "resolve", Path: rel, Err: errors.New("path escapes from parent")}
}

// Rel returns the root-relative '/' path of the target after symlinks
// inside the root; "." for the root itself.
func (t *Target) Rel() string { return t.rel }

// Info returns the file information of the target (symlinks followed).
func (t *Target) Info() fs.FileInfo { return t.info }

// OpenRegular opens the root-relative path rel ('/' separators) through
// the target's os.Root (walk.OpenRegular): regular files only, never
// outside the root, whatever was swapped in since Confine. A path leading
// out is ErrOutsideRoot, a missing one ErrNotFound.
func (t *Target) OpenRegular(rel string) (*os.File, fs.FileInfo, error) {
	f, info, err := walk.OpenRegular(t.fs, filepath.FromSlash(rel))
	if err != nil {
		return nil, nil, openError(err)
	}
	return f, info, nil
}

// Close releases the target's os.Root.
func (t *Target) Close() error { return t.fs.Close() }

// abs returns the absolute path of the resolved target.
func (t *Target) abs() string {
	return filepath.Join(t.root, filepath.FromSlash(t.rel))
}

// Within returns p relative to dir as a '/' path, and whether p is inside dir
// (or is dir); both must be absolute and cleaned the same way.
func Within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// notFound turns a file-system error into ErrNotFound when the path does not
// exist, and drops the path from any other *fs.PathError: after a symlink
// it may be a path outside the root, which no message should show.
func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return notFoundError{err}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// notFoundError is ErrNotFound and the file-system error under it, worded
// once ("no such file or directory", not the lstat text again).
type notFoundError struct{ err error }

func (e notFoundError) Error() string   { return ErrNotFound.Error() }
func (e notFoundError) Unwrap() []error { return []error{ErrNotFound, e.err} }

// unquotePath undoes walk.DisplayPath: a path that starts with '"', names no
// file literally under root and unquotes cleanly is returned unquoted;
// anything else is returned as given.
func unquotePath(root, p string) string {
	if len(p) < 2 || p[0] != '"' {
		return p
	}
	lit := p
	if !filepath.IsAbs(lit) {
		lit = filepath.Join(root, filepath.FromSlash(lit))
	}
	if _, err := os.Lstat(lit); err == nil {
		return p
	}
	if u, err := strconv.Unquote(p); err == nil && u != "" {
		return u
	}
	return p
}

// maxEcho is how much of a pattern or other user input a message repeats.
const maxEcho = 200

// clipEcho returns s, or its first n bytes (rune-safe) with the full length,
// for echoing user input such as a pattern back in a message.
func clipEcho(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", clipRunes(s, n), len(s))
}

// clipRunes returns the longest prefix of s no longer than n bytes that does
// not split a UTF-8 sequence.
func clipRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// validUTF8 replaces invalid UTF-8 bytes so the text is safe in JSON.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
