package search

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/coderag/coderag/internal/walk"
)

// HumanOptions choose what FormatHuman and FormatMultiHuman add to the
// results: Explain each score's breakdown, Color the query's terms in the
// previews in bold red (ANSI escapes: for a terminal only, never a pipe).
type HumanOptions struct {
	Explain bool
	Color   bool
}

// FormatHuman writes results for people: rank, score, path:start-end, type,
// name and a 120-character preview; with o.Explain, each score's
// breakdown; with o.Color, the matched terms of each preview coloured.
func FormatHuman(w io.Writer, resp *Response, o HumanOptions) {
	if resp.Incomplete != "" {
		fmt.Fprintf(w, "note: %s%s\n", resp.Incomplete, humanHints(resp.Hints, HintIndex))
	}
	if len(resp.Results) == 0 {
		if resp.Note != "" {
			fmt.Fprintf(w, "note: %s%s\n", resp.Note, humanHints(resp.Hints, HintGrep))
		}
		fmt.Fprintf(w, "no results for %q\n", resp.Query)
		return
	}
	if resp.Note != "" {
		fmt.Fprintf(w, "note: %s\n", resp.Note)
	}
	for i, r := range resp.Results {
		fmt.Fprintf(w, "%2d. %.3f  %s:%d-%d  [%s] %s\n", i+1, r.Score, walk.DisplayPath(r.Path), r.StartLine, r.EndLine, r.Type, r.Name)
		fmt.Fprintf(w, "    %s\n", previewText(r, o.Color))
		if len(r.Callers) > 0 {
			fmt.Fprintf(w, "    callers: %s\n", strings.Join(r.Callers, "; "))
		}
		if len(r.Callees) > 0 {
			fmt.Fprintf(w, "    callees: %s\n", strings.Join(r.Callees, "; "))
		}
		if o.Explain && r.Explain != nil {
			fmt.Fprintf(w, "    explain: %s\n", explainLine(r.Explain))
		}
	}
}

// Terminal escapes of a matched term: bold red, as ripgrep colours matches.
const (
	colorMatch = "\x1b[1;31m"
	colorReset = "\x1b[0m"
)

// previewText is r's preview, with color its PreviewMatches wrapped in
// colorMatch ... colorReset.
func previewText(r Result, color bool) string {
	if !color || len(r.PreviewMatches) == 0 {
		return r.Preview
	}
	var b strings.Builder
	at := 0
	for _, m := range r.PreviewMatches {
		if m.Start < at || m.End > len(r.Preview) {
			continue // not spans of this preview
		}
		b.WriteString(r.Preview[at:m.Start] + colorMatch + r.Preview[m.Start:m.End] + colorReset)
		at = m.End
	}
	b.WriteString(r.Preview[at:])
	return b.String()
}

// humanHints words the hints of action do for the command line, each
// after "; ": "; run `coderag index ROOT`", "; use `coderag grep` for an
// exact string"; "" when hs has none.
func humanHints(hs []Hint, do string) string {
	var b strings.Builder
	for _, h := range hs {
		switch {
		case h.Do != do:
		case do == HintIndex:
			fmt.Fprintf(&b, "; run `%scoderag index %s`", h.Env, h.Project)
		case do == HintGrep:
			b.WriteString("; use `coderag grep` for an exact string")
		}
	}
	return b.String()
}

// explainLine renders an Explain on one line: the routes' evidence (and
// the learned cosine of the semantic stage), then
// each signal as name=±value with its note in parentheses ("delegate=+0.0021
// (Copy(dst, src))", "diversity=-0.0031 (x0.70)"), then the per-file
// cap and the terms that hit.
func explainLine(e *Explain) string {
	var b strings.Builder
	fmt.Fprintf(&b, "vector=%.3f (rank %d) keyword=%.3f (rank %d)", e.Vector, e.VectorRank, e.Keyword, e.KeywordRank)
	if e.Semantic != 0 {
		fmt.Fprintf(&b, " learned-cosine=%.3f", e.Semantic)
	}
	for _, s := range e.Signals {
		fmt.Fprintf(&b, " %s=%+.4f", s.Name, s.Value)
		if s.Note != "" {
			fmt.Fprintf(&b, " (%s)", s.Note)
		}
	}
	if e.CapDropped > 0 {
		fmt.Fprintf(&b, " cap: %d more from this file dropped", e.CapDropped)
	}
	if e.Terms != "" {
		fmt.Fprintf(&b, " terms=%q", e.Terms)
	}
	return b.String()
}

// FormatForTool renders results for a model: a three-sentence summary (best
// entry point and its path; the files the results concentrate in; keywords
// used and the advice to read result 1 first and expand with read_file),
// then each result with path, line range, type, name, score to 3 decimals and
// a 180-character snippet.
func FormatForTool(resp *Response) string {
	var b strings.Builder
	switch {
	case resp.Incomplete == "":
	case strings.HasPrefix(resp.Incomplete, MixedLead):
		fmt.Fprintf(&b, "Note: %s. index_project embeds those files again.\n", resp.Incomplete)
	default:
		fmt.Fprintf(&b, "Note: %s. Results cover only the files indexed so far; index_project indexes the rest.\n", resp.Incomplete)
	}
	if len(resp.Results) == 0 && resp.Note == NoWordsNote {
		fmt.Fprintf(&b, "The query %q has no searchable words (only punctuation or symbols). Use grep_code for an exact string, or ask with words.\n", resp.Query)
		return b.String()
	}
	if len(resp.Results) == 0 {
		fmt.Fprintf(&b, "No indexed code matched %q. Try grep_code with an exact identifier, or rephrase with words likely to appear in the code.\n", resp.Query)
		return b.String()
	}
	top := resp.Results[0]
	if resp.Note != "" && !vectorOnly(resp.Note) {
		// results with keyword hits and a note (an identifier that
		// occurs nowhere, a cut query): the note, then the summary
		fmt.Fprintf(&b, "Note: %s.\n", resp.Note)
	} else if resp.Note != "" {
		// no summary that would recommend what is likely noise
		fmt.Fprintf(&b, "Note: %s, probably unrelated. Try grep_code with an identifier, or other words that may occur in the code.\n\n", resp.Note)
		for i, r := range resp.Results {
			fmt.Fprintf(&b, "%d. %s:%d-%d [%s] %s (score %.3f)\n   %s\n", i+1, walk.DisplayPath(r.Path), r.StartLine, r.EndLine, r.Type, r.Name, r.Score, Preview(r.content, 180))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "Best entry point: %s (%s) at %s:%d-%d. ", top.Name, top.Type, walk.DisplayPath(top.Path), top.StartLine, top.EndLine)
	count := map[string]int{}
	var files []string
	for _, r := range resp.Results {
		if count[r.Path] == 0 {
			files = append(files, r.Path)
		}
		count[r.Path]++
	}
	sort.SliceStable(files, func(i, j int) bool { return count[files[i]] > count[files[j]] })
	if len(files) > 3 {
		files = files[:3]
	}
	for i, f := range files {
		files[i] = walk.DisplayPath(f)
	}
	fmt.Fprintf(&b, "Results concentrate in %s. ", strings.Join(files, ", "))
	kw := "none"
	if len(resp.Keywords) > 0 {
		kw = strings.Join(resp.Keywords, ", ")
	}
	fmt.Fprintf(&b, "Keywords used: %s; read result 1 first, then expand with read_file around its lines.\n\n", kw)
	for i, r := range resp.Results {
		fmt.Fprintf(&b, "%d. %s:%d-%d [%s] %s (score %.3f)\n   %s\n", i+1, walk.DisplayPath(r.Path), r.StartLine, r.EndLine, r.Type, r.Name, r.Score, Preview(r.content, 180))
	}
	return b.String()
}
