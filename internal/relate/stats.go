package relate

import (
	"bufio"
	"fmt"
	"sort"

	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/store"
)

// Shares counts call sites by how they resolve. Exact calls reach one
// definition without guessing; Guessed ones are calls on values of unknown
// type matched by name (resolved or ambiguous); Ambiguous ones share a name
// with several definitions without being on an unknown value; Library ones
// call builtins or other packages; Unresolved ones name nothing in the
// project.
type Shares struct {
	Total      int `json:"total"`
	Exact      int `json:"exact"`
	Guessed    int `json:"guessed"`
	Ambiguous  int `json:"ambiguous"`
	Library    int `json:"library"`
	Unresolved int `json:"unresolved"`
}

func (s *Shares) add(e *Edge) {
	s.Total++
	switch {
	case e.Guess:
		s.Guessed++
	case e.Exact():
		s.Exact++
	case e.Resolution == ResAmbiguous:
		s.Ambiguous++
	case e.library():
		s.Library++
	default:
		s.Unresolved++
	}
}

// Ranked is a definition with a count (see Stats).
type Ranked struct {
	Def   *Def `json:"def"`
	Count int  `json:"count"`
}

// Stats is the shape of a project's call graph: call sites by resolution,
// overall and per language, the most-called definitions (Core: distinct
// exact callers, "the core of the codebase") and the widest callers
// (Orchestrators: distinct exact callees). Only exact edges count in Core
// and Orchestrators; callers in test files are left out of both.
type Stats struct {
	Project       string             `json:"root"`
	Calls         Shares             `json:"calls"`
	ByLanguage    map[string]*Shares `json:"by_language"`
	Core          []Ranked           `json:"core"`
	Orchestrators []Ranked           `json:"orchestrators"`
}

var _ Result = (*Stats)(nil)

// Stats resolves every call of the project and returns the top n of Core
// and Orchestrators (10 when n < 1).
func (r *Resolver) Stats(n int) (*Stats, error) {
	r.begin()
	if n < 1 {
		n = 10
	}
	st := &Stats{Project: r.project, ByLanguage: map[string]*Shares{}}
	callers := map[*Def]map[*Def]bool{} // callee -> callers
	callees := map[*Def]map[*Def]bool{} // caller -> callees
	err := r.idx.CallRelations(r.ctx, r.project, func(row store.RelationRow) bool {
		if r.ctx.Err() != nil {
			return false
		}
		e := r.edge(row)
		st.Calls.add(&e)
		l := r.langOf(row.Path)
		if st.ByLanguage[l] == nil {
			st.ByLanguage[l] = &Shares{}
		}
		st.ByLanguage[l].add(&e)
		if !e.Exact() || e.Caller == nil || e.Caller == e.Target || lang.IsTestFile(row.Path) || e.Caller.Type == "module" ||
			e.Target.isClass() { // a conversion or a class without a constructor: not a call to code
			return true
		}
		if callers[e.Target] == nil {
			callers[e.Target] = map[*Def]bool{}
		}
		callers[e.Target][e.Caller] = true
		if callees[e.Caller] == nil {
			callees[e.Caller] = map[*Def]bool{}
		}
		callees[e.Caller][e.Target] = true
		return true
	})
	if err != nil {
		return nil, err
	}
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	st.Core = top(callers, n)
	st.Orchestrators = top(callees, n)
	return st, r.done()
}

func top(m map[*Def]map[*Def]bool, n int) []Ranked {
	out := make([]Ranked, 0, len(m))
	for d, set := range m {
		out = append(out, Ranked{d, len(set)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		if out[i].Def.Path != out[j].Def.Path {
			return out[i].Def.Path < out[j].Def.Path
		}
		return out[i].Def.StartLine < out[j].Def.StartLine
	})
	return out[:min(n, len(out))]
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func (s *Shares) line(w *bufio.Writer, name string) {
	fmt.Fprintf(w, "  %-12s %7d calls: %5.1f%% exact, %5.1f%% guessed, %5.1f%% ambiguous, %5.1f%% library/builtin, %5.1f%% unresolved\n",
		name, s.Total, pct(s.Exact, s.Total), pct(s.Guessed, s.Total), pct(s.Ambiguous, s.Total), pct(s.Library, s.Total), pct(s.Unresolved, s.Total))
}

func (st *Stats) tree(w *bufio.Writer) {
	fmt.Fprintf(w, "Call graph of %s\n", st.Project)
	st.Calls.line(w, "all")
	langs := make([]string, 0, len(st.ByLanguage))
	for l := range st.ByLanguage {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	if len(langs) > 1 {
		for _, l := range langs {
			st.ByLanguage[l].line(w, l)
		}
	}
	w.WriteString("\nMost called (the core of the codebase; distinct exact callers, tests left out):\n")
	for _, x := range st.Core {
		fmt.Fprintf(w, "  %5d  %s  %s\n", x.Count, x.Def.Name, x.Def.Loc())
	}
	w.WriteString("\nWidest callers (orchestrators; distinct exact callees):\n")
	for _, x := range st.Orchestrators {
		fmt.Fprintf(w, "  %5d  %s  %s\n", x.Count, x.Def.Name, x.Def.Loc())
	}
}

func (st *Stats) view() *view {
	v := newView()
	for _, x := range st.Core {
		v.nodes[v.def(x.Def)].root = true
	}
	for _, x := range st.Orchestrators {
		v.def(x.Def)
	}
	return v
}
