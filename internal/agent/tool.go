package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/coderag/coderag/internal/toolset"
)

// Tool is one function the model may call. Implementations must be safe for
// concurrent use when ReadOnly reports true: the loop runs read-only calls
// of one turn in parallel.
type Tool interface {
	// Name is the function name the model uses, e.g. "grep_code".
	Name() string
	// Description tells the model what the tool does and when to use it.
	Description() string
	// Schema is the JSON Schema (an object) of the arguments.
	Schema() json.RawMessage
	// ReadOnly reports that the tool changes nothing, so calls to it may run
	// in parallel with other read-only calls.
	ReadOnly() bool
	// Call runs the tool with the model's JSON arguments and returns the
	// text the model sees. An error is reported to the model as the tool's
	// result ("error: ..."); it never stops the loop.
	Call(ctx context.Context, args json.RawMessage) (string, error)
}

// FuncTool is a Tool made of plain values, for registering a tool without
// declaring a type:
//
//	agent.FuncTool{ToolName: "probe", ToolDescription: "...",
//		Parameters: json.RawMessage(`{"type":"object","properties":{}}`), IsReadOnly: true,
//		Fn: func(ctx context.Context, args json.RawMessage) (string, error) {...}}
//
// NewTool builds one with typed arguments.
type FuncTool struct {
	ToolName        string
	ToolDescription string
	Parameters      json.RawMessage // JSON Schema; nil means an object with no properties
	IsReadOnly      bool
	Fn              func(ctx context.Context, args json.RawMessage) (string, error)
}

var _ Tool = FuncTool{}

// Name implements Tool.
func (f FuncTool) Name() string { return f.ToolName }

// Description implements Tool.
func (f FuncTool) Description() string { return f.ToolDescription }

// Schema implements Tool.
func (f FuncTool) Schema() json.RawMessage {
	if len(f.Parameters) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return f.Parameters
}

// ReadOnly implements Tool.
func (f FuncTool) ReadOnly() bool { return f.IsReadOnly }

// Call implements Tool.
func (f FuncTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	if f.Fn == nil {
		return "", fmt.Errorf("tool %s has no implementation", f.ToolName)
	}
	return f.Fn(ctx, args)
}

// NewTool returns a Tool whose arguments are decoded into a P (a struct with
// json tags, described by jsonschema tags; unknown fields are ignored, and
// numbers sent as strings accepted) and whose schema is jsonschema.For[P].
// Malformed arguments are an error naming the tool. It panics when P is
// not a type jsonschema can describe (a programming error). Coderag's own
// tools come from the registry (FromRegistry); NewTool is for others.
func NewTool[P any](name, description string, readOnly bool, fn func(ctx context.Context, p P) (string, error)) Tool {
	sch, err := jsonschema.For[P](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", name, err))
	}
	raw, err := json.Marshal(sch)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", name, err))
	}
	return FuncTool{
		ToolName:        name,
		ToolDescription: description,
		Parameters:      raw,
		IsReadOnly:      readOnly,
		Fn: func(ctx context.Context, args json.RawMessage) (string, error) {
			var p P
			if err := toolset.DecodeArgs(args, &p); err != nil {
				return "", fmt.Errorf("%s arguments: %w", name, err)
			}
			return fn(ctx, p)
		},
	}
}
