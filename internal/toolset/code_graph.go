package toolset

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/relate"
)

// CodeGraphParams are the arguments of code_graph.
type CodeGraphParams struct {
	Name string `json:"name" jsonschema:"a class, type or function name, or Class.method (e.g. UserService or UserService.login), as it appears in the code"`
	// Walk, Depth and To turn the one-hop graph into a walk or a path:
	// the CLI's callers, callees and path.
	Walk  string `json:"walk,omitempty" jsonschema:"callers or callees: instead of the direct relations, walk the call graph from the function, breadth first, up to depth calls away"`
	Depth int    `json:"depth,omitempty" jsonschema:"calls away for walk, 1 to 4 (default 2)"`
	To    string `json:"to,omitempty" jsonschema:"another function: instead of the direct relations, a shortest call path from name to it"`
	// IncludeGuesses and NoTests are the CLI's --include-guesses and
	// --no-tests.
	IncludeGuesses bool `json:"include_guesses,omitempty" jsonschema:"also follow and list calls on values of unknown type matched by name (guesses), which walks and paths leave out by default"`
	NoTests        bool `json:"no_tests,omitempty" jsonschema:"leave callers in test files out"`
}

// maxWalkDepth bounds code_graph's walk (relate.DefaultDepth).
const maxWalkDepth = relate.DefaultDepth

// walkOrPath renders the path (in.To) or the walk (in.Walk, callers or
// callees) in asks for from the resolver, as relate.Render's text tree.
func walkOrPath(r *relate.Resolver, name string, in CodeGraphParams) (string, error) {
	var res relate.Result
	var err error
	switch {
	case in.To != "":
		var p *relate.PathResult
		p, err = r.Path(name, strings.TrimSpace(in.To))
		if err == nil && !p.Found {
			if !r.IncludeGuesses {
				p.Hint = "guessed calls (on values of unknown type) were not followed: include_guesses follows them"
			}
		}
		res = p
	case in.Walk == "callers":
		res, err = r.Callers(name, in.Depth)
	default:
		res, err = r.Callees(name, in.Depth)
	}
	if err != nil {
		return "", err
	}
	var b strings.Builder
	err = relate.Render(&b, res, relate.FormatTree)
	return b.String(), err
}

var codeGraph = define(CodeGraph, "Relations of a symbol", true,
	`Show the direct relations of a class, type, function or Class.method from the project's index, both directions: what it imports, extends, implements, contains and calls, and what calls, contains, extends or implements it, each with file:line. Use it after you found a symbol (with grep_code or search_code) to see its callers and callees without reading every file. With walk "callers" or "callees" it follows calls transitively up to depth; with to, it finds a shortest call path from name to that function.`,
	func(ctx context.Context, env *Env, c Call, in CodeGraphParams) (string, error) {
		name := strings.TrimSpace(in.Name)
		if name == "" {
			return "", errors.New("code_graph: empty name: give a class, function or Class.method name")
		}
		if err := relate.CheckName(name); err != nil {
			return "", fmt.Errorf("code_graph: %w", err)
		}
		if err := relate.CheckName(in.To); err != nil {
			return "", fmt.Errorf("code_graph: to: %w", err)
		}
		switch {
		case in.Walk != "" && in.Walk != "callers" && in.Walk != "callees":
			return "", fmt.Errorf("code_graph: walk must be callers or callees; got %q", in.Walk)
		case in.Walk != "" && in.To != "":
			return "", errors.New("code_graph: walk and to ask for two answers: give one")
		case in.Depth != 0 && in.Walk == "":
			return "", errors.New("code_graph: depth needs walk (callers or callees)")
		case in.Depth < 0 || in.Depth > maxWalkDepth:
			return "", fmt.Errorf("code_graph: depth must be 1 to %d (omit it for 2); got %d", maxWalkDepth, in.Depth)
		case in.Walk != "" && in.Depth == 0:
			in.Depth = 2
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
		var text string
		if in.Walk == "" && in.To == "" && !in.IncludeGuesses && !in.NoTests {
			text, err = p.Describe(ctx, name)
		} else {
			err = p.Graph(ctx, func(r *relate.Resolver) error {
				// the resolver is this call's alone while fn runs
				// (Engine.Graph), and is shared after it
				r.IncludeGuesses, r.NoTests = in.IncludeGuesses, in.NoTests
				defer func() { r.IncludeGuesses, r.NoTests = false, false }()
				var werr error
				if in.Walk == "" && in.To == "" {
					g, gerr := r.Graph(name)
					if gerr != nil {
						return gerr
					}
					var b strings.Builder
					werr = relate.Render(&b, g, relate.FormatTree)
					text = b.String()
					return werr
				}
				text, werr = walkOrPath(r, name, in)
				return werr
			})
		}
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

// toolHints rewrites the hints of a relation graph, walk or path rendered
// for the CLI (relate.Render) that name a CLI flag or command: the tool's
// argument for --include-guesses is include_guesses, and the mentions of
// a function no call names are found by grep_code.
func toolHints(text string) string {
	text = strings.ReplaceAll(text, "; --include-guesses shows them)", "; not listed: include_guesses lists them)")
	text = strings.ReplaceAll(text, "; --include-guesses shows them", "; not followed: include_guesses follows them")
	return cliGrep.ReplaceAllString(text, "grep_code with the pattern $1")
}

// cliGrep matches the CLI grep a rendered walk suggests
// (relate.Walk's note on a function no call names).
var cliGrep = regexp.MustCompile("`coderag grep ('[^'`]*')`")
