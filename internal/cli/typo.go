package cli

import (
	"flag"
	"strings"

	"github.com/coderag/coderag/internal/english"
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
		d := english.EditDistance(name, w)
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
