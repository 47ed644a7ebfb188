package toolset

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/coderag/coderag/internal/config"
)

// Answer sizes. Every tool's text answer is cut at a line boundary past
// max_answer_chars (default DefaultAnswerChars, at most MaxAnswerChars):
// Claude Code refuses tool results over 25,000 tokens (about 100,000
// characters) and a 40,000-character answer already fills a tenth of a
// 100k-token context. The cut says how much was left out and how to get
// it (the tool's own offset or narrowing arguments).
const (
	DefaultAnswerChars = 20000
	MaxAnswerChars     = 40000
	minAnswerChars     = 1000
)

// bound is a numeric argument's declared range and default, and its help
// when it comes from a config.Limit (the schema's description is then
// that help, whatever the parameter struct's tag says).
type bound struct {
	min, max, def int
	help          string
}

// limit is the bound of a rule declared in config.
func limit(l config.Limit) bound { return bound{l.Min, l.Max, l.Default, l.Help()} }

// bounds are the declared ranges of the tools' numeric arguments, in the
// schema and checked by CheckBounds: a value outside is refused with the
// range and the default instead of silently replaced.
var bounds = map[string]map[string]bound{
	"grep_code": {"head_limit": {1, 1000, 20, ""}, "max_results": {1, 2000, 50, ""}, "max_chars": {1, MaxAnswerChars, 24000, ""},
		"context": {0, 100, 0, ""}, "before": {0, 100, 0, ""}, "after": {0, 100, 0, ""}},
	"glob_files":  {"limit": {1, 5000, 200, ""}},
	"read_file":   {"offset": {1, 1 << 30, 1, ""}, "limit": {1, 2000, 200, ""}},
	"search_code": {"top_k": limit(config.TopK)},
}

// inputSchema returns the schema of In with the tool's bounds declared and
// the common max_answer_chars argument added.
func inputSchema[In any](tool string) (*jsonschema.Schema, error) {
	sch, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, fmt.Errorf("%s input schema: %w", tool, err)
	}
	if sch.Properties == nil {
		sch.Properties = map[string]*jsonschema.Schema{}
	}
	set := func(p *jsonschema.Schema, b bound) {
		lo, hi := float64(b.min), float64(b.max)
		p.Minimum, p.Maximum = &lo, &hi
		p.Default = json.RawMessage(strconv.Itoa(b.def))
	}
	for name, b := range bounds[tool] {
		if p := sch.Properties[name]; p != nil {
			set(p, b)
			if b.help != "" {
				p.Description = b.help
			}
		}
	}
	// arguments the tool checks itself, with its own messages: declared
	// in the schema too, so a client sees the range before it calls
	for name, b := range declaredOnly[tool] {
		if p := sch.Properties[name]; p != nil {
			// the range only: a declared default is filled in by the
			// SDK, and depth without walk is an error
			lo, hi := float64(b.min), float64(b.max)
			p.Minimum, p.Maximum = &lo, &hi
		}
	}
	for name, values := range enums[tool] {
		if p := sch.Properties[name]; p != nil {
			p.Enum = values
		}
	}
	p := &jsonschema.Schema{Type: "integer", Description: fmt.Sprintf("longest answer in characters, %d to %d (default %d); a longer answer is cut at a line boundary and says how to continue", minAnswerChars, MaxAnswerChars, DefaultAnswerChars)}
	set(p, bound{minAnswerChars, MaxAnswerChars, DefaultAnswerChars, ""})
	sch.Properties["max_answer_chars"] = p
	return sch, nil
}

// declaredOnly are numeric ranges declared in a tool's schema (without a
// default) that the tool checks itself (code_graph's depth: "depth must
// be 1 to 4").
var declaredOnly = map[string]map[string]bound{
	"code_graph": {"depth": {1, maxWalkDepth, 2, ""}},
}

// enums are the allowed values of a tool's string arguments, declared in
// its schema (the tool checks them itself).
var enums = map[string]map[string][]any{
	"code_graph": {"walk": {"callers", "callees"}},
}

// CheckBounds returns an error when args (a tool call's JSON arguments)
// give one of the tool's numeric arguments, max_answer_chars included, a
// value outside its declared range, as one line for the model:
// "search_code: top_k must be 1 to 30 (omit it for the default, 5); got 0".
// Numbers sent as strings count as numbers; a value that is no integer
// ("abc", 2.5, true) is refused the same way. Missing or null arguments,
// and arguments that are not a JSON object, are left to the decoder.
func (t *Tool) CheckBounds(args json.RawMessage) error {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	check := func(name string, b bound) error {
		raw, ok := m[name]
		if !ok || string(raw) == "null" {
			return nil
		}
		text := string(raw)
		var s string
		if json.Unmarshal(raw, &s) == nil {
			text = s
		}
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		switch {
		case err != nil:
			return fmt.Errorf("%s: %s must be an integer from %d to %d (omit it for the default, %d); got %s", t.Name, name, b.min, b.max, b.def, raw)
		case n < int64(b.min) || n > int64(b.max):
			return fmt.Errorf("%s: %s must be %d to %d (omit it for the default, %d); got %d", t.Name, name, b.min, b.max, b.def, n)
		}
		return nil
	}
	names := make([]string, 0, len(bounds[t.Name]))
	for name := range bounds[t.Name] {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := check(name, bounds[t.Name][name]); err != nil {
			return err
		}
	}
	return check("max_answer_chars", bound{minAnswerChars, MaxAnswerChars, DefaultAnswerChars, ""})
}

// answerLimit reads max_answer_chars from raw arguments, DefaultAnswerChars
// when absent; a value out of range is clamped (the MCP SDK refuses it
// before, by the schema).
func answerLimit(args json.RawMessage) int {
	var a struct {
		Max int `json:"max_answer_chars"`
	}
	if DecodeArgs(args, &a) != nil || a.Max == 0 {
		return DefaultAnswerChars
	}
	return min(max(a.Max, minAnswerChars), MaxAnswerChars)
}

// cut bounds text to limit characters (bytes of UTF-8; the cut note is
// extra, under 400), at the last line boundary before it, and fills the
// Answer's cut fields with how tool continues.
func cut(tool, text string, limit int, ans *Answer) string {
	ans.Text = text
	if len(text) <= limit {
		return text
	}
	keep := text[:limit]
	if i := strings.LastIndexByte(keep, '\n'); i > 0 {
		keep = keep[:i+1]
	} else {
		for len(keep) > 0 && !utf8Start(text[len(keep)]) {
			keep = keep[:len(keep)-1]
		}
	}
	ans.Truncated, ans.TotalChars = true, len(text)
	ans.Continue = continueHint(tool, keep)
	out := keep + fmt.Sprintf("\n[answer cut at %d of %d characters (max_answer_chars %d, at most %d). To continue: %s]\n",
		len(keep), len(text), limit, MaxAnswerChars, ans.Continue)
	ans.Text = out
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// continueHint says how tool's caller reads what was cut after kept.
func continueHint(tool, kept string) string {
	switch tool {
	case "read_file":
		// lines are "%6d\t%s": continue after the last whole line shown
		lines := strings.Split(strings.TrimRight(kept, "\n"), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			f := strings.TrimSpace(strings.SplitN(lines[i], "\t", 2)[0])
			if n, err := strconv.Atoi(f); err == nil {
				return fmt.Sprintf("call read_file again with offset %d (or a smaller limit)", n+1)
			}
		}
		return "call read_file with a larger offset or a smaller limit"
	case "grep_code":
		return "narrow the search with path or glob, or lower max_results or head_limit"
	case "glob_files":
		return "narrow the pattern or path, or lower limit"
	case "search_code":
		return "lower top_k or ask a narrower question"
	case "code_graph":
		return "ask for a narrower name (Class.method)"
	}
	return "raise max_answer_chars (at most " + strconv.Itoa(MaxAnswerChars) + ")"
}
