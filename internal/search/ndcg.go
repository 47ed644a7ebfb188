package search

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
)

// This file scores file-labelled query sets the way the semble benchmark
// does (MinishLab/semble, benchmarks/metrics.py and data.py; the dev subset
// and its reference scorer are in shared/bench/semble): binary gains,
// NDCG@10 at chunk level and at file level, means per category.

// BenchQuery is one query of a file-labelled set (the semble annotation
// format): a JSON array of {"query", "relevant", "secondary", "category"},
// where relevant and secondary list files (a path string, or an object
// {"path", "start_line", "end_line"} for a line span). Both lists gain 1.
type BenchQuery struct {
	Query     string        `json:"query"`
	Relevant  []BenchTarget `json:"relevant"`
	Secondary []BenchTarget `json:"secondary"`
	Category  string        `json:"category"`
}

// Targets returns the relevant targets, then the secondary ones.
func (q BenchQuery) Targets() []BenchTarget {
	return append(append([]BenchTarget{}, q.Relevant...), q.Secondary...)
}

// BenchTarget is one labelled file, optionally narrowed to a 1-based,
// inclusive line span (StartLine = 0 means the whole file).
type BenchTarget struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
}

// UnmarshalJSON accepts a bare path string or a {"path", "start_line",
// "end_line"} object.
func (t *BenchTarget) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &t.Path)
	}
	type plain BenchTarget
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*t = BenchTarget(p)
	return nil
}

// IsBenchSet reports whether data looks like a file-labelled set (a JSON
// array) rather than a golden set (a JSON object).
func IsBenchSet(data []byte) bool {
	return len(bytes.TrimSpace(data)) > 0 && bytes.TrimSpace(data)[0] == '['
}

// LoadBenchSet reads a file-labelled query set. A query without a category
// gets the benchmark's fallback: one word is "symbol", a query starting with
// "how " is "architecture", the rest "semantic". Errors: unreadable file,
// bad JSON, no queries, a query without text or targets.
func LoadBenchSet(p string) ([]BenchQuery, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var qs []BenchQuery
	if err := json.Unmarshal(data, &qs); err != nil {
		return nil, fmt.Errorf("query set %s: %w", p, jsonError(data, err))
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("query set %s: no queries", p)
	}
	for i := range qs {
		q := &qs[i]
		if strings.TrimSpace(q.Query) == "" || len(q.Relevant)+len(q.Secondary) == 0 {
			return nil, fmt.Errorf("query set %s: query %d needs a query and at least one relevant or secondary file", p, i+1)
		}
		if q.Category == "" {
			switch {
			case !strings.Contains(strings.TrimSpace(q.Query), " "):
				q.Category = "symbol"
			case strings.HasPrefix(strings.ToLower(q.Query), "how "):
				q.Category = "architecture"
			default:
				q.Category = "semantic"
			}
		}
	}
	return qs, nil
}

// PathMatches is the benchmark's file match: equal, or one path ends with
// "/" + the other (result paths are root-relative, labels repo-relative).
func PathMatches(file, target string) bool {
	f := strings.ReplaceAll(file, `\`, "/")
	t := strings.ReplaceAll(target, `\`, "/")
	return f == t || strings.HasSuffix(f, "/"+t) || strings.HasSuffix(t, "/"+f)
}

// NDCGAt10 is NDCG@10 with binary gains: ranks are the 1-based positions at
// which targets were found (0 = not found; a position counted once), and the
// ideal DCG is that of min(10, nTargets) hits at the top.
func NDCGAt10(ranks []int, nTargets int) float64 {
	if nTargets == 0 {
		return 0
	}
	var rel [10]bool
	for _, r := range ranks {
		if r >= 1 && r <= 10 {
			rel[r-1] = true
		}
	}
	dcg, idcg := 0.0, 0.0
	for i := range 10 {
		if rel[i] {
			dcg += 1 / math.Log2(float64(i+2))
		}
		if i < min(10, nTargets) {
			idcg += 1 / math.Log2(float64(i+2))
		}
	}
	return dcg / idcg
}

// BenchRanks returns, for each target of q, its rank at chunk level (first
// result whose file matches and whose lines overlap the target's span) and
// at file level (position among distinct result files, in order of first
// appearance); 0 = not in the results.
func BenchRanks(results []Result, q BenchQuery) (chunk, file []int) {
	var files []string
	seen := map[string]bool{}
	for _, r := range results {
		if !seen[r.Path] {
			seen[r.Path] = true
			files = append(files, r.Path)
		}
	}
	for _, t := range q.Targets() {
		c := 0
		for i, r := range results {
			if PathMatches(r.Path, t.Path) && (t.StartLine == 0 || t.EndLine == 0 || !(r.EndLine < t.StartLine || r.StartLine > t.EndLine)) {
				c = i + 1
				break
			}
		}
		f := 0
		for i, p := range files {
			if PathMatches(p, t.Path) {
				f = i + 1
				break
			}
		}
		chunk, file = append(chunk, c), append(file, f)
	}
	return chunk, file
}

// NDCGMetrics are mean NDCG@10 figures over N queries.
type NDCGMetrics struct {
	N     int     `json:"n"`
	Chunk float64 `json:"ndcg10_chunk"`
	File  float64 `json:"ndcg10_file"`
}

// BenchMiss is a query whose chunk-level NDCG@10 is below 1.
type BenchMiss struct {
	Query    string   `json:"query"`
	Category string   `json:"category"`
	NDCG     float64  `json:"ndcg10_chunk"`
	Ranks    []int    `json:"ranks"` // chunk-level rank of each target (0 = not in the top 10)
	Targets  []string `json:"targets"`
	Top3     []string `json:"top3"`
}

// BenchReport is the outcome of a file-labelled evaluation. Language is the
// language of the query's first target file as the index knows it.
type BenchReport struct {
	Ranker     string                 `json:"ranker"`
	Overall    NDCGMetrics            `json:"overall"`
	ByCategory map[string]NDCGMetrics `json:"by_category"`
	ByLang     map[string]NDCGMetrics `json:"by_lang"`
	Misses     []BenchMiss            `json:"misses"`
}

// EvaluateBench runs every query with the ranker, asking for 10 results, and
// computes chunk- and file-level NDCG@10 overall, per category and per
// language. It asks for MaxTopK results, as the benchmark's runner does:
// chunk level scores the first 10, file level the first 10 distinct files
// among all of them. langOf maps a root-relative path to its language ("" if
// unknown); it may be nil.
func EvaluateBench(ctx context.Context, s *Searcher, qs []BenchQuery, ranker string, langOf func(string) string) (*BenchReport, error) {
	rep := &BenchReport{Ranker: ranker, ByCategory: map[string]NDCGMetrics{}, ByLang: map[string]NDCGMetrics{}}
	add := func(m map[string]NDCGMetrics, k string, c, f float64) {
		x := m[k]
		x.N++
		x.Chunk += c
		x.File += f
		m[k] = x
	}
	var all NDCGMetrics
	for _, q := range qs {
		resp, err := s.Search(ctx, q.Query, Options{TopK: MaxTopK, Ranker: ranker})
		if err != nil {
			return nil, fmt.Errorf("query %q: %w", q.Query, err)
		}
		n := len(q.Relevant) + len(q.Secondary)
		cr, _ := BenchRanks(resp.Results[:min(10, len(resp.Results))], q)
		_, fr := BenchRanks(resp.Results, q)
		c, f := NDCGAt10(cr, n), NDCGAt10(fr, n)
		all.N++
		all.Chunk += c
		all.File += f
		add(rep.ByCategory, q.Category, c, f)
		lg := ""
		if langOf != nil {
			for _, t := range q.Targets() {
				if lg = langOf(t.Path); lg != "" {
					break
				}
			}
		}
		if lg == "" {
			lg = "unknown"
		}
		add(rep.ByLang, lg, c, f)
		if c < 1 {
			m := BenchMiss{Query: q.Query, Category: q.Category, NDCG: c, Ranks: cr}
			for _, t := range q.Targets() {
				m.Targets = append(m.Targets, t.Path)
			}
			for i, r := range resp.Results {
				if i == 3 {
					break
				}
				m.Top3 = append(m.Top3, fmt.Sprintf("%s:%d %s", r.Path, r.StartLine, r.Name))
			}
			rep.Misses = append(rep.Misses, m)
		}
	}
	mean := func(m NDCGMetrics) NDCGMetrics {
		if m.N > 0 {
			m.Chunk /= float64(m.N)
			m.File /= float64(m.N)
		}
		return m
	}
	rep.Overall = mean(all)
	for k, v := range rep.ByCategory {
		rep.ByCategory[k] = mean(v)
	}
	for k, v := range rep.ByLang {
		rep.ByLang[k] = mean(v)
	}
	sort.SliceStable(rep.Misses, func(i, j int) bool { return rep.Misses[i].NDCG < rep.Misses[j].NDCG })
	return rep, nil
}
