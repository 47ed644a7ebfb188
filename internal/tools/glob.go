package tools

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/coderag/coderag/internal/english"
	"github.com/coderag/coderag/internal/walk"
)

// DefaultGlobLimit is the number of paths Glob returns when Limit is 0.
const DefaultGlobLimit = 200

// GlobParams are the arguments of glob_files.
type GlobParams struct {
	Pattern string `json:"pattern" jsonschema:"glob such as **/*.go or src/**/test_*.py; a pattern without '/' matches file names at any depth"`
	Path    string `json:"path,omitempty" jsonschema:"directory to search, relative to the project root (default: the root)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"maximum number of paths to return (default 200)"`
	// NoIgnore and Hidden are GrepParams.NoIgnore and Hidden.
	NoIgnore bool `json:"no_ignore,omitempty" jsonschema:"list what .gitignore, .coderagignore and the built-in rule (build/, node_modules/, ...) leave out, as rg --no-ignore"`
	Hidden   bool `json:"hidden,omitempty" jsonschema:"list files in hidden directories too, as rg --hidden"`
	// AllowSecrets lists files whose names look like secrets
	// (walk.SecretName); set by the front end, never by a model.
	AllowSecrets bool `json:"-"`
}

// GlobResult lists matching files.
type GlobResult struct {
	Files   []string `json:"files"`   // root-relative '/' paths, in walk order, as DisplayPath shows them
	Partial bool     `json:"partial"` // true when Limit cut the list, or directories too deep or unreadable were not listed (Note)
	Total   int      `json:"total"`   // number of matching files before the cut
	// SkippedDirs: as GrepResult.SkippedDirs; Note says so in a sentence.
	SkippedDirs []string `json:"skipped_dirs,omitempty"`
	Note        string   `json:"note,omitempty"`
}

// Glob lists the project's non-ignored files (internal/walk rules, no size
// cap) under p.Path whose path relative to p.Path matches p.Pattern
// (doublestar syntax: `**`, `*`, `?`, `[...]`, `{a,b}`). A pattern without
// '/' is matched against the file name, so "*.go" finds Go files at any
// depth. Results are sorted by path in walk order (a
// directory's files before "b.go" when the directory is "b", see
// pathLess) and capped at p.Limit (default
// DefaultGlobLimit) with Partial and Total. Errors: ErrBadPattern,
// ErrOutsideRoot, ErrNotFound.
func Glob(ctx context.Context, root string, p GlobParams) (*GlobResult, error) {
	return glob(ctx, root, p, false)
}

// GlobIndexed is Glob over the files an index run would take only (see
// ReadIndexed): no hidden or skipped directory and no ignored file, even
// with NoIgnore or Hidden, only languages coderag indexes; so it lists no
// file that ReadIndexed and GrepIndexed then refuse. A root that is a
// symbolic link is refused (recordedRoot).
func GlobIndexed(ctx context.Context, root string, p GlobParams) (*GlobResult, error) {
	if err := recordedRoot(root); err != nil {
		return nil, fmt.Errorf("glob: %w", err)
	}
	return glob(ctx, root, p, true)
}

func glob(ctx context.Context, root string, p GlobParams, indexed bool) (*GlobResult, error) {
	match, err := compileGlob(p.Pattern)
	if err != nil {
		return nil, fmt.Errorf("glob: %w", err)
	}
	if match == nil {
		return nil, fmt.Errorf("glob: empty pattern: %w", ErrBadPattern)
	}
	t, err := Confine(root, p.Path)
	if err != nil {
		return nil, fmt.Errorf("glob: %w", err)
	}
	defer t.Close()
	limit := p.Limit
	if limit <= 0 {
		limit = DefaultGlobLimit
	}
	res := &GlobResult{Files: []string{}}
	// the path itself: a hidden or skipped directory (.git, node_modules)
	// is walked from inside without its own rule
	if indexed && !t.indexTakes() {
		return nil, fmt.Errorf("glob %s: %w: only files the index takes can be listed here", walk.DisplayPath(t.asked), ErrNotIndexed)
	}
	if !t.info.IsDir() {
		if match(path.Base(t.rel), path.Base(t.rel)) {
			res.Files, res.Total = []string{walk.DisplayPath(t.rel)}, 1
		}
		return res, nil
	}
	dir := t.rel
	if dir == "." {
		dir = ""
	}
	opts := walk.Options{AllFiles: !indexed, Dir: dir, MaxFileBytes: -1, NoIgnore: p.NoIgnore && !indexed, Hidden: p.Hidden && !indexed,
		ReportDirs: true, AllowSecrets: p.AllowSecrets}
	files, skips, err := walk.Collect(ctx, t.root, opts)
	if err != nil {
		return nil, fmt.Errorf("glob %s: %w", p.Pattern, err)
	}
	more := false
	secrets := 0
	var deep []string       // directories nested deeper than the walk goes
	var unreadable []string // "path: reason" of what the walk could not read
	for _, sk := range skips {
		if sk.Reason == walk.ReasonTooDeep {
			deep = append(deep, sk.Path)
			continue
		}
		if sk.Reason == walk.ReasonUnreadable {
			unreadable = append(unreadable, walk.DisplayPath(sk.Path)+": "+unreadableReason(sk.Err))
			continue
		}
		if sk.Reason == walk.ReasonSecret {
			sub := sk.Path
			if dir != "" {
				sub = strings.TrimPrefix(sk.Path, dir+"/")
			}
			if match(sub, path.Base(sub)) {
				secrets++
			}
			continue
		}
		if sk.Reason == walk.ReasonBuiltinDir {
			if len(res.SkippedDirs) == maxSkippedDirs {
				more = true
				break
			}
			res.SkippedDirs = append(res.SkippedDirs, sk.Path)
		}
	}
	res.Note = skippedNote(res.SkippedDirs, more, indexed)
	if secrets > 0 {
		// withheld names that match are said, so an empty list is never
		// mistaken for "no such file"
		res.Note = strings.TrimSpace(res.Note + " " + fmt.Sprintf("Withheld %d secret-looking %s that match%s (allow secrets to list %s).",
			secrets, english.Agree(secrets, "file", "files"), english.Agree(secrets, "es", ""), english.Agree(secrets, "it", "them")))
	}
	if n := len(deep); n > 0 {
		// their files may match: the list is not the whole answer
		sort.Strings(deep)
		named := walk.DisplayPath(deep[0])
		if n > 1 {
			named += fmt.Sprintf(" and %d more", n-1)
		}
		res.Note = strings.TrimSpace(res.Note + " " + fmt.Sprintf("%d %s nested too deep %s not listed (%s).",
			n, english.Agree(n, "directory", "directories"), english.Agree(n, "was", "were"), named))
		res.Partial = true
	}
	if n := len(unreadable); n > 0 {
		// a directory that cannot be read may hold matches: the list is
		// not the whole answer, as grep says of the same tree
		sort.Strings(unreadable)
		res.Note = strings.TrimSpace(res.Note + " " + fmt.Sprintf("%d %s could not be read and %s not listed (%s).",
			n, english.Agree(n, "path", "paths"), english.Agree(n, "was", "were"), strings.Join(unreadable[:min(n, 3)], "; ")))
		res.Partial = true
	}
	sort.Slice(files, func(i, j int) bool { return pathLess(files[i].Path, files[j].Path) })
	for _, f := range files {
		sub := f.Path
		if dir != "" {
			sub = strings.TrimPrefix(f.Path, dir+"/")
		}
		if !match(sub, path.Base(sub)) {
			continue
		}
		res.Total++
		if len(res.Files) < limit {
			res.Files = append(res.Files, walk.DisplayPath(f.Path))
		}
	}
	res.Partial = res.Partial || res.Total > len(res.Files)
	return res, nil
}

// Text renders the result for people and agents: one path a line, then a
// status line when the list was cut or is empty.
func (r *GlobResult) Text() string {
	var b strings.Builder
	for _, f := range r.Files {
		b.WriteString(f)
		b.WriteByte('\n')
	}
	switch {
	case r.Total == 0 && r.Partial:
		b.WriteString("(no matching files among those that could be listed)\n")
	case r.Total == 0:
		b.WriteString("(no matching files)\n")
	case r.Partial && r.Total > len(r.Files):
		fmt.Fprintf(&b, "(partial: %d of %d files shown; narrow the pattern or path)\n", len(r.Files), r.Total)
	}
	if r.Note != "" {
		b.WriteString(r.Note + "\n")
	}
	return b.String()
}

// compileGlob validates a glob and returns a matcher taking the path
// relative to the search directory and its base name; nil for "".
func compileGlob(pattern string) (func(rel, base string) bool, error) {
	pattern = strings.TrimPrefix(strings.TrimPrefix(pattern, "./"), "/")
	if pattern == "" {
		return nil, nil
	}
	for _, seg := range strings.Split(pattern, "/") {
		if seg == ".." {
			return nil, fmt.Errorf("glob %q: '..' leaves the project (patterns are relative to it): %w", pattern, ErrOutsideRoot)
		}
	}
	if !doublestar.ValidatePattern(pattern) {
		return nil, fmt.Errorf("glob %q: %w", pattern, ErrBadPattern)
	}
	if !strings.Contains(pattern, "/") {
		return func(_, base string) bool {
			ok, _ := doublestar.Match(pattern, base)
			return ok
		}, nil
	}
	return func(rel, _ string) bool {
		ok, _ := doublestar.Match(pattern, rel)
		return ok
	}, nil
}
