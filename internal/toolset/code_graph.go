package toolset

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/relate"
)

// CodeGraphParams are the arguments of code_graph.
type CodeGraphParams struct {
	Name string `json:"name" jsonschema:"a class, type or function name, or Class.method (e.g. UserService or UserService.login), as it appears in the code"`
}

var codeGraph = define(CodeGraph, "Relations of a symbol", true,
	`Show the direct relations of a class, type, function or Class.method from the project's index, both directions: what it imports, extends, implements, contains and calls, and what calls, contains, extends or implements it, each with file:line. Use it after you found a symbol (with grep_code or search_code) to see its callers and callees without reading every file.`,
	func(ctx context.Context, env *Env, c Call, in CodeGraphParams) (string, error) {
		name := strings.TrimSpace(in.Name)
		if name == "" {
			return "", errors.New("code_graph: empty name: give a class, function or Class.method name")
		}
		if err := relate.CheckName(name); err != nil {
			return "", fmt.Errorf("code_graph: %w", err)
		}
		root, err := c.Root(ctx)
		if err != nil {
			return "", fmt.Errorf("code_graph: %w", err)
		}
		notIndexed := strings.Replace(NotIndexedMessage, SearchCode, CodeGraph, 1)
		eng := env.Engine
		if eng == nil {
			return notIndexed, nil
		}
		p, err := env.open(ctx, c, root)
		switch {
		case errors.Is(err, engine.ErrNotIndexed) && !env.autoIndex():
			return notIndexed, nil
		case errors.Is(err, engine.ErrNotIndexed):
			return "", fmt.Errorf("code_graph: %s is not indexed yet (indexing runs in the background; see index_status): %w", root, err)
		case err != nil:
			return "", fmt.Errorf("code_graph: %w", err)
		}
		defer p.Release()
		note := refreshNote(p)
		text, err := p.Describe(ctx, name)
		switch {
		case errors.Is(err, relate.ErrNotFound):
			hint := "use grep_code to find where it is defined, or search_code to describe it"
			if similar, serr := p.NamesLike(ctx, name, 10); serr == nil && len(similar) > 0 {
				hint = "indexed names containing it: " + strings.Join(similar, ", ")
			}
			if note != "" {
				hint = "indexing is still running, so it may not be indexed yet (see index_status); " + hint
			}
			return "", fmt.Errorf("code_graph: %w; %s", err, hint)
		case errors.Is(err, relate.ErrAmbiguous):
			return "", fmt.Errorf("code_graph: %w", err)
		case err != nil:
			return "", fmt.Errorf("code_graph: relations of %s: %w", name, err)
		}
		text = toolHints(text)
		if note != "" {
			text = strings.TrimRight(text, "\n") + "\n\n" + note + "\n"
		}
		return text, nil
	})

// toolHints rewrites the hints of a relation graph rendered for the CLI
// (relate.Render) that name a CLI flag the code_graph tool has no
// argument for: the guessed calls left out are found by grep_code.
func toolHints(text string) string {
	return strings.ReplaceAll(text, "; --include-guesses shows them)", "; not listed: grep_code for the name finds their call sites)")
}
