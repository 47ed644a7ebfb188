package search

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/coderag/coderag/internal/walk"
)

// HumanOptions choose what FormatHuman and FormatMultiHuman add to the
// results: Explain each score's breakdown, Color the query's terms in the
// previews in bold red (ANSI escapes: for a terminal only, never a pipe);
// REPL words the hints as the REPL's commands ("/grep"), not the command
// line's ("coderag grep").
type HumanOptions struct {
	Explain bool
	Color   bool
	REPL    bool
}

// FormatHuman writes results for people: rank, score, path:start-end, type,
// name (ShortName, and StaleMark when its file changed since the last
// index) and a 120-character preview; with o.Explain, each score's
// breakdown; with o.Color, the matched terms of each preview coloured.
func FormatHuman(w io.Writer, resp *Response, o HumanOptions) {
	if resp.Incomplete != "" {
		fmt.Fprintf(w, "note: %s%s\n", resp.Incomplete, humanHints(resp.Hints, HintIndex, o.REPL))
	}
	if len(resp.Results) == 0 {
		if resp.Note != "" {
			fmt.Fprintf(w, "note: %s%s\n", resp.Note, humanHints(resp.Hints, HintGrep, o.REPL))
		}
		fmt.Fprintf(w, "no results for %q\n", resp.Query)
		return
	}
	if resp.Note != "" {
		fmt.Fprintf(w, "note: %s\n", resp.Note)
	}
	for i, r := range resp.Results {
		fmt.Fprintf(w, "%2d. %.3f  %s:%d-%d  [%s] %s\n", i+1, r.Score, walk.DisplayPath(r.Path), r.StartLine, r.EndLine, r.Type, humanName(r))
		fmt.Fprintf(w, "    %s\n", previewText(r, o.Color))
		if len(r.Callers) > 0 {
			fmt.Fprintf(w, "    callers: %s\n", neighbourList(r.Callers))
		}
		if len(r.Callees) > 0 {
			fmt.Fprintf(w, "    callees: %s\n", neighbourList(r.Callees))
		}
		if o.Explain && r.Explain != nil {
			fmt.Fprintf(w, "    explain: %s\n", explainLine(r.Explain))
		}
	}
}

// StaleMark follows the name of a result whose file changed since the
// last index (Result.Stale) in FormatHuman and FormatMultiHuman.
const StaleMark = "  [stale: file changed since the last index; lines may be off]"

// humanName is r's name on its result line for people: ShortName, and
// StaleMark when its file changed since the last index.
// shownNeighbours is how many callers or callees of a result the text
// format lists (--json has all of them).
const shownNeighbours = 8

// neighbourList joins a result's callers or callees for the text format,
// the first shownNeighbours of them and a count of the rest ("… and 13
// more; --json lists all"): a function called from 21 places filled a
// line with all of them.
func neighbourList(names []string) string {
	if len(names) <= shownNeighbours {
		return strings.Join(names, "; ")
	}
	return fmt.Sprintf("%s; … and %d more (--json lists all)", strings.Join(names[:shownNeighbours], "; "), len(names)-shownNeighbours)
}

func humanName(r Result) string {
	if r.Stale {
		return ShortName(r.Name) + StaleMark
	}
	return ShortName(r.Name)
}

// NameWidth is the most runes of a result's name that the text formats
// (FormatHuman, FormatMultiHuman, FormatForTool) show; --json and the
// Result keep the whole name.
const NameWidth = 120

// ShortName is name cut to NameWidth runes for a result line: a signature
// (Owner.name(params)) keeps its name and the parameters that fit whole,
// cut after the last one with "…)" ("FastAPI.include_router(self, …)"),
// or within the first when none fits whole; a name without a parameter
// list there, or whose list ends within the width, is cut with "…". A name that fits is returned as it is.
func ShortName(name string) string {
	rs := []rune(name)
	if len(rs) <= NameWidth {
		return name
	}
	open := slices.Index(rs, '(')
	if open < 0 || open > NameWidth-8 {
		return string(rs[:NameWidth-1]) + "…"
	}
	// the last top-level ", " of the parameters that leaves room for "…)"
	cut, depth := -1, 0
	for i := open + 1; i < NameWidth-2; i++ {
		switch rs[i] {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			depth--
		case ',':
			if depth == 0 && i+2 <= NameWidth-2 && rs[i+1] == ' ' {
				cut = i + 2
			}
		}
		if depth < 0 {
			// the list ends within the width: what follows it is cut
			return string(rs[:NameWidth-1]) + "…"
		}
	}
	if cut < 0 {
		cut = NameWidth - 2
	}
	return string(rs[:cut]) + "…)"
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
// exact string" (`/grep` in the REPL, repl); "" when hs has none.
func humanHints(hs []Hint, do string, repl bool) string {
	var b strings.Builder
	for _, h := range hs {
		switch {
		case h.Do != do:
		case do == HintIndex:
			fmt.Fprintf(&b, "; run `%scoderag index %s`", h.Env, h.Project)
		case do == HintGrep && repl:
			b.WriteString("; use `/grep` for an exact string")
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
	if e.FromModel != "" {
		fmt.Fprintf(&b, " from-model: %s", e.FromModel)
	}
	return b.String()
}

// FormatForTool renders results for a model: a three-sentence summary (best
// entry point and its path; the files the results concentrate in; keywords
// used and the advice to read result 1 first and expand with read_file),
// then each result with path, line range, type, name (ShortName, as the
// best entry point's), score to 3 decimals and a 180-character snippet.
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
		if resp.Note != "" { // why there is nothing: a language the project lacks, a filter
			fmt.Fprintf(&b, "Note: %s.\n", resp.Note)
		}
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
			fmt.Fprintf(&b, "%d. %s:%d-%d [%s] %s (score %.3f)\n   %s\n", i+1, walk.DisplayPath(r.Path), r.StartLine, r.EndLine, r.Type, ShortName(r.Name), r.Score, Preview(r.content, 180))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "Best entry point: %s (%s) at %s:%d-%d. ", ShortName(top.Name), top.Type, walk.DisplayPath(top.Path), top.StartLine, top.EndLine)
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
	if resp.Analysis != nil {
		if shown := resp.Analysis.ShownKeywords(); len(shown) > 0 {
			kw = strings.Join(shown, ", ")
		}
	} else if len(resp.Keywords) > 0 {
		kw = strings.Join(resp.Keywords, ", ")
	}
	fmt.Fprintf(&b, "Keywords used: %s; read result 1 first, then expand with read_file around its lines.\n\n", kw)
	for i, r := range resp.Results {
		fmt.Fprintf(&b, "%d. %s:%d-%d [%s] %s (score %.3f)\n   %s\n", i+1, walk.DisplayPath(r.Path), r.StartLine, r.EndLine, r.Type, ShortName(r.Name), r.Score, Preview(r.content, 180))
		if lines := bestLines(r, toolBestLines); lines != "" {
			fmt.Fprintf(&b, "   best lines: %s\n", lines)
		}
	}
	return b.String()
}

// toolBestLines is how many lines of a long chunk the tool summary quotes
// (bestLines).
const toolBestLines = 3

// longChunkLines is the size from which a chunk's preview (its first
// line or two) no longer shows where the query's words are.
const longChunkLines = 16

// bestLines quotes up to n lines of a long result (longChunkLines or
// more) that hold the most matches of the query's words (LineMatches),
// in line order, each "LINE `text`" cut to 100 characters; "" for a short
// result or one without line matches. An agent reading a 100-line method
// is pointed at the lines the question is about.
func bestLines(r Result, n int) string {
	if r.EndLine-r.StartLine+1 < longChunkLines || len(r.LineMatches) == 0 {
		return ""
	}
	text := strings.Split(r.content, "\n")
	// a line's score is how many different words of the query it holds
	// (a line naming request three times is not three times as apt)
	words := map[int]map[string]bool{}
	for _, m := range r.LineMatches {
		i := m.Line - r.StartLine
		if i < 0 || i >= len(text) || m.Start < 0 || m.End > len(text[i]) || m.Start >= m.End {
			continue
		}
		if words[m.Line] == nil {
			words[m.Line] = map[string]bool{}
		}
		words[m.Line][strings.ToLower(text[i][m.Start:m.End])] = true
	}
	lines := make([]int, 0, len(words))
	for l := range words {
		lines = append(lines, l)
	}
	sort.Slice(lines, func(i, j int) bool {
		if a, b := len(words[lines[i]]), len(words[lines[j]]); a != b {
			return a > b
		}
		return lines[i] < lines[j]
	})
	if len(lines) > n {
		lines = lines[:n]
	}
	sort.Ints(lines)
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(text[l-r.StartLine])
		if rs := []rune(t); len(rs) > 100 {
			t = string(rs[:100]) + "…"
		}
		parts = append(parts, fmt.Sprintf("%d `%s`", l, t))
	}
	return strings.Join(parts, " · ")
}
