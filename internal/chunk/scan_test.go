package chunk

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// defsOf returns "start-end kind name" of the non-text chunks of a file.
func defsOf(t *testing.T, path, src string) []string {
	t.Helper()
	res, err := Parse(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range res.Chunks {
		if c.Type != KindText {
			out = append(out, fmt.Sprintf("%d-%d %s %s", c.StartLine, c.EndLine, c.Type, c.Name))
		}
	}
	return out
}

// TestScannerEdges: comments, strings and the block syntax of each scanned
// language do not move definition boundaries.
func TestScannerEdges(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, path, src string
		want            []string
	}{
		{"zig braces in strings, comments and return types", "a.zig", `
fn parse(s: []const u8) error{ Bad, Eof }!struct { a: u8 } {
    const brace = "}"; // }
    const c = '}';
    const text =
        \\ } } {
    ;
    return .{ .a = brace[0] + c + text.len };
}

pub inline fn add(a: u8, b: u8) u8 {
    return a + b;
}
`, []string{"1-8 function parse(s: []const u8)", "10-12 function add(a: u8, b: u8)"}},
		{"swift raw strings, nested comments, requirements", "a.swift", `
protocol P {
    func need() -> Int
}
/* outer /* inner } */ still comment { */
struct S: P {
    init?(raw: String) {
        let r = #"}"#
        _ = r
    }
    func need() -> Int {
        return "\(1 + 1) }".count
    }
    class func make<T>(_ t: T) -> S?
        where T: Sendable
    {
        nil
    }
}
`, []string{"1-3 class P", "4-5 class S", "6-9 method S.init(raw: String)", "10-12 method S.need()", "13-17 method S.make(_ t: T)"}},
		{"lua keywords inside strings and long comments", "a.lua", `
--[[ function fake() end ]]
local M = {}
function M.run(x)
  local s = "end"
  local t = [==[ end ]] end ]==]
  repeat x = x - 1 until x < 0
  if x then
    return function() return s end
  end
end
local function helper() end
return M
`, []string{"1-10 method M.run(x)", "11-12 function helper()"}}, // the stray lines join their neighbours (joinGap)
		{"elixir do: lists, heredocs, sigils and fn", "a.ex", `
defmodule A.B do
  @doc """
  end
  """
  def f(x) do
    if x, do: :a, else: :b
    Enum.map(x, fn y -> y end)
    ~r/end/
    ?e
  end
  defp g(x), do: x
end
`, []string{"1-1 class A.B", "2-10 method A.B.f(x)", "11-12 method A.B.g(x)"}},
		{"haskell operators, nested comments, primes", "A.hs", `
module A where

{- a {- nested -} comment
f = 1 -}
(<+>) :: Int -> Int -> Int
a <+> b = a + b

go' :: Int -> Int
go' x
  | x > 0 = x --| not a comment start
  | otherwise = 0
  where y = 'c'
`, []string{"1-1 class A", "3-6 function (<+>)()", "8-12 function go'()"}},
		{"haskell equations written infix", "C.hs", `
module C where

(<+>) :: Int -> Int -> Int
x <+> y = x + y

x ` + "`minus`" + ` y = x - y

f !x
  | x > 0 = x <+> 1
  | otherwise = 0
`, []string{"1-1 class C", "3-4 function (<+>)()", "6-6 function minus()", "8-10 function f()"}}, // not x() twice
		{"haskell doc comment under a banner", "D.hs", `
module D where

--------------------------------------------------------------------------------
-- | Split a list into pages of n items.
paginateEvery :: Int -> [a] -> [[a]]
paginateEvery n = go
`, []string{"1-1 class D", "4-6 function paginateEvery()"}}, // the banner is not its doc
		{"haskell contexts on the next lines", "B.hs", `
class (Functor m, Applicative m, Monad m)
      => PandocMonad m where
  lookupEnv :: T.Text -> m (Maybe T.Text)

class (Show a,
       Eq a) =>
      Pretty a where
  pretty :: a -> String

instance (Show a)
    => Pretty (Tree a) where
  pretty = show

class Container (f :: Type) where
  empty :: Show a => f a
`, []string{"1-3 class PandocMonad", "5-8 class Pretty", "10-12 class Pretty (Tree a)", "14-14 class Container",
			"15-15 method Container.empty()"}}, // not Functor, Show and (Show a); Container's method signature has its own context
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := defsOf(t, c.path, strings.TrimPrefix(c.src, "\n")+"\n"); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestScannersOnTruncatedInput: every prefix of the scanned testdata files
// (unclosed strings, comments and blocks), with CRLF line ends too, parses
// without error and keeps the chunk invariants.
func TestScannersOnTruncatedInput(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"zig/ring_buffer.zig", "swift/SessionStore.swift", "lua/picker.lua",
		"elixir/rate_limiter.ex", "haskell/Queue.hs", "julia/Intervals.jl", "r/summaries.R"} {
		src, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range [][]byte{src, bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))} {
			for n := 0; n <= len(s); n += 5 {
				res, err := Parse(f, s[:n])
				if err != nil {
					t.Fatalf("%s[:%d]: %v", f, n, err)
				}
				if res.Fallback {
					t.Errorf("%s[:%d]: fell back to text", f, n)
				}
				checkInvariants(t, f, s[:n], res)
			}
		}
	}
}

// TestParamsWithoutComments: doc comments inside a parameter list are not
// part of the chunk name.
func TestParamsWithoutComments(t *testing.T) {
	t.Parallel()
	src := "fn collect(\n    analyser: *Analyser,\n    /// a handle to a Document\n    handle: *Handle, // trailing\n) void {}\n"
	want := []string{"1-5 function collect(analyser: *Analyser, handle: *Handle)"}
	if got := defsOf(t, "a.zig", src); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A Swift type with an attribute line above it is one unit starting at the
// attribute (it was two, X and X.X); the inheritance clause gives extends
// (a class's superclass, a protocol's refined protocols) and implements
// (conformances, also declared in an extension) relations.
func TestSwiftAttributesAndConformance(t *testing.T) {
	t.Parallel()
	src := "@available(macOS 10.15, *)\nstruct Checker: Validator {\n  func check() {}\n}\n\n" +
		"@main\nstruct Tool: ParsableCommand {\n  static func run() {}\n}\n\n" +
		"class Base {}\nclass Child: Base, Codable {\n  func f() {}\n}\n\n" +
		"protocol Validator: Sendable {\n  func check()\n}\n\n" +
		"class Store: Validator {\n  func check() {}\n}\n\n" +
		"struct Box<T: Equatable>: Codable where T: Hashable {\n  var t: T\n}\n\n" +
		"extension Checker: CustomStringConvertible {\n  var description: String { \"\" }\n}\n"
	res, err := Parse("Tool.swift", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]int{}
	for _, c := range res.Chunks {
		if c.Type == "class" {
			classes[c.Name]++
		}
	}
	for _, name := range []string{"Checker", "Tool", "Child", "Store", "Box"} {
		if classes[name] != 1 {
			t.Errorf("%d units named %s: %v", classes[name], name, classes)
		}
	}
	for _, bad := range []string{"Checker.Checker", "Tool.Tool"} {
		if classes[bad] != 0 {
			t.Errorf("a second unit %s: %v", bad, classes)
		}
	}
	got := map[string]bool{}
	for _, r := range res.Relations {
		if r.Kind == RelExtends || r.Kind == RelImplements {
			got[r.From+" "+r.Kind+" "+r.To] = true
		}
	}
	for _, want := range []string{"Checker implements Validator", "Tool implements ParsableCommand", "Child extends Base",
		"Child implements Codable", "Validator extends Sendable", "Store implements Validator", "Box implements Codable",
		"Checker implements CustomStringConvertible"} {
		if !got[want] {
			t.Errorf("no relation %q among %v", want, got)
		}
	}
}
