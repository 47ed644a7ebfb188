package chunk

import (
	"sort"
	"strings"
)

// declaresTypes are the languages whose declarations name the class of
// every field, local, parameter and loop variable ("Executor executor",
// "IValidator<T> validator"), so that a call on such a name is typed
// from them (declaredTypes).
var declaresTypes = map[string]bool{"java": true, "csharp": true, "cpp": true, "php": true}

// isThisField reports whether a receiver is written as a field of this
// ("this.executor"), the one value path declaredTypes reads besides a
// bare name.
func isThisField(recv string) bool {
	f, ok := strings.CutPrefix(recv, "this.")
	return ok && isIdent(f)
}

// declaredTypes returns the typed callee of every Java or C# call on a
// name or a field whose declaration names its class: byte offset of the
// method name -> "T.m". A call on "this.x" takes the field x; a call on
// a name x takes the last parameter or local of that name declared
// before the call in the innermost method or constructor around it, else
// the field x of the innermost class around the call that declares one
// (an inner class sees its outer class's fields). A declaration whose
// type is not a class name (int, var, an array, a type parameter) was
// never recorded (declaredClassText), and a name declared nowhere (an
// inherited field, a static import) leaves the call as it was: by name.
// The declarations come from collect's one query pass (ps.annots).
//
// The rule is the compilers': in Java and C# the static type of a
// variable is the one its declaration names, and an instance call
// dispatches from that type (JLS 15.12; ECMA-334 12.8.10).
func (ps *parsed) declaredTypes() map[uint]string {
	if len(ps.annots) == 0 {
		return nil
	}
	byName := map[string][]annot{}
	for _, a := range ps.annots {
		if ps.tparams[a.class] {
			continue // a template's type parameter: no class
		}
		byName[a.name] = append(byName[a.name], a)
	}
	var fns, classes []*def
	for _, d := range ps.defs {
		switch d.kind {
		case KindFunction:
			fns = append(fns, d)
		case KindClass:
			classes = append(classes, d)
		}
	}
	// innermost returns the def of ds holding off with the latest start
	innermost := func(ds []*def, off uint) *def {
		var in *def
		for _, d := range ds {
			if d.start <= off && off < d.end && (in == nil || d.start >= in.start) {
				in = d
			}
		}
		return in
	}
	// the classes around off, innermost first
	around := func(off uint) []*def {
		var out []*def
		for _, d := range classes {
			if d.start <= off && off < d.end {
				out = append(out, d)
			}
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].start > out[j].start })
		return out
	}
	out := map[uint]string{}
	for _, r := range ps.rels {
		if r.kind != RelCalls || r.value == "" {
			continue
		}
		name, field := strings.CutPrefix(r.value, "this.")
		as := byName[name]
		if len(as) == 0 {
			continue
		}
		class := ""
		if !field {
			if fn := innermost(fns, r.start); fn != nil {
				for _, a := range as {
					if a.at < r.start && innermost(fns, a.at) == fn {
						class = a.class // the last one before the call
					}
				}
			}
		}
		if class == "" {
		outer:
			for _, c := range around(r.start) {
				for _, a := range as {
					if innermost(fns, a.at) == nil && innermost(classes, a.at) == c {
						class = a.class
						break outer
					}
				}
			}
		}
		if class != "" {
			out[r.start] = class + "." + r.text
		}
	}
	return out
}

// declaredClassText returns the class a Java or C# declaration's type
// names: Executor, java.util.List (List), Outer.Inner (Java keeps the outer
// class; C# takes the last segment, its namespaces being capitalised too),
// List<Foo> and IValidator<T> (the generic class), Foo? (C#'s nullable);
// "" for anything
// else: a primitive (int, string, bool), var, an array, a tuple, or a
// type parameter by the platforms' naming conventions (T, K, E; C#'s
// TResult), whose class the declaration does not say.
func declaredClassText(s, language string) string {
	s = strings.TrimSpace(s)
	switch language {
	case "cpp":
		return cppClassText(s)
	case "php":
		return phpClassText(s)
	}
	if strings.ContainsAny(s, "[(") {
		return "" // an array or a tuple
	}
	if i := strings.IndexByte(s, '<'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(strings.TrimSuffix(s, "?"))
	segs := strings.Split(s, ".")
	for len(segs) > 1 && segs[0] != "" && (segs[0][0] < 'A' || segs[0][0] > 'Z') {
		segs = segs[1:] // a package or namespace: java.util., System.IO. stays (C# capitalises them)
	}
	last := segs[len(segs)-1]
	if len(last) < 2 || last[0] < 'A' || last[0] > 'Z' || language == "csharp" && isTypeParamName(last) {
		return ""
	}
	for _, g := range segs {
		if !isIdent(g) {
			return ""
		}
	}
	if language == "csharp" {
		return last // a namespace is capitalised too: the class alone
	}
	return strings.Join(segs, ".") // Outer.Inner: the outer class is what the file imports
}

// cppClassText returns the class a C++ declaration's type names, without
// template arguments: Foo, ns::Foo (Foo), std::vector<T> ("std::vector",
// which no project class is); "" for a primitive, auto, decltype(...) or
// anything else that is no name. Lower-case names count: C++ classes are
// often so named (rapidxml's file, std's string).
func cppClassText(s string) string {
	if i := strings.IndexByte(s, '<'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "::"))
	segs := strings.Split(s, "::")
	for _, g := range segs {
		if !isIdent(g) {
			return ""
		}
	}
	last := segs[len(segs)-1]
	switch {
	case cppNonClass.has(last):
		return ""
	case segs[0] == "std":
		return "std::" + last
	}
	return last
}

// phpClassText returns the class a PHP parameter's or property's type
// names: Foo, ?Foo, \App\Foo (Foo); "" for a scalar or pseudo-type
// (string, int, array, mixed, self, ...), a union or an intersection.
func phpClassText(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "?")
	if strings.ContainsAny(s, "|&()") {
		return ""
	}
	s = s[strings.LastIndexByte(s, '\\')+1:]
	if !isIdent(s) || phpNonClass.has(strings.ToLower(s)) {
		return ""
	}
	return s
}

// phpNonClass are PHP's scalar and pseudo-types (lower case), which name
// no class.
var phpNonClass = setOf(`string int integer float double bool boolean array mixed callable iterable object
	void null never false true self static parent resource`)

// cppNonClass are type names of C++ declarations that name no class:
// keywords the grammar reads as a type name and the standard's integer
// typedefs.
var cppNonClass = setOf(`auto void bool char int short long float double signed unsigned wchar_t char8_t char16_t char32_t
	size_t ssize_t ptrdiff_t intptr_t uintptr_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t
	nullptr_t byte`)

// isTypeParamName reports a C# type parameter's conventional name: T
// followed by a capitalised word (TResult, TKey, TProperty).
func isTypeParamName(s string) bool {
	return len(s) > 2 && s[0] == 'T' && s[1] >= 'A' && s[1] <= 'Z' && s[2] >= 'a' && s[2] <= 'z'
}

// isIdent reports an ASCII identifier: letters, digits and '_', not
// starting with a digit.
func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
