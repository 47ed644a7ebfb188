package index

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/walk"
)

// goPackages loads, once per directory and run, the declarations of the Go
// package a file belongs to (chunk.NewGoPackage over the directory's .go
// files), so that calls on values of types declared in sibling files are
// typed. Safe for concurrent use; a directory that cannot be read yields
// nil (the file's own declarations are used).
type goPackages struct {
	mu   sync.Mutex
	dirs map[string]*goPkgEntry
}

type goPkgEntry struct {
	once sync.Once
	pkg  *chunk.GoPackage
}

func newGoPackages() *goPackages { return &goPackages{dirs: map[string]*goPkgEntry{}} }

// get returns the package of the Go file at abs, or nil for other files.
func (g *goPackages) get(abs string) *chunk.GoPackage {
	if g == nil || !strings.HasSuffix(abs, ".go") {
		return nil
	}
	dir := filepath.Dir(abs)
	g.mu.Lock()
	e := g.dirs[dir]
	if e == nil {
		e = &goPkgEntry{}
		g.dirs[dir] = e
	}
	g.mu.Unlock()
	e.once.Do(func() { e.pkg = loadGoPackage(dir) })
	return e.pkg
}

func loadGoPackage(dir string) *chunk.GoPackage {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	files := map[string][]byte{}
	for _, de := range ents {
		if !de.Type().IsRegular() || !strings.HasSuffix(de.Name(), ".go") {
			continue
		}
		if info, err := de.Info(); err != nil || info.Size() > walk.MaxFileBytes {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, de.Name())); err == nil {
			files[de.Name()] = b
		}
	}
	return chunk.NewGoPackage(files)
}
