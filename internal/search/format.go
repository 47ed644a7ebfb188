package search

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/coderag/coderag/internal/walk"
)

// FormatHuman writes results for people: rank, score, path:start-end, type,
// name and a 120-character preview; with explain, each score's breakdown.
func FormatHuman(w io.Writer, resp *Response, explain bool) {
	if resp.Incomplete != "" {
		fmt.Fprintf(w, "note: %s\n", resp.Incomplete)
	}
	if len(resp.Results) == 0 {
		if resp.Note != "" {
			fmt.Fprintf(w, "note: %s\n", resp.Note)
		}
		fmt.Fprintf(w, "no results for %q\n", resp.Query)
		return
	}
	if resp.Note != "" {
		fmt.Fprintf(w, "note: %s\n", resp.Note)
	}
	for i, r := range resp.Results {
		fmt.Fprintf(w, "%2d. %.3f  %s:%d-%d  [%s] %s\n", i+1, r.Score, walk.DisplayPath(r.Path), r.StartLine, r.EndLine, r.Type, r.Name)
		fmt.Fprintf(w, "    %s\n", r.Preview)
		if len(r.Callers) > 0 {
			fmt.Fprintf(w, "    callers: %s\n", strings.Join(r.Callers, "; "))
		}
		if len(r.Callees) > 0 {
			fmt.Fprintf(w, "    callees: %s\n", strings.Join(r.Callees, "; "))
		}
		if explain && r.Explain != nil {
			e := r.Explain
			fmt.Fprintf(w, "    explain: vector=%.3f (rank %d) keyword=%.3f (rank %d) fusion=%.4f both=%.2f name=%.4f type=%.3f path-penalty=%.3f",
				e.Vector, e.VectorRank, e.Keyword, e.KeywordRank, e.Fusion, e.BothBonus, e.NameBoost, e.TypeBoost, e.PathPenalty)
			if e.StemBoost > 0 {
				fmt.Fprintf(w, " file-name=+%.4f", e.StemBoost)
			}
			if e.FileBoost > 0 {
				fmt.Fprintf(w, " file-coherence=+%.4f", e.FileBoost)
			}
			if e.Pin > 0 {
				fmt.Fprintf(w, " exact-name=+%.3f", e.Pin)
			}
			if e.Diversity > 0 {
				fmt.Fprintf(w, " diversity=x%.2f (the score is multiplied by it: a later chunk of its file, or a parallel copy)", e.Diversity)
			}
			if e.Delegate > 0 {
				fmt.Fprintf(w, " delegate=+%.4f (from %s)", e.Delegate, e.DelegateFrom)
			}
			if e.CapDropped > 0 {
				fmt.Fprintf(w, " cap: %d more from this file dropped", e.CapDropped)
			}
			if e.Terms != "" {
				fmt.Fprintf(w, " terms=%q", e.Terms)
			}
			fmt.Fprintln(w)
		}
	}
}

// FormatForTool renders results for a model: a three-sentence summary (best
// entry point and its path; the files the results concentrate in; keywords
// used and the advice to read result 1 first and expand with read_file),
// then each result with path, line range, type, name, score to 3 decimals and
// a 180-character snippet.
func FormatForTool(resp *Response) string {
	var b strings.Builder
	if resp.Incomplete != "" {
		fmt.Fprintf(&b, "Note: %s. Results cover only the files indexed so far.\n", resp.Incomplete)
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
	if resp.Note != "" {
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
