package search

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/store"
)

var learnedFixture = map[string]string{
	"files/files.go": "package files\n\n// RemoveAll removes the path and everything below it.\nfunc RemoveAll(p string) error {\n\treturn nil\n}\n",
	"table/table.go": "package table\n\n// Drop deletes the row from the table.\nfunc Drop(row int) {\n\trows[row] = nil\n}\n",
	"log/log.go":     "package log\n\n// Printf writes a formatted line to the log.\nfunc Printf(format string, args ...any) {}\n",
}

// With Expand on, a query word's learned neighbours join the keyword
// route: "remove" brings "delete" (among its 8 nearest words in the
// built-in model; v3 puts del, rm and unset first), which finds the chunk that only says
// "deletes", and --explain names the word it came from. Off, the
// keyword route never sees that chunk.
func TestExpansionSurfacesNeighbourWord(t *testing.T) {
	t.Parallel()
	s := fixture(t, learnedFixture)
	const q = "remove entries"
	for _, r := range top(t, s, q, RankerHybrid, 10) {
		if r.Path == "table/table.go" {
			t.Fatalf("fixture no longer tests anything: table.go found without expansion: %+v", r.Explain)
		}
	}
	hp := s.HybridParams()
	hp.Expand, hp.ExpandMin, hp.ExpandK = 0.3, 0.3, 8
	s.Params = &hp
	var hit *Result
	rs := top(t, s, q, RankerHybrid, 10)
	for i := range rs {
		if rs[i].Path == "table/table.go" {
			hit = &rs[i]
		}
	}
	if hit == nil {
		t.Fatalf("expansion did not surface table.go: %v", names(rs))
	}
	if hit.Explain.Signal("expand") <= 0 || !strings.Contains(hit.Explain.note("expand"), "delet<-remov") {
		t.Errorf("explain lacks the expanded term and its source: %+v", hit.Explain.Signals)
	}
}

// learnedProject indexes learnedFixture with the built-in learned model
// into a fresh store and returns the store and a Searcher over it.
func learnedProject(t *testing.T) (*store.Store, *Searcher) {
	t.Helper()
	m, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	st, _ := testStore(t)
	return st, indexInto(t, st, m, learnedFixture)
}

// The semantic stage reads the learned cosine from the stored vectors when
// the project was indexed with the learned model, and embeds the
// candidates at query time when it was indexed with the hashing embedder:
// both give the same cosine, and the signal is on only with Semantic > 0.
func TestSemanticStageStoredAndLive(t *testing.T) {
	t.Parallel()
	_, learned := learnedProject(t)
	hashing := fixture(t, learnedFixture)
	const q = "delete a row from the table"
	cos := map[string]map[string]float64{}
	for name, s := range map[string]*Searcher{"learned": learned, "hashing": hashing} {
		if rs := top(t, s, q, RankerHybrid, 5); len(rs) > 0 && rs[0].Explain.Signal("semantic") != 0 {
			t.Fatalf("%s: semantic signal with weight 0", name)
		}
		hp := s.HybridParams()
		hp.Semantic = 0.5
		s.Params = &hp
		cos[name] = map[string]float64{}
		for _, r := range top(t, s, q, RankerHybrid, 5) {
			cos[name][r.Path] = r.Explain.Semantic
			sum := 0.0
			for _, sg := range r.Explain.Signals {
				sum += sg.Value
			}
			if math.Abs(sum-r.Score) > 1e-12 {
				t.Errorf("%s %s: signals %v do not sum to the score %v", name, r.Path, r.Explain.Signals, r.Score)
			}
		}
	}
	// the stored vectors are int8 codes (store/vector.go): their cosine
	// is the float32 one within about 1e-3
	c := cos["learned"]["table/table.go"]
	if c == 0 || math.Abs(c-cos["hashing"]["table/table.go"]) > 2e-3 {
		t.Errorf("table.go's learned cosine: stored %v, live %v (%v)", c, cos["hashing"]["table/table.go"], cos)
	}
}

// --explain prints the learned cosine and the expanded term's source.
func TestExplainLineShowsLearnedEvidence(t *testing.T) {
	t.Parallel()
	e := &Explain{Keyword: 1, KeywordRank: 1, Semantic: 0.742, Signals: []Signal{{Name: "expand", Value: 0.001, Note: "delet<-remov"}}}
	line := explainLine(e)
	for _, want := range []string{"learned-cosine=0.742", "expand=+0.0010 (delet<-remov)"} {
		if !strings.Contains(line, want) {
			t.Errorf("explain line %q lacks %q", line, want)
		}
	}
}

// A project indexed with the learned model has its vector share sized by
// the chunk count its last index run recorded: the fusion signal carries
// the share and the count. A hashed project (a re-rank, no candidates of its own)
// keeps Alpha and says nothing.
func TestVectorShareSizedByChunkCount(t *testing.T) {
	t.Parallel()
	st, learned := learnedProject(t)
	run, ok, err := st.LastRun(context.Background(), learned.Project)
	cnt, cerr := st.Count(context.Background(), learned.Project)
	if err != nil || cerr != nil || !ok || run.Chunks == 0 || run.Chunks != cnt.Chunks {
		t.Fatalf("run record %+v (%v %v), count %+v: want the chunk count", run, ok, err, cnt)
	}
	hp := learned.HybridParams()
	share := hp.SizedAlpha(run.Chunks)
	if share == hp.Alpha {
		t.Fatalf("fixture of %d chunks: sized share %v equals Alpha; the test proves nothing", run.Chunks, share)
	}
	want := fmt.Sprintf("vector share %.2f for %d chunks", share, run.Chunks)
	rs := top(t, learned, "delete a row from the table", RankerHybrid, 5)
	if len(rs) == 0 {
		t.Fatal("no results")
	}
	for _, r := range rs {
		if r.Explain.Signal("fusion") == 0 { // the pool's lowest cosine and no keyword hit: no signal
			continue
		}
		if note := r.Explain.note("fusion"); note != want {
			t.Errorf("%s: fusion note %q, want %q", r.Path, note, want)
		}
	}
	hashing := fixture(t, learnedFixture)
	for _, r := range top(t, hashing, "delete a row from the table", RankerHybrid, 5) {
		if note := r.Explain.note("fusion"); note != "" {
			t.Errorf("hashed project %s: fusion note %q, want none", r.Path, note)
		}
	}
}

// A project at the sized share's floor (here by a reference count that
// puts the fixture there) scores only the keyword route's candidates by
// cosine: no candidate comes from the vector route alone, and the fusion
// note says so. The same project with RerankAtFloor off scans every
// vector and does bring such a candidate, so the check can fail.
func TestVectorRouteRerankAtFloor(t *testing.T) {
	t.Parallel()
	st, learned := learnedProject(t)
	run, ok, err := st.LastRun(context.Background(), learned.Project)
	if err != nil || !ok || run.Chunks < 2 {
		t.Fatalf("run record %+v (%v %v): want a chunk count of 2 or more", run, ok, err)
	}
	const q = "delete a row from the table"
	pool := func(atFloor bool) []Result {
		hp := learned.HybridParams()
		// a steep share: the fixture's few chunks are past the floor
		hp.AlphaRefChunks, hp.AlphaPerDecade = 1, 10
		if hp.SizedAlpha(run.Chunks) != hp.AlphaMin {
			t.Fatalf("sized share %v for %d chunks: want the floor %v", hp.SizedAlpha(run.Chunks), run.Chunks, hp.AlphaMin)
		}
		hp.RerankAtFloor = atFloor
		s := *learned
		s.Params = &hp
		return top(t, &s, q, RankerHybrid, 50)
	}
	vectorOnly := func(rs []Result) int {
		n := 0
		for _, r := range rs {
			if r.Explain.VectorRank > 0 && r.Explain.KeywordRank == 0 {
				n++
			}
		}
		return n
	}
	scan := pool(false)
	if vectorOnly(scan) == 0 {
		t.Fatalf("full scan brought no vector-only candidate among %d results: the test proves nothing", len(scan))
	}
	rr := pool(true)
	if len(rr) == 0 {
		t.Fatal("no results at the floor")
	}
	if n := vectorOnly(rr); n != 0 {
		t.Errorf("at the floor %d results came from the vector route alone; want the keyword candidates only", n)
	}
	noted := false
	for _, r := range rr {
		if strings.Contains(r.Explain.note("fusion"), "at its floor") {
			noted = true
		}
	}
	if !noted {
		t.Errorf("no fusion note names the floor: %q", rr[0].Explain.note("fusion"))
	}
}

// The late-interaction stage is on by default for a project indexed with
// the built-in model: a descriptive query's best candidates carry a
// maxsim signal, and their signals still sum to their scores. It is off
// for the hashing index (the lexical arm stays lexical) and for a
// project whose chunk count sizes its weight to 0.
func TestMaxSimStage(t *testing.T) {
	t.Parallel()
	_, learned := learnedProject(t)
	const q = "remove a row from the table"
	rs := top(t, learned, q, RankerHybrid, 5)
	seen := 0
	for _, r := range rs {
		if r.Explain.Signal("maxsim") != 0 {
			seen++
		}
		sum := 0.0
		for _, sg := range r.Explain.Signals {
			sum += sg.Value
		}
		if math.Abs(sum-r.Score) > 1e-12 {
			t.Errorf("%s: signals %v do not sum to the score %v", r.Path, r.Explain.Signals, r.Score)
		}
	}
	if seen == 0 {
		t.Fatalf("no maxsim signal on a learned project: %+v", rs)
	}
	// the chunk that says "deletes" gets the full signal: the pool's best
	// late-interaction score ("remove" meets "delet")
	if len(rs) == 0 || rs[0].Path != "table/table.go" || rs[0].Explain.Signal("maxsim") < learned.HybridParams().MaxSim/learned.HybridParams().FusionScale-1e-12 {
		t.Errorf("want table/table.go first with the full maxsim signal, got %+v", rs)
	}
	if hp := fixture(t, learnedFixture).HybridParams(); hp.MaxSim != 0 {
		t.Errorf("hashing index: MaxSim %v, want 0", hp.MaxSim)
	}
	for _, r := range top(t, fixture(t, learnedFixture), q, RankerHybrid, 5) {
		if r.Explain.Signal("maxsim") != 0 {
			t.Errorf("hashing index %s: maxsim signal %v", r.Path, r.Explain.Signal("maxsim"))
		}
	}
	hp := learned.HybridParams()
	// the fixture's 3 chunks are half a decade above a reference of 1:
	// at 1 per decade the weight is sized to 0
	hp.AlphaRefChunks, hp.MaxSimPerDecade = 1, 1
	if hp.SizedMaxSim(3) != 0 {
		t.Fatalf("SizedMaxSim(3) = %v: the check below proves nothing", hp.SizedMaxSim(3))
	}
	learned.Params = &hp
	for _, r := range top(t, learned, q, RankerHybrid, 5) {
		if r.Explain.Signal("maxsim") != 0 {
			t.Errorf("weight sized to 0: %s has maxsim %v", r.Path, r.Explain.Signal("maxsim"))
		}
	}
}
