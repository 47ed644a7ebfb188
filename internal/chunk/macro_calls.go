package chunk

import (
	"cmp"
	"slices"
	"sort"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Calls inside Rust macro invocations. tree-sitter keeps the arguments of
// a macro call (tri!(self.parse_whitespace()), vec![f(x)], format!("{}",
// g(y)), assert!(h(z)), a user macro's arguments) as an opaque token tree,
// so the query sees no call in them: serde_json's 183 tri!(...) calls, and
// every call inside them, were missing from the graph (#27). macroCalls
// parses those token trees again as expressions, the way the compiler
// reads an expression-like macro's input, and collects their calls at
// their own byte offsets.

// maxMacroCallDepth bounds the nesting of macro calls re-parsed
// (tri!(f(vec![g(x)])) is two levels).
const maxMacroCallDepth = 4

// addMacroArgs records the arguments of one macro invocation (its macro
// name node and its token tree, captured by the language query) for
// macroCalls, when they are written in (...) or [...] and the macro is not
// macro_rules.
func (ps *parsed) addMacroArgs(name, args *sitter.Node) {
	a, b := args.StartByte(), args.EndByte()
	if a == 0 || b-a < 3 || b > uint(len(ps.buf)) || ps.buf[a] != '(' && ps.buf[a] != '[' || ps.text(name) == "macro_rules" {
		return
	}
	ps.macroArgs = append(ps.macroArgs, [2]uint{a, b})
}

// macroCalls collects the calls written inside the (...) or [...]
// arguments of the Rust macro invocations that collect has met so far (in
// the file's tree and the trees of its item macros, ps.macroArgs). All
// such arguments of one level go into one parse, over the file's bytes with
// a ';' in place of the byte before each opening delimiter (the '!'): the
// ranges parse as a sequence of expression statements whose byte offsets
// and lines are those of the file, and the language query collects their
// calls (and the receivers of method calls) as if written outside the
// macro, and the macro invocations inside them for the next level,
// maxMacroCallDepth levels deep. Brace-delimited macros are items (see
// macroItems) or blocks of their own syntax (json!{...}) and are left
// alone, and so is macro_rules. Arguments that are not expressions (a DSL)
// give parse errors and, at worst, a few calls by name. The returned trees
// must be closed after the relations are read.
func (ps *parsed) macroCalls(p *sitter.Parser, depth int, deadline time.Time) []*sitter.Tree {
	spans := ps.macroArgs
	ps.macroArgs = nil
	if depth >= maxMacroCallDepth || len(spans) == 0 || time.Now().After(deadline) {
		return nil
	}
	t := ps.macroArgsTree(p, spans, deadline)
	if t == nil {
		return nil // out of time: the calls in macros are not read
	}
	ps.collectCalls(t.RootNode(), deadline)
	return append([]*sitter.Tree{t}, ps.macroCalls(p, depth+1, deadline)...)
}

// collectCalls runs the language query over a re-parsed macro argument
// tree and keeps only the calls it finds (and, in ps.macroArgs, the macro
// invocations inside it): definitions, imports and type relations there
// are not the file's. The relations are then put back in file order, so
// that a callee called both inside and outside a macro is recorded at its
// first call site.
func (ps *parsed) collectCalls(root *sitter.Node, deadline time.Time) {
	defs, rels := len(ps.defs), len(ps.rels)
	ps.collect(root, deadline) // past the deadline, the calls found so far
	ps.defs = ps.defs[:defs]
	kept := ps.rels[:rels]
	for _, r := range ps.rels[rels:] {
		if r.kind == RelCalls {
			kept = append(kept, r)
		}
	}
	ps.rels = kept
	sort.SliceStable(ps.rels, func(i, j int) bool { return ps.rels[i].start < ps.rels[j].start })
}

// macroArgsTree parses the macro arguments at spans (byte ranges of ps.buf
// starting at their '(' or '[') as one sequence of expression statements:
// a copy of the buffer with a ';' in place of the byte before each span
// (the '!'), parsed over those ranges only (the parser's included
// ranges), so the rest of the file is not lexed and the nodes keep the
// file's offsets and points. Nil when the parse ran out of time. It gives
// the tree a parse of the whole buffer blanked outside the spans gave
// (TestMacroArgsTreeEqualsBlankedBuffer), for 0.85x tokio's index CPU.
func (ps *parsed) macroArgsTree(p *sitter.Parser, spans [][2]uint, deadline time.Time) *sitter.Tree {
	slices.SortFunc(spans, func(x, y [2]uint) int { return cmp.Compare(x[0], y[0]) })
	sub := make([]byte, len(ps.buf))
	copy(sub, ps.buf)
	ranges := make([]sitter.Range, 0, len(spans))
	for _, s := range spans {
		a := s[0] - 1
		if n := len(ranges); n > 0 && a < ranges[n-1].EndByte {
			// inside the previous span: no ';' of its own
			if s[1] > ranges[n-1].EndByte {
				ranges[n-1].EndByte, ranges[n-1].EndPoint = s[1], ps.point(s[1])
			}
			continue
		}
		sub[a] = ';'
		ranges = append(ranges, sitter.Range{StartByte: a, EndByte: s[1], StartPoint: ps.point(a), EndPoint: ps.point(s[1])})
	}
	if err := p.SetIncludedRanges(ranges); err != nil {
		return nil // not ordered: cannot happen after the sort and merge
	}
	t := p.ParseWithOptions(readChunks(sub), nil, &sitter.ParseOptions{ProgressCallback: func(sitter.ParseState) bool { return time.Now().After(deadline) }})
	_ = p.SetIncludedRanges(nil) // the whole document again, for the parser's next use
	return t
}

// point returns tree-sitter's point of byte off of ps.buf: its 0-based
// row and its byte column.
func (ps *parsed) point(off uint) sitter.Point {
	l := ps.idx.Line(int(off))
	return sitter.Point{Row: uint(l - 1), Column: off - uint(ps.idx.Start(l))}
}
