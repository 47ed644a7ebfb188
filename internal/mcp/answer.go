package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/toolset"
)

// Answer sizes: every tool's text answer is cut at a line boundary past
// max_answer_chars (toolset.DefaultAnswerChars by default, at most
// toolset.MaxAnswerChars).
const (
	DefaultAnswerChars = toolset.DefaultAnswerChars
	MaxAnswerChars     = toolset.MaxAnswerChars
)

// Answer is the structured content of every tool result (its outputSchema):
// the text the model reads, the root its paths are relative to, and
// whether and how it was cut.
type Answer struct {
	Root string `json:"root" jsonschema:"project root; every path in text is relative to it"`
	Text string `json:"text" jsonschema:"the answer, as in the text content"`
	// Truncated: the text was cut at max_answer_chars; TotalChars is its
	// length before the cut and Continue how to read the rest.
	Truncated  bool   `json:"truncated,omitempty" jsonschema:"the text was cut at max_answer_chars"`
	TotalChars int    `json:"total_chars,omitempty" jsonschema:"length of the whole text before the cut, in characters"`
	Continue   string `json:"continue,omitempty" jsonschema:"how to get what was cut"`
}

// unknownTool answers a call of a tool the server does not have with the
// SDK's invalid-params error (-32602), naming the tools it has ("unknown
// tool \"serch_code\"; the tools are glob_files, grep_code, ...").
func unknownTool(names []string) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "tools/call" {
				if p, ok := req.GetParams().(*sdk.CallToolParamsRaw); ok && p != nil && !slices.Contains(names, p.Name) {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
						Message: fmt.Sprintf("unknown tool %q; the tools are %s (tools/list describes them)", p.Name, strings.Join(names, ", "))}
				}
			}
			return next(ctx, method, req)
		}
	}
}

// nullArguments makes "arguments": null (what clients send for a tool
// without arguments) an empty object before the SDK validates it: applying
// the schema's defaults to a null object panics in jsonschema-go v0.4.3.
// It also refuses a numeric argument outside its declared range with the
// tool's own one-line error (toolset.Tool.CheckBounds), which names the
// range and the default, in place of the schema validator's
// "minimum: 0/1 is less than 1.000000".
func nullArguments(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "tools/call" {
			if p, ok := req.GetParams().(*sdk.CallToolParamsRaw); ok && p != nil {
				if a := bytes.TrimSpace(p.Arguments); len(a) == 0 || string(a) == "null" {
					p.Arguments = json.RawMessage("{}")
				}
				if t := toolset.Lookup(p.Name); t != nil {
					if err := t.CheckBounds(p.Arguments); err != nil {
						return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}, nil
					}
				}
			}
		}
		return next(ctx, method, req)
	}
}
