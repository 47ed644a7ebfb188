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
	return c.dir(filepath.Dir(abs))
}

// dir reports whether directory dir (absolute) holds C++ sources, looking
// once per run.
func (c *cppDirs) dir(dir string) bool {
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
		if isCppSource(de.Name()) && de.Type().IsRegular() {
			return true
		}
	}
	return false
}

// isCppSource reports whether name's extension marks a C++ source
// (.cc, .cpp, .cxx, .hpp, .hh, .hxx, in any case).
func isCppSource(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx":
		return true
	}
	return false
}

// looked returns what dir found for each directory it looked at in the
// run, by directory. Call it once the run's parses are done.
func (c *cppDirs) looked() map[string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]bool, len(c.dirs))
	for d, e := range c.dirs {
		out[d] = e.cpp
	}
	return out
}
