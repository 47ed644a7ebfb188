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

// Arity is how many arguments a call passes, plus one; 0 (the zero value)
// when they were not counted, so a relation built without it says
// nothing. Counted for the languages of ArityCounted.
type Arity uint8

// ArityOf is the Arity of a call passing n arguments (n >= 0; at most 254
// are told apart).
func ArityOf(n int) Arity { return Arity(min(max(n, 0), 254) + 1) }

// Count returns the number of arguments and whether they were counted.
func (a Arity) Count() (int, bool) { return int(a) - 1, a > 0 }

// ArityCounted holds the languages whose calls carry an Arity: those with
// overloads that reject a call with the wrong number of arguments at
// compile time, whose argument lists the chunker reads: Java and C#. (Go
// was counted too: it has no overloads, and its calls of one name with
// several argument counts, fmt.Errorf's, made 4.4% more relations of
// GOROOT/src for a few value calls told apart.)
var ArityCounted = map[string]bool{"java": true, "csharp": true}

// PackCall packs a call's form and arity into one integer, the store's
// plain column: the form in the low byte, the arity above it. Older
// indexes hold the form alone, which unpacks with no arity.
func PackCall(f CallForm, a Arity) int64 { return int64(f) | int64(a)<<8 }

// UnpackCall is the inverse of PackCall.
func UnpackCall(v int64) (CallForm, Arity) { return CallForm(v & 0xff), Arity(v >> 8 & 0xff) }
