package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/coderag/coderag/internal/walk"
)

// PrivateModeIssue describes how other users of the machine can read the
// index at path (an SQLite file) or its write-ahead log, with the command
// that stops it, or "" when they cannot: a file readable by its group or by
// others, in a directory they may enter. An index made before the SQLite
// store created it private (0600) was created 0644 in a 0755 directory.
func PrivateModeIssue(path string) string {
	dir, err := os.Stat(filepath.Dir(path))
	if err != nil {
		return ""
	}
	var open []string
	for _, p := range []string{path, path + "-wal"} {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		f, d := fi.Mode().Perm(), dir.Mode().Perm()
		// read on the file and search on the directory, per class
		if f&0o004 != 0 && d&0o001 != 0 || f&0o040 != 0 && d&0o010 != 0 {
			open = append(open, fmt.Sprintf("%s is %04o", p, f))
		}
	}
	if len(open) == 0 {
		return ""
	}
	return fmt.Sprintf("other users of this machine can read the indexed code (%s): chmod 600 %s*",
		strings.Join(open, ", "), walk.ShellQuote(path))
}
