package chunk

import (
	"fmt"
	"testing"

	"github.com/coderag/coderag/internal/lang"
)

// TestRubyCallReceivers: a Ruby call on a value other than self is marked
// lang.CallValue (its method is found by name only, a guess), a call on
// self or with no receiver is the enclosing class's own, and a call on a
// constant names the class: Foo.new makes a Foo, A::Foo.bar calls Foo.bar.
// Before, every x.m was recorded as a bare call of m, so @queue.pop read as
// an exact call of the project's own pop.
func TestRubyCallReceivers(t *testing.T) {
	t.Parallel()
	src := []byte(`module RGL
  class EdmondsKarpAlgorithm
    def maximum_flow(source, sink)
      @queue.pop
      helper(source)
      self.helper(sink)
      Other::Thing.build(1)
      RGL::Graph.new
      require_relative "x"
    end

    def helper(x)
      x
    end
  end

  module Graph
    def maximum_flow(map, source, sink)
      EdmondsKarpAlgorithm.new(self, map).maximum_flow(source, sink)
    end
  end
end
`)
	res, err := Parse("lib/flow.rb", src)
	if err != nil {
		t.Fatal(err)
	}
	form := map[lang.CallForm]string{lang.CallBare: "bare", lang.CallSelf: "self", lang.CallValue: "value", lang.CallPlain: "plain"}
	got := map[string]int{}
	for _, r := range res.Relations {
		if r.Kind == RelCalls {
			got[fmt.Sprintf("%s -> %s %s", r.From, r.To, form[r.Form])]++
		}
	}
	for _, want := range []string{
		"EdmondsKarpAlgorithm.maximum_flow -> pop value",
		"EdmondsKarpAlgorithm.maximum_flow -> helper bare",
		"EdmondsKarpAlgorithm.maximum_flow -> helper self",
		"EdmondsKarpAlgorithm.maximum_flow -> Thing.build value",
		"EdmondsKarpAlgorithm.maximum_flow -> Graph bare",
		"Graph.maximum_flow -> EdmondsKarpAlgorithm bare",
		"Graph.maximum_flow -> maximum_flow value",
	} {
		if got[want] != 1 {
			t.Errorf("want one %q; calls: %v", want, got)
		}
	}
	if len(got) != 7 {
		t.Errorf("want 7 distinct calls (require_relative is an import), got %d: %v", len(got), got)
	}
}

// TestSignatureDropsTrailingComma: a parameter list written one parameter
// a line ends in a comma, which a one-line signature drops
// (jsondiffpatch's "function arraysDiffFilter(\n  context,\n)" was shown
// as diffFilter(context,)); a list without one is unchanged.
func TestSignatureDropsTrailingComma(t *testing.T) {
	for params, want := range map[string]string{
		"(\n  context,\n)":         "f(context)",
		"(\n  a: number,\n  b,\n)": "f(a: number, b)",
		"(a, b)":                   "f(a, b)",
		"":                         "f()",
	} {
		if got := signature("f", params); got != want {
			t.Errorf("signature(f, %q) = %q, want %q", params, got, want)
		}
	}
}
