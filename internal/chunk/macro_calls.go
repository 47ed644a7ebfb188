package chunk

import (
	"sort"
	"sync"
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

var (
	macroQueryOnce sync.Once
	macroQuery     *sitter.Query
)

// rustMacroQuery finds the macro invocations of a Rust tree with their
// argument token tree.
func rustMacroQuery(sp *spec) *sitter.Query {
	macroQueryOnce.Do(func() {
		q, err := sitter.NewQuery(sp.lang, `(macro_invocation macro: (_) @name (token_tree) @args)`)
		if err != nil {
			panic("rust macro query: " + err.Error()) // a bug: the query is constant
		}
		macroQuery = q
	})
	return macroQuery
}

// macroCalls collects the calls written inside the (...) or [...]
// arguments of the Rust macro invocations under roots. All such arguments
// of one level go into one parse buffer the size of the file, blank
// outside them, each preceded by a ';' in place of the byte before its
// opening delimiter (the '!'): the buffer parses as a sequence of
// expression statements whose byte offsets and lines are those of the
// file, and the language query collects their calls (and the receivers of
// method calls) as if written outside the macro. Macros inside those
// arguments are parsed the same way, maxMacroCallDepth levels deep.
// Brace-delimited macros are items (see macroItems) or blocks of their own
// syntax (json!{...}) and are left alone, and so is macro_rules. Arguments
// that are not expressions (a DSL) give parse errors and, at worst, a few
// calls by name. The returned trees must be closed after the relations
// are read.
func (ps *parsed) macroCalls(p *sitter.Parser, roots []*sitter.Node, depth int, deadline time.Time) []*sitter.Tree {
	if depth >= maxMacroCallDepth || len(roots) == 0 || time.Now().After(deadline) {
		return nil
	}
	q := rustMacroQuery(ps.sp)
	var spans [][2]uint
	qc := sitter.NewQueryCursor()
	for _, root := range roots {
		ms := qc.Matches(q, root, ps.buf)
		for m := ms.Next(); m != nil; m = ms.Next() {
			var name, args *sitter.Node
			for i := range m.Captures {
				n := m.Captures[i].Node
				if q.CaptureNames()[m.Captures[i].Index] == "name" {
					name = &n
				} else {
					args = &n
				}
			}
			if name == nil || args == nil || ps.text(name) == "macro_rules" {
				continue
			}
			a, b := args.StartByte(), args.EndByte()
			if a == 0 || b-a < 3 || b > uint(len(ps.buf)) || ps.buf[a] != '(' && ps.buf[a] != '[' {
				continue
			}
			spans = append(spans, [2]uint{a, b})
		}
	}
	qc.Close()
	if len(spans) == 0 {
		return nil
	}
	sub := make([]byte, len(ps.buf))
	for k, c := range ps.buf {
		if c == '\n' {
			sub[k] = '\n'
		} else {
			sub[k] = ' '
		}
	}
	for _, s := range spans {
		copy(sub[s[0]:s[1]], ps.buf[s[0]:s[1]])
	}
	for _, s := range spans {
		if sub[s[0]-1] == ' ' || sub[s[0]-1] == '\n' {
			sub[s[0]-1] = ';'
		}
	}
	t := p.ParseWithOptions(readChunks(sub), nil, &sitter.ParseOptions{ProgressCallback: func(sitter.ParseState) bool { return time.Now().After(deadline) }})
	if t == nil {
		return nil // out of time: the calls in macros are not read
	}
	r := t.RootNode()
	ps.collectCalls(r)
	return append([]*sitter.Tree{t}, ps.macroCalls(p, []*sitter.Node{r}, depth+1, deadline)...)
}

// collectCalls runs the language query over a re-parsed macro argument
// tree and keeps only the calls it finds: definitions, imports and type
// relations there are not the file's. The relations are then put back in
// file order, so that a callee called both inside and outside a macro is
// recorded at its first call site.
func (ps *parsed) collectCalls(root *sitter.Node) {
	defs, rels := len(ps.defs), len(ps.rels)
	ps.collect(root)
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
