package walk

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DisplayPath returns root-relative path p as tools show it: unchanged when
// it is valid UTF-8 without control characters, else Go-quoted
// (strconv.Quote: `"bad\xff.go"`), a form that JSON carries intact and that
// the exact tools (read, grep, glob) accept back as a path. Every surface
// that shows a project path (tools, search results) shows it this way.
func DisplayPath(p string) string {
	if utf8.ValidString(p) && strings.IndexFunc(p, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) < 0 {
		return p
	}
	return strconv.Quote(p)
}

// ShellQuote returns p as a POSIX shell reads it back: p itself when it
// holds only letters, digits and "/._-+", else p in single quotes, each
// single quote inside closed, escaped and reopened; for commands printed
// for the user to paste.
func ShellQuote(p string) string {
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+", r)) {
			return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
		}
	}
	return p
}
