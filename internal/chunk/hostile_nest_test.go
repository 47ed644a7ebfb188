package chunk

import (
	"math/rand"
	"strings"
	"testing"
)

// Definitions nested deeper than maxDefNesting are their enclosers' text:
// a hostile file of thousands of nested classes made names of quadratic
// size (A.A.A...) and an index run died out of memory. Names stay
// bounded by the nesting limit, in the tree-sitter languages and the
// scanned ones alike.
func TestDeepNestingIsBounded(t *testing.T) {
	t.Parallel()
	const depth = 300
	for name, src := range map[string]string{
		"a.swift": strings.Repeat("class A {\n", depth) + strings.Repeat("}\n", depth),
		"a.ex":    strings.Repeat("defmodule A do\n", depth) + "x\n" + strings.Repeat("end\n", depth),
		"A.java":  strings.Repeat("class A {\n", depth) + strings.Repeat("}\n", depth),
		"a.zig":   strings.Repeat("const A = struct {\n", depth) + strings.Repeat("};\n", depth),
	} {
		res, err := Parse(name, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		longest := 0
		for _, c := range res.Chunks {
			longest = max(longest, len(c.Name))
		}
		// "A.A.A..." of maxDefNesting (24) levels at most
		if longest > 50 {
			t.Errorf("%s: a chunk name of %d bytes, want at most 50 (the nesting limit)", name, longest)
		}
		if len(res.Chunks) == 0 {
			t.Errorf("%s: no chunks", name)
		}
	}
}

// bracketTable gives every bracket the match matchClose finds, unclosed
// ones included, on random bracket soup and on code.
func TestBracketTableEqualsMatchClose(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(33))
	inputs := []string{"func f() {\n  g(a[1], {b})\n}\n{ ( [ unclosed", "}}]) ((( )"}
	for range 200 {
		var b strings.Builder
		for range rng.Intn(200) {
			b.WriteByte("()[]{}ab \n"[rng.Intn(10)])
		}
		inputs = append(inputs, b.String())
	}
	for _, in := range inputs {
		code := []byte(in)
		s := &scan{code: code}
		for i, c := range code {
			if c != '(' && c != '[' && c != '{' {
				continue
			}
			if got, want := s.matchClose(i), matchClose(code, i); got != want {
				t.Fatalf("%q at %d: table %d, scan %d", in, i, got, want)
			}
		}
	}
}
