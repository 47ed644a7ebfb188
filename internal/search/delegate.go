package search

import (
	"context"
	"path"
	"strings"

	"github.com/coderag/coderag/internal/store"
)

// Delegation defaults (see delegate).
const (
	// DelegateTop is how many leading results are examined as possible
	// thin wrappers.
	DelegateTop = 10
	// ThinCodeLines is the most non-blank, non-comment lines (signature and
	// closing brace included) a function may have to count as a thin
	// wrapper: `func Copy(dst, src) { return copyBuffer(dst, src, nil) }`
	// has 3.
	ThinCodeLines = 8
	// DelegateMargin is how far above its wrapper a delegated-to
	// implementation is placed, in fused units (1/FusionScale ~= 0.0164 is
	// the best fused score).
	DelegateMargin = 0.0001
)

// delegate lifts implementations above the thin wrappers that call them.
// A query that describes behaviour ("copy from a reader to a writer,
// preferring WriterTo") matches the wrapper's doc comment best, but the
// behaviour lives in the function it delegates to (io.Copy ->
// io.copyBuffer, Buffer.Grow -> Buffer.grow). For each of the first
// DelegateTop results that is a function or method of at most ThinCodeLines
// code lines and calls exactly one other candidate (bare name equal to the
// callee, in the same directory, or in a directory named by the call's
// qualifier), that candidate gets at least the wrapper's score plus
// DelegateMargin; the lift is recorded in Explain.Delegate. A wrapper that
// calls two candidates is a dispatcher, and a callee name several
// candidates share is a call through an interface: neither lifts anything.
// Candidates only: a callee the query did not retrieve at all is never
// pulled in.
//
// ranked must be sorted; it is re-sorted when anything moves. rows maps
// candidate ids to their chunks. Errors come from reading relations.
func (s *Searcher) delegate(ctx context.Context, ranked []Result, rows map[int64]store.ChunkRow) error {
	type wrapper struct {
		i    int
		call string // from_name of the wrapper's calls
	}
	var ws []wrapper
	var names []string
	for i := 0; i < len(ranked) && i < DelegateTop; i++ {
		r := ranked[i]
		if r.Type != "function" && r.Type != "method" || codeLines(r.content) > ThinCodeLines {
			continue
		}
		call := r.sym.CallName()
		ws = append(ws, wrapper{i, call})
		names = append(names, call)
	}
	if len(ws) == 0 {
		return nil
	}
	rels, err := s.Store.RelationsFrom(ctx, s.Project, names, []string{"calls"})
	if err != nil {
		return err
	}
	// callees by (file, from_name)
	callees := map[[2]string][]string{}
	for _, rel := range rels {
		if rel.Value {
			// a call on another value ("b.Bind(...)", "t.Execute(w)") is
			// matched by bare name only: its receiver's type is unknown,
			// so the edge is a guess and lifts nothing
			continue
		}
		k := [2]string{rel.Path, rel.From}
		callees[k] = append(callees[k], rel.To)
	}
	byName := map[string][]int{}
	for j, r := range ranked {
		if r.Type == "function" || r.Type == "method" {
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
		if r.Explain != nil {
			orig[i] -= r.Explain.Pin
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
		targets := map[int]bool{}
		for _, to := range callees[[2]string{a.Path, w.call}] {
			qual, bare := "", to
			if i := strings.LastIndexByte(to, '.'); i >= 0 {
				qual, bare = to[:i], to[i+1:]
			}
			for _, j := range byName[bare] {
				if j != w.i && sameUnit(a.Path, ranked[j].Path, qual) {
					targets[j] = true
				}
			}
		}
		if len(targets) != 1 {
			continue
		}
		for j := range targets {
			b := &ranked[j]
			lift := orig[w.i] + DelegateMargin - b.Score
			if lift <= 0 {
				continue
			}
			b.Score += lift
			if b.Explain != nil {
				b.Explain.Delegate += lift
				b.Explain.DelegateFrom = a.Name
			}
			moved = true
		}
	}
	if moved {
		sortResults(ranked)
	}
	return nil
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
func codeLines(src string) int {
	n := 0
	inDoc := ""
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimSpace(l)
		if inDoc != "" {
			if strings.Contains(l, inDoc) {
				inDoc = ""
			}
			continue
		}
		if strings.HasPrefix(l, `"""`) || strings.HasPrefix(l, "'''") {
			if q := l[:3]; strings.Count(l, q) == 1 {
				inDoc = q
			}
			continue
		}
		if l == "" || strings.HasPrefix(l, "//") || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "/*") ||
			strings.HasPrefix(l, "*") {
			continue
		}
		n++
	}
	return n
}
