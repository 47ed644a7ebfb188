package cli

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/relate"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/zh"
)

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func init() {
	register(command{name: "search", summary: "hybrid search of the index: coderag search \"where is the login timeout handled\"", run: runSearch})
}

func runSearch(e *env, args []string) (err error) {
	fs := newFlags(e, "search", "[flags] QUERY",
		`Search the project's index with a natural-language or identifier query, in English or
Chinese. Results: rank, score, path:start-end, chunk type, name and a preview.
For exact names and strings, 'coderag grep' is faster and complete. A query whose words are all
stop words ("the") or that has no word at all ("???") is answered with a note saying so (the
latter with no results); the exit status is 0 whenever the search ran.
Filters inside the query, as in zoekt: lang:go, file:*_test.go or path:src/** (a glob, or
file:/regex/), -file:vendor/** to exclude, sym:Name for definitions only, case:yes for a
case-sensitive match of the words, repo:NAME or project:NAME with --all or several --project.
A misspelt filter (lnag:go) or a query of filters only is an error (exit status 2).`)
	topK := fs.Int("top-k", config.TopK.Default, config.TopK.Usage())
	asJSON := fs.Bool("json", false, `print results as JSON; an error as {"error": MSG}`)
	defer func() { err = e.jsonError(*asJSON, err) }()
	var projects stringList
	fs.Var(&projects, "project", "project directory (or any directory inside it); repeat it to search several projects at once, results merged by relevance (fairness breaking ties) and each naming its project (default .)")
	all := fs.Bool("all", false, "search every indexed project, results merged by relevance (fairness breaking ties) and each naming its project")
	ranker := fs.String("ranker", search.DefaultRanker, "ranker: hybrid (BM25 fused with cosine, name/type boosts, wrapper delegation) or seed (the seed's formula)")
	explain := fs.Bool("explain", false, "print each result's score breakdown")
	forTool := fs.Bool("tool-format", false, "print the summary format given to agents")
	expand := fs.Bool("expand", false, "attach each result's callers and callees from the relation graph")
	pos, err := parseQuery(fs, args)
	if err != nil {
		return err
	}
	if *ranker != search.RankerHybrid && *ranker != search.RankerSeed {
		return usagef("unknown --ranker %q (want hybrid or seed)", *ranker)
	}
	query := strings.TrimSpace(strings.Join(pos, " "))
	switch {
	case query == "" && len(pos) > 0:
		return usagef("the query is empty (coderag search \"how are retries scheduled\")")
	case query == "":
		return usagef("missing QUERY (coderag search \"how are retries scheduled\")")
	}
	// the filters inside the query (lang:go, file:*_test.go, ...) are
	// checked before any index is opened: a bad one is bad usage
	if _, _, err := search.ParseQuery(query); err != nil {
		return usagef("%v", err)
	}
	if *asJSON && *forTool {
		return usagef("--json and --tool-format are two output formats: pick one")
	}
	if err := envError(e.cfgErr, config.EnvQueryTimeout); err != nil {
		// the search's own variable: not replaced by its default silently
		return usageError{err.Error()}
	}
	if err := config.TopK.Check(*topK); err != nil {
		return usagef("--top-k %v", err)
	}
	if e.shared == nil && !e.longLived {
		oneShotGC()
	}
	if *all && len(projects) > 0 {
		return usagef("--all and --project: pick one")
	}
	if *all || len(projects) > 1 {
		if *expand || *forTool {
			return usagef("--expand and --tool-format take one project; drop them, or give one --project")
		}
		return searchMany(e, projects, *all, query, search.Options{TopK: *topK, Ranker: *ranker, Explain: *explain}, *asJSON)
	}
	project := "."
	if len(projects) == 1 {
		project = projects[0]
	}
	p, release, err := openProjectQuiet(e, project)
	if err != nil {
		return err
	}
	defer release()
	opts := search.Options{TopK: *topK, Ranker: *ranker, Explain: *explain}
	resp, err := p.Search(e.ctx, query, opts)
	fresh, ferr := p.Freshness()
	if ferr == nil && fresh != nil {
		noteOlder(e, p.Root, func() int { return fresh.Older })
		if n := freshNote(fresh, p.Root); n != "" {
			fmt.Fprintln(e.stderr, n)
		}
	}
	if errors.Is(err, search.ErrBadQuery) {
		// a filter that names no project searched (repo:zzz) is bad
		// input, as every other filter error is
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	noteGlossaryOnly(e, query)
	if *expand && len(resp.Results) > 0 {
		err := p.Graph(e.ctx, func(res *relate.Resolver) error {
			for i := range resp.Results {
				r := &resp.Results[i]
				if r.Type == chunk.KindText {
					continue
				}
				callers, callees, err := res.Neighbors(r.Name, r.Path, r.StartLine)
				if err != nil {
					continue // a class or an unresolvable name: nothing to attach
				}
				r.Callers, r.Callees = nonNil(callers), nonNil(callees)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("expand: %w", err)
		}
	}
	switch {
	case *asJSON:
		out := searchJSON{Root: p.Root, Response: resp}
		if fresh != nil {
			out.Refreshed = fresh.Refreshed
			if fresh.Pending != nil {
				out.Changed = fresh.Pending.Len()
				out.NotRefreshed = fresh.Why
			}
		}
		return writeJSON(e.stdout, out)
	case *forTool:
		fmt.Fprint(e.stdout, search.FormatForTool(resp))
	default:
		if *explain {
			explainChinese(e, resp.Analysis)
		}
		search.FormatHuman(e.stdout, resp, search.HumanOptions{Explain: *explain, Color: e.color(), REPL: e.repl})
	}
	return nil
}

// searchJSON is `search --json`: the response with the project root every
// result path is relative to, and what the freshness check found (each
// result from a changed file has "stale": true).
type searchJSON struct {
	Root string `json:"root"`
	*search.Response
	// Refreshed counts files re-indexed before answering; Changed counts
	// files changed since the last index and left as they were.
	Refreshed int `json:"refreshed,omitempty"`
	Changed   int `json:"changed_since_index,omitempty"`
	// NotRefreshed says why those files were not refreshed (engine.
	// Freshness.Why: too many, the refresh failed and on which file, ...).
	NotRefreshed string `json:"not_refreshed,omitempty"`
}

// glossaryNoted is set once this process has printed the glossary-only
// note (once is enough in the REPL).
var glossaryNoted atomic.Bool

// noteGlossaryOnly prints on stderr, once per process, a one-line note
// when query has Chinese characters and they were translated by the
// built-in glossary alone because the dictionary is missing or unreadable
// (analyze.Analyzer.Note). Standard output, --json included, is left as
// it is.
func noteGlossaryOnly(e *env, query string) {
	if (!e.perRun && glossaryNoted.Load()) || !strings.ContainsFunc(query, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
		return
	}
	if n := e.an.Note(); n != "" && (e.perRun || !glossaryNoted.Swap(true)) {
		fmt.Fprintln(e.stderr, "note: "+n)
	}
}

// explainChinese prints, for a query with Chinese words, what translates
// them and each word's English terms with their source.
func explainChinese(e *env, q *search.Query) {
	if q == nil || len(q.Chinese) == 0 {
		return
	}
	ws := q.Chinese
	fmt.Fprintf(e.stdout, "chinese: %s\n", e.an.Status())
	fmt.Fprintf(e.stdout, "  words: %s\n", zh.Format(ws))
}

// oneShotGC lets the garbage collector run less often in a process that
// answers one query and exits: a cold search allocates a few tens of MB
// (analysis, candidates, vectors), and at the default GOGC=100 it pays for
// several collections of memory the exit frees anyway. 400 cuts about a
// tenth of a cold search's wall time (bench/cold_search.sh) for a peak heap
// that stays in the tens of MB. A GOGC the user set is kept.
func oneShotGC() {
	if prev := debug.SetGCPercent(400); prev != 100 {
		debug.SetGCPercent(prev)
	}
}

// color reports whether the human output may colour matched terms: only
// when standard output is a terminal (never a pipe or a file) and NO_COLOR
// is not set.
func (e *env) color() bool {
	if e.colorSet != nil {
		return *e.colorSet
	}
	return isTerminal(e.rawStdout()) && !e.cfg.NoColor
}
