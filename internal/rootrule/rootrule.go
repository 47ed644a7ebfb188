// Package rootrule is the one rule for "may this directory be a project":
// every front end applies it before indexing a directory (the CLI, MCP,
// the server's API and page, through index.Run and engine), and every read
// served for a project (file views, read_file, grep, glob, search, graphs,
// MCP sessions) applies it again to the project's root, whoever
// registered it: a root indexed before the rule, or by another client of
// a shared index, is not served either.
//
// Refused, in the order checked (Check's error names the rule):
//   - the file-system root, and any directory that holds the user's home
//     directory (it holds all of the user's files);
//   - the home directory itself;
//   - a top-level directory of the file-system hierarchy that holds the
//     trees of others (Containers: /home, /usr, /var, /tmp, /opt, ...): its
//     subdirectories may be projects, it is not one;
//   - anything inside a system tree (SystemTrees: /etc, /proc, /sys, /dev,
//     /boot, /run, /root, /var/log, /var/lib, /usr/share/doc, ...): the
//     configuration, state, logs and documents of the system, after the
//     Filesystem Hierarchy Standard 3.0, never user trees. /root is the
//     super-user's home: a system tree unless it is the home directory of
//     the process (then only /root itself is refused, as any home is);
//   - a hidden directory, or one inside a hidden directory: any path
//     component starting with '.' (~/.docker, ~/.config/gcloud, a
//     project's .git);
//   - a directory that an indexed project enclosing it does not enter
//     (walk.Rules: its hidden and default-skipped directories such as
//     build output, and what its .gitignore or .coderagignore exclude).
//
// There is no opt-out: a directory the rule refuses is not served by the
// server whatever the client says.
//
// The package also holds a project's identity (Resolve: absolute,
// symlink-resolved), the enclosing-project lookup over the indexed roots
// (Enclosing) and the weaker rule for a directory nobody named, the
// working directory of an MCP server started without a root (Implicit:
// it needs a project marker). engine.Open is their one caller for
// project resolution; front ends do not repeat them.
package rootrule

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/coderag/coderag/internal/walk"
)

// ErrRefused is wrapped by every refusal of Check.
var ErrRefused = errors.New("not a project root")

// Containers are top-level directories (and a few under /usr and /var)
// that hold the trees of the system, of every user or of every program:
// refused themselves, their subdirectories are not (GOROOT at
// /usr/local/go, a checkout under /srv or /tmp). Paths are as
// filepath.EvalSymlinks returns them (macOS: /private/tmp).
var Containers = []string{
	"/home", "/Users", "/usr", "/usr/local", "/usr/lib", "/usr/lib64", "/usr/share", "/usr/src", "/usr/include",
	"/var", "/var/tmp", "/opt", "/srv", "/mnt", "/media", "/tmp", "/Volumes", "/private", "/private/tmp",
	"/private/var", "/nix", "/nix/store", "/snap", "/Applications",
}

// SystemTrees are the system's own trees after the FHS 3.0: host
// configuration, virtual file systems, boot files, run-time state,
// variable state, logs, caches, spools and mail, the super-user's home,
// system binaries and libraries, and documentation; with the macOS
// equivalents. A directory in one of them is never a project.
var SystemTrees = []string{
	"/etc", "/proc", "/sys", "/dev", "/boot", "/run", "/root", "/lost+found",
	"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/usr/bin", "/usr/sbin", "/usr/libexec", "/usr/games",
	"/usr/share/doc", "/usr/share/man", "/usr/share/info", "/usr/share/locale", "/usr/share/zoneinfo",
	"/var/log", "/var/lib", "/var/cache", "/var/spool", "/var/mail", "/var/backups", "/var/run", "/var/lock",
	"/var/db", "/var/opt", "/var/account", "/var/crash",
	"/System", "/Library", "/private/etc", "/private/var/log", "/private/var/db", "/private/var/root", "/cores",
}

// Check returns nil when dir (an absolute path; symlinks are resolved
// here when dir exists, and both forms are checked) may be a project root, given indexed, the roots
// of the projects already in the index (dir itself among them or not).
// A refusal wraps ErrRefused and names the rule, on one line.
func Check(dir string, indexed []string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("%w: %s is relative: give an absolute directory", ErrRefused, dir)
	}
	dir = filepath.Clean(dir)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || real == dir {
		return check(dir, indexed)
	}
	// the path as given names the rule a person sees (/proc/self/root is
	// in /proc), the resolved one the directory that would be read
	if err := check(dir, indexed); err != nil {
		return err
	}
	return check(real, indexed)
}

// check is Check of one clean absolute path.
func check(dir string, indexed []string) error {
	home := homeDir()
	switch {
	case dir == filepath.Dir(dir):
		return refuse(dir, "is the file-system root")
	case home != "" && dir == home:
		return refuse(dir, "is the home directory")
	case home != "" && within(home, dir):
		return refuse(dir, "holds the home directory "+home)
	}
	for _, c := range Containers {
		if dir == c {
			return refuse(dir, "is a system directory that holds the trees of others (a project may be below it, not it)")
		}
	}
	for _, s := range SystemTrees {
		if dir != s && !within(dir, s) {
			continue
		}
		if s == "/root" && home != "" && (home == s || within(home, s)) {
			continue // the process's own home: only the home itself is refused
		}
		return refuse(dir, "is in the system directory "+s)
	}
	for _, part := range strings.Split(dir, string(filepath.Separator)) {
		if strings.HasPrefix(part, ".") {
			return refuse(dir, "is, or is inside, the hidden directory "+part)
		}
	}
	for _, r := range indexed {
		r = filepath.Clean(r)
		if r == dir || !within(dir, r) {
			continue
		}
		rel, err := filepath.Rel(r, dir)
		if err != nil {
			continue
		}
		st, err := os.Lstat(dir)
		if err != nil {
			continue
		}
		if !walk.NewRules(r, walk.Options{}).Candidate(filepath.ToSlash(rel), fs.FileInfoToDirEntry(st)).OK {
			return refuse(dir, "is not indexed by the project "+r+" that holds it (hidden, build output, or excluded by its ignore files)")
		}
	}
	return nil
}

// refuse is Check's one-line error for dir: "not a project root: DIR WHY".
func refuse(dir, why string) error {
	return fmt.Errorf("%w: %s %s", ErrRefused, dir, why)
}

// within reports whether p is strictly inside dir.
func within(p, dir string) bool {
	if dir == string(filepath.Separator) {
		return p != dir && filepath.IsAbs(p)
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// homeDir is the user's home directory, symlinks resolved; "" when unknown.
func homeDir() string {
	h, err := os.UserHomeDir()
	if err != nil || h == "" || !filepath.IsAbs(h) {
		return ""
	}
	h = filepath.Clean(h)
	if real, err := filepath.EvalSymlinks(h); err == nil {
		h = real
	}
	return h
}

// Resolve returns the absolute, symlink-resolved form of dir, the
// identity of a project: two spellings of one directory are one project.
// Errors: syscall.ENOENT for a directory that does not exist (not the
// first missing component EvalSymlinks names: callers name dir),
// syscall.ENOTDIR ("not a directory"; callers name dir), or the file
// system's.
func Resolve(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, os.ErrNotExist) {
		return "", syscall.ENOENT
	}
	if err != nil {
		return "", err
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", syscall.ENOTDIR // "not a directory": callers name dir
	}
	return real, nil
}

// ErrMoved: a recorded project root no longer resolves to itself.
var ErrMoved = errors.New("the project root was replaced by a symbolic link")

// Unmoved checks that root, a project root as the index recorded it
// (Resolve's form: absolute, every symlink resolved), still resolves to
// itself. When root or a directory above it was replaced by a symbolic
// link after the project was indexed, every path under root leads to the
// link's target, a directory nobody indexed: serving or re-indexing it
// under the old project's name would show files from outside every
// project. Errors: ErrMoved naming root, not where it leads now (a
// server's client must learn nothing of the outside directory); a root
// that cannot be resolved (gone, unreadable) is nil here, left to the
// caller's own error when it opens the root.
func Unmoved(root string) error {
	real, err := filepath.EvalSymlinks(root)
	if err != nil || real == filepath.Clean(root) {
		return nil
	}
	return fmt.Errorf("%w: %s no longer leads to the directory that was indexed (it, or a directory above it, became a symbolic link); index the directory by its own path to index it", ErrMoved, root)
}

// Enclosing returns the root among roots that holds dir (both clean and
// absolute): dir itself when it is one of them, else its nearest ancestor
// in roots. ok is false when none holds it.
func Enclosing(dir string, roots []string) (root string, ok bool) {
	for _, r := range roots {
		r = filepath.Clean(r)
		if (r == dir || within(dir, r)) && len(r) > len(root) {
			root, ok = r, true
		}
	}
	return root, ok
}

// Markers are the names (files or directories) that make a directory a
// project when nobody named it: version control, then the build files of
// the languages coderag parses (Implicit).
var Markers = []string{
	".git", ".hg", ".svn", ".jj", ".coderagignore",
	"go.mod", "go.work", "package.json", "deno.json", "tsconfig.json",
	"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile",
	"Cargo.toml", "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
	"build.sbt", "CMakeLists.txt", "Makefile", "meson.build", "composer.json", "Gemfile",
	"mix.exs", "pubspec.yaml", "Package.swift", "Directory.Build.props",
}

// ErrNoMarker is wrapped by Implicit's refusals.
var ErrNoMarker = errors.New("not a project")

// Implicit returns nil when dir (absolute, symlink-resolved), which
// nobody named as a project (an MCP server's working directory), may be
// taken as one: it is neither the file-system root nor the home
// directory, and it or a directory above it short of the home directory
// holds one of Markers. A refusal wraps ErrNoMarker and says, after
// "DIR", why: "is the file-system root", "is the home directory", "has no
// project marker (...)".
func Implicit(dir string) error {
	home := homeDir()
	switch {
	case dir == filepath.Dir(dir):
		return fmt.Errorf("%w: %s is the file-system root", ErrNoMarker, dir)
	case home != "" && dir == home:
		return fmt.Errorf("%w: %s is the home directory", ErrNoMarker, dir)
	}
	for d := dir; d != filepath.Dir(d) && d != home; d = filepath.Dir(d) {
		for _, m := range Markers {
			if _, err := os.Lstat(filepath.Join(d, m)); err == nil {
				return nil
			}
		}
	}
	return fmt.Errorf("%w: %s has no project marker (.git, go.mod, package.json, pyproject.toml, Cargo.toml, pom.xml, ...)", ErrNoMarker, dir)
}
