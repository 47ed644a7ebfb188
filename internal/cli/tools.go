package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/coderag/coderag/internal/english"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/tools"
	"github.com/coderag/coderag/internal/walk"
)

func init() {
	register(command{name: "grep", summary: "search file contents by regex (ripgrep when installed, else native); exact names and strings", run: runGrep})
	register(command{name: "glob", summary: "list files matching a ** glob, ignore rules applied", run: runGlob})
	register(command{name: "read", summary: "print numbered lines of a file: coderag read FILE [--offset N] [--limit N]", run: runRead})
}

// toolRoot resolves --project for the exact tools to the base every
// command shares: the nearest enclosing indexed project root (as search),
// else the directory itself (they need no index). sub is dir relative to
// that root ("" when dir is the root): the scope a bare grep or glob keeps.
// A root rootrule refuses (/, /etc, the home directory, a hidden or
// ignored directory) is an error: nothing outside a project is read.
func toolRoot(e *env, dir string) (root, sub string, err error) {
	d, err := rootrule.Resolve(dir)
	if err != nil {
		return "", "", fmt.Errorf("project %s: %w", dir, err)
	}
	root = d
	check := func(root string) error { return rootrule.Check(root, nil) }
	if exists, err := store.Exists(e.cfg.DBPath()); err == nil && exists {
		if eng, release, err := openEngine(e); err == nil {
			defer release()
			root = eng.Enclosing(e.ctx, d)
			check = func(root string) error { return eng.CheckRoot(e.ctx, root) }
		}
	}
	if err := check(root); err != nil {
		return "", "", fmt.Errorf("project %s: %w", dir, err)
	}
	if rel, err := filepath.Rel(root, d); err == nil && rel != "." {
		sub = filepath.ToSlash(rel)
	}
	return root, sub, nil
}

// toolScope is what grep, glob and read share after their flags: it
// resolves project to the project root (toolRoot) and rewrites *path, a
// FILE or --path argument, relative to it (rootPath). With scoped (grep
// and glob), an empty *path becomes the working directory's subtree of
// the project, which a note on stderr says (subtreeNote).
//
// Without --project (projectGiven false), an absolute FILE or PATH that the
// working directory's project does not hold (or with no project there)
// names its own project, as rg takes any path: the indexed project that
// encloses it, else its directory, under the same root rules as --project
// (pathProject).
func toolScope(e *env, project string, projectGiven bool, path *string, scoped bool) (root string, err error) {
	root, sub, err := toolRoot(e, project)
	if !projectGiven && filepath.IsAbs(*path) && (err != nil || !holds(root, *path)) {
		r, rel, perr := pathProject(e, *path)
		if perr != nil {
			return "", perr
		}
		*path = rel
		return r, nil
	}
	if err != nil {
		return "", err
	}
	if scoped && *path == "" {
		*path = sub
		subtreeNote(e, root, sub)
		return root, nil
	}
	given := filepath.ToSlash(*path)
	*path = rootPath(root, sub, *path)
	if sub != "" && given != "" && *path == given && !filepath.IsAbs(given) && exists(root, sub+"/"+given) {
		// both the root's file and the working directory's exist: say
		// which one is read, and how to name the other
		fmt.Fprintf(e.stderr, "note: %s is the project root's (%s); the working directory's is ./%s\n", given, filepath.Join(root, filepath.FromSlash(given)), given)
	}
	return root, nil
}

// exists reports whether the root-relative '/' path rel names a file or
// directory under root (Lstat: a symlink counts as itself).
func exists(root, rel string) bool {
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil
}

// resolved is p cleaned, its symbolic links evaluated when it exists (as
// toolRoot's roots are).
func resolved(p string) string {
	abs := filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// holds reports whether the absolute path p lies in root.
func holds(root, p string) bool {
	rel, err := filepath.Rel(root, resolved(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// pathProject returns the project of an absolute path p given without
// --project: the indexed project enclosing p, else p's directory (p itself
// when it is one), checked by the root rules (toolRoot), and p relative to
// that root. An error when that directory is refused as a project root.
func pathProject(e *env, p string) (root, rel string, err error) {
	abs := resolved(p)
	d := abs
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		d = filepath.Dir(abs)
	}
	root, _, err = toolRoot(e, d)
	if err != nil {
		return "", "", err
	}
	rel, err = filepath.Rel(root, abs)
	if err != nil {
		return "", "", err
	}
	if rel == "." {
		rel = ""
	}
	return root, filepath.ToSlash(rel), nil
}

// rootPath maps a FILE or --path argument to the project base: a path
// written "./x" or "../x" is the shell's, relative to the working directory
// (a subdirectory of the root); any other path relative to the root (as
// search prints them) is taken as it is; one that only exists relative to
// the working directory is rewritten relative to the root.
func rootPath(root, sub, p string) string {
	if p == "" || filepath.IsAbs(p) || sub == "" {
		return p
	}
	if slash := filepath.ToSlash(p); slash == "." || slash == ".." || strings.HasPrefix(slash, "./") || strings.HasPrefix(slash, "../") {
		return path.Join(sub, slash)
	}
	if exists(root, filepath.ToSlash(p)) {
		return p
	}
	if exists(root, sub+"/"+filepath.ToSlash(p)) {
		return path.Join(sub, filepath.ToSlash(p))
	}
	return p
}

// runGrep exits as rg does: 0 with a match, 1 without one, 2 on any error.
func runGrep(e *env, args []string) error { return asTrouble(grepCommand(e, args)) }

func grepCommand(e *env, args []string) (err error) {
	fs := newFlags(e, "grep", "[flags] PATTERN [PATH]",
		`Search file contents with a regular expression (Go RE2 syntax) under the project (or PATH, a
file or directory in it, as rg takes one; the same as --path), with the
same ignore rules as the index. Without --project, an absolute PATH outside the working
directory's project is searched in its own project (the indexed one that holds it, else its
directory). Uses ripgrep (rg --json, 8 s limit) when it is on PATH, else a
native parallel search. Output is capped (per file, in all, in characters) and says when it is
partial; it ends with up to 3 suggested 'read' calls around the first matches. Files whose
names look like secrets (.env, *.key, credentials.json, ...) are not searched unless
--allow-secrets: a note on stderr counts them ("withheld" in --json), never saying whether
they would match.
Exit status, as rg and grep: 0 when a line matched, 1 when none did, 2 on an error (bad usage,
an invalid regular expression, a path outside the project).`)
	var p tools.GrepParams
	project := fs.String("project", ".", "root directory to search")
	fs.StringVar(&p.Path, "path", "", "sub-directory or file to search, relative to the project")
	fs.StringVar(&p.Glob, "glob", "", "only files matching this glob (e.g. *.go)")
	fs.BoolVar(&p.FixedStrings, "F", false, "pattern is a literal string (also --fixed-strings)")
	fs.BoolVar(&p.FixedStrings, "fixed-strings", false, "pattern is a literal string")
	fs.BoolVar(&p.IgnoreCase, "i", false, "case-insensitive (also --ignore-case)")
	fs.BoolVar(&p.IgnoreCase, "ignore-case", false, "case-insensitive")
	fs.IntVar(&p.HeadLimit, "head-limit", 20, "maximum matches per file")
	fs.IntVar(&p.MaxResults, "max-results", 50, "maximum matches in all")
	fs.IntVar(&p.MaxChars, "max-chars", 24000, "maximum characters of output")
	fs.StringVar(&p.Engine, "engine", "auto", "auto, ripgrep or native")
	fs.IntVar(&p.Context, "C", 0, "lines of context before and after each match (also --context)")
	fs.IntVar(&p.Context, "context", 0, "lines of context before and after each match")
	fs.IntVar(&p.Before, "B", 0, "lines of context before each match")
	fs.IntVar(&p.After, "A", 0, "lines of context after each match")
	fs.BoolVar(&p.NoIgnore, "no-ignore", false, "also search what .gitignore, .coderagignore and the built-in rule (build/, node_modules/, ...) leave out, as rg --no-ignore")
	fs.BoolVar(&p.Hidden, "hidden", false, "also search hidden directories, as rg --hidden")
	asJSON := fs.Bool("json", false, `print the result as JSON; an error as {"error": MSG}`)
	defer func() { err = e.jsonError(*asJSON, err) }()
	pos, err := parse(fs, splitContextFlags(args))
	if err != nil {
		return err
	}
	pathArgGiven := false
	switch {
	case len(pos) == 2 && p.Path == "":
		// `grep PATTERN PATH`, as rg and grep take it
		p.Path, pathArgGiven = pos[1], true
	case len(pos) == 2:
		return usagef("a PATH and --path both name where to search: give one")
	case len(pos) != 1:
		return usagef("want PATTERN and at most one PATH (quote a pattern with spaces), got %d arguments", len(pos))
	}
	if p.Context < 0 || p.Before < 0 || p.After < 0 {
		return usagef("-C, -A and -B must not be negative")
	}
	p.Pattern = pos[0]
	switch p.Engine {
	case tools.EngineAuto, tools.EngineRipgrep, tools.EngineNative:
	default:
		return usagef("unknown --engine %q (want auto, ripgrep or native)", p.Engine)
	}
	if p.HeadLimit < 1 || p.MaxResults < 1 || p.MaxChars < 1 {
		return usagef("--head-limit, --max-results and --max-chars must be at least 1")
	}
	root, err := toolScope(e, *project, flagGiven(fs, "project"), &p.Path, true)
	if err != nil {
		return err
	}
	p.AllowSecrets = e.cfg.AllowSecrets
	res, err := tools.Grep(e.ctx, root, p)
	if pathArgGiven && errors.Is(err, tools.ErrNotFound) {
		// `grep login timeout`: two words meant as one pattern
		words := pos[0] + " " + pos[1]
		again := "coderag grep " + shellQuote(words)
		if e.repl {
			again = "/grep " + shellQuote(words) // replWords reads the shell's quotes
		}
		return usagef("%v (to search for %q, quote it: %s)", cliToolError("grep", err), words, again)
	}
	if err != nil {
		return cliToolError("grep", err)
	}
	// the CLI's flag names in the partial note; the withheld files are
	// said on stderr (withheldNote), as the other notes of the CLI
	shown := *res
	shown.Withheld = 0
	text := cliNames.Replace(shown.Text())
	// a suggested read works when pasted where the user is: it names the
	// project unless the working directory is its root
	projectFlag := ""
	if wd, err := os.Getwd(); err != nil || !sameDir(wd, root) {
		projectFlag = "--project " + shellQuote(root) + " "
	}
	for _, sr := range res.SuggestedReads {
		// the CLI's own command instead of the agents' read_file call
		// (the REPL's /read in the REPL, on the session's project)
		args, _ := json.Marshal(sr.Args)
		path := shellQuote(sr.Args.Path)
		if strings.HasPrefix(sr.Args.Path, "-") {
			path = "-- " + path // a name starting with '-' is not a flag
		}
		// a secret-looking file grep was allowed to search is read only
		// with the same permission
		secrets := ""
		if e.cfg.AllowSecrets && walk.SecretName(sr.Args.Path) {
			secrets = "--allow-secrets "
		}
		read := fmt.Sprintf("coderag read %s%s--offset %d --limit %d %s\n", projectFlag, secrets, sr.Args.Offset, sr.Args.Limit, path)
		if e.repl && path == shellQuote(sr.Args.Path) {
			read = fmt.Sprintf("/read %s --offset %d --limit %d\n", path, sr.Args.Offset, sr.Args.Limit)
		} else if e.repl {
			read = fmt.Sprintf("/read --offset %d --limit %d %s\n", sr.Args.Offset, sr.Args.Limit, path)
		}
		text = strings.Replace(text, sr.Tool+" "+string(args)+"\n", read, 1)
	}
	// --json's notes name the CLI's flags too (suggested_reads keep the
	// tools' call shape, which is the JSON's own format)
	res.Note = cliNames.Replace(res.Note)
	for i, r := range res.PartialReasons {
		res.PartialReasons[i] = cliNames.Replace(r)
	}
	if err := printResult(e, *asJSON, root, res, text); err != nil {
		return err
	}
	if !*asJSON && res.Withheld > 0 {
		fmt.Fprintf(e.stderr, "note: withheld %s whose %s like secrets (.env, *.key, credentials.json, ...): not searched; --allow-secrets searches %s\n",
			english.Counted(res.Withheld, "file"), english.Agree(res.Withheld, "name looks", "names look"), english.Agree(res.Withheld, "it", "them"))
	}
	if len(res.Matches) == 0 {
		return errSilent // "No matches." is printed; exit 1 as rg does
	}
	return nil
}

// splitContextFlags spells grep's "-C3", "-A2", "-B1" as "-C 3" ... for
// the flag package, up to a "--".
func splitContextFlags(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && strings.ContainsRune("ABC", rune(a[1])) && strings.Trim(a[2:], "0123456789") == "" {
			out = append(out, a[:2], a[2:])
			continue
		}
		out = append(out, a)
	}
	return out
}

// cliNames puts the CLI's flag names in the tools' notes.
var cliNames = strings.NewReplacer("(head_limit)", "(--head-limit)", "(max_results)", "(--max-results)",
	"(max_chars)", "(--max-chars)", "no_ignore to search", "--no-ignore to search")

// runGlob exits as grep does: 0 with a file, 1 without one, 2 on any error.
func runGlob(e *env, args []string) error { return asTrouble(globCommand(e, args)) }

func globCommand(e *env, args []string) (err error) {
	fs := newFlags(e, "glob", "[flags] PATTERN",
		"List the project's files matching a glob (`**`, `*`, `?`, `[...]`, `{a,b}`), ignore rules applied, sorted.\nA pattern without '/' matches file names at any depth. Exit status 1 when no file matches, 2 on an error\n(bad usage, a pattern or path that leaves the project).")
	var p tools.GlobParams
	project := fs.String("project", ".", "root directory")
	fs.StringVar(&p.Path, "path", "", "sub-directory to list, relative to the project")
	fs.IntVar(&p.Limit, "limit", 200, "maximum paths")
	fs.BoolVar(&p.NoIgnore, "no-ignore", false, "also list what .gitignore, .coderagignore and the built-in rule (build/, node_modules/, ...) leave out, as rg --no-ignore")
	fs.BoolVar(&p.Hidden, "hidden", false, "also list files in hidden directories, as rg --hidden")
	asJSON := fs.Bool("json", false, `print the result as JSON; an error as {"error": MSG}`)
	defer func() { err = e.jsonError(*asJSON, err) }()
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one PATTERN (quote it so the shell does not expand it)")
	}
	p.Pattern = pos[0]
	if p.Limit < 1 {
		return usagef("--limit must be at least 1, got %d", p.Limit)
	}
	root, err := toolScope(e, *project, flagGiven(fs, "project"), &p.Path, true)
	if err != nil {
		return err
	}
	p.AllowSecrets = e.cfg.AllowSecrets
	res, err := tools.Glob(e.ctx, root, p)
	if err != nil {
		return cliToolError("glob", err)
	}
	text := cliNames.Replace(res.Text())
	res.Note = cliNames.Replace(res.Note)
	if err := printResult(e, *asJSON, root, res, text); err != nil {
		return err
	}
	if res.Total == 0 {
		return errSilent // "(no matching files)" is printed; exit 1 as grep
	}
	return nil
}

func runRead(e *env, args []string) (err error) {
	fs := newFlags(e, "read", "[flags] FILE",
		"Print numbered lines of a text file inside the project, and how many lines remain.\nPaths outside the project and binary files are refused; without --project, an absolute FILE\noutside the working directory's project is read in its own project (the indexed one that holds\nit, else its directory).")
	var p tools.ReadParams
	project := fs.String("project", ".", "root directory")
	fs.IntVar(&p.Offset, "offset", 1, "1-based first line")
	fs.IntVar(&p.Limit, "limit", 200, "number of lines")
	asJSON := fs.Bool("json", false, `print the result as JSON; an error as {"error": MSG}`)
	defer func() { err = e.jsonError(*asJSON, err) }()
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one FILE")
	}
	p.Path = pos[0]
	if p.Offset < 1 || p.Limit < 1 {
		return usagef("--offset and --limit must be at least 1")
	}
	root, err := toolScope(e, *project, flagGiven(fs, "project"), &p.Path, false)
	if err != nil {
		return err
	}
	p.AllowSecrets = e.cfg.AllowSecrets
	res, err := tools.Read(e.ctx, root, p)
	if err != nil {
		return cliToolError("read", err)
	}
	return printResult(e, *asJSON, root, res, res.Text)
}

// cliToolError words a tools error for the command line: without the
// repeated command name, with the CLI's flags and commands in its hints
// instead of the agent tools' parameters, and as a usage error (exit 2) for
// an invalid pattern, as rg does.
func cliToolError(cmd string, err error) error {
	msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), cmd+": "), cmd+" ")
	msg = strings.NewReplacer(
		"set fixed_strings to search for the text literally", "use -F to search for the text literally",
		"use glob_files to list it", "use `coderag glob` to list it",
	).Replace(msg)
	if errors.Is(err, tools.ErrBadPattern) {
		return usageError{msg}
	}
	return errors.New(msg)
}

// shellQuote quotes a path for a POSIX shell (walk.ShellQuote).
var shellQuote = walk.ShellQuote

// printResult writes a tool's result as JSON (with "root", the base of its
// paths, added), or its text ending in a newline.
func printResult(e *env, asJSON bool, root string, v any, text string) error {
	if asJSON {
		return writeJSON(e.stdout, withRoot(root, v))
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	_, err := fmt.Fprint(e.stdout, text)
	return err
}

// withRoot returns v's JSON object with a "root" member added (v itself
// when it does not encode as an object).
func withRoot(root string, v any) any {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return v
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(buf.String()), &m) != nil || m == nil {
		return v
	}
	r, _ := json.Marshal(root)
	m["root"] = r
	return m
}

// sameDir reports whether two directories are the same after resolving
// symlinks.
func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// subtreeNote says on stderr that a grep or glob run from a subdirectory
// of the project covers that subdirectory only, as rg does, while its
// paths and JSON root are the project's.
func subtreeNote(e *env, root, sub string) {
	if sub != "" {
		fmt.Fprintf(e.stderr, "note: searching %s/ (the working directory) only; --project %s covers the whole project\n", sub, shellQuote(root))
	}
}
