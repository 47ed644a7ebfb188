package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/chzyer/readline"
	"golang.org/x/term"

	"github.com/coderag/coderag/internal/agent"
	"github.com/coderag/coderag/internal/llm"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/store"
)

const replHelp = `/index [path]   index a directory (default: the session's project) and make it the session's project
/search QUERY   hybrid search of the session's project (flags as 'coderag search': --top-k N, --explain, --json, ...)
/graph NAME     relations of a class or Class.method (flags as 'coderag graph': --limit N, --format dot, --stats)
/grep PATTERN   regex search of the files (flags as 'coderag grep': -i, -F, -C N, --glob '*.go', ...)
/glob PATTERN   files matching a ** glob
/read FILE      numbered lines of a file (--offset N --limit N)
/callers NAME   who calls a function, transitively (--depth N)
/callees NAME   what a function calls, transitively (--depth N)
/path FROM TO   shortest call path between two functions
/stats          what is indexed of the session's project
/clear          forget the conversation with the model
/help           this help
/exit           quit (or Ctrl-D); Ctrl-C clears the line or stops a running command
free text       a question for the chat model (LLM_BASE_URL, LLM_MODEL), or a search when none is configured`

const noModelHint = "(no chat model configured: set LLM_BASE_URL and LLM_MODEL (and LLM_API_KEY) to ask questions; showing search results)"

// maxReplHistory is the number of earlier question/answer pairs the model
// sees.
const maxReplHistory = 6

// lineReader reads one input line; io.EOF ends the session and
// errInterrupted (Ctrl-C) discards the line.
type lineReader interface {
	readLine() (string, error)
	close()
}

var errInterrupted = errors.New("interrupted")

// repl is one interactive session.
type repl struct {
	e       *env
	tty     bool   // stdin is a terminal
	project string // the session's project directory
	history []llm.Message
	hinted  bool
}

// runREPL is the interactive loop: /index [path], /search q, /graph name,
// the exact tools and graph walks of the CLI (/grep, /glob, /read,
// /callers, /callees, /path, /stats) on the session's project, /clear,
// /help, /exit (command names complete with Tab); free text goes to the agent when a chat model is
// configured, else to search. On a terminal it edits lines with
// chzyer/readline and keeps history in $CODERAG_HOME/history; otherwise
// (pipes, tests) it reads plain lines.
func runREPL(e *env, _ []string) error {
	r := &repl{e: e, project: "."}
	e.repl = true
	// one engine for the session: the resolver and vector caches live
	// from one command to the next
	e.shared = &sharedEngine{}
	defer e.shared.close()
	var in lineReader
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		rl, err := newReadline(e, f)
		if err != nil {
			return err
		}
		in, r.tty = rl, true
	} else {
		in = newPlainReader(e)
	}
	defer in.close()
	fmt.Fprintf(e.stdout, "coderag %s — /help for commands, /exit to quit\n", Version)
	if chatConfigured(e.cfg) {
		fmt.Fprintf(e.stdout, "chat model: %s\n", e.cfg.LLM.Model)
	}
	for {
		if !r.tty && e.ctx.Err() != nil {
			return e.ctx.Err()
		}
		line, err := in.readLine()
		if errors.Is(err, errInterrupted) {
			continue
		}
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(e.stdout)
			return nil
		}
		if errors.Is(err, errLineTooLong) {
			fmt.Fprintln(e.stderr, "coderag:", err)
			continue
		}
		if err != nil {
			return fmt.Errorf("read input: %w", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if r.dispatch(line) {
			return nil
		}
	}
}

// dispatch runs one input line and reports whether the session should end.
func (r *repl) dispatch(line string) (quit bool) {
	cmd, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	ce, stop := r.commandEnv()
	defer stop()
	var err error
	switch cmd {
	case "/exit", "/quit":
		return true
	case "/help":
		fmt.Fprintln(r.e.stdout, replHelp)
	case "/clear":
		r.history = nil
		fmt.Fprintln(r.e.stdout, "conversation cleared")
	case "/index":
		err = r.index(ce, arg)
	case "/search":
		if arg == "" {
			fmt.Fprintln(r.e.stdout, "usage: /search QUERY")
			break
		}
		flags, query, ferr := replSearchArgs(arg)
		if ferr != nil {
			err = ferr
			break
		}
		if query == "" {
			fmt.Fprintln(r.e.stdout, "usage: /search QUERY")
			break
		}
		err = runSearch(ce, append(append([]string{"--project", r.project}, flags...), "--", query))
	case "/stats":
		err = runStats(ce, []string{"--project", r.project})
	default:
		if c, ok := replTools[cmd]; ok {
			err = r.tool(ce, c, arg)
			break
		}
		if strings.HasPrefix(cmd, "/") {
			if near := nearestWord(cmd, replCommands); near != "" {
				fmt.Fprintf(r.e.stdout, "unknown command %s; did you mean %s? (/help)\n", cmd, near)
				break
			}
			fmt.Fprintf(r.e.stdout, "unknown command %s (/help)\n", cmd)
			break
		}
		err = r.ask(ce, line)
	}
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled) && r.tty:
		fmt.Fprintln(r.e.stdout, "interrupted")
	default:
		msg := r.e.errText(err)
		// the CLI's advice, in the REPL's own words
		msg = strings.Replace(msg, "run `coderag index ", "run `/index ", 1)
		fmt.Fprintf(r.e.stdout, "error: %s\n", msg)
	}
	return false
}

// replTool is a command of the CLI the REPL runs on the session's
// project: /grep runs `coderag grep --project P ARGS`.
type replTool struct {
	run   func(e *env, args []string) error
	usage string
}

// replTools are the REPL's commands that are commands of the CLI.
var replTools = map[string]replTool{
	"/graph":   {runGraph, "/graph NAME [--limit N] [--format tree|json|dot|mermaid] (a class or Class.method), or /graph --stats"},
	"/grep":    {runGrep, "/grep [flags] PATTERN (quote a pattern with spaces: /grep \"login timeout\")"},
	"/glob":    {runGlob, "/glob PATTERN (e.g. /glob '**/*_test.go')"},
	"/read":    {runRead, "/read FILE [--offset N] [--limit N]"},
	"/callers": {runCallers, "/callers NAME [--depth N]"},
	"/callees": {runCallees, "/callees NAME [--depth N]"},
	"/path":    {runPath, "/path FROM TO"},
}

// replCommands are the REPL's commands, for Tab completion.
var replCommands = []string{"/index", "/search", "/graph", "/grep", "/glob", "/read", "/callers", "/callees", "/path", "/stats", "/clear", "/help", "/exit"}

// tool runs a command of the CLI on the session's project with the words
// of arg (quoted as a shell would: 'a b' and "a b" are one word).
func (r *repl) tool(ce *env, c replTool, arg string) error {
	words, err := replWords(arg)
	if err != nil {
		return err
	}
	if len(words) == 0 {
		fmt.Fprintln(r.e.stdout, "usage: "+c.usage)
		return nil
	}
	// flags may come after the words ("/read a.go --offset 5"): they move
	// before them, where the command's flag set reads them; after "--"
	// every word is a word
	var flags, pos []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--":
			pos = append(pos, words[i+1:]...)
			i = len(words)
		case strings.HasPrefix(w, "-") && len(w) > 1:
			flags = append(flags, w)
			if !strings.Contains(w, "=") && takesValue(w) && i+1 < len(words) {
				i++
				flags = append(flags, words[i])
			}
		default:
			pos = append(pos, w)
		}
	}
	args := append([]string{"--project", r.project}, flags...)
	return c.run(ce, append(append(args, "--"), pos...))
}

// replSearchFlags are the flags of `coderag search` that /search takes,
// with whether each takes a value; --project and --all are the session's.
var replSearchFlags = map[string]bool{"top-k": true, "ranker": true, "explain": false, "json": false, "expand": false, "tool-format": false}

// replSearchArgs splits /search's argument into the search flags it holds
// (anywhere: "/search merge flags --top-k 2") and the query, the other
// words in order. A word of the form --name is a flag and must be one of
// replSearchFlags; a word with one dash ("-file:x_test.go") is a filter of
// the query.
func replSearchArgs(arg string) (flags []string, query string, err error) {
	words := strings.Fields(arg)
	var q []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "--") || w == "--" {
			if w == "--" {
				q = append(q, words[i+1:]...)
				break
			}
			q = append(q, w)
			continue
		}
		name, _, hasValue := strings.Cut(w[2:], "=")
		value, known := replSearchFlags[name]
		if !known {
			return nil, "", usagef("/search takes --top-k N, --ranker R, --explain, --json, --expand and --tool-format, not %s", w)
		}
		flags = append(flags, w)
		if value && !hasValue {
			if i+1 >= len(words) {
				return nil, "", usagef("/search: %s needs a value", w)
			}
			i++
			flags = append(flags, words[i])
		}
	}
	return flags, strings.Join(q, " "), nil
}

// takesValue reports whether the flag f of a REPL tool command takes a
// value (--offset 5), not a boolean (-i).
func takesValue(f string) bool {
	switch strings.TrimLeft(f, "-") {
	case "offset", "limit", "depth", "glob", "path", "C", "A", "B", "context", "head-limit", "max-results", "max-chars", "engine", "format":
		return true
	}
	return false
}

// replWords splits a REPL command's argument into words as a shell would
// for quotes: 'a b' and "a b" are one word, a backslash escapes the next
// character outside single quotes. An unterminated quote is an error.
func replWords(s string) ([]string, error) {
	var out []string
	var b strings.Builder
	in, quote := false, rune(0)
	esc := false
	for _, c := range s {
		switch {
		case esc:
			b.WriteRune(c)
			esc = false
		case c == '\\' && quote != '\'':
			esc, in = true, true
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			b.WriteRune(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteRune(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote in %q", quote, s)
	}
	if in {
		out = append(out, b.String())
	}
	return out, nil
}

// commandEnv returns the environment for one command. On a terminal, Ctrl-C
// while a command runs cancels that command only: the command's context is
// detached from the process's (which the first SIGINT cancels for good) and
// cancelled by its own SIGINT handler.
func (r *repl) commandEnv() (*env, func()) {
	if !r.tty {
		return r.e, func() {}
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.e.ctx))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			cancel()
		case <-done:
		}
	}()
	ce := *r.e
	ce.ctx = ctx
	return &ce, func() {
		signal.Stop(sig)
		close(done)
		cancel()
	}
}

// index indexes dir (default: the session's project) and makes it the
// session's project when it has chunks afterwards, so /search goes to it.
func (r *repl) index(ce *env, dir string) error {
	if dir == "" {
		dir = r.project
	}
	root, err := rootrule.Resolve(dir)
	if err != nil {
		return fmt.Errorf("index %s: %w (the session keeps project %s)", dir, err, r.project)
	}
	ierr := runIndex(ce, []string{"--", dir})
	chunks := 0
	if ok, _ := store.Exists(ce.cfg.DBPath()); ok {
		if eng, release, err := openEngine(ce); err == nil {
			if st, err := eng.Status(ce.ctx, root); err == nil {
				chunks = st.Counts.Chunks
			}
			release()
		}
	}
	if chunks > 0 {
		if root != r.project {
			r.history = nil // the conversation was about another project
		}
		r.project = root
		fmt.Fprintf(r.e.stdout, "project: %s\n", root)
	} else if ierr == nil {
		// a failed run says why itself, with the session's project
		fmt.Fprintf(r.e.stdout, "no searchable chunks in %s; the session keeps project %s\n", root, r.project)
	} else {
		return fmt.Errorf("%w (the session keeps project %s)", ierr, r.project)
	}
	return ierr
}

// ask sends a question to the agent, or to search when no chat model is
// configured.
func (r *repl) ask(ce *env, question string) error {
	if !chatConfigured(ce.cfg) {
		if !r.hinted {
			fmt.Fprintln(r.e.stdout, noModelHint)
			r.hinted = true
		}
		return runSearch(ce, []string{"--project", r.project, "--", question})
	}
	client, err := newChatClient(ce.cfg, "")
	if err != nil {
		return err
	}
	ap, err := openAgentProject(ce, r.project)
	if err != nil {
		return err
	}
	defer ap.close()
	a := ap.agent(client)
	a.History = r.history
	a.OnToolCall = func(ev agent.ToolEvent) { printToolEvent(ce.stderr, ev) }
	res, err := a.Run(ce.ctx, question)
	if err != nil {
		return err
	}
	fmt.Fprintln(r.e.stdout, res.Answer)
	r.history = append(r.history,
		llm.Message{Role: llm.RoleUser, Content: question},
		llm.Message{Role: llm.RoleAssistant, Content: res.Answer})
	if n := len(r.history); n > 2*maxReplHistory {
		r.history = r.history[n-2*maxReplHistory:]
	}
	return nil
}

// maxReplLine is the longest input line the REPL takes from a pipe, in
// bytes; a longer one is refused (errLineTooLong) and the session goes on.
const maxReplLine = 1 << 20

// errLineTooLong: an input line over maxReplLine bytes, read to its end
// and dropped.
var errLineTooLong = fmt.Errorf("input line over %d bytes: skipped", maxReplLine)

// plainReader reads lines from a non-terminal stdin, printing the prompt.
type plainReader struct {
	e  *env
	br *bufio.Reader
}

func newPlainReader(e *env) *plainReader {
	return &plainReader{e: e, br: bufio.NewReaderSize(e.stdin, 64<<10)}
}

// readLine returns the next line without its end; errLineTooLong for a
// line over maxReplLine bytes (the next call reads the line after it),
// io.EOF at the end of the input.
func (p *plainReader) readLine() (string, error) {
	fmt.Fprint(p.e.stdout, "coderag> ")
	var line []byte
	long := false
	for {
		part, more, err := p.br.ReadLine()
		if !long {
			line = append(line, part...)
			if len(line) > maxReplLine {
				long, line = true, nil
			}
		}
		if err != nil {
			if err == io.EOF && (len(line) > 0 || long) {
				break // a last line without its newline
			}
			return "", err
		}
		if !more {
			break
		}
	}
	if long {
		return "", errLineTooLong
	}
	return string(line), nil
}

func (p *plainReader) close() {}

// replCompleter completes the REPL's command names with Tab.
func replCompleter() readline.AutoCompleter {
	items := make([]readline.PrefixCompleterInterface, len(replCommands))
	for i, c := range replCommands {
		items[i] = readline.PcItem(c)
	}
	return readline.NewPrefixCompleter(items...)
}

// rlReader is the terminal line editor.
type rlReader struct {
	rl  *readline.Instance
	out io.Writer
}

// newReadline sets up chzyer/readline on the terminal f, with history in
// $CODERAG_HOME/history (kept in memory only if that directory cannot be
// created).
func newReadline(e *env, f *os.File) (*rlReader, error) {
	fd := int(f.Fd())
	var saved *term.State
	hist := ""
	if err := os.MkdirAll(e.cfg.Home, 0o700); err == nil {
		hist = filepath.Join(e.cfg.Home, "history")
		// every query typed (a pasted token too) is the owner's alone:
		// made 0600 before readline opens it (it would create it 0644),
		// and an older history made that way is narrowed
		if f, err := os.OpenFile(hist, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			f.Close()
			_ = os.Chmod(hist, 0o600)
		}
	}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:            "coderag> ",
		HistoryFile:       hist,
		HistorySearchFold: true,
		InterruptPrompt:   "^C",
		EOFPrompt:         "",
		Stdin:             readline.NewCancelableStdin(f),
		Stdout:            e.rawStdout(), // its own escapes, to the terminal
		Stderr:            e.stderr,
		FuncIsTerminal:    func() bool { return term.IsTerminal(fd) },
		AutoComplete:      replCompleter(),
		FuncMakeRaw: func() error {
			st, err := term.MakeRaw(fd)
			if err == nil {
				saved = st
			}
			return err
		},
		FuncExitRaw: func() error {
			if saved == nil {
				return nil
			}
			err := term.Restore(fd, saved)
			saved = nil
			return err
		},
		FuncGetWidth: func() int {
			w, _, err := term.GetSize(fd)
			if err != nil || w <= 0 {
				return 80
			}
			return w
		},
	})
	if err != nil {
		return nil, fmt.Errorf("line editor: %w", err)
	}
	return &rlReader{rl: rl, out: e.rawStdout()}, nil // its "\r" is a control of our own
}

func (r *rlReader) readLine() (string, error) {
	line, err := r.rl.Readline()
	if err == nil {
		// readline ends the line with a bare "\n" while the terminal is
		// still raw: the cursor stays in the input's column, so the
		// command's first line would start mid-line. Return to column 0.
		io.WriteString(r.out, "\r")
	}
	if errors.Is(err, readline.ErrInterrupt) {
		return "", errInterrupted
	}
	return line, err
}

func (r *rlReader) close() { r.rl.Close() }
