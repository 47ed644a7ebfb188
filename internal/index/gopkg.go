package index

import (
	"maps"
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
//
// A run's packages are dropped as their directories are done: pending
// counts the run's .go files not yet prepared in each directory, and done
// forgets a directory's package when its count reaches zero. A run over
// GOROOT/src otherwise held every package it had loaded to its end (18 MB
// of its live heap at the end, which the GC's goal doubles). A directory
// the counts do not know keeps its package for the run.
type goPackages struct {
	mu      sync.Mutex
	dirs    map[string]*goPkgEntry
	pending map[string]int // directory -> .go files of the run not yet done
	// digests holds the declaration digest (chunk.GoPackage.Digest) of
	// every package the run loaded, by directory: what the run's parses
	// of that directory read (dirstate.go). Kept when the package goes.
	digests map[string]string
}

type goPkgEntry struct {
	once sync.Once
	pkg  *chunk.GoPackage
}

// newGoPackages returns the packages of a run over files: each .go file
// among them is expected to be handed to done once it is prepared.
func newGoPackages(files []walk.File) *goPackages {
	g := &goPackages{dirs: map[string]*goPkgEntry{}, pending: map[string]int{}, digests: map[string]string{}}
	g.expect(files)
	return g
}

// expect adds files to those expected to be handed to done (see
// newGoPackages).
func (g *goPackages) expect(files []walk.File) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, f := range files {
		if strings.HasSuffix(f.Abs, ".go") {
			g.pending[filepath.Dir(f.Abs)]++
		}
	}
}

// get returns the package of the Go file at abs, or nil for other files.
func (g *goPackages) get(abs string) *chunk.GoPackage {
	if g == nil || !strings.HasSuffix(abs, ".go") {
		return nil
	}
	return g.load(filepath.Dir(abs))
}

// load returns the package of directory dir (absolute), loading it on
// first use and recording its digest; nil for an unreadable directory.
func (g *goPackages) load(dir string) *chunk.GoPackage {
	g.mu.Lock()
	e := g.dirs[dir]
	if e == nil {
		e = &goPkgEntry{}
		g.dirs[dir] = e
	}
	g.mu.Unlock()
	e.once.Do(func() {
		e.pkg = loadGoPackage(dir)
		if e.pkg != nil {
			d := e.pkg.Digest()
			g.mu.Lock()
			g.digests[dir] = d
			g.mu.Unlock()
		}
	})
	return e.pkg
}

// digest returns the declaration digest of directory dir's package
// (absolute): the one recorded when a parse of the run loaded it, else
// loading it now; ok is false for an unreadable directory.
func (g *goPackages) digest(dir string) (d string, ok bool) {
	g.mu.Lock()
	d, ok = g.digests[dir]
	g.mu.Unlock()
	if ok {
		return d, true // loaded by a parse of the run, perhaps dropped since
	}
	if g.load(dir) == nil {
		return "", false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.digests[dir], true
}

// loadedDigests returns a copy of the digests of the packages loaded so
// far, by directory.
func (g *goPackages) loadedDigests() map[string]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.digests)
}

// done records that the file at abs, one of the run's files, is prepared
// (whether or not it asked for its package); the package of its directory
// is dropped after the directory's last .go file. A later get of that
// directory would load it again.
func (g *goPackages) done(abs string) {
	if g == nil || !strings.HasSuffix(abs, ".go") {
		return
	}
	dir := filepath.Dir(abs)
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.pending[dir]
	if !ok {
		return
	}
	if n > 1 {
		g.pending[dir] = n - 1
		return
	}
	delete(g.pending, dir)
	delete(g.dirs, dir)
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
