// Package agent answers questions about a codebase with a ReAct loop: the
// model (an OpenAI-compatible chat model through internal/llm) is given the
// project's tools and a system prompt that fixes the search order (exact
// names -> grep_code/glob_files -> read_file; vague descriptions ->
// search_code), calls tools until it can answer, and cites path:line.
//
// Read-only calls requested in one turn run in parallel, at most
// Parallelism (4) at a time, and their results go back in the order the
// model asked for them. Every tool result is cut to a token budget with a
// note, older results are elided when the conversation's tool output grows
// past a second budget, tool failures go back to the model as results, and
// a step limit bounds the loop.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/coderag/coderag/internal/llm"
)

// Defaults of an Agent.
const (
	DefaultMaxSteps        = 12
	DefaultParallelism     = 4
	DefaultMaxResultTokens = 6_000  // per tool result (≈ 24,000 ASCII characters)
	DefaultContextTokens   = 48_000 // all tool results kept in the conversation
)

// Sentinel errors.
var (
	// ErrStepLimit: the model was still calling tools after MaxSteps steps
	// and did not answer when asked to.
	ErrStepLimit = errors.New("step limit reached without a final answer")
	// ErrEmptyAnswer: the model stopped without an answer or a tool call.
	ErrEmptyAnswer = errors.New("model returned an empty answer")
)

// ChatClient is what the agent needs of a chat model; *llm.Client is one.
type ChatClient interface {
	Chat(ctx context.Context, req llm.Request, onDelta func(string)) (*llm.Response, error)
}

var _ ChatClient = (*llm.Client)(nil)

// Agent runs the loop. The zero values of the numeric fields take the
// defaults above. An Agent may be reused; Run does not modify it.
type Agent struct {
	Client          ChatClient
	Tools           []Tool
	SystemPrompt    string        // "" means SystemPrompt
	History         []llm.Message // earlier user/assistant turns, after the system prompt
	MaxSteps        int           // model turns that may call tools
	Parallelism     int           // read-only calls run at once
	MaxResultTokens int           // per-result budget (approximate tokens)
	ContextTokens   int           // budget for all tool output kept in context
	// MaxCallsPerTurn bounds the tool calls one model turn may make (0:
	// as many as ContextTokens holds at MaxResultTokens each, so that the
	// latest turn, which compact never shortens, fits the budget); the
	// calls past it are not run, and the model is told so.
	MaxCallsPerTurn int

	// Stream asks for server-sent events; OnText then receives content
	// pieces as they arrive (of every turn, not only the last).
	Stream bool
	OnText func(string)
	// OnToolCall is called after each tool call finishes (serialised, never
	// concurrently), for -v output.
	OnToolCall func(ToolEvent)
}

// ToolEvent describes one finished tool call.
type ToolEvent struct {
	Step      int           `json:"step"` // 1-based model turn that asked for it
	ID        string        `json:"id"`
	Name      string        `json:"name"`
	Args      string        `json:"args"` // raw JSON as the model sent it
	Duration  time.Duration `json:"-"`
	Millis    float64       `json:"duration_ms"`     // Duration in milliseconds
	Err       error         `json:"-"`               // reported to the model as "error: ..."
	Error     string        `json:"error,omitempty"` // Err's text
	Chars     int           `json:"chars"`           // result length in characters, before truncation
	Truncated bool          `json:"truncated,omitempty"`
}

// Result is the outcome of one question.
type Result struct {
	Answer    string        `json:"answer"`
	Steps     int           `json:"steps"` // model turns that called tools
	ToolCalls []ToolEvent   `json:"tool_calls"`
	StepLimit bool          `json:"step_limit,omitempty"` // the answer was forced by the step limit
	Usage     llm.Usage     `json:"usage"`
	Messages  []llm.Message `json:"-"` // the whole conversation, system prompt first
	// DroppedCalls counts the tool calls not run because a turn asked for
	// more than MaxCallsPerTurn.
	DroppedCalls int `json:"dropped_calls,omitempty"`
}

func (a *Agent) maxSteps() int    { return orDefault(a.MaxSteps, DefaultMaxSteps) }
func (a *Agent) parallelism() int { return orDefault(a.Parallelism, DefaultParallelism) }
func (a *Agent) resultTokens() int {
	return orDefault(a.MaxResultTokens, DefaultMaxResultTokens)
}
func (a *Agent) contextTokens() int { return orDefault(a.ContextTokens, DefaultContextTokens) }
func (a *Agent) maxCalls() int {
	return orDefault(a.MaxCallsPerTurn, max(1, a.contextTokens()/a.resultTokens()))
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// Run asks question and returns the model's final answer. On an error the
// partial Result (tool calls so far, conversation) is returned with it.
// Errors: the chat client's (llm.ErrNotConfigured, llm.ErrUnreachable,
// llm.ErrToolsUnsupported, *llm.APIError), ErrStepLimit, ErrEmptyAnswer and
// the context's.
func (a *Agent) Run(ctx context.Context, question string) (*Result, error) {
	if a.Client == nil {
		return nil, llm.ErrNotConfigured
	}
	byName := make(map[string]Tool, len(a.Tools))
	defs := make([]llm.Tool, 0, len(a.Tools))
	for _, t := range a.Tools {
		if _, dup := byName[t.Name()]; dup {
			return nil, fmt.Errorf("tool %q registered twice", t.Name())
		}
		byName[t.Name()] = t
		defs = append(defs, llm.Tool{Type: "function", Function: llm.FunctionDef{
			Name: t.Name(), Description: t.Description(), Parameters: t.Schema()}})
	}
	sys := a.SystemPrompt
	if sys == "" {
		sys = SystemPrompt
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: sys}}
	msgs = append(msgs, a.History...)
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: question})
	res := &Result{}
	defer func() { res.Messages = msgs }()

	for step := 1; step <= a.maxSteps(); step++ {
		a.compact(msgs)
		m, err := a.chat(ctx, res, llm.Request{Messages: msgs, Tools: defs})
		if err != nil {
			return res, err
		}
		for i := range m.ToolCalls { // some servers omit ids; the tool messages need them
			if m.ToolCalls[i].ID == "" {
				m.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d", step, i)
			}
			if m.ToolCalls[i].Type == "" {
				m.ToolCalls[i].Type = "function"
			}
		}
		// a server asking for thousands of calls in one turn (each run,
		// each result sent back next turn) would hold memory and the
		// next request without bound: the calls past the cap are dropped
		// from the turn and the model is told in the first result
		dropped := 0
		if n := a.maxCalls(); len(m.ToolCalls) > n {
			dropped = len(m.ToolCalls) - n
			m.ToolCalls = m.ToolCalls[:n:n]
		}
		msgs = append(msgs, m)
		if len(m.ToolCalls) == 0 {
			res.Answer = strings.TrimSpace(m.Content)
			return res, nil
		}
		res.Steps = step
		events, outputs := a.runCalls(ctx, step, byName, m.ToolCalls)
		if dropped > 0 {
			res.DroppedCalls += dropped
			outputs[0] = fmt.Sprintf("[%d more tool calls of this turn were not run: at most %d per turn; call the ones you still need again]\n", dropped, len(m.ToolCalls)) + outputs[0]
		}
		res.ToolCalls = append(res.ToolCalls, events...)
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("agent: %w", err)
		}
		for i, tc := range m.ToolCalls {
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Content: outputs[i]})
		}
	}

	// Step limit: ask for an answer without offering tools.
	res.StepLimit = true
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: finalPrompt})
	a.compact(msgs)
	m, err := a.chat(ctx, res, llm.Request{Messages: msgs})
	if err != nil && !errors.Is(err, ErrEmptyAnswer) {
		return res, err
	}
	msgs = append(msgs, m)
	if err != nil || len(m.ToolCalls) > 0 {
		return res, fmt.Errorf("%w (%d steps; raise --max-steps or ask a narrower question)", ErrStepLimit, a.maxSteps())
	}
	res.Answer = strings.TrimSpace(m.Content)
	return res, nil
}

// chat makes one model call and accumulates usage.
func (a *Agent) chat(ctx context.Context, res *Result, req llm.Request) (llm.Message, error) {
	var onDelta func(string)
	if a.Stream {
		req.Stream = true
		onDelta = a.OnText
	}
	resp, err := a.Client.Chat(ctx, req, onDelta)
	if err != nil {
		return llm.Message{}, err
	}
	if u := resp.Usage; u != nil {
		res.Usage.PromptTokens += u.PromptTokens
		res.Usage.CompletionTokens += u.CompletionTokens
		res.Usage.TotalTokens += u.TotalTokens
	}
	m := resp.Message()
	m.Role = llm.RoleAssistant
	if len(m.ToolCalls) == 0 && strings.TrimSpace(m.Content) == "" {
		return m, fmt.Errorf("%w (finish_reason %q)", ErrEmptyAnswer, resp.FinishReason())
	}
	return m, nil
}

// runCalls executes one turn's calls: each maximal run of consecutive
// read-only calls in parallel (at most Parallelism at once), other calls
// alone, in order. Results come back in the order of calls.
func (a *Agent) runCalls(ctx context.Context, step int, byName map[string]Tool, calls []llm.ToolCall) ([]ToolEvent, []string) {
	events := make([]ToolEvent, len(calls))
	outputs := make([]string, len(calls))
	var mu sync.Mutex // serialises OnToolCall
	one := func(i int) {
		events[i], outputs[i] = a.call(ctx, step, byName, calls[i])
		if a.OnToolCall != nil {
			mu.Lock()
			a.OnToolCall(events[i])
			mu.Unlock()
		}
	}
	readOnly := func(tc llm.ToolCall) bool {
		t, ok := byName[tc.Function.Name]
		return !ok || t.ReadOnly() // an unknown tool only yields an error result
	}
	for i := 0; i < len(calls); {
		if !readOnly(calls[i]) {
			one(i)
			i++
			continue
		}
		j := i
		for j < len(calls) && readOnly(calls[j]) {
			j++
		}
		var g errgroup.Group
		g.SetLimit(a.parallelism())
		for k := i; k < j; k++ {
			g.Go(func() error { one(k); return nil })
		}
		_ = g.Wait() // calls never fail: errors are results
		i = j
	}
	return events, outputs
}

// call runs one tool call and returns its event and the text for the model.
func (a *Agent) call(ctx context.Context, step int, byName map[string]Tool, tc llm.ToolCall) (ev ToolEvent, out string) {
	ev = ToolEvent{Step: step, ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments}
	start := time.Now()
	text, err := a.invoke(ctx, byName, tc)
	ev.Duration = time.Since(start)
	ev.Millis = float64(ev.Duration.Microseconds()) / 1000
	if err != nil {
		ev.Err, ev.Error = err, err.Error()
		text = "error: " + err.Error()
	} else if strings.TrimSpace(text) == "" {
		text = "(no output)"
	}
	ev.Chars = countRunes(text)
	out, ev.Truncated = Truncate(text, a.resultTokens())
	return ev, out
}

func (a *Agent) invoke(ctx context.Context, byName map[string]Tool, tc llm.ToolCall) (text string, err error) {
	t, ok := byName[tc.Function.Name]
	if !ok {
		names := make([]string, 0, len(byName))
		for n := range byName {
			names = append(names, n)
		}
		slices.Sort(names)
		return "", fmt.Errorf("unknown tool %q; available tools: %s", tc.Function.Name, strings.Join(names, ", "))
	}
	args := json.RawMessage(strings.TrimSpace(tc.Function.Arguments))
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if !json.Valid(args) {
		return "", fmt.Errorf("invalid JSON arguments for %s: %.200s", t.Name(), tc.Function.Arguments)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tool %s panicked: %v", t.Name(), r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return t.Call(ctx, args)
}

// compact keeps the tool output in msgs within ContextTokens by replacing
// the oldest tool results (never those of the latest turn) with a note.
func (a *Agent) compact(msgs []llm.Message) {
	last := -1 // index of the last assistant message
	total := 0
	for i, m := range msgs {
		if m.Role == llm.RoleAssistant {
			last = i
		}
		if m.Role == llm.RoleTool {
			total += EstimateTokens(m.Content)
		}
	}
	for i := 0; i < last && total > a.contextTokens(); i++ {
		m := &msgs[i]
		if m.Role != llm.RoleTool || strings.HasPrefix(m.Content, elidedPrefix) {
			continue
		}
		note := fmt.Sprintf("%s this earlier tool result (%d characters) was removed to save context; call the tool again if you still need it]", elidedPrefix, countRunes(m.Content))
		total += EstimateTokens(note) - EstimateTokens(m.Content)
		m.Content = note
	}
}

const elidedPrefix = "[elided:"
