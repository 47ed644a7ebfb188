package walk

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// The cost of ignore files. Matcher.Ignored tries a path against every
// pattern that applies to it, last first, until one matches: a path no
// pattern matches is tried against all of them, and each try walks the
// pattern's wildcards over the path's names. A cloned repository's
// .gitignore of 20,000 lines like "!*a*a*a*a*a*a*a*a*N" made every path
// cost 50 ms, every walk minutes. So each ignore file is held to a
// budget: its patterns, once earlier duplicates are dropped (the last of
// equal patterns decides alone), apply up to MaxIgnoreCost cost units,
// and the rest are reported (ReasonIgnoreTooCostly) instead of applied.
// A path then costs at most MaxIgnoreCost units per ignore file above it,
// whatever the files hold. Matcher.Steps counts the units spent.

// MaxIgnoreCost is the budget of one ignore file, in cost units
// (patternCost: one per pattern and one per wildcard). A 2,000-line
// .gitignore of one-star patterns fits (4,000 units); real ones have a
// few hundred lines.
const MaxIgnoreCost = 5000

// ignorePattern is a parsed pattern, its cost and the root-relative path
// of the ignore file it was read from (Matcher.IgnoredBy).
type ignorePattern struct {
	gitignore.Pattern
	cost int
	file string
}

// patternCost is the cost of trying line on a path name: 1, plus 1 for
// each wildcard ('*', '?', '['), each of which makes the match scan.
func patternCost(line string) int {
	return 1 + strings.Count(line, "*") + strings.Count(line, "?") + strings.Count(line, "[")
}

// dedupePatterns drops every pattern that occurs again later in lines:
// git's last matching pattern decides, so an earlier equal one never does.
func dedupePatterns(lines []string) []string {
	seen := make(map[string]bool, len(lines))
	out := make([]string, 0, len(lines))
	for i := len(lines) - 1; i >= 0; i-- {
		if !seen[lines[i]] {
			seen[lines[i]] = true
			out = append(out, lines[i])
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// budgetPatterns returns the first of lines whose costs sum to at most
// budget, and how many lines there were.
func budgetPatterns(lines []string, budget int) (kept []string, total int) {
	spent := 0
	for i, line := range lines {
		if spent += patternCost(line); spent > budget {
			return lines[:i], len(lines)
		}
	}
	return lines, len(lines)
}

// Steps returns the cost units Ignored has spent so far (patternCost of
// each pattern tried): a measure of the matcher's work that does not
// depend on the machine.
func (m *Matcher) Steps() int64 { return m.steps.Load() }
