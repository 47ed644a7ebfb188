package chunk

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/coderag/coderag/internal/lang"
)

var unitsLost = flag.Int("units-lost", 0, "with -units: print up to this many definitions left in text chunks (path:line)")

var unitsInside = flag.Bool("units-inside", false, "with -units-lost: print the definitions inside other definitions' chunks too")

var unitsDirs = flag.String("units", "", "comma-separated directories: print per language the share of definitions that end up inside text chunks or chunks over the size limit, and exit")

// defKinds are the tree-sitter node kinds counted as definitions by the
// units report, per grammar. They are deliberately broader than the chunk
// queries (nested functions, macros, impl blocks): the report measures how
// many of them the chunker turns into units of their own. Function
// expressions and arrow functions count only when bound to a name (see
// namedFunctionValue).
var defKinds = map[string][]string{
	"go":         {"function_declaration", "method_declaration", "type_spec"},
	"javascript": {"function_declaration", "generator_function_declaration", "class_declaration", "method_definition"},
	"typescript": {"function_declaration", "generator_function_declaration", "class_declaration", "abstract_class_declaration", "method_definition", "interface_declaration", "enum_declaration"},
	"python":     {"function_definition", "class_definition"},
	"rust":       {"function_item", "struct_item", "enum_item", "union_item", "trait_item", "impl_item", "macro_definition"},
	"java":       {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "method_declaration", "constructor_declaration"},
	"kotlin":     {"class_declaration", "object_declaration", "function_declaration"},
	"scala":      {"class_definition", "object_definition", "trait_definition", "function_definition"},
	"c":          {"function_definition"},
	"cpp":        {"function_definition", "class_specifier", "struct_specifier"},
	"csharp":     {"class_declaration", "interface_declaration", "struct_declaration", "enum_declaration", "record_declaration", "method_declaration", "constructor_declaration"},
	"ruby":       {"method", "singleton_method", "class", "module"},
	"php":        {"function_definition", "method_declaration", "class_declaration", "interface_declaration", "trait_declaration"},
	"bash":       {"function_definition"},
}

// unitStats counts the definitions of one language by where their first
// line ends up.
type unitStats struct {
	Files, Defs, InText, InLong, Uncovered int
	// Inside counts definitions in a chunk under the limit that is another
	// definition's (a closure left in its function).
	Inside int
}

// namedFunctionValue reports a function expression or arrow function bound
// to a name: a variable, a property assignment, an object key, a class
// field.
func namedFunctionValue(n *sitter.Node) bool {
	if k := n.Kind(); k != "function_expression" && k != "arrow_function" && k != "function" && k != "generator_function" {
		return false
	}
	p := n.Parent()
	if p == nil {
		return false
	}
	switch p.Kind() {
	case "variable_declarator", "field_definition", "public_field_definition":
		return true
	case "pair":
		// a key of an object bound to a name (const api = { f: () => {} });
		// handlers in the options passed to a call are callbacks
		obj := p.Parent()
		if obj == nil || obj.Parent() == nil {
			return false
		}
		k := obj.Parent().Kind()
		return k == "variable_declarator" || k == "assignment_expression"
	case "assignment_expression":
		return p.ChildByFieldName("left") != nil && p.ChildByFieldName("left").Kind() == "member_expression"
	}
	return false
}

// definitionLines returns the first line (1-based) of every definition of
// the file by defKinds, and the grammar's language. Headers (.h) are
// parsed as C++, of which C is nearly a subset, so that the classes and
// templates of C++ headers count whatever grammar the chunker chose.
func definitionLines(path string, src []byte) (string, [][2]int) {
	l := lang.Detect(path)
	if strings.HasSuffix(path, ".h") {
		l = "cpp"
	}
	gl := l
	if l == "tsx" {
		gl = "typescript"
	}
	kinds := defKinds[gl]
	fn := grammarFuncs[l]
	if kinds == nil || fn == nil {
		return l, nil
	}
	want := set(kinds...)
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(sitter.NewLanguage(fn())); err != nil {
		return l, nil
	}
	tree := p.Parse(parseBuffer(src), nil)
	if tree == nil {
		return l, nil
	}
	defer tree.Close()
	var out [][2]int
	var walk func(n *sitter.Node, depth int)
	walk = func(n *sitter.Node, depth int) {
		if depth > 200 {
			return
		}
		k := n.Kind()
		body := true
		if k == "class_specifier" || k == "struct_specifier" {
			body = n.ChildByFieldName("body") != nil
		}
		if want[k] && body || (gl == "javascript" || gl == "typescript") && namedFunctionValue(n) {
			out = append(out, [2]int{int(n.StartPosition().Row) + 1, int(n.EndPosition().Row) + 1})
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			if c := n.NamedChild(i); c != nil {
				walk(c, depth+1)
			}
		}
	}
	walk(tree.RootNode(), 0)
	return l, out
}

// classifyUnits adds the definitions of one parsed file to st: each
// definition's first line is looked up in the smallest chunk holding it;
// a text chunk or a chunk of more than maxDefLines lines means the
// definition is not a unit of its own, and so does a definition chunk
// whose declaration ends elsewhere (Inside).
func classifyUnits(st *unitStats, defs [][2]int, chunks []Chunk, lost func(line int)) {
	st.Files++
	for _, d := range defs {
		l := d[0]
		st.Defs++
		var best *Chunk
		for i := range chunks {
			c := &chunks[i]
			if c.StartLine <= l && l <= c.EndLine && (best == nil || c.EndLine-c.StartLine < best.EndLine-best.StartLine) {
				best = c
			}
		}
		for i := range chunks {
			// the definition's own chunk wins over a class head that
			// overlaps its first lines
			if c := &chunks[i]; c.StartLine <= l && l <= c.EndLine && c.Type != KindText && c.DeclEndLine == d[1] &&
				c.EndLine-c.StartLine+1 <= maxDefLines {
				best = c
			}
		}
		switch {
		case best == nil:
			st.Uncovered++
		case best.Type == KindText && !isPart(best):
			st.InText++
			lost(l)
		case best.EndLine-best.StartLine+1 > maxDefLines:
			st.InLong++
			lost(l)
		case best.Type != KindText && best.DeclEndLine != d[1]:
			st.Inside++
			if *unitsInside {
				lost(l)
			}
		}
	}
}

// isPart reports a continuation part of a split definition (a text chunk
// named "... (part k of n)"): code of a definition, not loose text.
func isPart(c *Chunk) bool {
	return strings.HasSuffix(c.Name, ")") && strings.Contains(c.Name, " (part ")
}

// TestUnitsReport prints, per language, how many definitions end up inside
// text chunks or inside chunks over maxDefLines lines, for the -units
// directories:
//
//	go test ./internal/chunk -run TestUnitsReport -units /tmp/semble/repos/axios,...
func TestUnitsReport(t *testing.T) {
	if *unitsDirs == "" {
		t.Skip("no -units directories")
	}
	by := map[string]*unitStats{}
	shown := 0
	for _, root := range strings.Split(*unitsDirs, ",") {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "vendor") {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || lang.Detect(p) == "" {
				return nil
			}
			if info, err := d.Info(); err != nil || info.Size() > 1<<20 {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			l, defs := definitionLines(filepath.ToSlash(rel), src)
			if defKinds[strings.Replace(l, "tsx", "typescript", 1)] == nil {
				return nil
			}
			if strings.HasSuffix(p, ".h") {
				l = "h" // C or C++ headers, counted apart
			}
			r, err := Parse(filepath.ToSlash(rel), src)
			if err != nil {
				return nil
			}
			if by[l] == nil {
				by[l] = &unitStats{}
			}
			classifyUnits(by[l], defs, r.Chunks, func(line int) {
				if shown < *unitsLost {
					shown++
					fmt.Printf("lost %s:%d\n", p, line)
				}
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	langs := make([]string, 0, len(by))
	for l := range by {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	var tot unitStats
	fmt.Printf("%-11s %6s %7s %7s %7s %7s %7s %7s\n", "language", "files", "defs", "in-text", "in-long", "lost%", "inside", "uncov")
	row := func(l string, s unitStats) {
		pct := 0.0
		if s.Defs > 0 {
			pct = 100 * float64(s.InText+s.InLong) / float64(s.Defs)
		}
		fmt.Printf("%-11s %6d %7d %7d %7d %6.1f%% %7d %7d\n", l, s.Files, s.Defs, s.InText, s.InLong, pct, s.Inside, s.Uncovered)
	}
	for _, l := range langs {
		s := *by[l]
		row(l, s)
		tot.Files += s.Files
		tot.Defs += s.Defs
		tot.InText += s.InText
		tot.InLong += s.InLong
		tot.Uncovered += s.Uncovered
		tot.Inside += s.Inside
	}
	row("TOTAL", tot)
}

var showFile = flag.String("show", "", "print the chunks of this file as a golden file lists them, and exit (debug aid)")

// TestShow prints the chunks of -show FILE; skipped without the flag.
func TestShow(t *testing.T) {
	if *showFile == "" {
		t.Skip("no -show file")
	}
	src, err := os.ReadFile(*showFile)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Parse(*showFile, src)
	if err != nil {
		t.Fatal(err)
	}
	g := render(r)
	fmt.Printf("language %s fallback %v errors %d\n", g.Language, g.Fallback, g.ParseErrors)
	for _, c := range g.Chunks {
		fmt.Println(c)
	}
}

// TestKotlinConstructorOnNextLine: a primary constructor written on the
// line after its class header ("public class Builder⏎internal
// constructor(...)", kotlinpoet's style) keeps the class, its members and
// its nested classes, which tree-sitter-kotlin lost at the line break; the
// chunks keep the file's own text and lines.
func TestKotlinConstructorOnNextLine(t *testing.T) {
	t.Parallel()
	src := "package demo\n\npublic class Outer\nprivate constructor(val x: Int) {\n  fun outerFun(): Int = x\n\n" +
		"  public class Builder\n  @Suppress(\"x\") internal constructor(internal val name: String) {\n    fun build(): Outer = Outer(1)\n  }\n}\n"
	got := defsOf(t, "A.kt", src)
	want := []string{"3-4 class Outer", "5-5 method Outer.outerFun()", "7-8 class Outer.Builder", "9-9 method Builder.build()"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	res, err := Parse("A.kt", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Chunks {
		if c.Name == "Outer" && !strings.Contains(c.Content, "Outer\nprivate constructor") {
			t.Errorf("class chunk text %q is not the file's", c.Content)
		}
	}
	if _, n := joinKotlinConstructors([]byte("class A(\n  val x: Int,\n)\nfun f() = 1\n// class B\nconstructor(x)\n")); n != 0 {
		t.Errorf("joined %d lines that are no class header and constructor", n)
	}
}

// TestScalaIndentedBodyEndsAtItsCode: a def whose body is indented on the
// lines after "=" ends with its code, not at the next definition, whose
// doc comment is the next one's (tree-sitter-scala's indented block runs
// on to the next def: "a" was lines 2-6 and "b" began on a's last line).
func TestScalaIndentedBodyEndsAtItsCode(t *testing.T) {
	t.Parallel()
	src := "object Demo {\n  def a(x: Int): Int =\n    x + 1\n\n  /** Doubles y. */\n  def b(y: Int): Int = {\n    y * 2\n  }\n}\n"
	if got, want := defsOf(t, "Demo.scala", src), []string{"1-1 class Demo", "2-3 method Demo.a(x: Int)", "5-8 method Demo.b(y: Int)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	res, err := Parse("Demo.scala", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Chunks {
		if c.Name == "Demo.a(x: Int)" && strings.Contains(c.Content, "Doubles") {
			t.Errorf("a's chunk holds b's doc comment: %q", c.Content)
		}
	}
}

// TestJSFunctionAssignedToAVariable: a function assigned to a variable
// declared before it (var camelize, uniq; camelize = function(str) {...}),
// as older modules write their helpers, is a unit of its own, not part of
// the function above it; an assignment of another value is not.
func TestJSFunctionAssignedToAVariable(t *testing.T) {
	t.Parallel()
	src := "var camelize, uniq, count, $\n" +
		"function dasherize(str) {\n  return str.toLowerCase()\n}\n" +
		"camelize = function(str){ return str.replace(/-(.)/g, up) }\n" +
		"uniq = (array) => array.filter(unique)\n" +
		"count = 0\n" +
		"$ = function(selector, context){\n  return init(selector, context)\n}\n"
	got := defsOf(t, "zepto.js", src)
	// (a statement between definitions joins the chunk after it, as before)
	want := []string{"1-4 function dasherize(str)", "5-5 function camelize(str)", "6-6 function uniq(array)", "7-10 function $(selector, context)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// A Kotlin property whose value is a lambda or an anonymous function is a
// unit (its calls are its own, not the file's); a property of another
// value is not.
func TestKotlinLambdaProperties(t *testing.T) {
	t.Parallel()
	src := "package a\n\nval SUGGEST: Suggestor = { entered, possible ->\n    possible.filter { similarity(entered, it) > 0.8 }\n}\n\n" +
		"val plain = 3\nval f = fun(x: Int): Int { return x + 1 }\n\n" +
		"class C {\n    private val handler: (String) -> Unit = { s -> println(s) }\n    val size = 4\n}\n"
	got := defsOf(t, "Context.kt", src)
	want := []string{"3-5 function SUGGEST()", "7-8 function f()", "10-10 class C", "11-12 method C.handler()"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("units:\n got %q\nwant %q", got, want)
	}
}
