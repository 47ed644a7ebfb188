package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/coderag/coderag/internal/search"
)

func init() {
	register(command{name: "eval", summary: "retrieval quality on a golden set: Recall@1, Recall@5, MRR@10", run: runEval})
}

func runEval(e *env, args []string) error {
	fs := newFlags(e, "eval", "[flags] GOLDEN.json",
		`Run every query of a golden set against the current index (it indexes nothing itself)
and print Recall@1, Recall@5 and MRR@10 overall and per kind and lang, plus the misses.
Index the golden set's root first, e.g. coderag index "$(go env GOROOT)/src".

Golden file format (JSON):
  {"corpus": "name", "queries": [{"id": "q1", "query": "where is the request line parsed",
    "lang": "en", "kind": "fuzzy",
    "expect": [{"file": "net/http/request.go", "symbol": "parseRequestLine", "line": 1027}]}]}
A result is a hit when its file equals expect.file (root-relative, '/') and its line range
holds expect.line, or its name (parameters removed) ends with expect.symbol; several expect
entries are alternatives. kind and lang slice the metrics.`)
	project := fs.String("project", ".", "the indexed root the golden paths are relative to")
	ranker := fs.String("ranker", search.DefaultRanker, "ranker: hybrid or seed")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one GOLDEN.json")
	}
	if *ranker != search.RankerHybrid && *ranker != search.RankerSeed {
		return usagef("unknown --ranker %q (want hybrid or seed)", *ranker)
	}
	g, err := search.LoadGolden(pos[0])
	if err != nil {
		return err
	}
	st, p, err := openProject(e, *project)
	if err != nil {
		return err
	}
	defer st.Close()
	emb, err := e.projectEmbedder(p.Embedder)
	if err != nil {
		return err
	}
	// a golden set run against the wrong tree would print low numbers that
	// look real: check that its expected files are indexed
	indexed, err := st.Files(e.ctx, p.Path)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	var missing []string
	for _, q := range g.Queries {
		for _, x := range q.Expect {
			if !want[x.File] {
				want[x.File] = true
				if _, ok := indexed[x.File]; !ok {
					missing = append(missing, x.File)
				}
			}
		}
	}
	sort.Strings(missing)
	switch {
	case len(want) > 0 && len(missing) == len(want):
		return fmt.Errorf("none of the %d files %s expects is in the index of %s: index the golden set's root and pass it as --project", len(want), pos[0], p.Path)
	case len(missing) > 0:
		fmt.Fprintf(e.stderr, "warning: %d of the %d expected files are not in the index of %s (e.g. %s); their queries count as misses\n",
			len(missing), len(want), p.Path, strings.Join(missing[:min(3, len(missing))], ", "))
	}
	s := &search.Searcher{Store: st, Embedder: emb, Project: p.Path}
	rep, err := search.Evaluate(e.ctx, s, g, *ranker)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, rep)
	}
	printEval(e.stdout, rep)
	return nil
}

func printEval(w io.Writer, rep *search.EvalReport) {
	fmt.Fprintf(w, "corpus %s, ranker %s\n\n%-16s %4s %9s %9s %8s\n", rep.Corpus, rep.Ranker, "slice", "n", "Recall@1", "Recall@5", "MRR@10")
	row := func(name string, m search.Metrics) {
		fmt.Fprintf(w, "%-16s %4d %9.3f %9.3f %8.3f\n", name, m.N, m.RecallAt1, m.RecallAt5, m.MRRAt10)
	}
	row("overall", rep.Overall)
	for _, group := range []struct {
		prefix string
		m      map[string]search.Metrics
	}{{"kind=", rep.ByKind}, {"lang=", rep.ByLang}} {
		keys := make([]string, 0, len(group.m))
		for k := range group.m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			row(group.prefix+k, group.m[k])
		}
	}
	if len(rep.Misses) > 0 {
		fmt.Fprintf(w, "\nmisses (rank 0 = not in top 10):\n")
		for _, m := range rep.Misses {
			fmt.Fprintf(w, "  %s rank %d  %q\n    expected %s\n", m.ID, m.Rank, m.Query, m.Expected)
			for _, t := range m.Top3 {
				fmt.Fprintf(w, "    got      %s\n", t)
			}
		}
	}
}
