// Package toolset is coderag's one tool registry: each tool the model
// calls (glob_files, grep_code, read_file, search_code, code_graph,
// index_project, index_status) is defined once here, with its name,
// description, parameter struct (jsonschema tags describe the arguments;
// jsonschema.For derives the schema) and handler over internal/tools and
// an engine.Engine. The MCP server (internal/mcp) and the agent
// (internal/agent) are adapters over it, so MCP clients and the agent's
// model see the same contract for the same tool.
//
// Every answer is text for a model, cut at max_answer_chars (answer.go).
package toolset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/rootrule"
)

// Tool names.
const (
	GlobFiles    = "glob_files"
	GrepCode     = "grep_code"
	ReadFile     = "read_file"
	SearchCode   = "search_code"
	CodeGraph    = "code_graph"
	IndexProject = "index_project"
	IndexStatus  = "index_status"
)

// Env is what the tools of one front end work over.
type Env struct {
	// Engine is the project's index at run time; nil when there is none
	// (search_code and code_graph then answer NotIndexedMessage, and
	// index_project and index_status fail).
	Engine *engine.Engine
	// Policy is the front end's freshness policy for search_code and
	// code_graph (engine.Policy): engine.Refresh indexes or refreshes the
	// project before answering, waiting up to the engine's IndexBudget
	// (an MCP session that may write); engine.AsIs answers from the index
	// as it is, and a project without one gets NotIndexedMessage (the
	// agent: the user builds the index; read-only MCP sessions).
	Policy engine.Policy
	// IndexedReads limits read_file and grep_code to the files the index
	// takes (tools.ReadIndexed, GrepIndexed): for a project shown to
	// others over a server, so files never indexed (dot-env files, ignored
	// keys, .git/) stay unread.
	IndexedReads bool
}

// autoIndex reports whether search_code and code_graph index before
// answering (the engine.Refresh policy).
func (env *Env) autoIndex() bool { return env.Policy == engine.Refresh }

// allowSecrets reports whether the tools read, search and list files
// whose names look like secrets: only when the engine says so
// (engine.AllowSecrets); without an engine they are withheld.
func (env *Env) allowSecrets() bool {
	return env != nil && env.Engine != nil && env.Engine.AllowSecrets()
}

// Call is the context of one tool call.
type Call struct {
	// Root returns the project root the call works in (absolute,
	// symlink-resolved), or why there is none.
	Root func(ctx context.Context) (string, error)
	// Tick, when set, is called about every second while the call waits
	// for an index run (MCP progress notifications).
	Tick func(engine.JobState)
}

// checkedRoot wraps root so that a project root that may not be a
// project (rootrule, with the projects of env's index) is refused
// whoever gave or registered it: every tool works through it.
func checkedRoot(env *Env, root func(context.Context) (string, error)) func(context.Context) (string, error) {
	if root == nil {
		return nil
	}
	return func(ctx context.Context) (string, error) {
		dir, err := root(ctx)
		if err != nil {
			return "", err
		}
		if env != nil && env.Engine != nil {
			err = env.Engine.CheckRoot(ctx, dir)
		} else {
			err = rootrule.Check(dir, nil)
		}
		if err != nil {
			return "", err
		}
		return dir, nil
	}
}

// Fixed returns a Call over the fixed project root root.
func Fixed(root string) Call {
	return Call{Root: func(context.Context) (string, error) { return root, nil }}
}

// Tool is one tool of the registry.
type Tool struct {
	// Name is what the model calls it, e.g. "grep_code".
	Name string
	// Title is a short human title (MCP annotations).
	Title string
	// Description tells the model what the tool does and returns. The
	// advice on which tool to use first is not repeated here: it is in the
	// MCP server's instructions and the agent's system prompt.
	Description string
	// ReadOnly is the tool's MCP read-only hint: it changes nothing but,
	// under the engine.Refresh policy, the freshness of coderag's own index (code_graph
	// is read-only; search_code, which may index a new project, is not).
	ReadOnly bool
	// Indexes: writing coderag's index is what the tool is for
	// (index_project), whatever Env.Policy says.
	Indexes bool

	schema func() *jsonschema.Schema
	run    func(ctx context.Context, env *Env, c Call, args json.RawMessage) (string, error)
}

// Schema returns a fresh copy of the JSON Schema of the tool's arguments:
// an object with the parameter struct's properties, the declared bounds
// and defaults of numeric arguments, and max_answer_chars.
func (t *Tool) Schema() *jsonschema.Schema { return t.schema() }

// SchemaJSON is Schema encoded as JSON.
func (t *Tool) SchemaJSON() json.RawMessage {
	b, err := json.Marshal(t.schema())
	if err != nil {
		panic(fmt.Sprintf("%s schema: %v", t.Name, err)) // a schema built by jsonschema.For always encodes
	}
	return b
}

// ReadOnlyIn reports whether calls to the tool change nothing in env, so
// that they may run in parallel: it is read-only, or it writes the index
// only through the engine.Refresh policy and env's is another.
func (t *Tool) ReadOnlyIn(env *Env) bool {
	return t.ReadOnly || (!t.Indexes && !env.autoIndex())
}

// Answer is a tool's text answer and whether and how it was cut.
type Answer struct {
	// Text is the answer, as the model reads it.
	Text string
	// Truncated: Text was cut at max_answer_chars; TotalChars is the
	// length before the cut and Continue how to read the rest.
	Truncated  bool
	TotalChars int
	Continue   string
}

// Call runs the tool with JSON arguments args (empty or null mean {};
// numbers sent as strings are accepted) and returns its answer cut to the
// arguments' max_answer_chars. The project root c.Root gives is refused
// when rootrule refuses it (engine.CheckRoot), and files whose names look
// like secrets are withheld unless the engine allows them. A numeric
// argument outside its declared range is refused (CheckBounds). An error
// is for the model to read: it names the tool and says what to do next.
func (t *Tool) Call(ctx context.Context, env *Env, c Call, args json.RawMessage) (Answer, error) {
	if err := t.CheckBounds(args); err != nil {
		return Answer{}, err
	}
	c.Root = checkedRoot(env, c.Root)
	text, err := t.run(ctx, env, c, args)
	if err != nil {
		return Answer{}, err
	}
	var ans Answer
	ans.Text = cut(t.Name, text, answerLimit(args), &ans)
	return ans, nil
}

// define builds a Tool whose arguments decode into a P. Its schema is
// derived when asked for, not at package init (reflection over the
// parameter structs was a tenth of the package init of every coderag
// process, most of which never list a tool); TestSchemas derives each.
func define[P any](name, title string, readOnly bool, description string,
	run func(ctx context.Context, env *Env, c Call, p P) (string, error)) *Tool {
	return &Tool{
		Name: name, Title: title, ReadOnly: readOnly, Description: description,
		schema: func() *jsonschema.Schema {
			s, err := inputSchema[P](name)
			if err != nil {
				panic(err) // a parameter struct the schema package cannot describe: a programming error
			}
			return s
		},
		run: func(ctx context.Context, env *Env, c Call, args json.RawMessage) (string, error) {
			var p P
			if err := DecodeArgs(args, &p); err != nil {
				return "", fmt.Errorf("%s arguments: %w", name, err)
			}
			return run(ctx, env, c, p)
		},
	}
}

// registry is every tool, in the order front ends list them.
var registry = []*Tool{globFiles, grepCode, readFile, searchCode, codeGraph, indexProject, indexStatus}

// All returns every tool, in a fixed order.
func All() []*Tool { return slices.Clone(registry) }

// Lookup returns the tool named name, or nil.
func Lookup(name string) *Tool {
	for _, t := range registry {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Query returns the tools that answer questions about the code (glob,
// grep, read, search, graph): the agent's tools. index_project and
// index_status are left to front ends that index.
func Query() []*Tool {
	return []*Tool{globFiles, grepCode, readFile, searchCode, codeGraph}
}

// DecodeArgs decodes a model's JSON arguments into v. Empty arguments (""
// or "null") decode as {}. Numbers sent as strings ("5") are accepted for
// integer fields, since some models quote them. Unknown fields are
// ignored.
func DecodeArgs(args json.RawMessage, v any) error {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	err := json.Unmarshal(args, v)
	if err == nil {
		return nil
	}
	// Retry with quoted numbers unquoted.
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	changed := false
	for k, x := range m {
		if s, ok := x.(string); ok {
			var n json.Number
			if json.Unmarshal([]byte(s), &n) == nil {
				m[k] = n
				changed = true
			}
		}
	}
	if !changed {
		return err
	}
	b, _ := json.Marshal(m)
	if err2 := json.Unmarshal(b, v); err2 != nil {
		return err
	}
	return nil
}
