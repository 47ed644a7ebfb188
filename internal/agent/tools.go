package agent

import (
	"context"
	"encoding/json"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/toolset"
)

// Tool names: the registry's (internal/toolset).
const (
	ToolGlob   = toolset.GlobFiles
	ToolGrep   = toolset.GrepCode
	ToolRead   = toolset.ReadFile
	ToolSearch = toolset.SearchCode
	ToolGraph  = toolset.CodeGraph
)

// NotIndexedMessage is search_code's result for a project without an index.
const NotIndexedMessage = toolset.NotIndexedMessage

// SearchParams are the arguments of search_code (the registry's).
type SearchParams = toolset.SearchCodeParams

// ProjectTools returns the registry's query tools (glob_files, grep_code,
// read_file, search_code, code_graph) over the project at root (an
// absolute directory) and eng, which may be nil when there is no index.
// search_code and code_graph answer from the index as it is, never
// indexing (a project without an index gets NotIndexedMessage), so all
// five are read-only.
func ProjectTools(root string, eng *engine.Engine) []Tool {
	return FromRegistry(&toolset.Env{Engine: eng, Policy: engine.AsIs}, toolset.Fixed(root), toolset.Query()...)
}

// FromRegistry adapts registry tools to the agent: the same name,
// description and argument schema as MCP clients see, and the same
// handler, run in env with the call context c.
func FromRegistry(env *toolset.Env, c toolset.Call, ts ...*toolset.Tool) []Tool {
	out := make([]Tool, len(ts))
	for i, t := range ts {
		out[i] = registryTool{t: t, env: env, call: c}
	}
	return out
}

// registryTool is a registry tool as an agent Tool.
type registryTool struct {
	t    *toolset.Tool
	env  *toolset.Env
	call toolset.Call
}

var _ Tool = registryTool{}

// Name implements Tool.
func (r registryTool) Name() string { return r.t.Name }

// Description implements Tool.
func (r registryTool) Description() string { return r.t.Description }

// Schema implements Tool: the registry's schema, as MCP clients see it.
func (r registryTool) Schema() json.RawMessage { return r.t.SchemaJSON() }

// ReadOnly implements Tool.
func (r registryTool) ReadOnly() bool { return r.t.ReadOnlyIn(r.env) }

// Call implements Tool: the registry's handler, its answer cut at
// max_answer_chars.
func (r registryTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	a, err := r.t.Call(ctx, r.env, r.call, args)
	return a.Text, err
}
