package search

import (
	"context"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed/static"
)

// TestAcronymsOf: with the built-in learned model, a run of words that an
// acronym of the code vocabulary abbreviates adds it (bfs, eof with its
// linking "of", lru, bom); chance initials the model does not confirm
// ("copy a pointer", where "a" also breaks the run; "parse every line"),
// a word the query has already, and a code query add nothing.
func TestAcronymsOf(t *testing.T) {
	m, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got := func(text string) []string {
		q := AnalyzeQuery(nil, text, DefaultHybridParams().QueryOptions)
		var out []string
		for _, x := range acronymsOf(ctx, m, q, DefaultHybridParams().AcronymMin) {
			out = append(out, x.Term+"<-"+x.From)
		}
		return out
	}
	for text, want := range map[string]string{
		"iterate the graph in breadth first search order":     "bfs<-breadth first search",
		"stop reading at the end of file":                     "eof<-end of file",
		"evict the least recently used entry":                 "lru<-least recently used",
		"skip the byte order mark at the start":               "bom<-byte order mark",
		"copy a pointer into the buffer and parse every line": "",
		"breadth first search over bfs nodes":                 "",
	} {
		if g := strings.Join(got(text), " "); g != want {
			t.Errorf("%q: acronyms %q, want %q", text, g, want)
		}
	}
	q := AnalyzeQuery(nil, "LRUCache get", DefaultHybridParams().QueryOptions)
	if !q.Code || acronymTerms(ctx, q, 0.18) != nil {
		t.Errorf("a code query gets acronyms")
	}
}

// TestAcronymFindsItsCode: "breadth first search" finds the type named
// BFSIterator, which no word of the question spells, and --explain names
// the acronym and the words it came from; off (AcronymMin 0), no chunk of
// it is found.
func TestAcronymFindsItsCode(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{
		"graph/bfs.go": "package graph\n\ntype BFSIterator struct {\n\tqueue []int\n\tseen  map[int]bool\n}\n\nfunc (it *BFSIterator) Next() int {\n\tv := it.queue[0]\n\tit.queue = it.queue[1:]\n\treturn v\n}\n",
		"graph/doc.go": "package graph\n\n// Walk visits the vertices. The first vertex is visited first; a search\n// may stop early. The breadth of the walk and the depth of the search\n// are bounded by the first limit given.\nfunc Walk(g []int, limit int) {\n\tfor range g {\n\t}\n}\n",
	})
	const q = "breadth first search"
	bfs := func(rs []Result) *Result {
		for i := range rs {
			if rs[i].Path == "graph/bfs.go" {
				return &rs[i]
			}
		}
		return nil
	}
	r := bfs(top(t, s, q, RankerHybrid, 5))
	if r == nil {
		t.Fatal("no chunk of BFSIterator found")
	}
	if !strings.Contains(r.Explain.FromModel, "bfs<-breadth first search") || !strings.Contains(explainLine(r.Explain), "from-model: bfs<-breadth first search") {
		t.Errorf("explain does not name the acronym: %+v", r.Explain)
	}
	hp := s.HybridParams()
	hp.AcronymMin = 0
	s.Params = &hp
	if rs := top(t, s, q, RankerHybrid, 5); bfs(rs) != nil {
		t.Errorf("fixture tests nothing: BFSIterator found without acronyms: %v", names(rs))
	}
}
