package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/coderag/coderag/internal/agent"
	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/llm"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/store"
)

func init() {
	register(command{name: "ask", summary: "answer a question about the code with a tool-using chat model (LLM_*)", run: runAsk})
}

func runAsk(e *env, args []string) (err error) {
	fs := newFlags(e, "ask", "[flags] QUESTION",
		`Answer QUESTION about the project's code with an OpenAI-compatible chat model that
calls coderag's tools: grep_code, glob_files, read_file (exact), search_code and
code_graph (the index; without one the model is told to use the exact tools). The answer cites
path:line. Configure the model with LLM_BASE_URL, LLM_MODEL and LLM_API_KEY
(OpenAI, DeepSeek, GLM, Qwen, Ollama's http://localhost:11434, ...).`)
	project := fs.String("project", ".", "project directory (or any directory inside it)")
	verbose := fs.Bool("v", false, "print each tool call (name, arguments, time) to stderr")
	maxSteps := fs.Int("max-steps", agent.DefaultMaxSteps, "model turns that may call tools before an answer is forced")
	asJSON := fs.Bool("json", false, `print {answer, steps, tool_calls, step_limit, usage} as JSON; an error as {"error": MSG}`)
	defer func() { err = e.jsonError(*asJSON, err) }()
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
	if errors.Is(err, llm.ErrNotConfigured) {
		// say what answers without one: the search the agent would run
		return fmt.Errorf("%w; without one, `coderag search %q` ranks the code for the question", err, question)
	}
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

// agentProject is a project opened for the agent: its root, and the
// engine over the index when there is an index database.
type agentProject struct {
	root    string
	eng     *engine.Engine // nil when there is no index database
	release func()
}

// openAgentProject resolves dir to its nearest enclosing indexed root (or dir
// itself when nothing above it is indexed) and opens the index if there is
// one. A missing index is not an error: search_code then says so; nor is an
// empty index file (emptyIndexFile), taken as none and left as it is.
func openAgentProject(e *env, dir string) (*agentProject, error) {
	if dir == "" {
		dir = "."
	}
	root, err := rootrule.Resolve(dir)
	if err != nil {
		return nil, fmt.Errorf("project %s: %w", dir, err)
	}
	ap := &agentProject{root: root, release: func() {}}
	if exists, err := store.Exists(e.cfg.DBPath()); err != nil {
		return nil, err
	} else if !exists || emptyIndexFile(e.cfg.DBPath()) {
		return ap, nil
	}
	eng, release, err := openEngine(e)
	if err != nil {
		return nil, err
	}
	p, err := eng.Find(e.ctx, root, true)
	switch {
	case errors.Is(err, store.ErrNotIndexed):
	case err != nil:
		release()
		return nil, err
	default:
		ap.root = p.Path
	}
	ap.eng, ap.release = eng, release
	return ap, nil
}

func (ap *agentProject) close() { ap.release() }

// agent returns an agent over the registry's query tools of this project.
func (ap *agentProject) agent(c agent.ChatClient) *agent.Agent {
	return &agent.Agent{Client: c, Tools: agent.ProjectTools(ap.root, ap.eng)}
}

// printToolEvent writes one -v line: "→ grep_code {"pattern":"x"} 12ms, 340 chars".
func printToolEvent(w io.Writer, ev agent.ToolEvent) {
	args := oneLine(ev.Args)
	if r := []rune(args); len(r) > 160 {
		args = string(r[:160]) + "…"
	}
	fmt.Fprintf(w, "→ %s %s  %s", oneLine(ev.Name), args, ev.Duration.Round(100_000))
	switch {
	case ev.Err != nil:
		fmt.Fprintf(w, "  error: %s\n", oneLine(ev.Err.Error()))
	case ev.Truncated:
		fmt.Fprintf(w, "  %d chars, truncated\n", ev.Chars)
	default:
		fmt.Fprintf(w, "  %d chars\n", ev.Chars)
	}
}
