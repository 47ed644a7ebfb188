package search

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/coderag/coderag/internal/analyze"
)

// identWord is a word written as code writes a name: letters, digits, _
// and $, parts joined by dots (not "tok-5512" or "a/b").
var identWord = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$`)

// maxIdentifierChecks bounds the query words absentIdentifiers looks up.
const maxIdentifierChecks = 3

// absentIdentifierNote returns the note for query identifiers that occur
// nowhere in the project ("no identifier `zorblaxConfigBridge` in the
// code; results match its parts", the parts said only when partsMatch:
// some result holds a word of the query), or "" when there is none. A word counts
// as an identifier when it is written like one (camelCase, snake_case,
// a.b; identWord) and its name (the part after the last dot) has two sub-words or
// more: the index holds such a name whole, so one full-text lookup of the
// joined sub-words tells whether it occurs. A name that some result's text
// holds as written is present, whatever the index says (a part of a
// longer identifier). The note is presentation: it changes no result.
func (s *Searcher) absentIdentifierNote(ctx context.Context, q *Query, hp HybridParams, res []Result, partsMatch bool) string {
	var notes []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(q.Text) {
		if len(seen) == maxIdentifierChecks {
			break
		}
		w = strings.Trim(w, "\"'`()[]{}:;,!?。，、")
		if !looksLikeIdentifier(w) || !identWord.MatchString(w) {
			continue
		}
		name := w[strings.LastIndexByte(w, '.')+1:]
		parts := analyze.SplitIdentifier(name)
		whole := strings.Join(parts, "")
		if len(parts) < 2 || seen[whole] || len(whole) > 64 {
			continue
		}
		seen[whole] = true
		if inResults(res, name) {
			continue
		}
		hits, err := s.keywordSearch(ctx, []string{whole}, hp.FTS, 1)
		if err != nil || len(hits) > 0 {
			continue // present, or unknown: say nothing
		}
		note := fmt.Sprintf("no identifier `%s` in the code", w)
		if partsMatch {
			note += "; results match its parts"
		}
		notes = append(notes, note)
	}
	return strings.Join(notes, "; ")
}

// inResults reports whether some result's name or text holds name,
// ignoring case.
func inResults(res []Result, name string) bool {
	ln := strings.ToLower(name)
	for _, r := range res {
		if strings.Contains(strings.ToLower(r.Name), ln) || strings.Contains(strings.ToLower(r.content), ln) {
			return true
		}
	}
	return false
}

// joinNotes joins the non-empty notes with "; ".
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}
