package search

import (
	"math"
	"path"
	"strings"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/lang"
)

// delegate lifts implementations above the thin wrappers that call them.
// A query that describes behaviour ("copy from a reader to a writer,
// preferring WriterTo") matches the wrapper's doc comment best, but the
// behaviour lives in the function it delegates to (io.Copy ->
// io.copyBuffer, Buffer.Grow -> Buffer.grow). For each of the first
// hp.DelegateTop results that is a function or method of at most
// hp.ThinCodeLines code lines (or of up to hp.WrapperCodeLines, whose
// callee must then be hp.WrapperRatio times as long and not nested in
// it), not a constructor, and calls exactly one
// other candidate (bare name equal to the callee, in the same directory,
// or in a directory named by the call's qualifier; not a namesake of the
// wrapper in another file; for a call on its receiver, of the caller's
// own type or in its file, and a function for a Go call without one:
// formReaches) with more code lines than the wrapper (an
// implementation is longer than the wrapper that hands it the work; an
// echo or a print as short is a helper) and found by the keyword route
// (a word of the query in it: a callee found by its vector alone is the
// wrapper's plumbing, a generic message sender), that candidate gets at least the
// wrapper's score plus hp.DelegateMargin; the lift is the signal
// "delegate", whose note names the wrapper. A wrapper that calls two
// candidates is a dispatcher, and a callee name several candidates share
// is a call through an interface: neither lifts anything. Candidates
// only: a callee the query did not retrieve at all is never pulled in.
// In a query that names definitions (named: a code query, "humanize
// FormatInteger", or a pair of plain words, "english Plural") a wrapper
// the query names (its "name" signal) is what was asked for and lifts
// nothing.
//
// ranked must be sorted. callees are the wrappers' calls by (file,
// from_name), read in phase 1 (see Searcher.wrapperCalls). delegate
// reports whether it lifted anything.
func delegate(ranked []Result, callees map[[2]string][]wrapperCall, named bool, hp HybridParams) bool {
	type wrapper struct {
		i    int
		call string // from_name of the wrapper's calls
	}
	var ws []wrapper
	for i := 0; i < len(ranked) && i < hp.DelegateTop; i++ {
		r := ranked[i]
		if named && r.Explain != nil && r.Explain.Signal("name") > 0 {
			continue
		}
		if isThin(r, max(hp.ThinCodeLines, hp.WrapperCodeLines)) && !isConstructor(r) {
			ws = append(ws, wrapper{i, r.sym.CallName()})
		}
	}
	if len(ws) == 0 || len(callees) == 0 {
		return false
	}
	byName := map[string][]int{}
	for j, r := range ranked {
		if r.Type == chunk.KindFunction || r.Type == chunk.KindMethod {
			byName[r.sym.Name] = append(byName[r.sym.Name], j)
		}
	}
	// lifts are computed from the scores before any lift, so a lifted
	// chunk never passes its lift on (no chains: ExecuteContext ->
	// Execute -> ExecuteC), and a pinned wrapper's pin is not passed on
	// (the chunk a symbol query names stays first)
	orig := make([]float64, len(ranked))
	for i, r := range ranked {
		orig[i] = r.Score
		if e := r.Explain; e != nil {
			orig[i] -= e.Signal("pin") + e.Signal("site") + e.Signal("spelled")
		}
	}
	moved := false
	for _, w := range ws {
		a := ranked[w.i]
		// the candidates the wrapper calls: lifted only when there is
		// exactly one. A dispatcher calls two or more (dboxFtoa ->
		// dboxFtoa32 | dboxFtoa64), and one callee name with several
		// candidate definitions is a call through an interface or a base
		// class (CoCompletion.tryFire -> 17 tryFire implementations).
		// the form of the call only vetoes: a callee its form cannot
		// reach is not lifted, but the form never narrows several
		// namesakes to one (that would lift a generic dispatcher, as
		// Context.Render above Context.HTML)
		targets, reach := map[int]bool{}, map[int]bool{}
		for _, c := range callees[[2]string{a.Path, w.call}] {
			qual, bare := "", c.to
			if i := strings.LastIndexByte(c.to, '.'); i >= 0 {
				qual, bare = c.to[:i], c.to[i+1:]
			}
			for _, j := range byName[bare] {
				// a method that calls its own name in another file
				// forwards to another value's method (KeyDecoder.map ->
				// Option.map): which type's, the bare name cannot tell
				if bare == a.sym.Name && ranked[j].Path != a.Path {
					continue
				}
				if j != w.i && sameUnit(a.Path, ranked[j].Path, qual) {
					targets[j] = true
					if formReaches(c.form, a.sym, ranked[j].sym, a.Path == ranked[j].Path) {
						reach[j] = true
					}
				}
			}
		}
		if len(targets) != 1 {
			continue
		}
		for j := range targets {
			if !reach[j] {
				continue
			}
			b := &ranked[j]
			// the implementation answers the question too: a callee no
			// word of the query occurs in is the wrapper's plumbing (a
			// generic message sender: startGracefulShutdown ->
			// sendServeMsg for "how does the server shut down
			// gracefully"), not where the work the question names is done
			if b.Explain != nil && b.Explain.KeywordRank == 0 {
				continue
			}
			// an implementation is longer than the wrapper that hands
			// it the work; a callee as short is a helper the wrapper
			// uses to do its own work (nvm_node_version -> nvm_echo,
			// a print), and the wrapper is the answer
			n := codeLines(a.content)
			if codeLinesUpTo(b.content, n) <= n {
				continue
			}
			// a caller longer than thin does part of the work itself:
			// its callee must be WrapperRatio times as long
			// and a function nested in it (a closure the chunker cut out
			// of it, indented deeper in the same file) is part of its
			// work, not an implementation it hands the work to
			if n > hp.ThinCodeLines {
				need := int(math.Ceil(hp.WrapperRatio * float64(n)))
				if codeLinesUpTo(b.content, need) < need {
					continue
				}
				if b.Path == a.Path && indentWidth(b.content) > indentWidth(a.content) {
					continue
				}
			}
			if lift := orig[w.i] + hp.DelegateMargin - b.Score; lift > 0 {
				moved = addSignal(b, "delegate", lift, a.Name) || moved
			}
		}
	}
	return moved
}

// formReaches reports whether a call of the given form, made in the
// definition caller, can reach the definition callee (sameFile: both in
// one file), as the relation graph resolves calls: a call on the caller's
// own receiver ("r.write(w)" inside func (r *Request) WriteProxy, self.x,
// this.x) reaches a method of the caller's own type, or else a namesake in
// the caller's file (a method of an embedded struct or a base class
// defined beside it: http2noDialClientConnPool.GetClientConn's
// p.getClientConn is http2clientConnPool's), never a namesake method of
// another type elsewhere in the package (response.write in server.go); a
// Go call without receiver ("copyBuffer(dst, src)") reaches a function,
// never a method. Other forms (a bare name in a language with an implicit
// receiver, a package's function) are decided by name and place alone.
func formReaches(form lang.CallForm, caller, callee chunk.Symbol, sameFile bool) bool {
	switch form {
	case lang.CallSelf:
		return caller.Owner != "" && (callee.Owner == caller.Owner || sameFile)
	case lang.CallPlain:
		return callee.Owner == ""
	}
	return true
}

// isConstructor reports a constructor (named as its class, or __init__,
// constructor, initialize): it initialises its object, and the setter or
// base-class method it calls (basic_memory_buffer -> buffer::set) is not
// the behaviour a query about the class asks for, so it lifts nothing.
func isConstructor(r Result) bool {
	n := r.sym.Name
	return r.sym.Owner != "" && n == r.sym.Owner || n == "__init__" || n == "constructor" || n == "initialize"
}

// sameUnit reports whether a callee defined in bPath can be the target of a
// call made in aPath: the same directory (Go package, Java package, Python
// package), or a directory whose base name is the call's qualifier
// ("subtle.ConstantTimeCompare" -> crypto/subtle). A qualifier that names
// neither a package nor anything else ("b.grow", "self.x") is a receiver
// and the same-directory rule decides.
func sameUnit(aPath, bPath, qual string) bool {
	da, db := path.Dir(aPath), path.Dir(bPath)
	if da == db {
		return true
	}
	if qual == "" {
		return false
	}
	if i := strings.LastIndexAny(qual, "./"); i >= 0 {
		qual = qual[i+1:]
	}
	return path.Base(db) == qual
}

// codeLines counts the non-blank lines of src that are not comments
// (//, #, /*, *) or docstrings (Python triple quotes).
func codeLines(src string) int { return codeLinesUpTo(src, -1) }

// codeLinesUpTo is codeLines, stopping once the count passes limit (>= 0):
// isThin asks whether a candidate has at most a few, of hundreds of
// candidates, most of them long. It reads src in place.
func codeLinesUpTo(src string, limit int) int {
	n := 0
	inDoc := ""
	for rest := src; ; {
		l, more, found := strings.Cut(rest, "\n")
		rest = more
		l = strings.TrimSpace(l)
		switch {
		case inDoc != "":
			if strings.Contains(l, inDoc) {
				inDoc = ""
			}
		case strings.HasPrefix(l, `"""`) || strings.HasPrefix(l, "'''"):
			if q := l[:3]; strings.Count(l, q) == 1 {
				inDoc = q
			}
		case l == "" || strings.HasPrefix(l, "//") || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "/*") ||
			strings.HasPrefix(l, "*"):
		default:
			if n++; limit >= 0 && n > limit {
				return n
			}
		}
		if !found {
			return n
		}
	}
}

// indentWidth is the leading white space of src's first non-blank line, a
// tab counting as one.
func indentWidth(src string) int {
	for rest := src; rest != ""; {
		l, more, _ := strings.Cut(rest, "\n")
		rest = more
		if t := strings.TrimLeft(l, " \t"); t != "" {
			return len(l) - len(t)
		}
	}
	return 0
}
