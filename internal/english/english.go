// Package english holds the word forms that agree with a count in the
// messages every front end prints ("1 file", "2 files", "was"/"were"), so
// the CLI, the graph renderer, the exact tools and the rankers' notes word
// counts the same way.
package english

import (
	"fmt"
	"strings"
)

// Plural is noun for a count of 1 and its plural for any other count:
// noun+"es" after an s ("guesses"), noun+"s" otherwise. Irregular plurals
// ("directory"/"directories") go through Agree.
func Plural(n int, noun string) string {
	switch {
	case n == 1:
		return noun
	case strings.HasSuffix(noun, "s"):
		return noun + "es"
	}
	return noun + "s"
}

// Counted is n and Plural(n, noun): "1 file", "2 files", "0 guesses".
func Counted(n int, noun string) string {
	return fmt.Sprintf("%d %s", n, Plural(n, noun))
}

// Agree is one when n is 1, many otherwise: the words that agree with a
// count ("was"/"were", "it"/"them", "directory"/"directories").
func Agree(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
