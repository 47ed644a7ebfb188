// Package cli implements the coderag command line: one file per subcommand,
// each with its own flag.FlagSet. Main is the whole program minus os.Exit,
// so tests drive it in process.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/english"
	"github.com/coderag/coderag/internal/httpx"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/store"

	"golang.org/x/term"
)

// Version is the coderag version, set at build time with -ldflags.
var Version = "0.1.0-dev"

// exit codes
const (
	exitOK          = 0
	exitErr         = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// env is what every subcommand gets.
type env struct {
	ctx    context.Context
	cfg    config.Config
	cfgErr error // from config.FromLookup: reported by the commands that embed or index
	stdout io.Writer
	stderr io.Writer
	stdin  io.Reader
	// termOut is standard output itself when it is a terminal, and stdout
	// then writes through termSafe; nil otherwise (rawStdout).
	termOut io.Writer
	// an is the text analysis of this run (newAnalyzer), the one given to
	// its engines and embedders.
	an *analyze.Analyzer
	// shared, when set, is the session's one engine (the REPL); nil: each
	// command opens and closes its own.
	shared *sharedEngine
	// longLived turns the vector cache on in engines this env opens.
	longLived bool
	// repl is set in the REPL: advice names its commands (/read), not the
	// CLI's.
	repl bool
	// colorSet, when set, says whether matched terms are coloured (a
	// resident client's terminal), instead of looking at stdout.
	colorSet *bool
	// perRun prints the notes a process prints once (older analysis,
	// glossary only) on every command: a watcher answering searches is
	// one process, but each of its clients is a new command line.
	perRun bool
	// wd, when set, is the working directory relative project paths are
	// resolved against (a resident client's; this process's own is
	// another), while messages name them as typed.
	wd string
}

type command struct {
	name    string
	summary string
	run     func(e *env, args []string) error
}

var commands []command

func register(c command) { commands = append(commands, c) }

func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// usageError marks bad command-line input (exit status 2).
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// troubleError is a failure of a command whose exit status 1 means that
// nothing was found (grep, glob): it exits 2, as rg's errors do, so that a
// script tells "no match" from "the search failed".
type troubleError struct{ err error }

func (t troubleError) Error() string { return t.err.Error() }
func (t troubleError) Unwrap() error { return t.err }

// asTrouble marks err as a troubleError unless it already has its own
// status: nil, help, usage (2), nothing found (errSilent, 1), interrupted.
func asTrouble(err error) error {
	var u usageError
	if err == nil || errors.Is(err, errSilent) || errors.Is(err, flag.ErrHelp) || errors.Is(err, context.Canceled) || errors.As(err, &u) {
		return err
	}
	return troubleError{err}
}

// errSilent is returned when the command already printed its message.
var errSilent = errors.New("")

// Main runs coderag with args (without the program name) and returns the
// process exit status: 0 success, 1 failure, 2 bad usage, 130 interrupted.
// lookupEnv reads the environment (os.LookupEnv in the binary, a map in
// tests): config.FromLookup builds the one configuration from it, and the
// flags of each command override it (configFlags).
func Main(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	return MainIO(ctx, args, lookupEnv, os.Stdin, stdout, stderr)
}

// MainIO is Main with an explicit standard input (for the REPL and tests).
func MainIO(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdin io.Reader, stdout, stderr io.Writer) int {
	// A bad variable fails only the commands that use it (those that
	// embed or index): grep, glob, read, stats and the graph still run.
	cfg, cfgErr := config.FromLookup(lookupEnv)
	e := &env{ctx: ctx, cfg: cfg, cfgErr: cfgErr, stdout: stdout, stderr: stderr, stdin: stdin, an: newAnalyzer(cfg)}
	if isTerminal(stdout) {
		// indexed content's control characters are shown, not obeyed
		e.termOut, e.stdout = stdout, termSafe{stdout}
	}
	if len(args) == 0 {
		return finish(e, "repl", runREPL(e, nil))
	}
	name := args[0]
	if name == "search" && cfgErr == nil {
		if code, ok := searchResident(ctx, cfg, args[1:], stdout, stderr); ok {
			return code
		}
	}
	switch name {
	case "-h", "--help", "help":
		if len(args) > 1 {
			if c := lookup(args[1]); c != nil {
				return finish(e, c.name, c.run(e, []string{"--help"}))
			}
		}
		printUsage(stdout)
		return exitOK
	case "-v", "--version", "version":
		fmt.Fprintf(stdout, "coderag %s\n", Version)
		return exitOK
	}
	c := lookup(name)
	if c == nil {
		if near := nearestCommand(name); near != "" {
			fmt.Fprintf(stderr, "coderag: unknown command %q; did you mean %q?\n", name, near)
		} else {
			fmt.Fprintf(stderr, "coderag: unknown command %q (run 'coderag --help')\n", name)
		}
		return exitUsage
	}
	return finish(e, c.name, c.run(e, args[1:]))
}

func finish(e *env, name string, err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errSilent):
		return exitErr
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(e.stderr, "coderag %s: interrupted\n", name)
		return exitInterrupted
	}
	var u usageError
	if errors.As(err, &u) {
		fmt.Fprintln(e.stderr, errLine(name, u.msg))
		return exitUsage
	}
	fmt.Fprintln(e.stderr, errLine(name, e.errText(err)))
	var t troubleError
	if errors.As(err, &t) {
		return exitUsage
	}
	return exitErr
}

// errLine is the one line an error of command name is printed as:
// "coderag NAME: MSG", or "coderag MSG" when msg already starts with the
// command's name (an operation wrapped as "index DIR: ..."), so the name is
// not said twice: "coderag index /x: no such file or directory", not
// "coderag index: index /x: no such file or directory".
func errLine(name, msg string) string {
	if rest, ok := strings.CutPrefix(msg, name); ok && (strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, ": ")) {
		return "coderag " + msg
	}
	return "coderag " + name + ": " + msg
}

// redactor masks the configured secrets (both API keys, the passwords of
// both base URLs) and key-shaped tokens. The embedding and chat clients
// redact their own errors already; this is the last line before a message
// is printed.
func (e *env) redactor() *httpx.Redactor {
	c := e.cfg
	return httpx.NewRedactor(c.Embedding.APIKey, c.Embedding.BaseURL, c.LLM.APIKey, c.LLM.BaseURL)
}

// repairHint is how the command line says to repair a damaged index.
const repairHint = "run `coderag doctor` to check it, `coderag doctor --rebuild` to rebuild it"

// foreignHint is how the command line says what to do with a file at the
// index path that is not a coderag index: coderag never overwrites it.
// storeHint replaces its end when the path came from CODERAG_STORE or
// --store, which CODERAG_HOME does not move.
const (
	foreignHint = "coderag leaves it untouched: move it away or set CODERAG_HOME to another directory"
	storeHint   = "coderag leaves it untouched: move it away or point CODERAG_STORE (or --store) at another file"
)

// errText is err as one redacted line, the form every error is printed in.
// An error that shows the index file is damaged (store.Damaged), or is not
// an index at all (store.ErrForeign), ends with how to repair it; one of
// the disk or file system (store.DiskProblem: full, an I/O error) says so
// in words, as SQLite's "disk I/O error (4874)" does not.
func (e *env) errText(err error) string {
	msg := oneLine(e.redactor().Redact(err.Error()))
	switch p := store.DiskProblem(err); {
	case strings.Contains(msg, "coderag doctor"):
	case p == store.DiskFull:
		// SQLite's "database or disk is full" and ENOSPC's words say it
		if !strings.Contains(msg, "disk is full") && !strings.Contains(msg, "no space left") {
			msg += ": " + p
		}
		msg += "; free some space on the disk and try again"
	case p == store.IOError:
		msg += ": an I/O error of the disk or file system, not damage to the index"
	case store.Damaged(err) && strings.Contains(msg, store.ErrDamaged.Error()):
		msg += "; " + repairHint
	case store.Damaged(err):
		msg += "; the index is damaged: " + repairHint
	case errors.Is(err, store.ErrForeign) && e.cfg.Store != "":
		msg += ": " + storeHint
	case errors.Is(err, store.ErrForeign):
		// doctor --rebuild leaves a file that is not an index untouched
		msg += ": " + foreignHint
	}
	return msg
}

// oneLine folds s into one line, its control characters made visible
// (visibleText): an error's text may come from a server.
func oneLine(s string) string {
	s = strings.TrimSpace(visibleText(s))
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, `coderag %s - find code in a codebase you don't know by heart

Usage:
  coderag <command> [flags] [args]
  coderag                      interactive REPL

Commands:
`, Version)
	cs := append([]command(nil), commands...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	for _, c := range cs {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'coderag <command> --help' for a command's flags.\n\n%s\n", config.EnvHelp)
}

// newFlags returns a FlagSet whose --help prints usage, the flags and the
// environment variables' names (config.EnvSummary; the top-level --help
// has the whole block).
func newFlags(e *env, name, usage, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	configFlags(fs, e, "store", "allow-secrets")
	fs.Usage = func() {
		w := e.stdout
		fmt.Fprintf(w, "Usage: coderag %s %s\n\n%s\n\nFlags:\n", name, usage, about)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		fmt.Fprintf(w, "\n%s\n", config.EnvSummary())
	}
	return fs
}

// configFlags registers on fs the flag of each named config.Setting (its
// name and help are the Setting's): every flag that sets configuration
// goes through this one helper. A flag given is merged into e.cfg by
// config.Config.Set, the parse and check of its environment variable, so
// flags override the environment; a bad value is a usage error.
func configFlags(fs *flag.FlagSet, e *env, flags ...string) {
	for _, name := range flags {
		s := config.FlagSetting(name)
		if s == nil {
			panic("cli: no config setting for flag --" + name) // a programming error
		}
		set := func(v string) error {
			if v == "" && !s.Bool {
				// --store "$UNSET" would mean the default index, silently
				return fmt.Errorf("empty (an unset shell variable?): give a value, or leave --%s out", name)
			}
			if err := e.cfg.Set(name, v); err != nil {
				return err
			}
			// the flag overrides the variable, and a bad value of it
			e.cfgErr = dropEnvError(e.cfgErr, s.Env)
			return nil
		}
		if s.Bool {
			fs.BoolFunc(name, s.Usage, set)
		} else {
			fs.Func(name, s.Usage, set)
		}
	}
}

// dropEnvError returns err (config.FromLookup's: errors.Join of one
// *config.VarError per bad variable) without the error of variable name,
// or nil when none is left.
func dropEnvError(err error, name string) error {
	if err == nil || name == "" {
		return err
	}
	var keep []error
	for _, x := range joined(err) {
		if v, ok := x.(*config.VarError); !ok || v.Env != name {
			keep = append(keep, x)
		}
	}
	return errors.Join(keep...)
}

// envError returns the error of variable name in err (config.FromLookup's:
// errors.Join of one *config.VarError per bad variable), or nil.
func envError(err error, name string) error {
	for _, x := range joined(err) {
		if v, ok := x.(*config.VarError); ok && v.Env == name {
			return v
		}
	}
	return nil
}

// joined returns the errors err joins (errors.Join), err alone when it
// joins none, and none for nil.
func joined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// parse parses flags, allowing flags after positional arguments
// ("coderag search foo --top-k 3").
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	// The flag package prints Usage on every parse error; coderag prints the
	// help only for -h/--help and a one-line error otherwise.
	help := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = help }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				help()
				return nil, flag.ErrHelp
			}
			// "flag provided but not defined: -projct": name the flag meant
			if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
				if near := nearestFlag(fs, strings.TrimLeft(name, "-")); near != "" {
					return nil, usagef("%v; did you mean --%s? (see --help)", err, near)
				}
			}
			return nil, usagef("%v (see --help)", err)
		}
		if err := emptyPathFlag(fs); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseQuery is parse for a command whose words are a query (search):
// "-file:vendor/**" is the query's excluding filter, not a flag, so such
// words are taken out before the flags are parsed and follow the other
// words (a filter's place in the query does not matter); after "--"
// every argument is a word as it is. Other commands' words are patterns
// and paths, whose order matters: they keep parse.
func parseQuery(fs *flag.FlagSet, args []string) ([]string, error) {
	var filters []string
	kept := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			kept = append(kept, args[i:]...)
			break
		}
		if negatedFilter(a) {
			filters = append(filters, a)
			continue
		}
		kept = append(kept, a)
	}
	pos, err := parse(fs, kept)
	if err != nil {
		return nil, err
	}
	return append(pos, filters...), nil
}

// negatedFilter reports whether arg is a query's excluding filter, as
// zoekt writes them ("-file:vendor/**", "-lang:js"): one dash, then a name
// of letters followed by ':'. No flag's name holds a ':', so parseQuery
// takes such an argument as a word of the query rather than an unknown
// flag.
func negatedFilter(arg string) bool {
	name, ok := strings.CutPrefix(arg, "-")
	if !ok {
		return false
	}
	i := strings.IndexByte(name, ':')
	if i <= 0 {
		return false
	}
	for _, r := range name[:i] {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// pathFlags are the flags whose value is a directory: given empty (an unset
// shell variable, `--project "$DIR"`), they are a usage error rather than
// the current directory.
var pathFlags = map[string]bool{"project": true, "root": true}

// flagGiven reports whether the flag name was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// emptyPathFlag is the usage error for a path flag set to "", or nil.
func emptyPathFlag(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if !pathFlags[f.Name] || err != nil {
			return
		}
		empty := f.Value.String() == ""
		if l, ok := f.Value.(*stringList); ok {
			empty = slices.Contains(*l, "")
		}
		if empty {
			err = usagef("--%s is empty (an unset shell variable?): give a directory, or leave the flag out for the current one", f.Name)
		}
	})
	return err
}

// pathArg is a PATH argument checked for emptiness: "" is a usage error,
// not the current directory.
func pathArg(arg string) (string, error) {
	if arg == "" {
		return "", usagef("PATH is empty (an unset shell variable?): give a directory, or leave it out for the current one")
	}
	return arg, nil
}

// projectOptions is how the CLI opens projects: the indexed project
// holding the directory given (--project, or any directory inside it),
// under the CLI's freshness policy, engine.Freshen: a one-shot query
// re-indexes a small change set in place first and marks results from
// other changed files stale.
var projectOptions = engine.OpenOptions{Policy: engine.Freshen, Enclosing: true}

// engineConfig is the engine configuration of this environment: the
// index at e.cfg.DBPath (opened and closed by the engine), the configured
// embedder, the index options and the bound of a query's embedding.
func (e *env) engineConfig(longLived bool) engine.Config {
	return engine.Config{DBPath: e.cfg.DBPath(), Embedders: engine.FromOptions(e.embedding(), e.embeddingErr()), Analyzer: e.an,
		Index:     index.Options{Threads: e.cfg.IndexThreads, BatchSize: e.cfg.Embedding.BatchSize, AllowSecrets: e.cfg.AllowSecrets},
		LongLived: longLived, QueryTimeout: e.cfg.Embedding.QueryTimeout}
}

// sharedEngine is the one engine of a long-lived front end (the REPL):
// opened at the first command that needs the index, closed at the end of
// the session.
type sharedEngine struct {
	mu  sync.Mutex
	eng *engine.Engine
}

func (s *sharedEngine) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.eng != nil {
		s.eng.Close()
		s.eng = nil
	}
}

// openEngine opens the index (creating it) under an engine, or returns
// the session's shared engine; the returned function releases it.
func openEngine(e *env) (*engine.Engine, func(), error) { return openEngineFor(e, false) }

// openEngineFor is openEngine; indexOnly opens a one-shot engine for an
// index run (`coderag index`), whose SQLite readers do not map the file
// (engine.Config.UnmappedReads). A shared engine is opened as it always is.
func openEngineFor(e *env, indexOnly bool) (*engine.Engine, func(), error) {
	if s := e.shared; s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.eng == nil {
			eng, err := engine.Open(context.WithoutCancel(e.ctx), e.engineConfig(true))
			if err != nil {
				return nil, nil, err
			}
			s.eng = eng
		}
		return s.eng, func() {}, nil
	}
	cfg := e.engineConfig(e.longLived)
	cfg.UnmappedReads = indexOnly && !e.longLived
	eng, err := engine.Open(e.ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	return eng, func() { eng.Close() }, nil
}

// notIndexedError is the message for a project with no index.
func notIndexedError(dir string) error {
	return fmt.Errorf("not indexed yet: %s", indexAdvice(dir))
}

// indexAdvice is what a "not indexed" message tells to do about dir: run
// `coderag index DIR`, or, for a directory the root rule refuses (/etc, a
// home directory), why it cannot be indexed.
func indexAdvice(dir string) string {
	abs, err := filepath.Abs(dir)
	if err == nil {
		if err := rootrule.Check(abs, nil); errors.Is(err, rootrule.ErrRefused) {
			return err.Error()
		}
	}
	return fmt.Sprintf("run `coderag index %s`", dir)
}

// emptyIndexFile reports whether the index at path is a file of 0 bytes
// (and no write-ahead log beside it holds any): a truncated index, a full
// disk's leftover, a `touch`. SQLite takes such a file as an empty
// database, and an index run builds the index in it (store's Open), so no
// project is indexed in it; but "not indexed yet" alone would puzzle
// someone whose projects it held, so the commands that read the index say
// that the file is empty (emptyIndexError) and leave it as it is: they do
// not write an empty index into it.
func emptyIndexFile(path string) bool {
	if store.IsPostgres(path) {
		return false
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 {
		return false
	}
	wal, err := os.Stat(path + "-wal")
	return err != nil || wal.Size() == 0
}

// emptyIndexError is the not-indexed message for project dir when the
// index file at path is empty (emptyIndexFile).
func emptyIndexError(dir, path string) error {
	return fmt.Errorf("not indexed yet: the index file %s is empty (0 bytes: SQLite takes it as an empty database, so no project is in it): run `coderag index %s` to build the index in it", store.Redact(path), dir)
}

// staleNoted holds the projects whose older-analysis note this process
// printed already (once is enough in the REPL).
var staleNoted sync.Map

// openProject opens the indexed project holding dir (dir or its nearest
// indexed ancestor) under the CLI's policy; the returned function
// releases it and its engine. A missing index is reported with the
// not-indexed message; the database file is never created by a read, nor
// an empty one (emptyIndexFile) made an index. It
// notes, once per process and project, files indexed by an older
// coderag.
func openProject(e *env, dir string) (*engine.Project, func(), error) {
	p, release, err := openProjectQuiet(e, dir)
	if err != nil {
		return nil, nil, err
	}
	noteOlder(e, p.Root, func() int {
		n, err := p.OlderFiles(e.ctx)
		if err != nil {
			return 0
		}
		return n
	})
	return p, release, nil
}

// openProjectQuiet is openProject without the older-files note, for
// commands whose freshness check counts those files anyway
// (engine.Freshness.Older) and print the note with noteOlder.
func openProjectQuiet(e *env, dir string) (*engine.Project, func(), error) {
	if dir == "" {
		dir = "."
	}
	if exists, err := store.Exists(e.cfg.DBPath()); err != nil {
		return nil, nil, err
	} else if empty := emptyIndexFile(e.cfg.DBPath()); !exists || empty {
		if _, err := rootrule.Resolve(e.pathOf(dir)); err != nil {
			return nil, nil, fmt.Errorf("project %s: %w", dir, err)
		}
		if empty {
			return nil, nil, emptyIndexError(dir, e.cfg.DBPath())
		}
		return nil, nil, notIndexedError(dir)
	}
	eng, release, err := openEngine(e)
	if err != nil {
		return nil, nil, err
	}
	p, err := openIn(e, eng, dir)
	if err != nil {
		release()
		return nil, nil, err
	}
	return p, func() { p.Release(); release() }, nil
}

// pathOf is dir resolved against e.wd when it is relative and e.wd is set,
// else dir.
func (e *env) pathOf(dir string) string {
	if e.wd != "" && !filepath.IsAbs(dir) {
		return filepath.Join(e.wd, dir)
	}
	return dir
}

// openIn opens the project holding dir in eng with projectOptions: the
// CLI's one call of engine.Open. No indexed project holding dir is the
// not-indexed message.
func openIn(e *env, eng *engine.Engine, dir string) (*engine.Project, error) {
	opts := projectOptions
	opts.Dir = e.wd
	p, err := eng.Open(e.ctx, dir, opts)
	if errors.Is(err, engine.ErrNotIndexed) {
		return nil, notIndexedAmong(e, eng, dir)
	}
	return p, err
}

// notIndexedAmong is notIndexedError for a dir that no indexed project
// holds while others are indexed: it names them (up to 5) and --project,
// so a command run from the wrong directory says how to reach them.
func notIndexedAmong(e *env, eng *engine.Engine, dir string) error {
	ps, err := eng.Projects(e.ctx)
	if err != nil || len(ps) == 0 {
		return notIndexedError(dir)
	}
	var roots []string
	for _, p := range ps[:min(len(ps), 5)] {
		roots = append(roots, p.Path)
	}
	held := strings.Join(roots, ", ")
	if len(ps) > 1 {
		held = english.Counted(len(ps), "project") + ": " + held
	}
	if len(ps) > 5 {
		held += fmt.Sprintf(" and %d more ('coderag stats' lists them)", len(ps)-5)
	}
	return fmt.Errorf("not indexed yet: %s is in no indexed project (the index holds %s): give --project DIR, or %s", dir, held, indexAdvice(dir))
}

// noteOlder prints, once per process and project, how many files of the
// project were indexed by an older coderag; count is called only when the
// note has not been printed yet.
func noteOlder(e *env, root string, count func() int) {
	if e.perRun {
		if n := count(); n > 0 {
			fmt.Fprintf(e.stderr, "note: %s of %s %s indexed by an older coderag; run `coderag index %s` to refresh %s\n", english.Counted(n, "file"), root, english.Agree(n, "was", "were"), root, english.Agree(n, "it", "them"))
		}
		return
	}
	if _, said := staleNoted.LoadOrStore(root, true); said {
		return
	}
	if n := count(); n > 0 {
		fmt.Fprintf(e.stderr, "note: %s of %s %s indexed by an older coderag; run `coderag index %s` to refresh %s\n", english.Counted(n, "file"), root, english.Agree(n, "was", "were"), root, english.Agree(n, "it", "them"))
		return
	}
	staleNoted.Delete(root) // not stale (yet): check again next time
}

// isTerminal reports whether w is a terminal (an *os.File on one).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// rawStdout is standard output unfiltered: the terminal itself when
// stdout writes through termSafe, for what must reach it as written (the
// REPL's line editor, the MCP protocol); else stdout.
func (e *env) rawStdout() io.Writer {
	if e.termOut != nil {
		return e.termOut
	}
	return e.stdout
}

// jsonError is what a command run with --json (asJSON) does with its
// error err: it writes {"error": MSG} on stdout, the object the server's
// API answers an error with (MSG the one line finish prints after the
// command's name, jsonMessage), so a script reading stdout gets JSON either
// way; the line on stderr and the exit status stay as they are. It returns
// err. Nothing is written without --json, for no error, for --help, for a
// result already printed (errSilent: grep's "no match"; jsonReported: a
// report that carries the error itself) or an interrupt.
//
// Every command with --json calls it deferred on its named return, set up
// before its flags are parsed, as search does: a flag error after --json
// on the command line is answered in JSON too, one before it is not
// (parsing stops there, --json unseen).
func (e *env) jsonError(asJSON bool, err error) error {
	var r jsonReported
	if !asJSON || err == nil || errors.Is(err, errSilent) || errors.Is(err, flag.ErrHelp) || errors.Is(err, context.Canceled) || errors.As(err, &r) {
		return err
	}
	writeJSON(e.stdout, map[string]string{"error": e.jsonMessage(err)})
	return err
}

// jsonMessage is the MSG of err in {"error": MSG}: the one line finish
// prints after the command's name (redacted, with its hint; a usage
// error's own words).
func (e *env) jsonMessage(err error) string {
	var u usageError
	if errors.As(err, &u) {
		return u.msg // as finish prints it
	}
	return e.errText(err)
}

// jsonReported marks an error that a command's JSON output already
// carries in its "error" field (jsonMessage): a report printed whole
// before the command fails (doctor's findings, index's run report), so
// that stdout stays one object. jsonError writes nothing more; finish
// prints the line and exits as for the error it wraps.
type jsonReported struct{ err error }

func (r jsonReported) Error() string { return r.err.Error() }
func (r jsonReported) Unwrap() error { return r.err }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
