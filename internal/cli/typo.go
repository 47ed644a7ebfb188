package cli

import (
	"flag"
	"strings"
)

// nearestCommand is the command name closest to name by edit distance
// (optimal string alignment: insertions, deletions, substitutions and
// swaps of two neighbours, each 1), when it is close enough to be the one
// meant: at most 2 edits, and fewer than half of name's letters; "" when
// no command is. Ties go to the name first in alphabetical order. The idea
// is git's "did you mean" (help.c), with a simpler threshold.
func nearestCommand(name string) string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return nearestWord(name, names)
}

// nearestWord is the word of words closest to name, as nearestCommand
// chooses (the REPL's "/serch" finds "/search"); "" when none is close
// enough.
func nearestWord(name string, words []string) string {
	best, bestD := "", 0
	for _, w := range words {
		d := editDistance(name, w)
		if d > 2 || 2*d >= len([]rune(name)) {
			continue
		}
		if best == "" || d < bestD || (d == bestD && w < best) {
			best, bestD = w, d
		}
	}
	return best
}

// nearestFlag is the flag of fs closest to name (given without dashes),
// as nearestCommand chooses: "top_k" (the MCP spelling) and "projct" find
// "top-k" and "project"; "" when none is close enough.
func nearestFlag(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return nearestWord(strings.ReplaceAll(name, "_", "-"), names)
}

// editDistance is the optimal-string-alignment distance of a and b, in
// runes: the Levenshtein distance, with a swap of two neighbouring runes
// counted as one edit ("saerch" is 1 from "search").
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance of s[:i] and t[:j]
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
