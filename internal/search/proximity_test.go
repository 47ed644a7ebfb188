package search

import (
	"math"
	"slices"
	"testing"
)

// queryPairs pairs neighbouring content words, not an identifier's own
// parts; stop words, numbers and single characters are skipped, and a
// comma or a Chinese run breaks the phrase.
func TestQueryPairs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		query string
		want  [][2]string
	}{
		{"strip hop-by-hop headers", [][2]string{{"strip", "hop"}, {"hop", "hop"}, {"hop", "header"}}},
		// ThreadLocal is one word: (thread, local) is no pair
		{"ThreadLocal expunge", [][2]string{{"local", "expung"}}},
		// ^1.2.3 and "a" carry no phrase; the comma breaks it
		{"turn a caret range like ^1.2.3 into comparators, quickly", [][2]string{{"turn", "caret"}, {"caret", "rang"}, {"rang", "like"}, {"like", "compar"}}},
		// a Han run breaks the phrase; a pair seen in either order counts once
		{"source map 的 map source", [][2]string{{"sourc", "map"}}},
		{"HashMap", nil},
	} {
		if got := queryPairs(c.query); !slices.Equal(got, c.want) {
			t.Errorf("queryPairs(%q) = %v, want %v", c.query, got, c.want)
		}
	}
}

// A pair counts when its terms stand within the window, in either order,
// and through a split identifier; the share is of the query's pairs.
func TestProximityShare(t *testing.T) {
	t.Parallel()
	px := newProximity(queryPairs("strip hop-by-hop headers"))
	for _, c := range []struct {
		text   string
		window int
		want   float64
	}{
		// removeHopByHopHeaders: hop, hop, header (by is a stop word)
		{"func removeHopByHopHeaders(h http.Header) {}", 1, 2.0 / 3},
		{"// strip the hop-by-hop headers\nfunc f() {}", 1, 1},
		// header ... hop, reversed and two terms apart
		{"headers of every hop", 1, 0},
		{"headers of every hop", 2, 1.0 / 3},
		{"nothing here", 2, 0},
	} {
		if got := px.share(c.text, c.window); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("share(%q, %d) = %v, want %v", c.text, c.window, got, c.want)
		}
	}
	if newProximity(queryPairs("HashMap")) != nil {
		t.Error("a query without pairs should give no scorer")
	}
}

// With Proximity on, the chunk that writes the question's phrase passes
// the one that only shares its words; at 0 (the default) nothing moves,
// and a symbol query is left to the name stages.
func TestProximityStage(t *testing.T) {
	t.Parallel()
	mk := func(hp HybridParams, q *Query) *pool {
		return &pool{hp: hp, q: q, topical: -1, res: []Result{
			{Path: "a.go", Name: "ReverseProxy", id: 1, Score: 0.0105, content: "// ReverseProxy forwards a request: its headers, then the connection of each hop", Explain: &Explain{}},
			{Path: "b.go", Name: "removeHopByHopHeaders", id: 2, Score: 0.010, content: "// removeHopByHopHeaders removes hop-by-hop headers.\nfunc removeHopByHopHeaders(h Header) {}", Explain: &Explain{}},
		}}
	}
	q := &Query{Text: "strip hop-by-hop headers before forwarding"}
	hp := DefaultHybridParams()
	if hp.Proximity != 0 {
		t.Fatalf("Proximity defaults to %v; the stage was measured and left off", hp.Proximity)
	}
	hp.Proximity = 0.15
	p := mk(hp, q)
	runStages(p, []stage{stageNamed(t, "proximity")})
	if p.res[0].Name != "removeHopByHopHeaders" {
		t.Fatalf("order %v, want removeHopByHopHeaders first", names(p.res))
	}
	// 2 of the query's 5 pairs (strip hop, hop hop, hop header, header
	// befor, befor forward): (hop, hop), (hop, header)
	if got, want := p.res[0].Explain.Signal("proximity"), 0.15*2/5/hp.FusionScale; math.Abs(got-want) > 1e-12 {
		t.Errorf("proximity signal %v, want %v", got, want)
	}
	if p.res[1].Explain.Signal("proximity") != 0 {
		t.Errorf("ReverseProxy has no pair within 2 terms, got %v", p.res[1].Explain.Signal("proximity"))
	}
	for _, off := range []*pool{mk(DefaultHybridParams(), q), mk(hp, &Query{Text: "removeHopByHopHeaders", Symbol: "removeHopByHopHeaders"})} {
		runStages(off, hybridStages)
		for _, r := range off.res {
			if r.Explain.Signal("proximity") != 0 {
				t.Errorf("%s: proximity %v with the stage off", r.Name, r.Explain.Signal("proximity"))
			}
		}
	}
}

// stageNamed returns the hybrid stage called name.
func stageNamed(t *testing.T, name string) stage {
	t.Helper()
	for _, st := range hybridStages {
		if st.name == name {
			return st
		}
	}
	t.Fatalf("no stage %q", name)
	return stage{}
}
