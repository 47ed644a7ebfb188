package chunk

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// pyTypes returns, for a Python tree, the typed callee of every call on a
// name its function annotates with a class: byte offset of the method
// name -> "T.m". A parameter ("entry: StatsEntry", "entry: StatsEntry =
// None") and a local annotated assignment ("entry: StatsEntry = ...")
// annotate a name for the function's own body; a nested function keeps
// its own annotations only. Only a class name is taken (pyAnnotatedClass):
// builtins (str, dict) and generics (list[T]) name no receiver class.
func pyTypes(root *sitter.Node, buf []byte) map[uint]string {
	out := map[uint]string{}
	var visit func(n *sitter.Node)
	visit = func(n *sitter.Node) {
		if n.Kind() == "function_definition" {
			pyTypeCalls(n, buf, out)
		}
		for i := range n.NamedChildCount() {
			if c := n.NamedChild(i); c != nil {
				visit(c)
			}
		}
	}
	visit(root)
	return out
}

// pyTypeCalls records in out the typed calls of the function fn.
func pyTypeCalls(fn *sitter.Node, buf []byte, out map[uint]string) {
	types := map[string]string{}
	if ps := fn.ChildByFieldName("parameters"); ps != nil {
		for i := range ps.NamedChildCount() {
			p := ps.NamedChild(i)
			if p == nil || (p.Kind() != "typed_parameter" && p.Kind() != "typed_default_parameter") {
				continue
			}
			name := p.ChildByFieldName("name")
			if name == nil && p.NamedChildCount() > 0 {
				name = p.NamedChild(0) // typed_parameter: the identifier, then its type
			}
			if t := pyAnnotatedClass(p.ChildByFieldName("type"), buf); t != "" && name != nil && name.Kind() == "identifier" {
				types[string(buf[name.StartByte():name.EndByte()])] = t
			}
		}
	}
	body := fn.ChildByFieldName("body")
	if body == nil {
		return
	}
	// the body's annotated assignments, then its calls, neither inside a
	// nested function or class
	var walk func(n *sitter.Node, calls bool)
	walk = func(n *sitter.Node, calls bool) {
		switch n.Kind() {
		case "function_definition", "class_definition", "lambda":
			return
		case "assignment":
			if !calls {
				left := n.ChildByFieldName("left")
				if t := pyAnnotatedClass(n.ChildByFieldName("type"), buf); t != "" && left != nil && left.Kind() == "identifier" {
					types[string(buf[left.StartByte():left.EndByte()])] = t
				}
			}
		case "call":
			if calls {
				f := n.ChildByFieldName("function")
				if f != nil && f.Kind() == "attribute" {
					obj, attr := f.ChildByFieldName("object"), f.ChildByFieldName("attribute")
					if obj != nil && attr != nil && obj.Kind() == "identifier" {
						if t := types[string(buf[obj.StartByte():obj.EndByte()])]; t != "" {
							out[attr.StartByte()] = t + "." + string(buf[attr.StartByte():attr.EndByte()])
						}
					}
				}
			}
		}
		for i := range n.NamedChildCount() {
			if c := n.NamedChild(i); c != nil {
				walk(c, calls)
			}
		}
	}
	walk(body, false)
	if len(types) > 0 {
		walk(body, true)
	}
}

// pyAnnotatedClass returns the class an annotation names: StatsEntry,
// "StatsEntry" (a forward reference), stats.StatsEntry (its last
// segment), Optional[StatsEntry] and StatsEntry | None (the class); "" for
// anything else (a builtin such as str, a generic such as list[T], a
// union of classes).
func pyAnnotatedClass(t *sitter.Node, buf []byte) string {
	if t == nil {
		return ""
	}
	return pyAnnotatedClassText(string(buf[t.StartByte():t.EndByte()]))
}

// pyAnnotatedClassText is pyAnnotatedClass of an annotation's text.
func pyAnnotatedClassText(s string) string {
	s = strings.Trim(strings.TrimSpace(s), `"'`)
	if inner, ok := strings.CutPrefix(s, "Optional["); ok && strings.HasSuffix(inner, "]") {
		s = strings.TrimSuffix(inner, "]")
	}
	if a, b, ok := strings.Cut(s, "|"); ok {
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		switch {
		case b == "None":
			s = a
		case a == "None":
			s = b
		default:
			return ""
		}
	}
	s = s[strings.LastIndexByte(s, '.')+1:]
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return ""
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return ""
		}
	}
	return s
}
