package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
)

// SearchCodeParams are the arguments of search_code.
type SearchCodeParams struct {
	Query string `json:"query" jsonschema:"what the code does, in words (English or Chinese), e.g. 'where is the login timeout handled'; identifiers help"`
	TopK  int    `json:"top_k,omitempty" jsonschema:"number of results, 1 to 30 (default 5)"`
}

const searchCodeDescription = `Semantic + keyword (hybrid) search of the project's index for code matching a natural-language description, in English or Chinese. Returns the best entry point, the files the results concentrate in, and ranked chunks (path:start-end, kind, name, score, snippet); expand them with read_file. The index is built or refreshed incrementally before answering; on a very large project the first call may answer from a partial index while indexing continues in the background (see index_status).`

func (s *Server) addSearchCode() {
	addTool(s, &sdk.Tool{Name: "search_code", Description: searchCodeDescription, Annotations: writesIndex("Search code by description")},
		func(ctx context.Context, req *sdk.CallToolRequest, in SearchCodeParams) (string, error) {
			query := strings.TrimSpace(in.Query)
			if query == "" {
				return "", errors.New("search_code: empty query: describe the code you are looking for, e.g. \"where are retries scheduled\"")
			}
			root, err := s.root(ctx, req.Session)
			if err != nil {
				return "", fmt.Errorf("search_code: %w", err)
			}
			note, err := s.refresh(ctx, req, root)
			if err != nil {
				return "", fmt.Errorf("search_code: %w", err)
			}
			p, err := s.cfg.Store.GetProject(ctx, root)
			if errors.Is(err, store.ErrNotIndexed) {
				return "", fmt.Errorf("search_code: %s is not indexed yet: indexing has started in the background; use grep_code meanwhile and retry later (index_status shows progress): %w", root, err)
			}
			if err != nil {
				return "", fmt.Errorf("search_code: read index: %w", err)
			}
			emb, err := s.queryEmbedder(p.Embedder)
			if err != nil {
				return "", fmt.Errorf("search_code: %w", err)
			}
			sr := &search.Searcher{Store: s.cfg.Store, Embedder: emb, Project: p.Path}
			resp, err := sr.Search(ctx, query, search.Options{TopK: search.ClampTopK(in.TopK)})
			if err != nil {
				return "", fmt.Errorf("search_code: %w", err)
			}
			text := search.FormatForTool(resp)
			if k := search.ClampTopK(in.TopK); in.TopK != 0 && k != in.TopK {
				text = fmt.Sprintf("Note: top_k %d is outside 1..%d; %d used.\n", in.TopK, search.MaxTopK, k) + text
			}
			if note != "" {
				text = strings.TrimRight(text, "\n") + "\n\n" + note + "\n"
			}
			return text, nil
		})
}
