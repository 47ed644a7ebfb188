package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/relate"
	"github.com/coderag/coderag/internal/store"
)

// CodeGraphParams are the arguments of code_graph.
type CodeGraphParams struct {
	Name string `json:"name" jsonschema:"a class, type or function name, or Class.method (e.g. UserService or UserService.login), as it appears in the code"`
}

const codeGraphDescription = `Show the direct relations of a class, type, function or Class.method from the project's index, both directions: what it imports, extends, implements, contains and calls, and what calls, contains, extends or implements it, each with file:line. Use it after you found a symbol (with grep_code or search_code) to see its callers and callees without reading every file.`

func (s *Server) addCodeGraph() {
	addTool(s, &sdk.Tool{Name: "code_graph", Description: codeGraphDescription, Annotations: readOnly("Relations of a symbol")},
		func(ctx context.Context, req *sdk.CallToolRequest, in CodeGraphParams) (string, error) {
			name := strings.TrimSpace(in.Name)
			if name == "" {
				return "", errors.New("code_graph: empty name: give a class, function or Class.method name")
			}
			root, err := s.root(ctx, req.Session)
			if err != nil {
				return "", fmt.Errorf("code_graph: %w", err)
			}
			note, err := s.refresh(ctx, req, root)
			if err != nil {
				return "", fmt.Errorf("code_graph: %w", err)
			}
			if _, err := s.cfg.Store.GetProject(ctx, root); err != nil {
				if errors.Is(err, store.ErrNotIndexed) {
					return "", fmt.Errorf("code_graph: %s is not indexed yet (indexing runs in the background; see index_status): %w", root, err)
				}
				return "", fmt.Errorf("code_graph: read index: %w", err)
			}
			text, err := s.graphs.Describe(ctx, s.cfg.Store, root, name)
			switch {
			case errors.Is(err, relate.ErrNotFound):
				hint := "use grep_code to find where it is defined, or search_code to describe it"
				if similar, serr := s.cfg.Store.RelationNamesLike(ctx, root, name, 10); serr == nil && len(similar) > 0 {
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
			if note != "" {
				text = strings.TrimRight(text, "\n") + "\n\n" + note + "\n"
			}
			return text, nil
		})
}
