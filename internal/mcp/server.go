// Package mcp is coderag's Model Context Protocol server: the tools of
// internal/toolset (grep_code, glob_files, read_file, search_code,
// code_graph, index_project, index_status) exposed over stdio with the
// official Go SDK, so any MCP client (Claude Code, Cursor, Codex, Continue)
// can use them.
//
// The server is a thin adapter: each tool is defined once in
// internal/toolset (name, description, parameter struct, handler) and its
// index runs, freshness and caches are the engine's (internal/engine).
// The server owns what is MCP's own:
//
//   - the project root (root.go): --root, else the client's MCP roots, else
//     the working directory at start; every path argument resolves against it
//     and nothing outside it is read;
//   - progress notifications while a call waits for an index run, and the
//     structured content (Answer) of every result;
//   - the transport (drain.go): answers drained before exit, oversized
//     lines refused.
//
// Nothing but JSON-RPC is written to the protocol writer: diagnostics go to
// Config.Log (stderr in the CLI).
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/toolset"
)

// DefaultIndexBudget is how long a tool call waits for an index run
// before answering and leaving the run in the background (the engine's
// Config.IndexBudget; `coderag mcp --index-budget` sets it).
const DefaultIndexBudget = engine.DefaultIndexBudget

// searchOrder is the advice on choosing a tool, said once, in the server
// instructions (not repeated in every tool description).
const searchOrder = `Search order: for exact names and strings (identifiers, error messages, file names) use grep_code or glob_files first, then read_file around the hits; for vague descriptions of behaviour, or when grep_code found nothing after a few tries, use search_code.`

// Config configures a Server. Engine is required.
type Config struct {
	// Engine is the index at run time the tools work over: its embedders,
	// index runs, index budget and freshness. The server does not close
	// it; give it Config.LongLived so queries share the vector cache.
	Engine *engine.Engine
	// Root is a fixed project root (the --root flag), absolute and
	// symlink-resolved. Empty: the first file:// root the client lists,
	// else WorkDir.
	Root string
	// WorkDir is the fallback root; empty means the working directory when
	// NewServer runs.
	WorkDir string
	// Log receives diagnostics (never protocol); nil discards them.
	Log io.Writer
	// Verbose logs every tool call, index progress and the SDK's own
	// session events to Log.
	Verbose bool
	// Version is reported to clients as the server version.
	Version string
	// Redact, if set, rewrites the message of every tool error before the
	// client (and the model) sees it: the CLI masks the configured API
	// keys and base-URL passwords. Nil leaves messages as they are.
	Redact func(string) string
	// ReadOnly makes the server write nothing: search_code and code_graph
	// answer from the index as it is (no indexing or refresh before
	// answering; a project without an index gets toolset.NotIndexedMessage),
	// index_project is not offered, and every tool is annotated read-only.
	// For clients that may read but not write (MCP over HTTP without the
	// server's token).
	ReadOnly bool
	// IndexedReads limits read_file and grep_code to the files the index
	// takes (toolset.Env.IndexedReads): for a server that shows the project to
	// others (`coderag serve`).
	IndexedReads bool
}

// NewLogger returns the server's logger of diagnostics to w: warnings, and
// everything (tool calls, index progress, SDK events) when verbose. Give
// it to the engine a Config.Engine is built with, so index runs log alike.
func NewLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// Server is a coderag MCP server. Create it with NewServer and serve one
// session with Run.
type Server struct {
	cfg Config
	sdk *sdk.Server
	log *slog.Logger
	env *toolset.Env

	rootMu     sync.Mutex
	clientRoot string // from the client's roots; "" = not known
	rootsAsked bool   // ListRoots was tried since the last change
}

// NewServer returns a server with every tool registered, or an error when
// cfg has no engine or the working directory cannot be read.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Engine == nil {
		return nil, errors.New("mcp server: no engine")
	}
	if cfg.WorkDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("mcp server: working directory: %w", err)
		}
		cfg.WorkDir = wd
	}
	wd, err := rootrule.Resolve(cfg.WorkDir)
	if err != nil {
		return nil, fmt.Errorf("mcp server: working directory %s: %w", cfg.WorkDir, err)
	}
	cfg.WorkDir = wd
	if cfg.Root != "" {
		var root string
		if root, err = rootrule.Resolve(cfg.Root); err != nil {
			return nil, fmt.Errorf("mcp server: root %s: %w", cfg.Root, err)
		}
		cfg.Root = root
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	s := &Server{cfg: cfg, log: NewLogger(cfg.Log, cfg.Verbose)}
	eng := cfg.Engine
	// the MCP freshness policy: a session that may write refreshes the
	// index before answering, a read-only one answers from it as it is
	policy := engine.Refresh
	if cfg.ReadOnly {
		policy = engine.AsIs
	}
	s.env = &toolset.Env{Engine: eng, Policy: policy, IndexedReads: cfg.IndexedReads}
	if cfg.Root == "" {
		if err := implicitRootError(cfg.WorkDir); err != nil {
			s.log.Warn("tool calls will be refused unless the client sends MCP roots", "reason", err)
		}
	}
	fresh := " search_code keeps its index fresh by itself; index_status shows indexing progress."
	if cfg.ReadOnly {
		fresh = " search_code and code_graph answer from the index as it is (this session does not index); index_status shows its state."
	}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "coderag", Title: "coderag code search", Version: cfg.Version},
		&sdk.ServerOptions{
			Instructions: "coderag searches the code of one project (the root). " + searchOrder + fresh,
			Logger:       s.log.With("component", "sdk"),
			// no logging capability: nothing is sent as MCP log messages
			// (diagnostics go to Config.Log); tools are added by the SDK
			Capabilities:            &sdk.ServerCapabilities{},
			RootsListChangedHandler: func(context.Context, *sdk.RootsListChangedRequest) { s.rootsChanged() },
		})
	var names []string
	for _, t := range toolset.All() {
		if t.Indexes && cfg.ReadOnly {
			continue
		}
		s.addTool(t)
		names = append(names, t.Name)
	}
	s.sdk.AddReceivingMiddleware(nullArguments, unknownTool(names))
	return s, nil
}

// Run serves one MCP session of newline-delimited JSON-RPC read from in and
// written to out until the client closes in (after every request read has
// been answered) or ctx is cancelled, then stops
// background indexing (each committed batch stays; the next run finishes the
// rest) and returns. A client that simply hangs up is not an error.
func (s *Server) Run(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	defer s.Close()
	p := newPending()
	g := newGate(p)
	w := &drainWriter{w: out, p: p, g: g}
	// drainReader answers a line over maxLine with an error and drops it;
	// the SDK's own cap (16 MiB by default, which ends the session when a
	// frame passes it) is set above what drainReader can hand on in one
	// frame, a line plus what the JSON decoder reads ahead.
	err := s.sdk.Run(ctx, &sdk.IOTransport{Reader: &drainReader{ctx: ctx, r: in, p: p, w: w, g: g}, Writer: w, MaxLineLength: sdkMaxLine})
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed)) {
		err = nil
	}
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("mcp session: %w", err)
	}
	return nil
}

// sdkMaxLine is the SDK transport's frame cap: above maxLine (see Run).
const sdkMaxLine = 2*maxLine + 1<<20

// Close ends the server. Its engine, with the index runs going on, is
// the caller's to close (Config.Engine). It is called by Run and is safe
// to call more than once.
func (s *Server) Close() {}

// textResult is the answer of a tool: text for the model.
func textResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// addTool registers t, the registry's tool, as an MCP tool: its schema is
// the registry's, which the SDK validates arguments against; the handler
// resolves the call's project root, sends progress notifications while
// the call waits for indexing, turns a panic into a tool error instead of
// killing the session, logs every call when verbose, and returns the text
// both as text content and as structured content (Answer).
func (s *Server) addTool(t *toolset.Tool) {
	name := t.Name
	ann := readOnly(t.Title)
	if !t.ReadOnlyIn(s.env) {
		ann = writesIndex(t.Title)
	}
	st := &sdk.Tool{Name: name, Description: t.Description, Annotations: ann, InputSchema: t.Schema()}
	sdk.AddTool(s.sdk, st, func(ctx context.Context, req *sdk.CallToolRequest, args json.RawMessage) (res *sdk.CallToolResult, ans Answer, err error) {
		start := time.Now()
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("tool panic", "tool", name, "panic", r, "stack", string(debug.Stack()))
				res, ans, err = nil, Answer{}, fmt.Errorf("%s: internal error: %v", name, r)
			}
			if err != nil {
				s.log.Debug("tool call failed", "tool", name, "elapsed", time.Since(start), "error", err)
			} else {
				s.log.Debug("tool call", "tool", name, "elapsed", time.Since(start))
			}
		}()
		call := toolset.Call{
			Root: func(ctx context.Context) (string, error) { return s.root(ctx, req.Session) },
			Tick: s.progress(ctx, req),
		}
		a, err := t.Call(ctx, s.env, call, args)
		if err != nil {
			msg := err.Error()
			if s.cfg.Redact != nil {
				msg = s.cfg.Redact(msg)
			}
			switch {
			case store.Damaged(err) && strings.Contains(msg, store.ErrDamaged.Error()):
				msg += "; " + repairHint
			case store.Damaged(err):
				msg += "; the index is damaged: " + repairHint
			}
			if msg != err.Error() {
				err = redacted{msg: msg, err: err}
			}
			return nil, Answer{}, err
		}
		ans = Answer{Text: a.Text, Truncated: a.Truncated, TotalChars: a.TotalChars, Continue: a.Continue}
		if root, err := s.root(ctx, req.Session); err == nil {
			ans.Root = root
		}
		return textResult(a.Text), ans, nil
	})
}

// progress returns the tick of a call that waits for indexing: an MCP
// progress notification, when the client asked for them.
func (s *Server) progress(ctx context.Context, req *sdk.CallToolRequest) func(engine.JobState) {
	var token any
	if req != nil && req.Params != nil {
		token = req.Params.GetProgressToken()
	}
	if token == nil || req.Session == nil {
		return nil
	}
	return func(st engine.JobState) {
		msg := fmt.Sprintf("indexing %s: %s", st.Root, st.Line())
		err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token,
			Progress: float64(st.Progress.Done), Total: float64(st.Progress.Total), Message: msg})
		if err != nil {
			s.log.Debug("progress notification failed", "error", err)
		}
	}
}

// writesIndex returns annotations for a tool that reads the project but
// writes coderag's own index (search_code refreshes it before answering):
// not read-only, idempotent, nothing destroyed.
func writesIndex(title string) *sdk.ToolAnnotations {
	f := false
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: false, IdempotentHint: true, DestructiveHint: &f, OpenWorldHint: &f}
}

// redacted is a tool error whose message was passed through Config.Redact.
type redacted struct {
	msg string
	err error
}

func (r redacted) Error() string { return r.msg }
func (r redacted) Unwrap() error { return r.err }

// readOnly returns annotations for a tool that changes nothing.
func readOnly(title string) *sdk.ToolAnnotations {
	f := false
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}
}

// repairHint is how an MCP answer tells a damaged index can be repaired:
// by the user, outside the session (no tool rebuilds it).
const repairHint = "the user can check it with `coderag doctor` and rebuild it with `coderag doctor --rebuild`"
