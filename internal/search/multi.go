package search

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/coderag/coderag/internal/english"
	"github.com/coderag/coderag/internal/walk"
)

// Searching several projects at once.
//
// Each project is searched on its own, with its own statistics (BM25 over
// its own full-text table, its own embedder), so that a project's ranking
// never depends on the others. The answers are then merged by relevance:
// the best score first, as one list would be. Scores of different projects
// are not exactly comparable (the same word weighs more where it is rare),
// so fairness breaks the ties: among the projects' next results whose
// scores are within mergeTieBand of the best of them, the one with the
// better rank in its own project goes first (then the higher score, then
// the order of the projects given). A project's results keep their own
// order. A project whose answer has no keyword hit at all (its Note starts
// with NoKeywordNote or StopWordsNote: its results are only vector
// neighbours) is merged after the projects with keyword hits, so an
// unrelated repository does not take slots from a relevant one.

// MultiResult is one result of a multi-project search: the Result as a
// single-project search gives it, the root of the project it comes from, and
// its 1-based rank within that project's own answer.
type MultiResult struct {
	Project string `json:"project"`
	Result
	ProjectRank int `json:"project_rank"`
	// AlsoIn are the other places holding the same chunk (same lines,
	// name and text: a vendored or copied file), folded into this result
	// as zoekt folds duplicates: a project root when the copy has this
	// result's path there, else the root and the copy's path joined by
	// "/" (".../vendor/x/parse.go").
	AlsoIn []string `json:"also_in,omitempty"`
}

// ProjectAnswer sums up one project's part of a multi-project search:
// its keywords, how many results it contributed to the merged list, its
// note and incomplete-index message, and Error when that project's search
// failed (the others are still answered).
type ProjectAnswer struct {
	Project    string   `json:"project"`
	Keywords   []string `json:"keywords"`
	Results    int      `json:"results"`
	Note       string   `json:"note,omitempty"`
	Incomplete string   `json:"incomplete,omitempty"`
	Hints      []Hint   `json:"hints,omitempty"` // the project's Response.Hints
	Error      string   `json:"error,omitempty"`
}

// MultiResponse is the answer to one query over several projects: the
// merged results (at most Options.TopK) and one ProjectAnswer per project,
// in the order the searchers were given.
type MultiResponse struct {
	Query    string          `json:"query"`
	Ranker   string          `json:"ranker"`
	Projects []ProjectAnswer `json:"projects"`
	Results  []MultiResult   `json:"results"`
}

// MultiParallel bounds how many projects SearchProjects searches at once.
const MultiParallel = 4

// SearchProjects runs query over every searcher (one per project, each with
// the embedder its project was indexed with), asks each for TopK results
// and merges them with MergeRanked into at most TopK. A project whose search
// fails is reported in its ProjectAnswer.Error; SearchProjects fails only
// when every project failed, or on an empty query, an unknown ranker or a
// cancelled ctx. The query's repo: and project: filters (see ParseQuery)
// choose which of the searchers are searched; none matching, or a bad
// filter, is an ErrBadQuery.
func SearchProjects(ctx context.Context, searchers []*Searcher, query string, opts Options) (*MultiResponse, error) {
	if len(searchers) == 0 {
		return nil, errors.New("search projects: no project to search")
	}
	k := ClampTopK(opts.TopK)
	opts.TopK = k
	opts.Vector = nil // the projects are searched at once, by several embedders
	// the filters are the same for every project: a bad one is one
	// error, not one per project; repo: and project: pick the searchers
	_, filter, err := ParseQuery(strings.TrimSpace(query))
	if err != nil {
		return nil, err
	}
	if len(filter.Projects) > 0 {
		var kept []*Searcher
		roots := make([]string, len(searchers))
		for i, s := range searchers {
			roots[i] = walk.DisplayPath(s.Project)
			if filter.MatchProject(s.Project) {
				kept = append(kept, s)
			}
		}
		if len(kept) == 0 {
			return nil, badQuery(ErrBadQuery, "%s matches no project searched (%s)", projectFilterText(&filter), strings.Join(roots, ", "))
		}
		searchers = kept
	}
	resps := make([]*Response, len(searchers))
	errs := make([]error, len(searchers))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(MultiParallel)
	for i, s := range searchers {
		g.Go(func() error {
			resps[i], errs[i] = s.Search(gctx, query, opts)
			if errs[i] != nil && (errors.Is(errs[i], ErrUnknownRanker) || gctx.Err() != nil) {
				return errs[i]
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("search projects: %w", err)
	}
	out := &MultiResponse{Query: query, Ranker: opts.Ranker, Projects: make([]ProjectAnswer, len(searchers))}
	if out.Ranker == "" {
		out.Ranker = DefaultRanker
	}
	roots := make([]string, len(searchers))
	failed := 0
	for i, s := range searchers {
		roots[i] = s.Project
		a := ProjectAnswer{Project: s.Project, Keywords: []string{}}
		if errs[i] != nil {
			failed++
			a.Error = errs[i].Error()
		} else {
			r := resps[i]
			out.Query = r.Query
			a.Note, a.Incomplete, a.Hints = r.Note, r.Incomplete, r.Hints
			if r.Keywords != nil {
				a.Keywords = r.Keywords
			}
		}
		out.Projects[i] = a
	}
	if failed == len(searchers) {
		return nil, fmt.Errorf("search projects: every project failed; %s: %w", searchers[0].Project, errs[0])
	}
	out.Results = MergeRanked(roots, resps, k)
	for _, r := range out.Results {
		for i := range out.Projects {
			if out.Projects[i].Project == r.Project {
				out.Projects[i].Results++
			}
		}
	}
	return out, nil
}

// mergeTieBand is how close two scores are to count as a tie in the
// merge of several projects' answers: within this fraction of the higher.
const mergeTieBand = 0.10

// MergeRanked merges the answers of several projects (resps[i] is the answer
// for roots[i]; nil for a project that failed) into at most k results, by
// relevance (see the comment at the top of this file), a chunk found in
// several projects (a copied file) once, naming the others in AlsoIn
// (looked for over every answer, the part past the cut too):
// repeatedly the
// projects' next results are compared, the best score wins, and among the
// scores within mergeTieBand of it the better per-project rank wins; the
// projects whose answer has keyword hits come before those with vector
// neighbours only. The order is deterministic: full ties keep the order of
// roots.
func MergeRanked(roots []string, resps []*Response, k int) []MultiResult {
	out := []MultiResult{}
	for _, weak := range []bool{false, true} {
		var tier []int // indexes into resps of this tier's projects
		for i, r := range resps {
			if r != nil && len(r.Results) > 0 && vectorOnly(r.Note) == weak {
				tier = append(tier, i)
			}
		}
		next := make([]int, len(resps)) // each project's next result
		for len(out) < k {
			best := -1 // the project whose next result scores highest
			for _, i := range tier {
				if next[i] < len(resps[i].Results) && (best < 0 || resps[i].Results[next[i]].Score > resps[best].Results[next[best]].Score) {
					best = i
				}
			}
			if best < 0 {
				break
			}
			top := resps[best].Results[next[best]].Score
			pick := best
			for _, i := range tier {
				if next[i] >= len(resps[i].Results) || i == pick {
					continue
				}
				sc := resps[i].Results[next[i]].Score
				if !tiedScore(sc, top) {
					continue
				}
				if next[i] < next[pick] || next[i] == next[pick] && sc > resps[pick].Results[next[pick]].Score {
					pick = i
				}
			}
			r := resps[pick].Results[next[pick]]
			next[pick]++
			if i := sameChunk(out, r, roots[pick]); i >= 0 {
				addAlsoIn(&out[i], roots[pick], r)
				continue
			}
			out = append(out, MultiResult{Project: roots[pick], Result: r, ProjectRank: next[pick]})
		}
	}
	// fold before the cut: a kept result's copy that the cut left out
	// (lower in another project's answer) still names its project, so
	// "also in" does not depend on k
	for j, r := range resps {
		if r == nil {
			continue
		}
		for _, x := range r.Results {
			if i := sameChunk(out, x, roots[j]); i >= 0 {
				addAlsoIn(&out[i], roots[j], x)
			}
		}
	}
	return out
}

// sameChunk returns the index in out of a result holding the same chunk
// as r of the project at root (lines, name and text; at another path only
// when it is another project's and has text, so a project's own copies
// stay results of their own), or -1.
func sameChunk(out []MultiResult, r Result, root string) int {
	for i, o := range out {
		if (o.Path == r.Path || o.Project != root && r.content != "") && o.StartLine == r.StartLine && o.EndLine == r.EndLine &&
			o.Name == r.Name && o.content == r.content {
			return i
		}
	}
	return -1
}

// addAlsoIn names in m.AlsoIn the copy x of m's chunk found in the project
// at root: the root when x has m's path, else root + "/" + x.Path; nothing
// for m itself or a place already named.
func addAlsoIn(m *MultiResult, root string, x Result) {
	place := root
	if x.Path != m.Path {
		place = strings.TrimSuffix(root, "/") + "/" + x.Path
	} else if root == m.Project {
		return
	}
	if !slices.Contains(m.AlsoIn, place) {
		m.AlsoIn = append(m.AlsoIn, place)
	}
}

// tiedScore reports whether score is within mergeTieBand of top (top >=
// score).
func tiedScore(score, top float64) bool {
	return top-score <= mergeTieBand*math.Abs(top)
}

// FormatMultiHuman writes a multi-project answer for people: each project's
// notes and errors, then the merged results as FormatHuman prints them,
// each with its project root after the path (HumanOptions as there).
func FormatMultiHuman(w io.Writer, resp *MultiResponse, o HumanOptions) {
	for _, p := range resp.Projects {
		switch {
		case p.Error != "":
			fmt.Fprintf(w, "note: %s: search failed: %s\n", p.Project, p.Error)
		case p.Incomplete != "":
			fmt.Fprintf(w, "note: %s: %s%s\n", p.Project, p.Incomplete, humanHints(p.Hints, HintIndex, o.REPL))
		}
		if p.Error == "" && p.Note != "" && p.Note != NoWordsNote && p.Results > 0 {
			fmt.Fprintf(w, "note: %s: %s\n", p.Project, p.Note)
		}
	}
	if len(resp.Results) == 0 {
		if len(resp.Projects) > 0 && resp.Projects[0].Note == NoWordsNote {
			fmt.Fprintf(w, "note: %s%s\n", NoWordsNote, humanHints(resp.Projects[0].Hints, HintGrep, o.REPL))
		}
		fmt.Fprintf(w, "no results for %q in %s\n", resp.Query, english.Counted(len(resp.Projects), "project"))
		return
	}
	for i, r := range resp.Results {
		also := ""
		if len(r.AlsoIn) > 0 {
			also = "  also in " + strings.Join(r.AlsoIn, ", ")
		}
		fmt.Fprintf(w, "%2d. %.3f  %s:%d-%d  (%s #%d)  [%s] %s%s\n", i+1, r.Score, walk.DisplayPath(r.Path), r.StartLine, r.EndLine,
			walk.DisplayPath(r.Project), r.ProjectRank, r.Type, humanName(r.Result), also)
		fmt.Fprintf(w, "    %s\n", previewText(r.Result, o.Color))
		if o.Explain && r.Explain != nil {
			fmt.Fprintf(w, "    explain: %s\n", explainLine(r.Explain))
		}
	}
}
