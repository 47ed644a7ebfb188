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
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
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
)

// target is a path resolved against the project root.
type target struct {
	root  string      // absolute project root as given (not symlink-resolved)
	rel   string      // root-relative '/' path of the resolved target; "." for the root
	asked string      // root-relative '/' path as requested (lexically cleaned)
	info  fs.FileInfo // of the resolved target
}

// resolve maps p (relative to root, or absolute inside it; "" is the root)
// to a target, refusing anything outside root: `..` escapes, absolute paths
// elsewhere and symlinks that point out (resolved with filepath.EvalSymlinks).
//
// p may also be the quoted form walk.DisplayPath gives a name that is not valid
// UTF-8 or holds control characters (`"bad\xff.go"`): when no file has the
// literal name, the unquoted one is used.
//
// Resolving is a check for messages and for the kind of target; every read
// opens again through os.Root (openIn), so a path swapped for a symlink
// after this check still cannot read outside the root.
func resolve(root, p string) (*target, error) {
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
	real, err := filepath.EvalSymlinks(cand)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", p, notFound(err))
	}
	rel, ok := Within(realRoot, real)
	if !ok {
		// never say where the link points: that would print a path
		// outside the project (and probe it) for whoever asked
		return nil, fmt.Errorf("%q: a symlink on the path leads out: %w", p, ErrOutsideRoot)
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", p, notFound(err))
	}
	return &target{root: absRoot, rel: rel, asked: asked, info: info}, nil
}

// openIn opens the project root of t as an os.Root, through which every file
// is read (see walk.OpenRegular).
func (t *target) openIn() (*os.Root, error) {
	r, err := os.OpenRoot(t.root)
	if err != nil {
		return nil, fmt.Errorf("open root: %w", notFound(err))
	}
	return r, nil
}

// abs returns the absolute path of the resolved target.
func (t *target) abs() string {
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
