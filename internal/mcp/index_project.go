package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/tools"
)

// IndexProjectParams are the arguments of index_project.
type IndexProjectParams struct {
	Path string `json:"path,omitempty" jsonschema:"directory or file to re-index, relative to the project root (default: the whole project)"`
}

const indexProjectDescription = `Build or incrementally update the search index of the project (or of one directory of it) used by search_code: only files changed since the last run are parsed and embedded. Rarely needed, since search_code refreshes the index by itself; use it after large changes or to index ahead of time. Waits up to 20 s, then continues in the background (follow it with index_status). Only one run per project at a time: a call during a run joins it.`

func (s *Server) addIndexProject() {
	f := false
	addTool(s, &sdk.Tool{Name: "index_project", Description: indexProjectDescription,
		Annotations: &sdk.ToolAnnotations{Title: "Index the project", IdempotentHint: true, DestructiveHint: &f, OpenWorldHint: &f}},
		func(ctx context.Context, req *sdk.CallToolRequest, in IndexProjectParams) (string, error) {
			root, err := s.root(ctx, req.Session)
			if err != nil {
				return "", fmt.Errorf("index_project: %w", err)
			}
			t, err := tools.Confine(root, in.Path)
			if err != nil {
				return "", explain("index_project", root, err)
			}
			rel := t.Rel()
			t.Close()
			scope := rel
			if rel == "." {
				scope = ""
			}
			emb, err := s.cfg.NewEmbedder()
			if err != nil {
				return "", fmt.Errorf("index_project: embedder: %w", err)
			}
			j := s.job(root)
			done, deadline, joined := s.start(j, emb, scope)
			finished, err := s.wait(ctx, req, j, done, deadline)
			if err != nil {
				return "", fmt.Errorf("index_project: %w (the run continues in the background)", err)
			}
			st := j.state()
			prefix := ""
			if joined {
				prefix = "An index run was already in progress; joined it.\n"
			}
			if !finished {
				return fmt.Sprintf("%sIndexing %s continues in the background: %s. search_code works meanwhile on what is indexed so far; call index_status to follow progress.\n",
					prefix, root, progressLine(st)), nil
			}
			if st.Last == nil {
				return "", fmt.Errorf("index_project: run of %s ended without an outcome", root)
			}
			if st.Last.Err != nil {
				return "", fmt.Errorf("index_project: indexing %s failed: %w", root, st.Last.Err)
			}
			return prefix + reportText(st.Last), nil
		})
}
