package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/store"
)

// CodeGraphParams are the arguments of code_graph.
type CodeGraphParams struct {
	Name string `json:"name" jsonschema:"a class, type or function name, or Class.method (e.g. UserService or UserService.login), as it appears in the code"`
}

const codeGraphDescription = `Show the direct relations of a class, type, function or Class.method from the project's index, both directions: what it imports, extends, implements, contains and calls, and what calls, contains, extends or implements it, each with file:line. Use it after you found a symbol (with grep_code or search_code) to see its callers and callees without reading every file.

` + searchOrder

// maxGraphEdges caps the edges shown per direction.
const maxGraphEdges = 60

func (s *Server) addCodeGraph() {
	addTool(s, &sdk.Tool{Name: "code_graph", Description: codeGraphDescription, Annotations: readOnly("Relations of a symbol")},
		func(ctx context.Context, req *sdk.CallToolRequest, in CodeGraphParams) (string, error) {
			name := strings.TrimSpace(in.Name)
			if name == "" {
				return "", errors.New("code_graph: empty name: give a class, function or Class.method name")
			}
			root := s.root(ctx, req.Session)
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
			text, err := describeRelations(ctx, s.cfg.Store, root, name)
			if err != nil {
				return "", fmt.Errorf("code_graph: %w", err)
			}
			if note != "" {
				text = strings.TrimRight(text, "\n") + "\n\n" + note + "\n"
			}
			return text, nil
		})
}

// describeRelations renders the direct relations of name in project: edges
// from it, edges to it and, for Class.method, calls written with the bare
// method name. When there are none it suggests indexed names containing
// name.
//
// This formats store.Relations itself; internal/relate's call-graph walks
// can replace it once that package exists.
func describeRelations(ctx context.Context, st *store.Store, project, name string) (string, error) {
	rels, err := st.Relations(ctx, project, name)
	if err != nil {
		return "", fmt.Errorf("relations of %s: %w", name, err)
	}
	var out, in, loose []store.RelationRow
	for _, r := range rels {
		if r.From == name {
			out = append(out, r)
		}
		if r.To == name && r.From != name {
			in = append(in, r)
		}
	}
	if i := strings.LastIndex(name, "."); i > 0 && i < len(name)-1 {
		bare := name[i+1:]
		more, err := st.Relations(ctx, project, bare)
		if err != nil {
			return "", fmt.Errorf("relations of %s: %w", bare, err)
		}
		for _, r := range more {
			if r.Kind == "calls" && r.To == bare {
				loose = append(loose, r)
			}
		}
	}
	var b strings.Builder
	if len(out)+len(in)+len(loose) == 0 {
		fmt.Fprintf(&b, "No relations recorded for %q. Names are matched exactly: a type (UserService), a function, or Type.method.\n", name)
		similar, err := similarNames(ctx, st, project, name, 10)
		if err != nil {
			return "", err
		}
		if len(similar) > 0 {
			b.WriteString("Indexed names containing it: " + strings.Join(similar, ", ") + "\n")
		} else {
			b.WriteString("Use grep_code to find where it is defined, or search_code to describe it.\n")
		}
		return b.String(), nil
	}
	fmt.Fprintf(&b, "Relations of %s:\n", name)
	section := func(title string, rows []store.RelationRow, other func(store.RelationRow) string) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (%d):\n", title, len(rows))
		for i, r := range rows {
			if i == maxGraphEdges {
				fmt.Fprintf(&b, "  ... and %d more\n", len(rows)-i)
				break
			}
			fmt.Fprintf(&b, "  %-10s %s  (%s:%d)\n", r.Kind, other(r), r.Path, r.Line)
		}
	}
	section("outgoing: "+name+" -> ...", out, func(r store.RelationRow) string { return r.To })
	section("incoming: ... -> "+name, in, func(r store.RelationRow) string { return r.From })
	section("possible callers (calls written with the bare method name; may be another type's method)", loose,
		func(r store.RelationRow) string { return r.From })
	return b.String(), nil
}

// similarNames returns up to n distinct relation names of project that
// contain name (case-insensitive), shortest first.
func similarNames(ctx context.Context, st *store.Store, project, name string, n int) ([]string, error) {
	pat := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(name) + "%"
	rows, err := st.DB().QueryContext(ctx, `SELECT DISTINCT nm FROM (
		SELECT from_name AS nm FROM code_relations WHERE project_path=? AND from_name LIKE ? ESCAPE '\'
		UNION SELECT to_name FROM code_relations WHERE project_path=? AND to_name LIKE ? ESCAPE '\')
		ORDER BY length(nm), nm LIMIT ?`, project, pat, project, pat, n)
	if err != nil {
		return nil, fmt.Errorf("similar names: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("similar names: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
