package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
)

// Golden is a golden query set (the format of shared/golden/README.md).
type Golden struct {
	Corpus   string        `json:"corpus"`
	RootHint string        `json:"root_hint"`
	Queries  []GoldenQuery `json:"queries"`
}

// GoldenQuery is one query with its acceptable answers (any one is a hit).
type GoldenQuery struct {
	ID     string   `json:"id"`
	Query  string   `json:"query"`
	Lang   string   `json:"lang"`
	Kind   string   `json:"kind"`
	Expect []Expect `json:"expect"`
	Note   string   `json:"note,omitempty"`
}

// Expect is one acceptable answer: a file and the declaration's line, and
// the symbol's bare name.
type Expect struct {
	File     string `json:"file"`
	Symbol   string `json:"symbol"`
	Receiver string `json:"receiver,omitempty"`
	Class    string `json:"class,omitempty"`
	Line     int    `json:"line"`
}

// LoadGolden reads a golden set from a JSON file.
func LoadGolden(p string) (*Golden, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var g Golden
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("query set %s: %w", p, jsonError(data, err))
	}
	if len(g.Queries) == 0 {
		return nil, fmt.Errorf("golden set %s: no queries", p)
	}
	for i, q := range g.Queries {
		name := q.ID
		if name == "" {
			name = q.Query
		}
		if strings.TrimSpace(q.Query) == "" || len(q.Expect) == 0 {
			return nil, fmt.Errorf("golden set %s: query %d (%q) needs a query and at least one expect entry", p, i+1, name)
		}
		for _, e := range q.Expect {
			if e.File == "" || (e.Line < 1 && e.Symbol == "") {
				return nil, fmt.Errorf("golden set %s: query %d (%q): every expect entry needs file and line or symbol", p, i+1, name)
			}
		}
	}
	return &g, nil
}

// jsonError puts the line and column of a JSON syntax error in data in
// front of its message ("line 3, column 14: invalid character ..."),
// which encoding/json gives as a byte offset only; other errors are
// returned as they are.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset < 0 || se.Offset > int64(len(data)) {
		return err
	}
	before := data[:se.Offset]
	line := 1 + bytes.Count(before, []byte("\n"))
	col := int(se.Offset) - (bytes.LastIndexByte(before, '\n') + 1)
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// IsHit applies the golden hit rule: same file (root-relative, '/') and the
// chunk's line range contains the expected line, or the chunk's name (its
// parameter list removed) ends with the symbol at an identifier boundary.
func IsHit(r Result, e Expect) bool {
	if path.Clean(r.Path) != path.Clean(e.File) {
		return false
	}
	if e.Line >= r.StartLine && e.Line <= r.EndLine {
		return true
	}
	return NameEndsWith(r.Name, e.Symbol)
}

// NameEndsWith reports whether a chunk name, without its parameter list,
// ends with symbol at an identifier boundary: "(*Server).Serve(l net.Listener)"
// and "Server.Serve(...)" end with "Serve"; "this" does not end with "is".
func NameEndsWith(name, symbol string) bool {
	if symbol == "" {
		return false
	}
	if i := strings.IndexByte(name, '('); i > 0 && !strings.HasPrefix(name, "(") {
		name = name[:i]
	} else if strings.HasPrefix(name, "(") {
		// Go receiver form "(*T).M(args)": cut at the '(' after the ')'
		if j := strings.Index(name, ")."); j >= 0 {
			if k := strings.IndexByte(name[j+2:], '('); k >= 0 {
				name = name[:j+2+k]
			}
		}
	}
	if !strings.HasSuffix(name, symbol) {
		return false
	}
	rest := name[:len(name)-len(symbol)]
	if rest == "" {
		return true
	}
	c := rest[len(rest)-1]
	return !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
}

// Metrics are retrieval-quality figures over a set of queries.
type Metrics struct {
	N         int     `json:"n"`
	RecallAt1 float64 `json:"recall_at_1"`
	RecallAt5 float64 `json:"recall_at_5"`
	MRRAt10   float64 `json:"mrr_at_10"`
}

// Miss describes a query whose answer was not ranked first.
type Miss struct {
	ID       string   `json:"id"`
	Query    string   `json:"query"`
	Rank     int      `json:"rank"` // 0 = not in the top 10
	Expected string   `json:"expected"`
	Top3     []string `json:"top3"`
}

// EvalReport is the outcome of an evaluation.
type EvalReport struct {
	Corpus  string             `json:"corpus"`
	Ranker  string             `json:"ranker"`
	Overall Metrics            `json:"overall"`
	ByKind  map[string]Metrics `json:"by_kind"`
	ByLang  map[string]Metrics `json:"by_lang"`
	Misses  []Miss             `json:"misses"`
	Ranks   map[string]int     `json:"ranks"`
}

// Evaluate runs every golden query with the ranker, asking for 10 results,
// and computes Recall@1, Recall@5 and MRR@10 overall, per kind and per lang.
func Evaluate(ctx context.Context, s *Searcher, g *Golden, ranker string) (*EvalReport, error) {
	rep := &EvalReport{Corpus: g.Corpus, Ranker: ranker, ByKind: map[string]Metrics{}, ByLang: map[string]Metrics{}, Ranks: map[string]int{}}
	type acc struct {
		n, r1, r5 int
		mrr       float64
	}
	all := &acc{}
	kinds, langs := map[string]*acc{}, map[string]*acc{}
	for _, q := range g.Queries {
		resp, err := s.Search(ctx, q.Query, Options{TopK: 10, Ranker: ranker})
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.ID, err)
		}
		rank := 0
		for i, r := range resp.Results {
			for _, e := range q.Expect {
				if IsHit(r, e) {
					rank = i + 1
					break
				}
			}
			if rank > 0 {
				break
			}
		}
		rep.Ranks[q.ID] = rank
		for _, a := range []*acc{all, getAcc(kinds, q.Kind), getAcc(langs, q.Lang)} {
			a.n++
			if rank == 1 {
				a.r1++
			}
			if rank >= 1 && rank <= 5 {
				a.r5++
			}
			if rank >= 1 {
				a.mrr += 1 / float64(rank)
			}
		}
		if rank != 1 {
			m := Miss{ID: q.ID, Query: q.Query, Rank: rank}
			if len(q.Expect) > 0 {
				x := q.Expect[0]
				m.Expected = strings.TrimSpace(x.File + " " + x.Symbol) // no line given: the symbol decides
				if x.Line > 0 {
					m.Expected = fmt.Sprintf("%s:%d %s", x.File, x.Line, x.Symbol)
				}
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
	conv := func(a *acc) Metrics {
		if a.n == 0 {
			return Metrics{}
		}
		n := float64(a.n)
		return Metrics{N: a.n, RecallAt1: float64(a.r1) / n, RecallAt5: float64(a.r5) / n, MRRAt10: a.mrr / n}
	}
	rep.Overall = conv(all)
	for k, a := range kinds {
		rep.ByKind[k] = conv(a)
	}
	for k, a := range langs {
		rep.ByLang[k] = conv(a)
	}
	sort.Slice(rep.Misses, func(i, j int) bool { return rep.Misses[i].ID < rep.Misses[j].ID })
	return rep, nil
}

func getAcc[T any](m map[string]*T, k string) *T {
	if m[k] == nil {
		m[k] = new(T)
	}
	return m[k]
}
