package chunk

import "strings"

// Symbol is a definition's chunk name taken apart. A method chunk
// "Server.Serve(l net.Listener)" owned by Server is {Name: "Serve", Owner:
// "Server", Params: "l net.Listener"}; a function "ParseConfig(data []byte)"
// has no Owner; a class chunk "Outer.Inner" is {Name: "Inner", Owner: its
// owner}. Text chunks name no symbol (the zero Symbol).
type Symbol struct {
	Name   string // bare method, function or class name
	Owner  string // innermost owning type (Chunk.Owner), "" for top-level definitions
	Params string // parameter list without its parentheses, "" for none and for classes
}

// ParseSymbol takes apart a chunk name of the given kind (KindClass,
// KindMethod, KindFunction, KindText) written by the chunker, with the
// chunk's owner. Impl blocks name no symbol (their type does); a macro
// "json!" is {Name: "json"}. It is the only parser of chunk names: the chunker fills
// Chunk.Symbol with it, and the index stores the parts as columns. A
// method name that does not start with "Owner." keeps its last dotted
// segment as Name.
func ParseSymbol(kind, name, owner string) Symbol {
	switch kind {
	case KindText, KindImpl:
		return Symbol{}
	case KindMacro:
		return Symbol{Name: strings.TrimSuffix(name, "!")}
	case KindClass:
		return Symbol{Name: lastSegment(name), Owner: owner}
	}
	head, params := name, ""
	if i := strings.IndexByte(name, '('); i >= 0 {
		head, params = strings.TrimSpace(name[:i]), strings.TrimSuffix(name[i+1:], ")")
	}
	s := Symbol{Owner: owner, Params: params}
	if owner != "" && strings.HasPrefix(head, owner+".") {
		s.Name = head[len(owner)+1:]
	} else {
		s.Name = lastSegment(head)
	}
	return s
}

// CallName is the name the definition's calls are recorded under in
// Relation.From: "Owner.Name", or Name for a definition without owner.
func (s Symbol) CallName() string {
	if s.Owner != "" {
		return s.Owner + "." + s.Name
	}
	return s.Name
}

// lastSegment returns what follows the last '.' of s (all of s without one).
func lastSegment(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}
