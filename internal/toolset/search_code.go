package toolset

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/search"
)

// NotIndexedMessage is search_code's answer, under engine.AsIs, for a
// project that has no index (code_graph's names code_graph).
const NotIndexedMessage = "The code index for this project is not built yet, so search_code is unavailable. " +
	"Use glob_files and grep_code instead (the user can build the index with `coderag index` or /index in the REPL)."

// SearchCodeParams are the arguments of search_code.
type SearchCodeParams struct {
	Query string `json:"query" jsonschema:"what the code does, in words (English or Chinese), e.g. 'where is the login timeout handled'; identifiers help. Filters inside the query narrow it: lang:go, file:*_test.go or path:src/** (glob, or file:/regex/), -file:GLOB to exclude, sym:Name (definitions only), case:yes"`
	TopK  int    `json:"top_k,omitempty" jsonschema:"number of results (its range and default: config.TopK)"`
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
		p, err := env.open(ctx, c, root)
		switch {
		case errors.Is(err, engine.ErrNotIndexed) && !env.autoIndex():
			return NotIndexedMessage, nil
		case errors.Is(err, engine.ErrNotIndexed):
			return "", fmt.Errorf("search_code: %s is not indexed yet: indexing has started in the background; use grep_code meanwhile and retry later (index_status shows progress): %w", root, err)
		case err != nil:
			return "", fmt.Errorf("search_code: %w", err)
		}
		defer p.Release()
		resp, err := p.Search(ctx, query, search.Options{TopK: search.ClampTopK(in.TopK)})
		if r := p.Refreshed; errors.Is(err, engine.ErrEmbedderUnavailable) && r.Reembedded != "" && !r.Finished {
			return "", fmt.Errorf("search_code: %s was indexed with %s, which this version of coderag no longer carries; it is being embedded again in the background (%s): use grep_code meanwhile and retry later (index_status shows progress)",
				p.Root, r.Reembedded, r.State.Line())
		}
		if errors.Is(err, engine.ErrEmbedderUnavailable) {
			return "", fmt.Errorf("search_code is unavailable (use grep_code and glob_files): %w", err)
		}
		if err != nil {
			return "", fmt.Errorf("search_code: %w", err)
		}
		note := refreshNote(p)
		text := search.FormatForTool(resp)
		if note != "" {
			text = strings.TrimRight(text, "\n") + "\n\n" + note + "\n"
		}
		return text, nil
	})

// open opens the project at root (already the enclosing project: Call.Root)
// under the front end's policy (Env.Policy; progress to c.Tick). Errors:
// engine.ErrNotIndexed, "read index: ...", or the refresh's (the project
// cannot be indexed at all).
func (env *Env) open(ctx context.Context, c Call, root string) (*engine.Project, error) {
	return env.Engine.Open(ctx, root, engine.OpenOptions{Policy: env.Policy, Tick: c.Tick})
}

// refreshNote is a note for the model when the Refresh before the query
// left the results incomplete or stale; "" otherwise.
func refreshNote(p *engine.Project) string {
	r := p.Refreshed
	switch {
	case p.Policy() != engine.Refresh:
		return ""
	case !r.Finished:
		return fmt.Sprintf("Note: indexing %s is still running in the background (%s); these results cover only what is indexed so far. Call index_status to follow it, or use grep_code meanwhile.",
			p.Root, r.State.Line())
	case r.Err != nil:
		return fmt.Sprintf("Note: refreshing the index failed (%s); results may be stale.", oneLine(r.Err.Error()))
	}
	return ""
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
