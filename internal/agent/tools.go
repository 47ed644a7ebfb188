package agent

import (
	"context"
	"errors"
	"strings"

	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/tools"
)

// Tool names.
const (
	ToolGlob   = "glob_files"
	ToolGrep   = "grep_code"
	ToolRead   = "read_file"
	ToolSearch = "search_code"
	ToolGraph  = "code_graph" // registered by internal/relate's adapter
)

// NotIndexedMessage is search_code's result for a project without an index.
const NotIndexedMessage = "The code index for this project is not built yet, so search_code is unavailable. " +
	"Use glob_files and grep_code instead (the user can build the index with `coderag index` or /index in the REPL)."

// ProjectTools returns the exact tools (glob_files, grep_code, read_file)
// over the project at root (an absolute directory) and search_code over
// searcher, which may be nil for a project that is not indexed. All four are
// read-only. Register code_graph by appending one more Tool.
func ProjectTools(root string, searcher *search.Searcher) []Tool {
	return []Tool{GlobTool(root), GrepTool(root), ReadTool(root), SearchTool(searcher)}
}

// GlobTool is glob_files over root.
func GlobTool(root string) Tool {
	return NewTool(ToolGlob,
		"Find files by path pattern: doublestar globs such as **/*_test.go or src/**/auth*; a pattern without '/' matches file names at any depth (*.go). "+
			"Use it first when you know or can guess part of a file name. Returns root-relative paths, sorted; partial: true when the list was cut.",
		true, func(ctx context.Context, p tools.GlobParams) (string, error) {
			r, err := tools.Glob(ctx, root, p)
			if err != nil {
				return "", err
			}
			return r.Text(), nil
		})
}

// GrepTool is grep_code over root.
func GrepTool(root string) Tool {
	return NewTool(ToolGrep,
		"Search file contents for an exact identifier, string or regular expression (Go RE2, one line at a time; set fixed_strings for literal text). "+
			"Use it first for exact symbol names, error messages, config keys, command names and call sites. "+
			"At most head_limit matches per file and max_results in all (partial: true when cut): narrow path, glob or pattern rather than raising limits. "+
			"Ends with suggested reads: call read_file with those offset/limit values to see the code around the matches.",
		true, func(ctx context.Context, p tools.GrepParams) (string, error) {
			r, err := tools.Grep(ctx, root, p)
			if err != nil {
				return "", err
			}
			return r.Text(), nil
		})
}

// ReadTool is read_file over root.
func ReadTool(root string) Tool {
	return NewTool(ToolRead,
		"Read numbered lines of one text file in the project: offset is the 1-based first line (default 1), limit the number of lines (default 200). "+
			"Read the region around a match (as grep_code's suggested reads give it) rather than whole large files; the result says how many lines remain.",
		true, func(ctx context.Context, p tools.ReadParams) (string, error) {
			r, err := tools.Read(ctx, root, p)
			if err != nil {
				return "", err
			}
			return r.Text, nil
		})
}

// SearchParams are the arguments of search_code.
type SearchParams struct {
	Query string `json:"query" jsonschema:"natural-language description of the code wanted, in English or Chinese, e.g. 'where is the login timeout handled'"`
	TopK  int    `json:"top_k,omitempty" jsonschema:"number of results (default 5, 1..30)"`
}

// SearchTool is search_code over searcher; a nil searcher (no index)
// answers NotIndexedMessage.
func SearchTool(searcher *search.Searcher) Tool {
	return NewTool(ToolSearch,
		"Semantic search (keywords + vectors) of the project's code index for a natural-language description in English or Chinese. "+
			"Use it when the question is vague, you cannot guess the identifiers, or grep_code/glob_files found nothing after a few tries; not for exact names. "+
			"Returns ranked code chunks with path:start-end and a summary; then read_file around the lines of the best results.",
		true, func(ctx context.Context, p SearchParams) (string, error) {
			if searcher == nil {
				return NotIndexedMessage, nil
			}
			if p.Query == "" {
				return "", errors.New("search_code needs a query")
			}
			resp, err := searcher.Search(ctx, p.Query, search.Options{TopK: search.ClampTopK(p.TopK)})
			if err != nil {
				return "", err
			}
			return search.FormatForTool(resp), nil
		})
}

// GraphParams are the arguments of code_graph.
type GraphParams struct {
	Name string `json:"name" jsonschema:"a class (UserService), Class.method (UserService.findById), or a function name"`
}

// GraphTool is code_graph: describe(ctx, name) returns the direct relations
// of name as text (internal/relate supplies it); a nil describe (no index)
// answers NotIndexedMessage (naming code_graph).
func GraphTool(describe func(ctx context.Context, name string) (string, error)) Tool {
	return NewTool(ToolGraph,
		"Direct relations of a class or Class.method from the index: super types, implementations, members, the calls a method makes and the calls that reach it, each with path:line. "+
			"Use it to follow call chains and class structure once you know a name (from grep_code or search_code).",
		true, func(ctx context.Context, p GraphParams) (string, error) {
			if describe == nil {
				return strings.Replace(NotIndexedMessage, ToolSearch, ToolGraph, 1), nil
			}
			if p.Name == "" {
				return "", errors.New("code_graph needs a name")
			}
			return describe(ctx, p.Name)
		})
}
