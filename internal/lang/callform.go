package lang

// CallForm is how a call is written, which decides what its callee can
// be: one value per call relation (chunk.Relation.Form,
// store.RelationRow.Form), stored as its number in code_relations.plain.
// The numbers are part of the index format; do not renumber them.
type CallForm uint8

const (
	// CallBare is any other call: a bare name in a language with an
	// implicit receiver, a qualified "pkg.Func", or a language whose
	// receivers are not read.
	CallBare CallForm = 0
	// CallPlain is a Go call written without a receiver or package
	// ("f(x)", not "x.f()"): Go has no implicit receiver, so it can only
	// reach a function, never a method.
	CallPlain CallForm = 1
	// CallSelf is a call on the enclosing method's own receiver
	// ("c.serve()" inside func (c *conn) ...; Python self/cls, JS,
	// TypeScript and Kotlin this, Rust self): it reaches a method of the
	// receiver's type.
	CallSelf CallForm = 2
	// CallValue is a call on some other value ("c.rwc.Close()",
	// "host.decode()", "repo.save(x)"): not the method's own receiver, not
	// an imported package or module. Its callee's type is unknown. Set for
	// the languages whose queries capture the receiver (Go, Python,
	// JavaScript, TypeScript, Kotlin, Rust).
	CallValue CallForm = 3
)

// String names the form: "bare", "plain", "self" or "value".
func (f CallForm) String() string {
	switch f {
	case CallPlain:
		return "plain"
	case CallSelf:
		return "self"
	case CallValue:
		return "value"
	}
	return "bare"
}
