package agent

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// EstimateTokens approximates the tokens s costs a model: about 4 ASCII
// characters per token, and one token per other character (CJK text is
// roughly a token per character in common tokenizers).
func EstimateTokens(s string) int {
	ascii, other := 0, 0
	for _, r := range s {
		if r < utf8.RuneSelf {
			ascii++
		} else {
			other++
		}
	}
	return (ascii+3)/4 + other
}

func countRunes(s string) int { return utf8.RuneCountInString(s) }

// Truncate cuts s to about maxTokens tokens (EstimateTokens), on a line
// boundary when one is near, and appends the note
// "[truncated: N more characters; narrow the query or use read_file
// offset/limit]". It reports whether it cut.
func Truncate(s string, maxTokens int) (string, bool) {
	if maxTokens <= 0 || EstimateTokens(s) <= maxTokens {
		return s, false
	}
	budget := maxTokens * 4 // in quarter-tokens
	cut := len(s)
	for i, r := range s {
		cost := 4
		if r < utf8.RuneSelf {
			cost = 1
		}
		if budget < cost {
			cut = i
			break
		}
		budget -= cost
	}
	kept := s[:cut]
	if nl := strings.LastIndexByte(kept, '\n'); nl >= len(kept)/2 {
		kept = kept[:nl+1]
	}
	more := countRunes(s) - countRunes(kept)
	if !strings.HasSuffix(kept, "\n") {
		kept += "\n"
	}
	return kept + fmt.Sprintf("[truncated: %d more characters; narrow the query or use read_file offset/limit]", more), true
}
