package chunk

import (
	sitter "github.com/tree-sitter/go-tree-sitter"
)

// jsMembers names the JavaScript and TypeScript functions that are members
// of an object literal (methods "m() {}", pairs "m: function () {}",
// accessors "get m() {}"):
//
//   - an object bound to a name gives its members that owner:
//     const fastify = { m () {} } -> "fastify.m()", X.prototype = {...} -> X,
//     module.exports = {...} -> no owner;
//   - a property descriptor of Object.defineProperties(T, { p: { get () {} } })
//     or Object.defineProperty(T, 'p', { value: function () {} }) is property
//     p of T: "Request.contentType (get)", "Request.getValidationFunction(x)";
//   - an accessor is named after its property with "(get)" or "(set)".
//
// Pairs anywhere else (a handler in the options passed to a call) are
// callbacks, not definitions, and are dropped.
func (ps *parsed) jsMembers() {
	kept := ps.defs[:0]
	for _, d := range ps.defs {
		if d.kind == KindFunction && (d.node.Kind() == "pair" || d.node.Kind() == "method_definition") && !ps.jsMember(d) {
			continue
		}
		kept = append(kept, d)
	}
	ps.defs = kept
}

// jsMember fills a member's owner, name and accessor; false drops it.
func (ps *parsed) jsMember(d *def) bool {
	n := d.node
	isPair := n.Kind() == "pair"
	if !isPair {
		for i := uint(0); i < n.ChildCount(); i++ {
			if c := n.Child(i); c != nil && !c.IsNamed() && (c.Kind() == "get" || c.Kind() == "set") {
				d.accessor = c.Kind()
			}
		}
	}
	obj := n.Parent()
	if obj == nil || obj.Kind() != "object" {
		return !isPair // a class method
	}
	if isPair {
		d.name = unquote(d.name)
	}
	key := d.name
	if owner, prop, ok := ps.descriptor(obj); ok && (key == "get" || key == "set" || key == "value") {
		if d.owner == "" {
			d.owner = owner
		}
		if key != "value" && d.accessor == "" {
			d.accessor = key
		}
		d.name = prop
		return true
	}
	p := obj.Parent()
	if p == nil {
		return !isPair
	}
	switch p.Kind() {
	case "variable_declarator":
		if nm := p.ChildByFieldName("name"); nm != nil && nm.Kind() == "identifier" && d.owner == "" {
			d.owner = jsOwner(ps.text(nm))
		}
		return true
	case "assignment_expression":
		if l := p.ChildByFieldName("left"); l != nil && d.owner == "" {
			d.owner = jsOwner(ps.text(l))
		}
		return true
	}
	return !isPair
}

// descriptor reports whether obj is a property descriptor: the value of
// pair p in the second argument of Object.defineProperties(T, ...), or the
// third argument of Object.defineProperty(T, 'p', ...). It returns T as an
// owner and the property name.
func (ps *parsed) descriptor(obj *sitter.Node) (owner, prop string, ok bool) {
	p := obj.Parent()
	if p == nil {
		return "", "", false
	}
	if p.Kind() == "pair" {
		k := p.ChildByFieldName("key")
		props := p.Parent()
		if k == nil || props == nil || props.Kind() != "object" {
			return "", "", false
		}
		call, args := callOf(props)
		if call == nil || ps.text(call.ChildByFieldName("function")) != "Object.defineProperties" || args.NamedChildCount() < 2 {
			return "", "", false
		}
		return jsOwner(ps.text(args.NamedChild(0))), unquote(ps.text(k)), true
	}
	call, args := callOf(obj)
	if call == nil || ps.text(call.ChildByFieldName("function")) != "Object.defineProperty" || args.NamedChildCount() < 3 {
		return "", "", false
	}
	name := args.NamedChild(1)
	if name.Kind() != "string" {
		return "", "", false
	}
	return jsOwner(ps.text(args.NamedChild(0))), unquote(ps.text(name)), true
}

// callOf returns the call expression n is a direct argument of, and its
// arguments node.
func callOf(n *sitter.Node) (call, args *sitter.Node) {
	args = n.Parent()
	if args == nil || args.Kind() != "arguments" {
		return nil, nil
	}
	call = args.Parent()
	if call == nil || call.Kind() != "call_expression" || call.ChildByFieldName("function") == nil {
		return nil, nil
	}
	return call, args
}

// accessorName is the chunk name of a getter or setter: "Request.contentType (get)".
func accessorName(qual, accessor string) string {
	return qual + " (" + accessor + ")"
}
