package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coderag/coderag/internal/english"
	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/walk"
)

// Grep limits and defaults.
const (
	DefaultHeadLimit  = 20     // matches per file
	DefaultMaxResults = 50     // matches in all
	DefaultMaxChars   = 24_000 // characters of Text() output, before the note
	// DefaultTimeout bounds one search; a timeout gives a partial result.
	DefaultTimeout = 8 * time.Second
	// MaxFileBytes: larger files are not searched (2 MiB).
	MaxFileBytes = 2 << 20
	// MaxMatchChars: longer match lines are clipped around the match.
	MaxMatchChars = 300
	// MaxSuggestedReads is the number of read_file suggestions, one per file.
	MaxSuggestedReads = 3
)

// Engine names, for GrepParams.Engine and GrepResult.Engine.
const (
	EngineAuto    = "auto"    // ripgrep when on PATH, else native
	EngineRipgrep = "ripgrep" // `rg --json`; ErrSearchUnavailable when rg is missing
	EngineNative  = "native"  // the parallel Go search
)

// Partial reasons, in GrepResult.PartialReasons.
const (
	ReasonHeadLimit  = "head_limit"
	ReasonMaxResults = "max_results"
	ReasonMaxChars   = "max_chars"
	ReasonTimeout    = "timeout"
	// ReasonUnreadable: files or directories could not be read (permissions,
	// I/O errors); their lines may be missing.
	ReasonUnreadable = "unreadable"
	// ReasonTooLarge: files over MaxFileBytes were not searched (the native
	// engine) or match but are not shown (ripgrep found them).
	ReasonTooLarge = "too_large"
	// ReasonTooDeep: directories nested deeper than the walk goes were not
	// searched (the native engine).
	ReasonTooDeep = "too_deep"
)

// GrepParams are the arguments of grep_code. Zero values take the defaults.
type GrepParams struct {
	Pattern      string `json:"pattern" jsonschema:"regular expression (Go RE2 syntax), matched within one line; use fixed_strings for literal text"`
	Path         string `json:"path,omitempty" jsonschema:"directory or file to search, relative to the project root (default: the root)"`
	Glob         string `json:"glob,omitempty" jsonschema:"only search files matching this glob, relative to path; without '/' it matches file names at any depth (e.g. *.go)"`
	FixedStrings bool   `json:"fixed_strings,omitempty" jsonschema:"treat pattern as literal text, not a regular expression"`
	IgnoreCase   bool   `json:"ignore_case,omitempty" jsonschema:"match case-insensitively"`
	HeadLimit    int    `json:"head_limit,omitempty" jsonschema:"maximum matches per file (default 20)"`
	MaxResults   int    `json:"max_results,omitempty" jsonschema:"maximum matches in all (default 50)"`
	MaxChars     int    `json:"max_chars,omitempty" jsonschema:"maximum characters of output (default 24000)"`
	Context      int    `json:"context,omitempty" jsonschema:"lines of context before and after each match (as grep -C)"`
	Before       int    `json:"before,omitempty" jsonschema:"lines of context before each match (as grep -B); overrides context"`
	After        int    `json:"after,omitempty" jsonschema:"lines of context after each match (as grep -A); overrides context"`
	NoIgnore     bool   `json:"no_ignore,omitempty" jsonschema:"search what .gitignore, .coderagignore and the built-in rule (build/, node_modules/, ...) leave out, as rg --no-ignore"`
	Hidden       bool   `json:"hidden,omitempty" jsonschema:"search hidden directories too, as rg --hidden"`

	// Engine forces an engine (EngineAuto, EngineRipgrep, EngineNative) for
	// tests and benchmarks; not part of the tool schema.
	Engine string `json:"-"`
	// Timeout overrides DefaultTimeout; not part of the tool schema.
	Timeout time.Duration `json:"-"`
	// AllowSecrets searches files whose names look like secrets
	// (walk.SecretName), passed over otherwise; set by the front end,
	// never by a model.
	AllowSecrets bool `json:"-"`
}

// GrepResult is the answer of grep_code.
type GrepResult struct {
	// Matches in path order (walk order), then line order.
	Matches []Match `json:"matches"`
	// Partial is true whenever a limit or the timeout cut the output.
	Partial bool `json:"partial"`
	// PartialReasons names the cuts: "head_limit", "max_results",
	// "max_chars", "timeout".
	PartialReasons []string `json:"partial_reasons,omitempty"`
	// Engine is "ripgrep" or "native".
	Engine string `json:"engine"`
	// SuggestedReads are up to 3 read_file calls, one per file, in result
	// order, preferring files that are not tests (lang.IsTestFile).
	SuggestedReads []SuggestedRead `json:"suggested_reads,omitempty"`
	// Note explains a cut, a fallback, the directories skipped by the
	// built-in rule or an empty result.
	Note string `json:"note,omitempty"`
	// SkippedDirs are directories under the search path left out by the
	// built-in rule alone (build/, node_modules/, ...; no ignore file
	// names them), at most maxSkippedDirs; NoIgnore searches them.
	SkippedDirs []string `json:"skipped_dirs,omitempty"`
	// Withheld counts the files under the search path (that the glob
	// keeps) withheld for their secret-looking names (walk.SecretName),
	// searched or not alike: it never says whether one would match.
	// Text says so after the note (WithheldNote); AllowSecrets searches
	// them.
	Withheld int `json:"withheld,omitempty"`

	maxChars int
}

// maxSkippedDirs bounds GrepResult.SkippedDirs and GlobResult.SkippedDirs.
const maxSkippedDirs = 5

// skippedNote says which directories the built-in rule left out:
// "Skipped build/ (built-in rule; no_ignore to search it)."; with indexed
// (GrepIndexed, GlobIndexed: a server's sessions, where no_ignore has no
// effect) it says they are not indexed instead of naming no_ignore.
func skippedNote(dirs []string, more, indexed bool) string {
	if len(dirs) == 0 {
		return ""
	}
	names := make([]string, len(dirs))
	for i, d := range dirs {
		names[i] = walk.DisplayPath(d) + "/"
	}
	list := strings.Join(names, ", ")
	if more {
		list += " and more"
	}
	if indexed {
		return fmt.Sprintf("Skipped %s (built-in rule: not indexed, so not searched here).", list)
	}
	return fmt.Sprintf("Skipped %s (built-in rule; no_ignore to search %s).", list, english.Agree(len(dirs), "it", "them"))
}

// passedOver returns what a walk of root with opts leaves out by its rules
// alone: the directories of the built-in rule (none with NoIgnore) and
// the secret-looking files it withholds (walk.PassedOver).
func passedOver(ctx context.Context, root string, opts walk.Options) walk.Passed {
	p, err := walk.PassedOver(ctx, root, opts, maxSkippedDirs)
	if err != nil {
		return walk.Passed{} // the notes are a courtesy; the search itself reports errors
	}
	if opts.NoIgnore {
		p.Builtin, p.More = nil, false
	}
	return p
}

// withheldNote says how many secret-looking files a search withheld
// (GrepResult.Withheld), "" for none: never whether they would match.
func withheldNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("Withheld %d secret-looking %s, not searched (allow secrets to search %s).",
		n, english.Agree(n, "file", "files"), english.Agree(n, "it", "them"))
}

// Match is one matching line.
type Match struct {
	Path    string `json:"path"`              // root-relative, '/' separators
	Line    int    `json:"line"`              // 1-based (internal/lines rules)
	Text    string `json:"text"`              // the line, no '\r' or BOM, valid UTF-8
	Clipped bool   `json:"clipped,omitempty"` // Text is a window of a longer line, cut ends marked "…"
	// Before and After are the context lines around the match
	// (GrepParams.Before/After/Context), nearest last and first; lines
	// that are matches themselves are left out of them.
	Before []ContextLine `json:"before,omitempty"`
	After  []ContextLine `json:"after,omitempty"`
}

// ContextLine is a line shown around a match.
type ContextLine struct {
	Line int    `json:"line"` // 1-based
	Text string `json:"text"` // clipped to MaxMatchChars like a match
}

// SuggestedRead is a read_file call that shows the context of a match.
type SuggestedRead struct {
	Tool string     `json:"tool"` // always "read_file"
	Args ReadParams `json:"args"`
}

// hit is an engine's raw matching line: full text, BOM and '\r' removed.
type hit struct {
	line int
	text string
}

// fileHits are one file's hits, at most headLimit+1 of them.
type fileHits struct {
	path string
	hits []hit
}

// query is what both engines search for.
type query struct {
	pat   *pattern
	t     *Target
	fs    *os.Root                    // the project root: every file is opened through it
	dir   string                      // root-relative start directory, "" for the root
	glob  func(rel, base string) bool // nil for all files; rel is relative to dir
	globS string                      // the glob text, for ripgrep pruning
	head  int                         // hits wanted per file (HeadLimit+1)
	files int                         // stop after this many files with hits
	// indexed limits the search to the files the index takes (GrepIndexed)
	indexed bool
	// noIgnore, hidden: GrepParams.NoIgnore and Hidden
	noIgnore, hidden bool
	// allowSecrets searches secret-looking files too (GrepParams.AllowSecrets)
	allowSecrets bool

	mu         sync.Mutex
	unreadable []string // "path: reason" of files and directories the engine could not read
	// largeSkipped: files over MaxFileBytes the walk passed over (native);
	// largeMatched: files over it that ripgrep found to match; deep:
	// directories nested too deep for the walk (native). Root-relative.
	largeSkipped, largeMatched, deep []string
}

// noteSkip records a path the engine passed over: to *list (one of the
// query's lists above; safe for concurrent use).
func (q *query) noteSkip(list *[]string, p string) {
	q.mu.Lock()
	*list = append(*list, p)
	q.mu.Unlock()
}

// skipNotes returns the notes and partial reasons of the paths the engine
// passed over (noteSkip), each list sorted, at most three paths named.
func (q *query) skipNotes() (notes, reasons []string) {
	name := func(ps []string) string {
		sort.Strings(ps)
		shown := make([]string, 0, 3)
		for _, p := range ps[:min(len(ps), 3)] {
			shown = append(shown, walk.DisplayPath(p))
		}
		s := strings.Join(shown, ", ")
		if len(ps) > 3 {
			s += fmt.Sprintf(" and %d more", len(ps)-3)
		}
		return s
	}
	if n := len(q.largeMatched); n > 0 {
		notes = append(notes, fmt.Sprintf("%d %s larger than 2 MiB %s but %s not shown (%s): coderag reads files up to 2 MiB; search it with rg or grep directly.",
			n, english.Agree(n, "file", "files"), english.Agree(n, "matches", "match"), english.Agree(n, "is", "are"), name(q.largeMatched)))
	}
	if n := len(q.largeSkipped); n > 0 {
		notes = append(notes, fmt.Sprintf("%d %s larger than 2 MiB %s not searched (%s).",
			n, english.Agree(n, "file", "files"), english.Agree(n, "was", "were"), name(q.largeSkipped)))
	}
	if len(q.largeMatched)+len(q.largeSkipped) > 0 {
		reasons = append(reasons, ReasonTooLarge)
	}
	if n := len(q.deep); n > 0 {
		notes = append(notes, fmt.Sprintf("%d %s nested too deep %s not searched (%s).",
			n, english.Agree(n, "directory", "directories"), english.Agree(n, "was", "were"), name(q.deep)))
		reasons = append(reasons, ReasonTooDeep)
	}
	return notes, reasons
}

// noteUnreadable records a file or directory the engine could not read
// (safe for concurrent use).
func (q *query) noteUnreadable(what string) {
	q.mu.Lock()
	q.unreadable = append(q.unreadable, what)
	q.mu.Unlock()
}

// globOK reports whether root-relative path p passes the glob filter.
func (q *query) globOK(p string) bool {
	if q.glob == nil {
		return true
	}
	sub := p
	if q.dir != "" {
		sub = strings.TrimPrefix(p, q.dir+"/")
	}
	return q.glob(sub, path.Base(p))
}

// searchFunc runs one engine; it calls emit with files in path order until
// emit returns false, and reports whether it was cut by ctx's deadline.
type searchFunc func(ctx context.Context, q *query, emit func(fileHits) bool) error

// Engines, swappable in tests.
var (
	nativeSearch  searchFunc = searchNative
	ripgrepSearch searchFunc = searchRipgrep
)

// Grep searches the project under root for p.Pattern and returns matching
// lines in path order (walk order, see pathLess), then line order: at most HeadLimit per file and MaxResults in all,
// rendered within MaxChars, each long line clipped around its match, with up
// to 3 suggested reads. Partial says which limit cut the output; a timeout
// (DefaultTimeout) gives a partial result with reason "timeout", not an
// error. Ripgrep is used when on PATH (and falls back to the native engine
// if it fails); both apply the same ignore rules, 2 MiB cap and binary skip.
// Errors: ErrBadPattern (with the compile error and a hint to use
// fixed_strings), ErrOutsideRoot, ErrNotFound, ErrSearchUnavailable when no
// engine could run, and ctx's error when the caller cancelled.
func Grep(ctx context.Context, root string, p GrepParams) (*GrepResult, error) {
	return grepFiles(ctx, root, p, false)
}

// GrepIndexed is Grep over the files an index run would take only (see
// ReadIndexed): no hidden or skipped directory, even when p.Path names
// one, no ignored file, only languages coderag indexes; a path that is
// not such a file or directory is ErrNotIndexed. A root that is a symbolic
// link is refused (recordedRoot).
func GrepIndexed(ctx context.Context, root string, p GrepParams) (*GrepResult, error) {
	if err := recordedRoot(root); err != nil {
		return nil, fmt.Errorf("grep: %w", err)
	}
	return grepFiles(ctx, root, p, true)
}

// walkOptions are the walk options of q's search below its directory.
func (q *query) walkOptions(maxBytes int64) walk.Options {
	return walk.Options{AllFiles: !q.indexed, Dir: q.dir, MaxFileBytes: maxBytes, AllowSecrets: q.allowSecrets,
		NoIgnore: q.noIgnore && !q.indexed, Hidden: q.hidden && !q.indexed}
}

func grepFiles(ctx context.Context, root string, p GrepParams, indexed bool) (*GrepResult, error) {
	pat, err := compilePattern(p.Pattern, p.FixedStrings, p.IgnoreCase)
	if err != nil {
		return nil, fmt.Errorf("grep: %w", err)
	}
	glob, err := compileGlob(p.Glob)
	if err != nil {
		return nil, fmt.Errorf("grep: %w", err)
	}
	t, err := Confine(root, p.Path)
	if err != nil {
		return nil, fmt.Errorf("grep: %w", err)
	}
	defer t.Close()
	head, maxResults, maxChars, timeout := p.HeadLimit, p.MaxResults, p.MaxChars, p.Timeout
	if head <= 0 {
		head = DefaultHeadLimit
	}
	if maxResults <= 0 {
		maxResults = DefaultMaxResults
	}
	if maxChars <= 0 {
		maxChars = DefaultMaxChars
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if !t.info.IsDir() && !t.info.Mode().IsRegular() {
		return nil, fmt.Errorf("grep %s: %w", walk.DisplayPath(t.asked), walk.ErrNotRegular)
	}
	if !t.info.IsDir() && !p.AllowSecrets && (walk.SecretName(t.asked) || walk.SecretName(t.rel)) {
		return nil, fmt.Errorf("grep %s: %w (set CODERAG_ALLOW_SECRETS=1 or pass --allow-secrets to search it)", walk.DisplayPath(t.asked), ErrSecret)
	}
	if indexed && !t.indexTakes() {
		return nil, fmt.Errorf("grep %s: %w: only files the index takes can be searched here", walk.DisplayPath(t.asked), ErrNotIndexed)
	}
	before, after := p.Context, p.Context
	if p.Before > 0 {
		before = p.Before
	}
	if p.After > 0 {
		after = p.After
	}
	if before < 0 || after < 0 {
		return nil, fmt.Errorf("grep: context lines must not be negative: %w", ErrBadPattern)
	}
	q := &query{pat: pat, t: t, fs: t.fs, glob: glob, globS: p.Glob, head: head + 1, files: maxResults + 1, indexed: indexed,
		noIgnore: p.NoIgnore, hidden: p.Hidden, allowSecrets: p.AllowSecrets}
	if t.info.IsDir() && t.rel != "." {
		q.dir = t.rel
	} else if !t.info.IsDir() {
		q.dir = path.Dir(t.rel)
		if q.dir == "." {
			q.dir = ""
		}
	}

	var notes []string
	if !t.info.IsDir() {
		if t.info.Size() > MaxFileBytes {
			notes = append(notes, fmt.Sprintf("%s is larger than 2 MiB and was not searched.", walk.DisplayPath(t.rel)))
		} else if head, _, err := walk.ReadRegular(t.fs, filepath.FromSlash(t.rel), walk.BinarySniffBytes); err == nil && walk.IsBinary(head) {
			notes = append(notes, fmt.Sprintf("%s is a binary file and was not searched.", walk.DisplayPath(t.rel)))
		}
	}

	engine := p.Engine
	if engine == "" {
		engine = EngineAuto
	}
	res := &GrepResult{Matches: []Match{}, maxChars: maxChars}
	var skipped []string // notes of the paths the engine passed over, after the result's own
	run := func(name string, search searchFunc) error {
		res.Engine = name
		q.unreadable, q.largeSkipped, q.largeMatched, q.deep = nil, nil, nil, nil
		c := newCollector(res, pat, head, maxResults, maxChars)
		if before > 0 || after > 0 {
			c.context = newContextReader(q.fs, before, after)
		}
		sctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		err := search(sctx, q, c.add)
		if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			c.reason(ReasonTimeout)
			err = nil
		}
		if err == nil {
			var sr []string
			skipped, sr = q.skipNotes()
			for _, r := range sr {
				c.reason(r)
			}
		}
		if err == nil && len(q.unreadable) > 0 {
			sort.Strings(q.unreadable)
			c.reason(ReasonUnreadable)
			n := len(q.unreadable)
			notes = append(notes, fmt.Sprintf("%d %s could not be read and %s not searched (%s).",
				n, english.Agree(n, "path", "paths"), english.Agree(n, "was", "were"), strings.Join(q.unreadable[:min(n, 3)], "; ")))
		}
		if err == nil {
			c.finish()
		}
		return err
	}
	switch engine {
	case EngineNative:
		err = run(EngineNative, nativeSearch)
	case EngineRipgrep, EngineAuto:
		if _, lerr := rgPath(); lerr != nil {
			if engine == EngineRipgrep {
				return nil, fmt.Errorf("grep: ripgrep: %w: %w", ErrSearchUnavailable, lerr)
			}
			err = run(EngineNative, nativeSearch)
			break
		}
		err = run(EngineRipgrep, ripgrepSearch)
		if err != nil && ctx.Err() == nil && engine == EngineAuto {
			notes = append(notes, fmt.Sprintf("ripgrep failed (%v); used the native search", err))
			*res = GrepResult{Matches: []Match{}, maxChars: maxChars}
			err = run(EngineNative, nativeSearch)
		}
	default:
		return nil, fmt.Errorf("grep: unknown engine %q", engine)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("grep: %w", ctx.Err())
		}
		return nil, fmt.Errorf("grep %q: %w: %w", clipEcho(p.Pattern, maxEcho), ErrSearchUnavailable, err)
	}
	notes = append(notes, res.Note)
	notes = append(notes, skipped...)
	if t.info.IsDir() {
		// counted by a walk of their names, not by the engine: which
		// engine found a withheld file to match must not be told
		po := passedOver(ctx, t.root, q.walkOptions(-1))
		res.SkippedDirs = po.Builtin
		notes = append(notes, skippedNote(res.SkippedDirs, po.More, q.indexed))
		for _, sp := range po.Secrets {
			if q.globOK(sp) {
				res.Withheld++
			}
		}
	}
	notes = slices.DeleteFunc(notes, func(n string) bool { return n == "" })
	res.Note = strings.TrimSpace(strings.Join(notes, " "))
	return res, nil
}

// collector applies the limits to the engine's stream and builds the result.
type collector struct {
	res          *GrepResult
	pat          *pattern
	head, max    int
	budget, used int
	seen         map[string]bool
	done         bool
	reasons      map[string]bool
	context      *contextReader // nil: no context lines
}

func newCollector(res *GrepResult, pat *pattern, head, max, maxChars int) *collector {
	return &collector{res: res, pat: pat, head: head, max: max, budget: maxChars, seen: map[string]bool{}, reasons: map[string]bool{}}
}

func (c *collector) reason(r string) {
	if !c.reasons[r] {
		c.reasons[r] = true
		c.res.PartialReasons = append(c.res.PartialReasons, r)
	}
	c.res.Partial = true
}

// add takes one file's hits; false means no more are wanted.
func (c *collector) add(fh fileHits) bool {
	if c.done || len(fh.hits) == 0 {
		return !c.done
	}
	hits := fh.hits
	if len(hits) > c.head {
		hits = hits[:c.head]
		c.reason(ReasonHeadLimit)
	}
	var lines []string // the file's lines, for context
	if c.context != nil {
		lines = c.context.lines(fh.path)
	}
	for i, h := range hits {
		if len(c.res.Matches) >= c.max {
			c.reason(ReasonMaxResults)
			c.done = true
			return false
		}
		m := clipMatch(fh.path, h, c.pat)
		if lines != nil {
			prev, next := 0, len(lines)+1 // neighbouring match lines
			if i > 0 {
				prev = hits[i-1].line
			}
			if i+1 < len(hits) {
				next = hits[i+1].line
			}
			m.Before, m.After = c.context.around(lines, h.line, prev, next)
		}
		cost := matchCost(m)
		first := !c.seen[m.Path]
		// a file's first match may take a suggestion slot: a free one, or
		// one held by a test file when this file is not a test
		slot := -1
		if first {
			cost += headerCost(m.Path)
			switch {
			case len(c.res.SuggestedReads) < MaxSuggestedReads:
				slot = len(c.res.SuggestedReads)
				cost += suggestCost(suggest(m), slot == 0)
			case !lang.IsTestFile(m.Path):
				for i := len(c.res.SuggestedReads) - 1; i >= 0; i-- { // the last test file gives way
					if sr := c.res.SuggestedReads[i]; lang.IsTestFile(sr.Args.Path) {
						slot = i
						cost += suggestCost(suggest(m), false) - suggestCost(sr, false)
						break
					}
				}
			}
		}
		if c.used+cost > c.budget {
			c.reason(ReasonMaxChars)
			c.done = true
			return false
		}
		c.used += cost
		if first {
			c.seen[m.Path] = true
			switch {
			case slot == len(c.res.SuggestedReads):
				c.res.SuggestedReads = append(c.res.SuggestedReads, suggest(m))
			case slot >= 0: // drop the test file's suggestion, keep result order
				c.res.SuggestedReads = append(append(c.res.SuggestedReads[:slot:slot], c.res.SuggestedReads[slot+1:]...), suggest(m))
			}
		}
		c.res.Matches = append(c.res.Matches, m)
	}
	return true
}

// finish writes the note.
func (c *collector) finish() {
	var parts []string
	for _, r := range c.res.PartialReasons {
		switch r {
		case ReasonHeadLimit:
			parts = append(parts, fmt.Sprintf("some files have more than %d matches (head_limit)", c.head))
		case ReasonMaxResults:
			parts = append(parts, fmt.Sprintf("stopped at %d matches (max_results)", c.max))
		case ReasonMaxChars:
			parts = append(parts, fmt.Sprintf("stopped at %d characters (max_chars)", c.budget))
		case ReasonTimeout:
			parts = append(parts, "the search timed out, results may be incomplete")
		}
	}
	switch {
	case len(parts) > 0:
		c.res.Note = "Partial: " + strings.Join(parts, "; ") + "; narrow the pattern, path or glob, or raise the limit."
	case len(c.res.Matches) == 0 && c.res.Partial:
		c.res.Note = "No matches shown." // the notes that follow say what was not searched or shown
	case len(c.res.Matches) == 0:
		c.res.Note = "No matches."
	}
}

// clipMatch turns a hit into a Match, clipping a long line to a window of
// MaxMatchChars bytes around the first match (rune-safe, "…" marks cut ends).
func clipMatch(p string, h hit, pat *pattern) Match {
	m := Match{Path: walk.DisplayPath(p), Line: h.line, Text: h.text}
	if len(h.text) > MaxMatchChars {
		start := 0
		if loc := pat.re.FindStringIndex(h.text); loc != nil {
			start = max(0, loc[0]-MaxMatchChars/4)
		}
		start = min(start, len(h.text)-MaxMatchChars)
		for start > 0 && start < len(h.text) && !isRuneStart(h.text[start]) {
			start++
		}
		win := clipRunes(h.text[start:], MaxMatchChars)
		text := win
		if start > 0 {
			text = "…" + text
		}
		if start+len(win) < len(h.text) {
			text += "…"
		}
		m.Text, m.Clipped = text, true
	}
	m.Text = validUTF8(m.Text)
	return m
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func suggest(m Match) SuggestedRead {
	return SuggestedRead{Tool: "read_file", Args: ReadParams{Path: m.Path, Offset: max(1, m.Line-20), Limit: 80}}
}

// Text() layout; the cost functions below must agree with it.
const suggestHeader = "suggested reads:\n"

func headerCost(p string) int { return len(p) + 1 }
func matchCost(m Match) int {
	n := len(strconv.Itoa(m.Line)) + 4 + len(m.Text) + 1
	for _, l := range append(m.Before[:len(m.Before):len(m.Before)], m.After...) {
		n += len(strconv.Itoa(l.Line)) + 4 + len(l.Text) + 1
	}
	return n + 5 // a "  --" separator
}
func suggestLine(s SuggestedRead) string {
	args, _ := json.Marshal(s.Args)
	return s.Tool + " " + string(args) + "\n"
}
func suggestCost(s SuggestedRead, first bool) int {
	n := len(suggestLine(s))
	if first {
		n += len(suggestHeader) + 1
	}
	return n
}

// Text renders the result compactly for agents and the CLI:
//
//	path/to/file.go
//	  12: matching line
//
//	suggested reads:
//	read_file {"path":"path/to/file.go","offset":1,"limit":80}
//	Partial: ... (the note)
//
// Everything before the note fits in MaxChars.
func (r *GrepResult) Text() string {
	var b strings.Builder
	last := ""
	printed := 0 // last line printed in the current file
	withContext := r.hasContext()
	for _, m := range r.Matches {
		if m.Path != last {
			b.WriteString(m.Path)
			b.WriteByte('\n')
			last, printed = m.Path, 0
		}
		first := m.Line
		if len(m.Before) > 0 {
			first = m.Before[0].Line
		}
		if printed > 0 && first > printed+1 && withContext {
			b.WriteString("  --\n") // a gap between context groups, as grep prints
		}
		for _, l := range m.Before {
			if l.Line > printed {
				fmt.Fprintf(&b, "  %d- %s\n", l.Line, l.Text)
			}
		}
		fmt.Fprintf(&b, "  %d: %s\n", m.Line, m.Text)
		printed = m.Line
		for _, l := range m.After {
			fmt.Fprintf(&b, "  %d- %s\n", l.Line, l.Text)
			printed = l.Line
		}
	}
	for i, s := range r.SuggestedReads {
		if i == 0 {
			b.WriteString("\n" + suggestHeader)
		}
		b.WriteString(suggestLine(s))
	}
	out := b.String()
	if r.maxChars > 0 && len(out) > r.maxChars {
		out = clipRunes(out, r.maxChars)
	}
	if r.Note != "" {
		out += r.Note + "\n"
	}
	if n := r.WithheldNote(); n != "" {
		out += n + "\n"
	}
	return out
}

// WithheldNote is the sentence saying how many files the search withheld
// for their secret-looking names (Withheld); "" when none was.
func (r *GrepResult) WithheldNote() string { return withheldNote(r.Withheld) }

// hasContext reports whether any match carries context lines.
func (r *GrepResult) hasContext() bool {
	for _, m := range r.Matches {
		if len(m.Before) > 0 || len(m.After) > 0 {
			return true
		}
	}
	return false
}

// contextReader reads the lines around matches, through the query's
// os.Root like the scanner (regular files only, at most MaxFileBytes).
type contextReader struct {
	files         *fileReader
	before, after int
}

func newContextReader(r *os.Root, before, after int) *contextReader {
	return &contextReader{files: newFileReader(r), before: before, after: after}
}

// lines returns the lines of root-relative file p, numbered as the
// scanner numbers them (BOM and CR removed, split at '\n'), or nil.
func (cr *contextReader) lines(p string) []string {
	buf, err := cr.files.read(p, nil, MaxFileBytes)
	if err != nil {
		return nil
	}
	return strings.Split(string(clean(buf)), "\n")
}

// around returns the context lines of the match on line n (1-based) of
// lines, stopping short of the neighbouring matches on lines prev and
// next so that no line is shown twice.
func (cr *contextReader) around(lines []string, n, prev, next int) (before, after []ContextLine) {
	line := func(i int) ContextLine {
		t := lines[i-1]
		if len(t) > MaxMatchChars {
			t = clipRunes(t, MaxMatchChars) + "…"
		}
		return ContextLine{Line: i, Text: validUTF8(t)}
	}
	for i := max(1, n-cr.before, prev+1); i < n; i++ {
		before = append(before, line(i))
	}
	for i := n + 1; i <= min(len(lines), n+cr.after) && i < next; i++ {
		if i == len(lines) && lines[i-1] == "" {
			break // the empty "line" after a final newline
		}
		after = append(after, line(i))
	}
	return before, after
}
