package chunk

import (
	"fmt"
	"testing"
)

// declaredTypes types Java calls on fields, this-fields, parameters,
// locals, loop variables and resources with their declared class (a local
// or resource declared var: with the class its initialiser creates or
// casts to); a local
// shadows a field from its declaration on; an inner class sees the outer
// class's fields; primitives, var, arrays and type parameters are no
// class, and a name declared nowhere stays a call by name.
func TestDeclaredTypesJava(t *testing.T) {
	t.Parallel()
	src := `package p;
import org.y.Executor;
class A<T> {
  private Executor executor;
  private static final Log LOG = LogFactory.getLog(A.class);
  private Cache cache;
  void run(Session s, int n, T t, Outer.Inner in, java.util.Map<String, Item> m) {
    executor.query(n);
    this.executor.update(n);
    LOG.debug("x");
    s.close();
    t.accept(n);
    in.poke();
    m.get("k");
    cache.evict();
    Cache cache = other();
    cache.put(1);
    var v = make();
    v.spin();
    var made = new Builder<String>(1);
    made.append("x");
    var cast = (Channel) v;
    cast.send();
    int[] xs = null;
    for (Item it : items) { it.touch(); }
    try (Reader r = open()) { r.read(); }
    try (var w = new Writer()) { w.write(); }
    unknown.go();
  }
  class Inner { void f() { executor.commit(); } }
}
`
	got := callTargets(t, "A.java", src)
	for _, want := range []string{"Executor.query", "Executor.update", "Log.debug", "Session.close", "accept",
		"Outer.Inner.poke", "Map.get", "Cache.evict", "Cache.put", "spin", "Builder.append", "Channel.send", "Item.touch",
		"Reader.read", "Writer.write", "go", "Executor.commit"} {
		if !got[want] {
			t.Errorf("no call %q among %v", want, got)
		}
	}
	for _, c := range []struct{ typ, lang, want string }{
		{"Executor", "java", "Executor"}, {"java.util.List<Foo>", "java", "List"}, {"Outer.Inner", "java", "Outer.Inner"},
		{"int", "java", ""}, {"var", "java", ""}, {"Foo[]", "java", ""}, {"T", "java", ""},
		{"IValidator<T>", "csharp", "IValidator"}, {"Foo?", "csharp", "Foo"}, {"System.IO.Stream", "csharp", "Stream"},
		{"TResult", "csharp", ""}, {"string", "csharp", ""}, {"(int, Foo)", "csharp", ""}, {"TcpClient", "csharp", "TcpClient"},
	} {
		if got := declaredClassText(c.typ, c.lang); got != c.want {
			t.Errorf("%s type %q: class %q, want %q", c.lang, c.typ, got, c.want)
		}
	}
}

// declaredTypes in C#: fields, properties (a capitalised receiver that is
// a property is a value, not a class), parameters, locals and foreach
// variables; a local declared var takes the class of the object its
// initialiser creates or the type it converts to; a capitalised name
// declared nowhere stays a class's static call.
func TestDeclaredTypesCSharp(t *testing.T) {
	t.Parallel()
	src := `namespace N {
public class V {
  private readonly IValidator<Person> _validator;
  public TrackingCollection<IRule> Rules { get; }
  public void Run(ValidationContext<T> context, string s) {
    _validator.Validate(context);
    Rules.Add(null);
    context.Fail();
    s.Trim();
    var x = Make();
    x.Go();
    Registry local = new Registry();
    local.Register();
    var made = new Builder<int>();
    made.Append(1);
    var cast = (Channel)x;
    cast.Send();
    var asType = x as Pipe;
    asType.Flush();
    foreach (IRule rule in Rules) { rule.Apply(); }
    Helper.Static();
  }
}
}
`
	got := callTargets(t, "V.cs", src)
	for _, want := range []string{"IValidator.Validate", "TrackingCollection.Add", "ValidationContext.Fail", "Trim", "Go",
		"Registry.Register", "Builder.Append", "Channel.Send", "Pipe.Flush", "IRule.Apply", "Helper.Static"} {
		if !got[want] {
			t.Errorf("no call %q among %v", want, got)
		}
	}
}

// callTargets parses src as file name and returns the callee names of its
// call relations.
func callTargets(t *testing.T, name, src string) map[string]bool {
	t.Helper()
	res, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range res.Relations {
		if r.Kind == RelCalls {
			got[r.To] = true
		}
	}
	return got
}

// declaredTypes in C++: parameters (by value, reference or pointer),
// locals, range-for variables and fields take the class their declaration
// names (std:: classes keep their namespace, which no project class has);
// a template's type parameter, auto and a call's result are no class; a
// call through this is the class's own; a standard container's method
// on an untyped value is a call on a value.
func TestDeclaredTypesCpp(t *testing.T) {
	t.Parallel()
	src := `namespace cereal {
template <class A>
class OutputArchive {
 public:
  void save(A& ar, std::string const& s, Iterator it, Iterator* p) {
    s.size();
    it.search("x");
    p->advance(1);
    ar.process(1);
    itsMap.find(3);
    itsStack.back().search("z");
    this->flush();
    std::vector<int> v;
    v.push_back(1);
    for (auto& e : v) { e.go(); }
    for (const Entry& en : entries) { en.touch(); }
    Registry local;
    local.add(2);
    make().clear();
  }
  void flush();
 private:
  std::unordered_map<void const*, int> itsMap;
  std::vector<Iterator> itsStack;
};
}
`
	got := callTargets(t, "a.hpp", src)
	for _, want := range []string{"std::string.size", "Iterator.search", "Iterator.advance", "process",
		"std::unordered_map.find", "std::vector.back", "search", "flush", "std::vector.push_back", "go",
		"Entry.touch", "Registry.add", "clear"} {
		if !got[want] {
			t.Errorf("no call %q among %v", want, got)
		}
	}
	if got["A.process"] {
		t.Errorf("ar.process() typed with the template parameter A")
	}
}

// Overloads share their caller name ("A.save" for save(int) and
// save(String); C++ templates whose signatures print alike): the calls of
// each are kept, one relation per overload and callee, on its own line.
func TestOverloadsKeepTheirCalls(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{
		"A.java": "class A {\n  void save(int x) {\n    flush();\n  }\n  void save(String s) {\n    flush();\n  }\n}\n",
		"a.hpp":  "class A {\n  template <class T> void save(T const& t) {\n    flush();\n  }\n  template <class T> void save(T const& t) {\n    flush();\n  }\n};\n",
	} {
		res, err := Parse(name, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		var lines []int
		for _, r := range res.Relations {
			if r.Kind == RelCalls && r.To == "flush" {
				lines = append(lines, r.Line)
			}
		}
		if fmt.Sprint(lines) != "[3 6]" {
			t.Errorf("%s: calls of flush on lines %v, want [3 6]", name, lines)
		}
	}
}

// A C++ call through a namespace with template arguments names the
// function without them (detail::swap_bytes<4> calls detail::swap_bytes).
func TestCppQualifiedTemplateCall(t *testing.T) {
	t.Parallel()
	got := callTargets(t, "a.hpp", "namespace d { template <int N> void swap_bytes(char* p) {} }\nvoid f(char* p) { d::swap_bytes<4>(p); }\n")
	if !got["d::swap_bytes"] {
		t.Errorf("no call d::swap_bytes among %v", got)
	}
	for _, c := range []struct{ in, want string }{
		{"detail::swap_bytes<DataSize>", "detail::swap_bytes"},
		{"std::vector<std::pair<int, int>>::size", "std::vector::size"},
		{"ns::operator<", "ns::operator<"},
		{"a<b", "a<b"},
	} {
		if got := dropTemplateArgs(c.in); got != c.want {
			t.Errorf("dropTemplateArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
