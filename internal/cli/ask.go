package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/coderag/coderag/internal/agent"
	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/llm"
	"github.com/coderag/coderag/internal/relate"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
)

func init() {
	register(command{name: "ask", summary: "answer a question about the code with a tool-using chat model (LLM_*)", run: runAsk})
}

// agentTools are the tools added to the project tools of every agent. Each
// receives the project root and the open index (nil when the project is not
// indexed).
var agentTools = []func(root string, st *store.Store) agent.Tool{
	func(root string, st *store.Store) agent.Tool {
		if st == nil {
			return agent.GraphTool(nil)
		}
		var graphs relate.Cache // the agent asks for several names in one session
		return agent.GraphTool(func(ctx context.Context, name string) (string, error) {
			return graphs.Describe(ctx, st, root, name)
		})
	},
}

func runAsk(e *env, args []string) error {
	fs := newFlags(e, "ask", "[flags] QUESTION",
		`Answer QUESTION about the project's code with an OpenAI-compatible chat model that
calls coderag's tools: grep_code, glob_files, read_file (exact), search_code and
code_graph (the index; without one the model is told to use the exact tools). The answer cites
path:line. Configure the model with LLM_BASE_URL, LLM_MODEL and LLM_API_KEY
(OpenAI, DeepSeek, GLM, Qwen, Ollama's http://localhost:11434, ...).`)
	project := fs.String("project", ".", "project directory (or any directory inside it)")
	verbose := fs.Bool("v", false, "print each tool call (name, arguments, time) to stderr")
	maxSteps := fs.Int("max-steps", agent.DefaultMaxSteps, "model turns that may call tools before an answer is forced")
	asJSON := fs.Bool("json", false, "print {answer, steps, tool_calls, step_limit, usage} as JSON")
	model := fs.String("model", "", "chat model; overrides LLM_MODEL")
	stream := fs.Bool("stream", false, "print the answer as the model writes it")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(pos, " "))
	if question == "" {
		return usagef("missing QUESTION (coderag ask \"where is the login timeout handled?\")")
	}
	if *maxSteps < 1 {
		return usagef("--max-steps %d: want >= 1", *maxSteps)
	}
	client, err := newChatClient(e.cfg, *model)
	if err != nil {
		return err
	}
	ap, err := openAgentProject(e, *project)
	if err != nil {
		return err
	}
	defer ap.close()
	a := ap.agent(client)
	a.MaxSteps = *maxSteps
	if *verbose {
		a.OnToolCall = func(ev agent.ToolEvent) { printToolEvent(e.stderr, ev) }
	}
	streamed := false
	if *stream && !*asJSON {
		a.Stream = true
		a.OnText = func(s string) { streamed = true; fmt.Fprint(e.stdout, s) }
	}
	res, err := a.Run(e.ctx, question)
	if err != nil {
		return err
	}
	if res.StepLimit {
		fmt.Fprintf(e.stderr, "note: the step limit (%d) was reached; the model answered without further tool calls\n", *maxSteps)
	}
	if *asJSON {
		return writeJSON(e.stdout, struct {
			Model   string `json:"model"`
			Project string `json:"project"`
			*agent.Result
		}{client.Model(), ap.root, res})
	}
	if streamed {
		fmt.Fprintln(e.stdout)
		return nil
	}
	fmt.Fprintln(e.stdout, res.Answer)
	return nil
}

// chatConfigured reports whether a chat model is configured.
func chatConfigured(cfg config.Config) bool {
	return cfg.LLM.BaseURL != "" && cfg.LLM.Model != ""
}

// newChatClient builds the chat client from LLM_*; model overrides
// LLM_MODEL. It fails with llm.ErrNotConfigured when either is missing.
func newChatClient(cfg config.Config, model string) (*llm.Client, error) {
	c := cfg.LLM
	if model != "" {
		c.Model = model
	}
	return llm.New(llm.Config{BaseURL: c.BaseURL, APIKey: c.APIKey, Model: c.Model})
}

// agentProject is a project opened for the agent: its root, and the index
// when it has one.
type agentProject struct {
	root     string
	st       *store.Store
	searcher *search.Searcher // nil when not indexed
	embErr   error            // why the index cannot be searched, if it cannot
}

// openAgentProject resolves dir to its nearest enclosing indexed root (or dir
// itself when nothing above it is indexed) and opens the index if there is
// one. A missing index is not an error: search_code then says so.
func openAgentProject(e *env, dir string) (*agentProject, error) {
	if dir == "" {
		dir = "."
	}
	root, err := index.ResolveRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("project %s: %w", dir, err)
	}
	ap := &agentProject{root: root}
	if exists, err := store.Exists(e.cfg.DBPath()); err != nil {
		return nil, err
	} else if !exists {
		return ap, nil
	}
	st, err := openStore(e)
	if err != nil {
		return nil, err
	}
	p, err := st.FindProject(e.ctx, root)
	if errors.Is(err, store.ErrNotIndexed) {
		st.Close()
		return ap, nil
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	ap.root, ap.st = p.Path, st
	emb, err := e.projectEmbedder(p.Embedder)
	if err != nil {
		ap.embErr = err
		return ap, nil
	}
	ap.searcher = &search.Searcher{Store: st, Embedder: emb, Project: p.Path}
	return ap, nil
}

func (ap *agentProject) close() {
	if ap.st != nil {
		ap.st.Close()
	}
}

// tools returns the agent's tools over this project.
func (ap *agentProject) tools() []agent.Tool {
	ts := agent.ProjectTools(ap.root, ap.searcher)
	if ap.embErr != nil {
		err := ap.embErr
		ts[len(ts)-1] = agent.FuncTool{ToolName: agent.ToolSearch, ToolDescription: ts[len(ts)-1].Description(),
			Parameters: ts[len(ts)-1].Schema(), IsReadOnly: true,
			Fn: func(context.Context, json.RawMessage) (string, error) {
				return "", fmt.Errorf("search_code is unavailable (use grep_code and glob_files): %w", err)
			}}
	}
	for _, f := range agentTools {
		ts = append(ts, f(ap.root, ap.st))
	}
	return ts
}

func (ap *agentProject) agent(c agent.ChatClient) *agent.Agent {
	return &agent.Agent{Client: c, Tools: ap.tools()}
}

// printToolEvent writes one -v line: "→ grep_code {"pattern":"x"} 12ms, 340 chars".
func printToolEvent(w io.Writer, ev agent.ToolEvent) {
	args := oneLine(ev.Args)
	if r := []rune(args); len(r) > 160 {
		args = string(r[:160]) + "…"
	}
	fmt.Fprintf(w, "→ %s %s  %s", ev.Name, args, ev.Duration.Round(100_000))
	switch {
	case ev.Err != nil:
		fmt.Fprintf(w, "  error: %s\n", oneLine(ev.Err.Error()))
	case ev.Truncated:
		fmt.Fprintf(w, "  %d chars, truncated\n", ev.Chars)
	default:
		fmt.Fprintf(w, "  %d chars\n", ev.Chars)
	}
}
