package tools

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A grep pattern is parsed once with Go's RE2 parser and turned into a
// line-mode tree: a match never spans lines, so '\n' is removed from every
// character class, `.` never matches '\n', and ^ $ \A \z anchor to the line
// (as grep and ripgrep do). The tree is then printed twice: as a Go regexp
// for the native engine and for clipping, and in ripgrep's syntax with the
// same meaning (classes such as \w and (?i) folds are printed as explicit
// code-point ranges, \b as the ASCII (?-u:\b)), so both engines match the
// same lines. A literal '\n' in the pattern can never match and is refused.
//
// Residual differences between the engines, none seen on source code: a
// `.` or negated class meets an invalid UTF-8 byte (Go reads it as U+FFFD
// and matches; ripgrep does not); a pattern that names '\r' (the native
// engine folds CRLF before matching, ripgrep strips "\r\n" only around `$`);
// a UTF-16 file with a BOM and no NUL byte in its first 4 KiB (ripgrep
// transcodes it, the native engine searches the raw bytes).

const badPatternHint = "set fixed_strings to search for the text literally"

// pattern is a compiled grep pattern.
type pattern struct {
	re      *regexp.Regexp // Go, line mode; applied to one line or a whole cleaned buffer
	rg      string         // the same regexp in ripgrep syntax
	lits    []lit          // one of these appears in every match; nil if unknown
	literal bool           // the whole pattern is one case-sensitive literal
	never   bool           // the pattern cannot match anything
}

// lit is a required literal, case-insensitive when fold.
type lit struct {
	s    string
	fold bool
}

// MaxPatternBytes is the longest grep pattern accepted (64 KiB).
const MaxPatternBytes = 64 << 10

// clipSyntaxError shortens the expression a regexp/syntax error quotes
// (for "missing closing )" it is the whole pattern, which may be megabytes)
// to maxEcho bytes; other errors are returned as they are.
func clipSyntaxError(err error) error {
	var se *syntax.Error
	if errors.As(err, &se) && len(se.Expr) > maxEcho {
		return &syntax.Error{Code: se.Code, Expr: clipEcho(se.Expr, maxEcho)}
	}
	return err
}

// compilePattern validates p (a Go RE2 regexp, or literal text when
// fixedStrings) and builds both engines' forms. Errors wrap ErrBadPattern
// and the compile error, with a hint to use fixed_strings; a pattern over
// MaxPatternBytes is refused before compiling. Messages quote at most
// maxEcho bytes of the pattern.
func compilePattern(p string, fixedStrings, ignoreCase bool) (*pattern, error) {
	if p == "" {
		return nil, fmt.Errorf("%w: empty pattern", ErrBadPattern)
	}
	if len(p) > MaxPatternBytes {
		// compiling megabytes of pattern takes seconds to minutes, and the
		// compile error would quote all of it
		return nil, fmt.Errorf("%w: the pattern is %d bytes, over the %d KiB limit; search for a shorter distinctive part",
			ErrBadPattern, len(p), MaxPatternBytes>>10)
	}
	src := p
	if fixedStrings {
		src = regexp.QuoteMeta(p)
	}
	if ignoreCase {
		src = "(?i)" + src
	}
	if _, err := regexp.Compile(src); err != nil {
		err = clipSyntaxError(err)
		if fixedStrings {
			return nil, fmt.Errorf("%w: %w", ErrBadPattern, err)
		}
		return nil, fmt.Errorf("%w: %w (%s)", ErrBadPattern, err, badPatternHint)
	}
	tree, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPattern, clipSyntaxError(err))
	}
	if err := lineMode(tree); err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrBadPattern, clipEcho(p, maxEcho), err)
	}
	var gb, rb strings.Builder
	printRE(&gb, tree, false)
	printRE(&rb, tree, true)
	re, err := regexp.Compile(gb.String())
	if err != nil { // cannot happen: the printer emits Go syntax
		return nil, fmt.Errorf("%w: internal translation of %q: %w", ErrBadPattern, clipEcho(p, maxEcho), clipSyntaxError(err))
	}
	pt := &pattern{re: re, rg: rb.String(), lits: required(tree), never: tree.Op == syntax.OpNoMatch}
	pt.literal = tree.Op == syntax.OpLiteral && tree.Flags&syntax.FoldCase == 0
	return pt, nil
}

var errNewline = fmt.Errorf("a match cannot span lines, so a literal newline never matches")

// lineMode rewrites re in place so that it matches within one line.
func lineMode(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return errNewline
			}
		}
	case syntax.OpCharClass:
		re.Rune = withoutNL(re.Rune)
		if len(re.Rune) == 0 {
			*re = syntax.Regexp{Op: syntax.OpNoMatch}
		}
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		re.Op = syntax.OpEndLine
	}
	for _, s := range re.Sub {
		if err := lineMode(s); err != nil {
			return err
		}
	}
	return nil
}

// withoutNL removes '\n' from a class given as sorted [lo, hi] pairs.
func withoutNL(r []rune) []rune {
	out := make([]rune, 0, len(r)+2)
	for i := 0; i+1 < len(r); i += 2 {
		lo, hi := r[i], r[i+1]
		if lo <= '\n' && '\n' <= hi {
			if lo < '\n' {
				out = append(out, lo, '\n'-1)
			}
			if hi > '\n' {
				out = append(out, '\n'+1, hi)
			}
			continue
		}
		out = append(out, lo, hi)
	}
	return out
}

// printRE writes re in Go syntax, or in ripgrep (Rust regex) syntax when rg.
// Every sub-expression is self-delimiting, so concatenation is plain.
func printRE(b *strings.Builder, re *syntax.Regexp, rg bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString(`[^\x{0}-\x{10FFFF}]`)
	case syntax.OpEmptyMatch:
		b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		if fold {
			b.WriteString("(?i:")
		} else if len(re.Rune) > 1 {
			b.WriteString("(?:")
		}
		for _, r := range re.Rune {
			writeRune(b, r)
		}
		if fold || len(re.Rune) > 1 {
			b.WriteByte(')')
		}
	case syntax.OpCharClass:
		b.WriteByte('[')
		for i := 0; i+1 < len(re.Rune); i += 2 {
			writeRune(b, re.Rune[i])
			if re.Rune[i+1] != re.Rune[i] {
				b.WriteByte('-')
				writeRune(b, re.Rune[i+1])
			}
		}
		b.WriteByte(']')
	case syntax.OpAnyCharNotNL:
		b.WriteString(`(?-s:.)`)
	case syntax.OpAnyChar:
		b.WriteString(`(?s:.)`)
	case syntax.OpBeginLine, syntax.OpBeginText:
		b.WriteString(`(?m:^)`)
	case syntax.OpEndLine, syntax.OpEndText:
		b.WriteString(`(?m:$)`)
	case syntax.OpWordBoundary:
		if rg {
			b.WriteString(`(?-u:\b)`)
		} else {
			b.WriteString(`\b`)
		}
	case syntax.OpNoWordBoundary:
		if rg {
			b.WriteString(`(?-u:\B)`)
		} else {
			b.WriteString(`\B`)
		}
	case syntax.OpCapture:
		b.WriteString("(?:")
		printRE(b, re.Sub[0], rg)
		b.WriteByte(')')
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		b.WriteString("(?:")
		printRE(b, re.Sub[0], rg)
		b.WriteByte(')')
		switch re.Op {
		case syntax.OpStar:
			b.WriteByte('*')
		case syntax.OpPlus:
			b.WriteByte('+')
		case syntax.OpQuest:
			b.WriteByte('?')
		default:
			b.WriteByte('{')
			b.WriteString(strconv.Itoa(re.Min))
			if re.Max != re.Min {
				b.WriteByte(',')
				if re.Max >= 0 {
					b.WriteString(strconv.Itoa(re.Max))
				}
			}
			b.WriteByte('}')
		}
		if re.Flags&syntax.NonGreedy != 0 {
			b.WriteByte('?')
		}
	case syntax.OpConcat:
		b.WriteString("(?:")
		for _, s := range re.Sub {
			printRE(b, s, rg)
		}
		b.WriteByte(')')
	case syntax.OpAlternate:
		b.WriteString("(?:")
		for i, s := range re.Sub {
			if i > 0 {
				b.WriteByte('|')
			}
			printRE(b, s, rg)
		}
		b.WriteByte(')')
	default:
		// Every op syntax.Parse produces is handled above.
		panic(fmt.Sprintf("tools: unexpected regexp op %v", re.Op))
	}
}

// writeRune writes r (in or outside a class): letters, digits and '_' as themselves,
// everything else as \x{HEX}, which both syntaxes read the same way.
func writeRune(b *strings.Builder, r rune) {
	if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
		b.WriteRune(r)
		return
	}
	fmt.Fprintf(b, `\x{%X}`, r)
}

// required returns literals one of which occurs in every match of re, or nil.
func required(re *syntax.Regexp) []lit {
	switch re.Op {
	case syntax.OpLiteral:
		return []lit{{s: string(re.Rune), fold: re.Flags&syntax.FoldCase != 0}}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []lit
		for i := 0; i < len(re.Sub); i++ {
			cand := required(re.Sub[i])
			// Join a run of adjacent literals with the same case rule.
			if s := re.Sub[i]; s.Op == syntax.OpLiteral {
				fold := s.Flags & syntax.FoldCase
				str := string(s.Rune)
				for i+1 < len(re.Sub) && re.Sub[i+1].Op == syntax.OpLiteral && re.Sub[i+1].Flags&syntax.FoldCase == fold {
					i++
					str += string(re.Sub[i].Rune)
				}
				cand = []lit{{s: str, fold: fold != 0}}
			}
			if better(cand, best) {
				best = cand
			}
		}
		return best
	case syntax.OpAlternate:
		var all []lit
		for _, s := range re.Sub {
			l := required(s)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		if len(all) > 16 {
			return nil
		}
		return all
	}
	return nil
}

// better reports whether literal set a is a more selective prefilter than b:
// a longer shortest literal, then fewer alternatives.
func better(a, b []lit) bool {
	if a == nil {
		return false
	}
	if b == nil {
		return true
	}
	la, lb := shortest(a), shortest(b)
	if la != lb {
		return la > lb
	}
	return len(a) < len(b)
}

func shortest(ls []lit) int {
	n := -1
	for _, l := range ls {
		if n < 0 || len(l.s) < n {
			n = len(l.s)
		}
	}
	return n
}
