package search

import (
	"strings"
	"testing"
)

// a caller longer than ThinCodeLines lifts its callee only when the callee
// is WrapperRatio times as long
func TestDelegateLongerWrapperNeedsMuchLongerCallee(t *testing.T) {
	t.Parallel()
	lines := func(n int) string { return strings.Repeat("\tn++\n", n) }
	src := "package cache\n\n" +
		"// expireAll expires every stale entry of the cache table when the cache is cleaned.\n" +
		"func expireAll(t []int) {\n\tn := 0\n" + lines(8) + "\texpireOne(t, n)\n}\n\n" +
		"// expireOne clears one slot.\nfunc expireOne(t []int, i int) {\n\tn := 0\n" + lines(40) + "}\n"
	s := fixture(t, map[string]string{"cache/cache.go": src})
	const q = "expires every stale entry of the cache table when the cache is cleaned"
	hp := s.HybridParams()
	hp.ThinCodeLines = 8
	for _, c := range []struct {
		wrapper int
		ratio   float64
		lift    bool
	}{{0, 0, false}, {20, 3, true}, {20, 5, false}} {
		p := hp
		p.WrapperCodeLines, p.WrapperRatio = c.wrapper, c.ratio
		s.Params = &p
		rs := top(t, s, q, RankerHybrid, 5)
		lifted := false
		for _, r := range rs {
			if strings.HasPrefix(r.Name, "expireOne") && r.Explain.Signal("delegate") > 0 {
				lifted = true
			}
		}
		if lifted != c.lift {
			t.Errorf("WrapperCodeLines=%d WrapperRatio=%v: lifted %v, want %v (%v)", c.wrapper, c.ratio, lifted, c.lift, names(rs))
		}
	}
}

func TestIndentWidth(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]int{"func f() {}": 0, "\n\n    const m = (x) => {\n": 4, "\t\tdef g():": 2, "": 0} {
		if got := indentWidth(src); got != want {
			t.Errorf("indentWidth(%q) = %d, want %d", src, got, want)
		}
	}
}

// a closure nested in a longer caller (cut out of it by the chunker) is
// part of the caller's work: it is not lifted above it
func TestDelegateLongerWrapperSkipsNestedFunction(t *testing.T) {
	t.Parallel()
	lines := func(n int) string { return strings.Repeat("        n++\n", n) }
	src := "class Day {\n" +
		"  // render replaces every placeholder of the template with the day's value.\n" +
		"  render(tpl) {\n    let n = 0\n" + strings.Repeat("    n++\n", 8) +
		"    const fill = (m) => {\n" + lines(40) + "    }\n    return fill(tpl)\n  }\n}\n"
	s := fixture(t, map[string]string{"day.js": src})
	hp := s.HybridParams()
	hp.ThinCodeLines, hp.WrapperCodeLines, hp.WrapperRatio = 8, 20, 3
	s.Params = &hp
	rs := top(t, s, "render replaces every placeholder of the template with the day's value", RankerHybrid, 5)
	found := false
	for _, r := range rs {
		if strings.HasPrefix(r.Name, "fill") {
			found = true
			if r.Explain.Signal("delegate") > 0 {
				t.Errorf("nested fill lifted from %s", r.Explain.note("delegate"))
			}
		}
	}
	if !found {
		// the premise: the chunker cuts a nested arrow function out of its
		// method (JS/TS functions nested in functions are chunks)
		t.Fatalf("fill is not among the results (kept inside render?): %v", names(rs))
	}
}
