package search

import (
	"math"
	"strings"
	"testing"
)

// Every hybrid result's score is the sum of its signals, and the signals
// come in the declared stage order: --explain accounts for the whole score.
func TestScoreIsSumOfSignals(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{"io/io.go": ioFixture, "format/format.go": formatFixture, "shape/shape.go": shapeFixture})
	order := map[string]int{}
	for i, st := range hybridStages {
		if _, dup := order[st.name]; dup {
			t.Fatalf("stage %q declared twice", st.name)
		}
		order[st.name] = i
	}
	for _, q := range []string{"copy from a reader to a writer preferring WriterTo or ReaderFrom", "Copy", "compute the surface of any shape"} {
		rs := top(t, s, q, RankerHybrid, 10)
		if len(rs) == 0 {
			t.Fatalf("%q: no results", q)
		}
		for _, r := range rs {
			sum, last := 0.0, -1
			for _, sg := range r.Explain.Signals {
				sum += sg.Value
				i, ok := order[sg.Name]
				if !ok || i < last {
					t.Errorf("%q %s: signal %q undeclared or out of stage order: %+v", q, r.Name, sg.Name, r.Explain.Signals)
				}
				last = i
			}
			if math.Abs(sum-r.Score) > 1e-12 {
				t.Errorf("%q %s: score %v, signals sum to %v: %+v", q, r.Name, r.Score, sum, r.Explain.Signals)
			}
		}
	}
	// the delegation shows as a signal with the wrapper as its note, and
	// the human explain line prints it
	rs := top(t, s, "copy from a reader to a writer preferring WriterTo or ReaderFrom", RankerHybrid, 5)
	if line := explainLine(rs[0].Explain); !strings.Contains(line, "delegate=+") || !strings.Contains(line, "(Copy(") {
		t.Errorf("explain line lacks the delegation: %s", line)
	}
}

// A stage whose condition is off adds nothing, and runStages sorts the
// pool only where an ordered stage needs it and once at the end.
func TestRunStagesSortsForOrderedStages(t *testing.T) {
	t.Parallel()
	p := &pool{res: []Result{
		{Path: "a.go", Name: "a", Explain: &Explain{}},
		{Path: "b.go", Name: "b", Explain: &Explain{}},
	}}
	var seen []string
	stages := []stage{
		{name: "lift", run: func(p *pool) { p.add(1, "lift", 1, "") }},
		{name: "off", on: func(*pool) bool { return false }, run: func(p *pool) { p.add(0, "off", 5, "") }},
		{name: "first", ordered: true, run: func(p *pool) {
			seen = append(seen, p.res[0].Name)
			p.add(0, "first", 0.5, "")
		}},
	}
	runStages(p, stages)
	if len(seen) != 1 || seen[0] != "b" {
		t.Fatalf("the ordered stage saw %v first, want b (sorted after lift)", seen)
	}
	if p.res[0].Name != "b" || p.res[0].Score != 1.5 || p.res[1].Explain.Signal("off") != 0 {
		t.Errorf("pool after the stages: %+v", p.res)
	}
}

func TestParamsSet(t *testing.T) {
	t.Parallel()
	hp := DefaultHybridParams()
	if err := hp.Set("Semantic=0.3, Delegate=false,FTS.Body=0.5,Glossary=false,ExpandK=4"); err != nil {
		t.Fatal(err)
	}
	if hp.Semantic != 0.3 || hp.Delegate || hp.FTS.Body != 0.5 || hp.Glossary || hp.ExpandK != 4 {
		t.Errorf("not set: %+v", hp)
	}
	for _, bad := range []string{"Nope=1", "Semantic", "Semantic=x", "Delegate=2", "FTS=1", "Alpha.X=1"} {
		if err := hp.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
}

// The semantic stage adds the learned cosine, min-max normalised over the
// pool and weighed by Semantic, and shows the raw cosine; the expand
// stage adds the expansion route's BM25 and names the query word each
// expanded term came from. Both are off at weight 0.
func TestSemanticAndExpandStages(t *testing.T) {
	t.Parallel()
	mk := func(hp HybridParams) *pool {
		return &pool{hp: hp, q: &Query{}, topical: -1, res: []Result{
			{Path: "a.go", Name: "Remove", id: 1, content: "func Remove() { return del(x) }", Explain: &Explain{}},
			{Path: "b.go", Name: "Delete", id: 2, content: "func Delete() { delete(m, k) }", Explain: &Explain{}},
			{Path: "c.go", Name: "Other", id: 3, content: "func Other() {}", Explain: &Explain{}},
		},
			sem:        map[int64]float64{1: 0.2, 2: 0.6, 3: 0.4},
			exp:        map[int64]float64{2: 4},
			expansions: []expansion{{Term: "delet", From: "remov", Score: 0.7}},
		}
	}
	hp := DefaultHybridParams()
	hp.Semantic, hp.Expand = 0.5, 0.25
	p := mk(hp)
	runStages(p, hybridStages[:3]) // fusion, semantic, expand
	byName := map[string]*Explain{}
	for _, r := range p.res {
		byName[r.Name] = r.Explain
	}
	if got, want := byName["Delete"].Signal("semantic"), 0.5/hp.FusionScale; math.Abs(got-want) > 1e-12 {
		t.Errorf("Delete semantic = %v, want %v (the best cosine of the pool)", got, want)
	}
	if byName["Remove"].Signal("semantic") != 0 || byName["Delete"].Semantic != 0.6 {
		t.Errorf("Remove semantic %v (want 0, the pool's lowest), Delete cosine %v", byName["Remove"].Signal("semantic"), byName["Delete"].Semantic)
	}
	if got, want := byName["Delete"].Signal("expand"), 0.25/hp.FusionScale; math.Abs(got-want) > 1e-12 || byName["Delete"].note("expand") != "delet<-remov" {
		t.Errorf("Delete expand = %v %q, want %v \"delet<-remov\"", got, byName["Delete"].note("expand"), want)
	}
	if p.res[0].Name != "Delete" {
		t.Errorf("Delete should lead on the learned signals: %v", names(p.res))
	}
	off := mk(DefaultHybridParams())
	runStages(off, hybridStages[:3])
	for _, r := range off.res {
		if r.Explain.Signal("semantic") != 0 || r.Explain.Signal("expand") != 0 {
			t.Errorf("weight 0 still added a learned signal: %+v", r.Explain)
		}
	}
}

// TestSizedAlpha pins the vector share's sizing by chunk count: Alpha at
// AlphaRefChunks, a share falling with each tenfold of chunks, clamped to
// [AlphaMin, AlphaMax], and Alpha kept when sizing is off or the count is
// unknown.
func TestSizedAlpha(t *testing.T) {
	t.Parallel()
	hp := DefaultHybridParams()
	hp.Alpha = hp.LearnedAlpha
	if got := hp.SizedAlpha(hp.AlphaRefChunks); math.Abs(got-hp.Alpha) > 1e-12 {
		t.Fatalf("at AlphaRefChunks: %v, want Alpha %v", got, hp.Alpha)
	}
	want := hp.Alpha - hp.AlphaPerDecade // ten times the reference
	if got := hp.SizedAlpha(10 * hp.AlphaRefChunks); math.Abs(got-max(want, hp.AlphaMin)) > 1e-12 {
		t.Fatalf("at 10x: %v, want %v", got, max(want, hp.AlphaMin))
	}
	prev := math.Inf(1)
	for _, n := range []int{1, 100, 500, 3000, 6000, 20000, 70000, 116000, 1e7} {
		a := hp.SizedAlpha(n)
		if a > prev || a < hp.AlphaMin || a > hp.AlphaMax {
			t.Fatalf("SizedAlpha(%d) = %v: want non-increasing within [%v, %v] (previous %v)", n, a, hp.AlphaMin, hp.AlphaMax, prev)
		}
		prev = a
	}
	if hp.SizedAlpha(1) != hp.AlphaMax || hp.SizedAlpha(1e7) != hp.AlphaMin {
		t.Fatalf("clamps: %v %v, want %v %v", hp.SizedAlpha(1), hp.SizedAlpha(1e7), hp.AlphaMax, hp.AlphaMin)
	}
	off := hp
	off.AlphaPerDecade = 0
	if off.SizedAlpha(1e6) != hp.Alpha || hp.SizedAlpha(0) != hp.Alpha {
		t.Fatal("sizing off or an unknown count must keep Alpha")
	}
}

// SizedMaxSim keeps MaxSim up to AlphaRefChunks chunks, then falls by
// MaxSimPerDecade per tenfold, never below 0; sizing off keeps MaxSim.
func TestSizedMaxSim(t *testing.T) {
	t.Parallel()
	hp := DefaultHybridParams()
	if hp.MaxSim <= 0 || hp.MaxSimPerDecade <= 0 {
		t.Fatalf("defaults MaxSim %v per decade %v: the test proves nothing", hp.MaxSim, hp.MaxSimPerDecade)
	}
	if got := hp.SizedMaxSim(hp.AlphaRefChunks / 10); got != hp.MaxSim {
		t.Fatalf("below the reference: %v, want MaxSim %v", got, hp.MaxSim)
	}
	want := max(0, hp.MaxSim-hp.MaxSimPerDecade*0.5)
	if got := hp.SizedMaxSim(int(float64(hp.AlphaRefChunks) * math.Sqrt(10))); math.Abs(got-want) > 1e-4 {
		t.Fatalf("at sqrt(10)x the reference: %v, want %v", got, want)
	}
	if got := hp.SizedMaxSim(116851); got != 0 {
		t.Fatalf("GOROOT/src's 116,851 chunks: %v, want 0", got)
	}
	off := hp
	off.MaxSimPerDecade = 0
	if off.SizedMaxSim(1e7) != hp.MaxSim {
		t.Fatal("sizing off must keep MaxSim")
	}
}
