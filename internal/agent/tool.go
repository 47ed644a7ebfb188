package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
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
//	agent.FuncTool{ToolName: "code_graph", ToolDescription: "...",
//		Parameters: agent.SchemaOf(GraphParams{}), IsReadOnly: true,
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
// json tags; unknown fields are ignored) and whose schema is SchemaOf(P).
// Malformed arguments are an error naming the tool.
func NewTool[P any](name, description string, readOnly bool, fn func(ctx context.Context, p P) (string, error)) Tool {
	var zero P
	return FuncTool{
		ToolName:        name,
		ToolDescription: description,
		Parameters:      SchemaOf(zero),
		IsReadOnly:      readOnly,
		Fn: func(ctx context.Context, args json.RawMessage) (string, error) {
			var p P
			if err := DecodeArgs(args, &p); err != nil {
				return "", fmt.Errorf("%s arguments: %w", name, err)
			}
			return fn(ctx, p)
		},
	}
}

// DecodeArgs decodes a model's JSON arguments into v. Empty arguments (""
// or "null") decode as {}. Numbers sent as strings ("5") are accepted for
// integer fields, since some models quote them.
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

// SchemaOf returns a JSON Schema object for the struct v (or pointer to
// struct): one property per exported field with a json tag (fields tagged
// "-" are skipped), typed from the Go type (string, integer, number,
// boolean, array), described by the field's `jsonschema` tag (or its
// `description` tag). Fields without omitempty are required.
func SchemaOf(v any) json.RawMessage {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	props := map[string]any{}
	var required []string
	if t != nil && t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "" {
				name = f.Name
			}
			p := typeSchema(f.Type)
			desc := f.Tag.Get("jsonschema")
			if desc == "" {
				desc = f.Tag.Get("description")
			}
			if desc != "" {
				p["description"] = desc
			}
			props[name] = p
			if !strings.Contains(opts, "omitempty") {
				required = append(required, name)
			}
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // maps of strings cannot fail to encode
	}
	return b
}

func typeSchema(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": typeSchema(t.Elem())}
	case reflect.Map, reflect.Struct:
		return map[string]any{"type": "object"}
	}
	return map[string]any{}
}
