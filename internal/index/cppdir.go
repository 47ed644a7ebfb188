package index

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// cppDirs says, once per directory and run, whether a directory holds C++
// sources (.cc, .cpp, .cxx, .hpp, .hh, .hxx): a .h file beside them is a
// C++ header (chunk.Options.CppHeader), as in leveldb's db/ and table/.
// Safe for concurrent use; an unreadable directory holds none.
type cppDirs struct {
	mu   sync.Mutex
	dirs map[string]*cppDirEntry
}

type cppDirEntry struct {
	once sync.Once
	cpp  bool
}

func newCppDirs() *cppDirs { return &cppDirs{dirs: map[string]*cppDirEntry{}} }

// header reports whether the .h file at abs sits beside C++ sources; false
// for other files.
func (c *cppDirs) header(abs string) bool {
	if c == nil || !strings.EqualFold(filepath.Ext(abs), ".h") {
		return false
	}
	dir := filepath.Dir(abs)
	c.mu.Lock()
	e := c.dirs[dir]
	if e == nil {
		e = &cppDirEntry{}
		c.dirs[dir] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.cpp = hasCppSources(dir) })
	return e.cpp
}

func hasCppSources(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, de := range ents {
		switch strings.ToLower(filepath.Ext(de.Name())) {
		case ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx":
			if de.Type().IsRegular() {
				return true
			}
		}
	}
	return false
}
