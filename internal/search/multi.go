package search

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/coderag/coderag/internal/walk"
)

// Searching several projects at once.
//
// Scores of different projects are not comparable: each project has its own
// BM25 statistics (one FTS5 table per project, so the same word weighs more
// in a project where it is rare), its own corpus size, and possibly another
// embedder with another cosine scale. Normalising scores per project (divide
// by the project's best) would still hand every project a 1.0, relevant or
// not, and lets a big project whose score curve is flat fill the list.
// The one currency the projects share is rank. So the merge interleaves by
// per-project rank: every project's first result, then every project's
// second, and so on; within one round, results are ordered by their own
// score (the best guess at which project's hit is better). A project whose
// answer has no keyword hit at all (Note is NoKeywordNote or StopWordsNote: its results are
// only vector neighbours) is interleaved after the projects with keyword
// hits, so an unrelated repository does not take every other slot.
// A big project therefore cannot crowd a small one out of the top k: with P
// projects that have keyword hits, each of them holds one of the first P
// slots.

// MultiResult is one result of a multi-project search: the Result as a
// single-project search gives it, the root of the project it comes from, and
// its 1-based rank within that project's own answer.
type MultiResult struct {
	Project string `json:"project"`
	Result
	ProjectRank int `json:"project_rank"`
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

// multiParallel bounds how many projects are searched at once.
const multiParallel = 4

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
	g.SetLimit(multiParallel)
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

// MergeRanked merges the answers of several projects (resps[i] is the answer
// for roots[i]; nil for a project that failed) into at most k results, fairly:
// by per-project rank, then by score within a rank, with the projects whose
// answer has keyword hits before those with vector neighbours only (see the
// comment at the top of this file). The order is deterministic: ties in
// score keep the order of roots.
func MergeRanked(roots []string, resps []*Response, k int) []MultiResult {
	out := []MultiResult{}
	for _, weak := range []bool{false, true} {
		var tier []int // indexes into resps of this tier's projects
		for i, r := range resps {
			if r != nil && len(r.Results) > 0 && vectorOnly(r.Note) == weak {
				tier = append(tier, i)
			}
		}
		for rank := 0; len(out) < k; rank++ {
			var round []MultiResult
			for _, i := range tier {
				if rank < len(resps[i].Results) {
					round = append(round, MultiResult{Project: roots[i], Result: resps[i].Results[rank], ProjectRank: rank + 1})
				}
			}
			if len(round) == 0 {
				break
			}
			sort.SliceStable(round, func(a, b int) bool { return round[a].Score > round[b].Score })
			out = append(out, round[:min(len(round), k-len(out))]...)
		}
	}
	return out
}

// FormatMultiHuman writes a multi-project answer for people: each project's
// notes and errors, then the merged results as FormatHuman prints them,
// each with its project root after the path.
func FormatMultiHuman(w io.Writer, resp *MultiResponse, explain bool) {
	for _, p := range resp.Projects {
		switch {
		case p.Error != "":
			fmt.Fprintf(w, "note: %s: search failed: %s\n", p.Project, p.Error)
		case p.Incomplete != "":
			fmt.Fprintf(w, "note: %s: %s%s\n", p.Project, p.Incomplete, humanHints(p.Hints, HintIndex))
		}
	}
	if len(resp.Results) == 0 {
		if len(resp.Projects) > 0 && resp.Projects[0].Note == NoWordsNote {
			fmt.Fprintf(w, "note: %s%s\n", NoWordsNote, humanHints(resp.Projects[0].Hints, HintGrep))
		}
		fmt.Fprintf(w, "no results for %q in %d projects\n", resp.Query, len(resp.Projects))
		return
	}
	for i, r := range resp.Results {
		fmt.Fprintf(w, "%2d. %.3f  %s:%d-%d  (%s #%d)  [%s] %s\n", i+1, r.Score, walk.DisplayPath(r.Path), r.StartLine, r.EndLine,
			walk.DisplayPath(r.Project), r.ProjectRank, r.Type, r.Name)
		fmt.Fprintf(w, "    %s\n", r.Preview)
		if explain && r.Explain != nil {
			fmt.Fprintf(w, "    explain: %s\n", explainLine(r.Explain))
		}
	}
}
