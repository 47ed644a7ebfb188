package toolset

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
)

// NotIndexedMessage is search_code's answer, without Env.AutoIndex, for a
// project that has no index (code_graph's names code_graph).
const NotIndexedMessage = "The code index for this project is not built yet, so search_code is unavailable. " +
	"Use glob_files and grep_code instead (the user can build the index with `coderag index` or /index in the REPL)."

// SearchCodeParams are the arguments of search_code.
type SearchCodeParams struct {
	Query string `json:"query" jsonschema:"what the code does, in words (English or Chinese), e.g. 'where is the login timeout handled'; identifiers help. Filters inside the query narrow it: lang:go, file:*_test.go or path:src/** (glob, or file:/regex/), -file:GLOB to exclude, sym:Name (definitions only), case:yes"`
	TopK  int    `json:"top_k,omitempty" jsonschema:"number of results, 1 to 30 (default 5)"`
}

var searchCode = define(SearchCode, "Search code by description", false,
	`Semantic + keyword (hybrid) search of the project's index for code matching a natural-language description, in English or Chinese. Returns the best entry point, the files the results concentrate in, and ranked chunks (path:start-end, kind, name, score, snippet); expand them with read_file. In a session that may write the index (the stdio MCP server, a serve session with the token), the index is built or refreshed incrementally before answering, and on a very large project the first call may answer from a partial index while indexing continues in the background; other sessions answer from the index as it is (see index_status).`,
	func(ctx context.Context, env *Env, c Call, in SearchCodeParams) (string, error) {
		query := strings.TrimSpace(in.Query)
		if query == "" {
			return "", errors.New("search_code: empty query: describe the code you are looking for, e.g. \"where are retries scheduled\"")
		}
		root, err := c.Root(ctx)
		if err != nil {
			return "", fmt.Errorf("search_code: %w", err)
		}
		eng := env.Engine
		if eng == nil {
			return NotIndexedMessage, nil
		}
		note := ""
		if env.AutoIndex {
			if note, err = refresh(ctx, env, c, root); err != nil {
				return "", fmt.Errorf("search_code: %w", err)
			}
		}
		p, err := eng.Store().GetProject(ctx, root)
		switch {
		case errors.Is(err, store.ErrNotIndexed) && !env.AutoIndex:
			return NotIndexedMessage, nil
		case errors.Is(err, store.ErrNotIndexed):
			return "", fmt.Errorf("search_code: %s is not indexed yet: indexing has started in the background; use grep_code meanwhile and retry later (index_status shows progress): %w", root, err)
		case err != nil:
			return "", fmt.Errorf("search_code: read index: %w", err)
		}
		sr, err := eng.Searcher(p)
		if err != nil {
			return "", fmt.Errorf("search_code is unavailable (use grep_code and glob_files): %w", err)
		}
		resp, err := sr.Search(ctx, query, search.Options{TopK: search.ClampTopK(in.TopK)})
		if err != nil {
			return "", fmt.Errorf("search_code: %w", err)
		}
		text := search.FormatForTool(resp)
		if note != "" {
			text = strings.TrimRight(text, "\n") + "\n\n" + note + "\n"
		}
		return text, nil
	})

// refresh brings root's index up to date before a query (engine.Refresh)
// and returns a note for the model when the results may be incomplete or
// stale. An error means the project cannot be searched at all.
func refresh(ctx context.Context, env *Env, c Call, root string) (string, error) {
	r, err := env.Engine.Refresh(ctx, root, c.Tick)
	if err != nil {
		return "", err
	}
	if !r.Finished {
		return fmt.Sprintf("Note: indexing %s is still running in the background (%s); these results cover only what is indexed so far. Call index_status to follow it, or use grep_code meanwhile.",
			root, r.State.Line()), nil
	}
	if r.Err != nil {
		return fmt.Sprintf("Note: refreshing the index failed (%s); results may be stale.", oneLine(r.Err.Error())), nil
	}
	return "", nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
