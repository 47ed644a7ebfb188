package cli

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/zh"
)

var (
	dictMu   sync.Mutex
	dictMemo = map[string]*zh.Dict{} // loaded dictionaries by source path: read-only data, loaded once per process
)

// newAnalyzer is the text analysis of a configuration, built once per
// Main and given to its engines (engine.Config.Analyzer) and embedders.
// Its dictionary is CODERAG_CEDICT, else dict/node_modules next to the
// executable or above the working directory, else $CODERAG_HOME (see
// zh.Locate). Nothing is read until the first Chinese text. The reduced
// dictionary is cached beside the npm package
// (node_modules/.cache/coderag, as other npm tools cache), else in
// $CODERAG_HOME/cache, else the user cache directory.
func newAnalyzer(cfg config.Config) *analyze.Analyzer {
	return analyze.New(func() (*zh.Dict, error) {
		path, err := locateDictionary(cfg)
		if err != nil || path == "" {
			return nil, err
		}
		dictMu.Lock()
		defer dictMu.Unlock()
		if d := dictMemo[path]; d != nil {
			return d, nil
		}
		d, err := zh.Load(path, cacheDirs(path, cfg.Home)...)
		if err != nil {
			return nil, err
		}
		dictMemo[path] = d
		return d, nil
	})
}

// dictionaryCached reports whether the dictionary newAnalyzer would load
// for cfg has its cache already, or there is none to load: then the
// first Chinese text reads it in tens of milliseconds, and nothing needs
// building ahead.
func dictionaryCached(cfg config.Config) bool {
	path, err := locateDictionary(cfg)
	if err != nil || path == "" {
		return true
	}
	return zh.HasCache(path, cacheDirs(path, cfg.Home)...)
}

// locateDictionary finds the CC-CEDICT file for cfg (zh.Locate from the
// override, the executable's and the working directory's places and
// $CODERAG_HOME); "" with no error when there is none.
func locateDictionary(cfg config.Config) (string, error) {
	loc := zh.Locations{Override: cfg.CEDICT, Home: cfg.Home}
	if exe, err := os.Executable(); err == nil {
		loc.Exe = exe
	}
	if wd, err := os.Getwd(); err == nil {
		loc.Cwd = wd
	}
	path, _, err := zh.Locate(loc)
	return path, err
}

// cacheDirs lists where the dictionary cache may go, best first.
func cacheDirs(src, home string) []string {
	var out []string
	if i := strings.LastIndex(src, string(filepath.Separator)+"node_modules"+string(filepath.Separator)); i >= 0 {
		out = append(out, filepath.Join(src[:i], "node_modules", ".cache", "coderag"))
	}
	out = append(out, filepath.Join(home, "cache"))
	if uc, err := os.UserCacheDir(); err == nil {
		out = append(out, filepath.Join(uc, "coderag"))
	}
	return out
}
