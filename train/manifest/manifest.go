// Package manifest reads the training corpus manifest (train/manifest.tsv)
// and the exclusion list (train/exclude.tsv), for the miner and for the test
// that keeps excluded code out of the corpus.
//
// manifest.tsv: a header line, then registry<TAB>package<TAB>version<TAB>sha256,
// where registry is "debian" (a binary .deb, sha256 of the .deb),
// "debian-src" (a source package, sha256 of its .dsc) or "npm" (a package of
// the npm registry, sha256 of its tarball).
//
// exclude.tsv: lines "project<TAB>why<TAB>globs", '#' comments; globs are
// comma-separated path.Match patterns matched against package names.
package manifest

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"strings"
)

// Row is one package of the manifest.
type Row struct {
	Registry, Package, Version, SHA256 string
}

// Read returns the rows of a manifest file, in file order. A line without
// four fields is an error naming its line number.
func Read(file string) ([]Row, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	defer f.Close()
	var out []Row
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if n == 1 && strings.HasPrefix(l, "registry\t") || l == "" {
			continue
		}
		fs := strings.Split(l, "\t")
		if len(fs) != 4 {
			return nil, fmt.Errorf("read manifest: %s:%d: %d fields, want 4", file, n, len(fs))
		}
		out = append(out, Row{fs[0], fs[1], fs[2], fs[3]})
	}
	return out, sc.Err()
}

// Group is the selection group of a row, the unit of Limit: the package
// name's first '-'-separated word for binary packages ("python3",
// "librust", "golang", "node", "ruby", "php"), "src" for source packages,
// "npm" for npm packages. train/fetch.sh computes the same.
func Group(r Row) string {
	switch r.Registry {
	case "debian-src":
		return "src"
	case "npm":
		return "npm"
	}
	g, _, _ := strings.Cut(r.Package, "-")
	return g
}

// Limit returns the first n rows of each Group, in manifest order.
func Limit(rows []Row, n int) []Row {
	seen := map[string]int{}
	var out []Row
	for _, r := range rows {
		g := Group(r)
		if seen[g] < n {
			seen[g]++
			out = append(out, r)
		}
	}
	return out
}

// Exclusion is one line of exclude.tsv.
type Exclusion struct {
	Project string
	Why     string
	Globs   []string
}

// Excludes is the exclusion list.
type Excludes []Exclusion

// ReadExclude reads exclude.tsv.
func ReadExclude(file string) (Excludes, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read exclusions: %w", err)
	}
	var out Excludes
	for i, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		fs := strings.Split(l, "\t")
		if len(fs) != 3 {
			return nil, fmt.Errorf("read exclusions: %s:%d: %d fields, want 3", file, i+1, len(fs))
		}
		e := Exclusion{Project: fs[0], Why: fs[1]}
		for _, g := range strings.Split(fs[2], ",") {
			if g = strings.TrimSpace(g); g != "" {
				if _, err := path.Match(g, ""); err != nil {
					return nil, fmt.Errorf("read exclusions: %s:%d: glob %q: %w", file, i+1, g, err)
				}
				e.Globs = append(e.Globs, g)
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// Match returns the project a package name is excluded for, or "".
func (ex Excludes) Match(pkg string) string {
	for _, e := range ex {
		for _, g := range e.Globs {
			if ok, _ := path.Match(g, pkg); ok {
				return e.Project
			}
		}
	}
	return ""
}

// MatchRow is Match over every name a manifest row goes by. An npm package
// is also matched with its scope squashed into its name ("@trpc/server" as
// "trpc-server") and in Debian's form ("node-trpc-server"), so the globs
// written for Debian packagings catch the npm one too.
func (ex Excludes) MatchRow(r Row) string {
	names := []string{r.Package}
	if r.Registry == "npm" {
		flat := strings.ReplaceAll(strings.TrimPrefix(r.Package, "@"), "/", "-")
		names = append(names, flat, "node-"+flat)
	}
	for _, n := range names {
		if p := ex.Match(n); p != "" {
			return p
		}
	}
	return ""
}

// Projects returns the project names, the directory names the miner skips.
func (ex Excludes) Projects() []string {
	out := make([]string, len(ex))
	for i, e := range ex {
		out[i] = e.Project
	}
	return out
}

// Squash lower-cases a name and drops everything but letters and digits,
// so "telescope.nvim", "Telescope-NVim" and "telescopenvim" compare equal.
func Squash(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
