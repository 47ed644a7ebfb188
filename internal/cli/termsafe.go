package cli

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// termSafe writes to a terminal what the commands print, with the control
// characters of indexed content made visible instead of obeyed: a hostile
// repository's file could otherwise set the window title (OSC 0), clear
// the screen (CSI 2J), write the clipboard (OSC 52) or reorder a line
// (U+202E) through a search preview, a grep line, a read, a project root
// or the agent's answer. It keeps newlines, tabs, CRLF and SGR sequences
// (ESC [ digits ; ... m: colours only, which the commands use for matched
// terms and which change nothing else); every other C0 control, DEL, a C1
// control and a bidirectional formatting character is written in a
// visible form: caret notation for C0 and DEL ("^[" for ESC, "^G" for
// BEL, as `cat -v`), "\u202e" for the others. Invalid UTF-8 is written as
// it is (a terminal shows it as replacement characters). Each Write is
// filtered on its own, so a sequence split across writes is made visible,
// never obeyed. Pipes and files get the bytes unchanged: MainIO wraps
// standard output only when it is a terminal.
type termSafe struct{ w io.Writer }

// Write writes p filtered; it reports len(p) when the filtered bytes were
// all written.
func (t termSafe) Write(p []byte) (int, error) {
	if clean(p) {
		return t.w.Write(p)
	}
	out := appendVisible(make([]byte, 0, len(p)+16), p, true)
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// appendVisible appends p to out with every control character in a
// visible form (termSafe's rules); terminal keeps CRLF and SGR sequences
// as they are, for output a terminal shows, where false makes them
// visible too.
func appendVisible(out, p []byte, terminal bool) []byte {
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\n' || c == '\t':
			out = append(out, c)
			i++
		case terminal && c == '\r' && i+1 < len(p) && p[i+1] == '\n':
			out = append(out, c)
			i++
		case c == 0x1b:
			if n := sgrLen(p[i:]); terminal && n > 0 {
				out = append(out, p[i:i+n]...)
				i += n
				continue
			}
			out = append(out, '^', '[')
			i++
		case c < 0x20:
			out = append(out, '^', c+'@')
			i++
		case c == 0x7f:
			out = append(out, '^', '?')
			i++
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, n := utf8.DecodeRune(p[i:])
			if r != utf8.RuneError && invisibleControl(r) {
				out = fmt.Appendf(out, `\u%04x`, r)
			} else {
				out = append(out, p[i:i+n]...)
			}
			i += n
		}
	}
	return out
}

// clean reports whether p holds nothing Write changes: no byte below 0x20
// but newline and tab, no DEL and no byte of a multi-byte character (the
// common case, written as it is).
func clean(p []byte) bool {
	for _, c := range p {
		if c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f {
			return false
		}
	}
	return true
}

// sgrLen returns the length of the SGR sequence p starts with (ESC [
// then digits and semicolons, then m), or 0.
func sgrLen(p []byte) int {
	if len(p) < 3 || p[1] != '[' {
		return 0
	}
	for i := 2; i < len(p) && i < 32; i++ {
		switch c := p[i]; {
		case c == 'm':
			return i + 1
		case c >= '0' && c <= '9' || c == ';':
		default:
			return 0
		}
	}
	return 0
}

// invisibleControl reports whether r is a C1 control or a bidirectional
// formatting character (embeddings, overrides, isolates and marks), which
// a terminal obeys or renders as nothing.
func invisibleControl(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// visibleText returns s with every control character in a visible form,
// as termSafe writes them, SGR sequences and CRLF included: for one-line
// messages whose text may come from a server or a file (an error a chat
// server sent, a tool name it asked for), written to standard error,
// which carries the progress lines' carriage returns and so is not
// wrapped in termSafe. Newlines and tabs are kept (oneLine folds them).
func visibleText(s string) string {
	return string(appendVisible(nil, []byte(s), false))
}
