package cli

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"syscall"
	"time"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/mcp"
	"github.com/coderag/coderag/internal/rootrule"
)

func init() {
	register(command{name: "mcp", summary: "MCP server on stdio: coderag's search tools for Claude Code, Cursor, Codex, ...", run: runMCP})
}

func runMCP(e *env, args []string) error {
	fs := newFlags(e, "mcp", "[--root PATH] [--index-budget D] [-v]",
		`Serve coderag's tools to an MCP client over stdio (newline-delimited JSON-RPC):
glob_files, grep_code, read_file, search_code, code_graph, index_project, index_status.

Paths resolve against the project root: --root, else the first file:// root the
client lists, else the working directory if it is a project: not / or the home
directory, and holding (itself or a parent below home) a marker such as .git,
go.mod, package.json, pyproject.toml, Cargo.toml, pom.xml or build.gradle.
Otherwise every tool call is refused and says to pass --root. Nothing outside
the root is read.
search_code indexes the project incrementally before answering; after
--index-budget it answers from what is indexed so far and keeps indexing in the
background. Only protocol goes to stdout; logs go to stderr.

Example (Claude Code):  claude mcp add coderag -- coderag mcp --root /path/to/project`)
	rootFlag := fs.String("root", "", "project root (default: the client's MCP roots, else the working directory)")
	verbose := fs.Bool("v", false, "log tool calls and indexing progress to stderr")
	fs.BoolVar(verbose, "verbose", false, "same as -v")
	budget := fs.Duration("index-budget", mcp.DefaultIndexBudget, "how long a tool call waits for indexing before answering and continuing in the background")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q (use --root PATH)", pos[0])
	}
	if *budget <= 0 || *budget > 50*time.Second {
		return usagef("--index-budget must be in (0, 50s] so that clients' 60 s tool timeout is never hit, got %s", *budget)
	}
	root := ""
	if *rootFlag != "" {
		if root, err = rootrule.Resolve(*rootFlag); err != nil {
			return usagef("--root %s: %v", *rootFlag, err)
		}
	}
	// Configuration errors surface now, not at the first tool call.
	if _, err := e.newEmbedder(); err != nil {
		return fmt.Errorf("embedder: %w", err)
	}

	// Reserve the real standard output for the protocol before anything
	// else can write to it; the Go log package goes to stderr as well.
	in := io.NopCloser(e.stdin)
	var out io.WriteCloser = nopWriteCloser{e.rawStdout()}
	if f, ok := e.rawStdout().(*os.File); ok && f == os.Stdout {
		proto, restore, err := mcp.ReserveStdout()
		if err != nil {
			return err
		}
		defer restore()
		out = nopWriteCloser{proto}
	}
	log.SetOutput(e.stderr)

	ec := e.engineConfig(true)
	ec.IndexBudget = *budget
	ec.Log = mcp.NewLogger(e.stderr, *verbose)
	eng, err := engine.Open(e.ctx, ec)
	if err != nil {
		return err
	}
	defer eng.Close()
	if root != "" {
		// every tool call checks its root again (toolset); a refused
		// --root is a clear error now, not at the first call
		if err := eng.CheckRoot(e.ctx, root); err != nil {
			return fmt.Errorf("--root %s: %w", *rootFlag, err)
		}
	}
	srv, err := mcp.NewServer(mcp.Config{
		Root:    root,
		Engine:  eng,
		Log:     e.stderr,
		Verbose: *verbose,
		Version: Version,
		Redact:  e.redactor().Redact,
	})
	if err != nil {
		return err
	}
	if *verbose {
		fmt.Fprintf(e.stderr, "coderag mcp %s: serving on stdio (index %s, root %s)\n", Version, eng.StorePath(), describeRoot(root))
	}
	err = srv.Run(e.ctx, in, out)
	if err != nil && stoppedBySIGTERM(e.ctx) {
		// SIGTERM is how an MCP client stops a stdio server that outlives
		// its closed stdin (MCP, lifecycle: shutdown): a requested, clean
		// stop (index batches committed, answers drained) is success, so
		// exit 0 rather than 130 (an interrupt) or 143 (killed by the
		// signal, which the server was not). Ctrl-C (SIGINT) stays 130.
		return nil
	}
	return err
}

// stoppedBySIGTERM reports whether ctx was cancelled by SIGTERM
// (signal.NotifyContext records the signal as the cause).
func stoppedBySIGTERM(ctx context.Context) bool {
	c := context.Cause(ctx)
	return ctx.Err() != nil && c != nil && c.Error() == syscall.SIGTERM.String()+" signal received"
}

func describeRoot(root string) string {
	if root == "" {
		return "from client roots, else the working directory"
	}
	return root
}

// nopWriteCloser lets the server "close" a writer it does not own.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
