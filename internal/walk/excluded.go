package walk

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/coderag/coderag/internal/lang"
)

// Excluded says why a walk of root with opts (Options.Dir unset: the
// index's walk of the whole project) leaves out root-relative '/' path
// rel, a directory when isDir, in one phrase; "" when the walk takes it
// (enters the directory, or lists the file). It looks at rel's
// directories from the root down, as the walk enters them, and names the
// first that is left out and by which rule:
//
//   - "src/.cache/ is a hidden directory"
//   - "node_modules/ is left out by the built-in rule (build, dist,
//     node_modules, target, vendor; ...)"
//   - "gen/ is ignored by .gitignore" (the ignore file whose pattern
//     decides, root-relative; a built-in or hidden directory is named so
//     even when an ignore file lists it too)
//
// and then a file itself: ignored by an ignore file, withheld for a
// secret-looking name, or of no language coderag indexes (unless
// Options.AllFiles). It reads only the ignore files on rel's way, not
// the tree.
func Excluded(root, rel string, isDir bool, opts Options) string {
	rel = path.Clean(strings.TrimPrefix(rel, "/"))
	if rel == "." || rel == "" {
		return ""
	}
	m := NewMatcher(root)
	m.off = opts.NoIgnore
	parts := strings.Split(rel, "/")
	dirs := parts
	if !isDir {
		dirs = parts[:len(parts)-1]
	}
	cur := ""
	for _, name := range dirs {
		m.load(cur) // the ignore files of the directory holding this one
		next := path.Join(cur, name)
		switch {
		case strings.HasPrefix(name, ".") && !opts.Hidden:
			return next + "/ is a hidden directory"
		case !opts.NoIgnore && SkipDir(filepath.Join(root, filepath.FromSlash(next)), name):
			return fmt.Sprintf("%s/ is left out by the built-in rule (%s)", next, builtinDirs())
		}
		if f := m.IgnoredBy(next, true); f != "" {
			return fmt.Sprintf("%s/ is ignored by %s", next, f)
		}
		cur = next
	}
	if isDir {
		return ""
	}
	m.load(cur)
	name := path.Base(rel)
	switch f := m.IgnoredBy(rel, false); {
	case f != "":
		return fmt.Sprintf("%s is ignored by %s", rel, f)
	case !opts.AllowSecrets && SecretName(rel):
		return rel + " is withheld: its name looks like a secret file's"
	case !opts.AllFiles && !lang.Indexable(name):
		return rel + " is of no language coderag indexes"
	}
	return ""
}

// builtinDirs lists the names of SkipDirs that are not hidden, sorted,
// for a message: "build, dist, node_modules, target, vendor".
func builtinDirs() string {
	var names []string
	for d := range SkipDirs {
		if !strings.HasPrefix(d, ".") {
			names = append(names, d)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ") + "; build, dist and target only without source files"
}
