package cli

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/english"
	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
)

func init() {
	register(command{name: "eval", summary: "retrieval quality of a query set: NDCG@10 (file-labelled, semble format) or Recall@1/@5 and MRR@10 (golden)", run: runEval})
}

func runEval(e *env, args []string) (err error) {
	fs := newFlags(e, "eval", "[flags] SET.json",
		`Run every query of a query set against the current index (it indexes nothing itself).
A golden set (a JSON object, below) prints Recall@1, Recall@5 and MRR@10 overall and per
kind and lang; a file-labelled set (a JSON array, further below) prints NDCG@10. Both list
the misses. Index the set's root first, e.g. coderag index "$(go env GOROOT)/src".

Golden file format (JSON):
  {"corpus": "name", "queries": [{"id": "q1", "query": "where is the request line parsed",
    "lang": "en", "kind": "fuzzy",
    "expect": [{"file": "net/http/request.go", "symbol": "parseRequestLine", "line": 1027}]}]}
A result is a hit when its file equals expect.file (root-relative, '/') and its line range
holds expect.line, or its name (parameters removed) ends with expect.symbol; several expect
entries are alternatives. kind and lang slice the metrics.

File-labelled format (the semble benchmark's annotations; a JSON array):
  [{"query": "how routes are grouped and registered", "relevant": ["routergroup.go"],
    "secondary": ["gin.go"], "category": "architecture"}]
A target is a path (or {"path", "start_line", "end_line"}); paths may be relative to a
parent of the indexed root (a result matches when one path ends with "/" + the other).
Prints NDCG@10 at chunk level (the top 10 results as returned; a target counts at the
first result in its file whose lines overlap its span) and at file level (distinct files
in order of first appearance), with binary gains and IDCG over min(10, targets), overall,
per category and per language of the first target file.`)
	project := fs.String("project", ".", "the indexed root the golden paths are relative to")
	ranker := fs.String("ranker", search.DefaultRanker, "ranker: hybrid or seed")
	asJSON := fs.Bool("json", false, `print the report as JSON, with the project's absolute "root"; an error as {"error": MSG}`)
	defer func() { err = e.jsonError(*asJSON, err) }()
	set := fs.String("set", "", "override hybrid ranker params for this run, e.g. Semantic=0.3,Expand=0 (fields of search.HybridParams)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one SET.json")
	}
	if *ranker != search.RankerHybrid && *ranker != search.RankerSeed {
		return usagef("unknown --ranker %q (want hybrid or seed)", *ranker)
	}
	check := search.DefaultHybridParams()
	if err := check.Set(*set); err != nil {
		return usagef("--set: %v", err)
	}
	data, err := readSetFile(pos[0])
	if err != nil {
		return err
	}
	if search.IsBenchSet(data) {
		return runBenchEval(e, pos[0], *project, *ranker, *set, *asJSON)
	}
	g, err := search.LoadGolden(pos[0])
	if err != nil {
		return err
	}
	s, p, release, indexed, err := openEvalProject(e, *project, *set)
	if err != nil {
		return err
	}
	defer release()
	// a golden set run against the wrong tree would print low numbers that
	// look real: check that its expected files are indexed
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
		what := fmt.Sprintf("none of the %d files %s expects is", len(want), pos[0])
		if len(want) == 1 {
			what = fmt.Sprintf("the one file %s expects is not", pos[0])
		}
		return fmt.Errorf("%s in the index of %s: index the golden set's root and pass it as --project", what, p.Root)
	case len(missing) > 0:
		fmt.Fprintf(e.stderr, "warning: %d of the %d expected files %s not in the index of %s (e.g. %s); their queries count as misses\n",
			len(missing), len(want), english.Agree(len(missing), "is", "are"), p.Root, strings.Join(missing[:min(3, len(missing))], ", "))
	}
	rep, err := search.Evaluate(e.ctx, s, g, *ranker)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, evalJSON{Root: p.Root, EvalReport: rep})
	}
	printEval(e.stdout, rep)
	return nil
}

// evalJSON is `eval --json` of a golden set: the report and the absolute
// root of the project it was measured on.
type evalJSON struct {
	Root string `json:"root"`
	*search.EvalReport
}

// benchJSON is `eval --json` of a file-labelled set, with the root.
type benchJSON struct {
	Root string `json:"root"`
	*search.BenchReport
}

func printEval(w io.Writer, rep *search.EvalReport) {
	fmt.Fprintf(w, "corpus %s, ranker %s\n\n%-16s %4s %9s %9s %8s\n", rep.Corpus, rep.Ranker, "slice", "n", "Recall@1", "Recall@5", "MRR@10")
	row := func(name string, m search.Metrics) {
		fmt.Fprintf(w, "%-16s %4d %9.3f %9.3f %8.3f\n", name, m.N, m.RecallAt1, m.RecallAt5, m.MRRAt10)
	}
	row("overall", rep.Overall)
	sliceRows("kind=", rep.ByKind, row)
	sliceRows("lang=", rep.ByLang, row)
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

// runBenchEval evaluates a file-labelled query set (search.LoadBenchSet)
// against the index of project.
func runBenchEval(e *env, file, project, ranker, set string, asJSON bool) error {
	qs, err := search.LoadBenchSet(file)
	if err != nil {
		return err
	}
	s, p, release, indexed, err := openEvalProject(e, project, set)
	if err != nil {
		return err
	}
	defer release()
	// match a label to an indexed file once, by the benchmark's suffix rule
	found := map[string]string{}
	indexedAs := func(t string) string {
		f, ok := found[t]
		if !ok {
			for g := range indexed {
				if search.PathMatches(g, t) {
					f = g
					break
				}
			}
			found[t] = f
		}
		return f
	}
	langOf := func(t string) string {
		if f := indexedAs(t); f != "" {
			return lang.Detect(f)
		}
		return ""
	}
	total, missing := 0, 0
	for _, q := range qs {
		for _, t := range q.Targets() {
			total++
			if indexedAs(t.Path) == "" {
				missing++
			}
		}
	}
	switch {
	case missing == total:
		what := fmt.Sprintf("none of the %d files %s labels is", total, file)
		if total == 1 {
			what = fmt.Sprintf("the one file %s labels is not", file)
		}
		return fmt.Errorf("%s in the index of %s: index the set's root and pass it as --project", what, p.Root)
	case missing > 0:
		fmt.Fprintf(e.stderr, "warning: %d of the %d labelled files %s not in the index of %s; %s as %s\n", missing, total, english.Agree(missing, "is", "are"), p.Root,
			english.Agree(missing, "it counts", "they count"), english.Agree(missing, "a miss", "misses"))
	}
	rep, err := search.EvaluateBench(e.ctx, s, qs, ranker, langOf)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(e.stdout, benchJSON{Root: p.Root, BenchReport: rep})
	}
	fmt.Fprintf(e.stdout, "%s, ranker %s\n\n%-22s %4s %12s %11s\n", file, rep.Ranker, "slice", "n", "NDCG@10chunk", "NDCG@10file")
	row := func(name string, m search.NDCGMetrics) {
		fmt.Fprintf(e.stdout, "%-22s %4d %12.3f %11.3f\n", name, m.N, m.Chunk, m.File)
	}
	row("overall", rep.Overall)
	sliceRows("category=", rep.ByCategory, row)
	sliceRows("lang=", rep.ByLang, row)
	if len(rep.Misses) > 0 {
		fmt.Fprintf(e.stdout, "\nbelow 1 at chunk level (rank 0 = not in top 10):\n")
		for _, m := range rep.Misses {
			fmt.Fprintf(e.stdout, "  %.3f %-12s %q ranks %v of %s\n", m.NDCG, m.Category, m.Query, m.Ranks, strings.Join(m.Targets, ", "))
			for _, t := range m.Top3 {
				fmt.Fprintf(e.stdout, "        got %s\n", t)
			}
		}
	}
	return nil
}

// sliceRows prints one row per slice of m, in key order, named prefix+key.
func sliceRows[M any](prefix string, m map[string]M, row func(string, M)) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		row(prefix+k, m[k])
	}
}

// openEvalProject opens the index of project under a long-lived engine
// (an evaluation runs many queries: the vector cache is on), returns a
// searcher with the embedder it was indexed with and lists its indexed
// files; the caller calls release. set overrides the searcher's hybrid
// params (HybridParams.Set; already validated).
func openEvalProject(e *env, project, set string) (s *search.Searcher, p *engine.Project, release func(), indexed map[string]store.FileRecord, err error) {
	le := *e
	le.longLived = true
	p, release, err = openProject(&le, project)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	s, err = p.Searcher()
	if err != nil {
		release()
		return nil, nil, nil, nil, err
	}
	if set != "" {
		hp := s.HybridParams()
		_ = hp.Set(set)
		s.Params = &hp
	}
	indexed, err = p.Files(e.ctx)
	if err != nil {
		release()
		return nil, nil, nil, nil, err
	}
	return s, p, release, indexed, nil
}

// maxSetBytes bounds a query set file: the largest set here (the semble
// benchmark's biggest annotation file) is under 100 KB.
const maxSetBytes = 64 << 20

// readSetFile reads the query set file p: a regular file of at most
// maxSetBytes. Errors: the file cannot be opened, is not a regular file
// (/dev/zero, a FIFO, a directory), or is larger.
func readSetFile(p string) ([]byte, error) {
	// stat before open: opening a FIFO for reading blocks until a writer
	// comes, and a signal does not end the wait
	if fi, err := os.Stat(p); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("query set %s: not a regular file", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() { // swapped between the stat and the open
		return nil, fmt.Errorf("query set %s: not a regular file", p)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSetBytes+1))
	if err != nil {
		return nil, fmt.Errorf("query set %s: %w", p, err)
	}
	if len(data) > maxSetBytes {
		return nil, fmt.Errorf("query set %s: larger than %d MiB", p, maxSetBytes>>20)
	}
	return data, nil
}
