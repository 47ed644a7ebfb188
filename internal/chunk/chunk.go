// Package chunk turns one source file into retrieval units (chunks) and the
// code relations found in the same parse.
//
// Chunk kinds: a "class" chunk holds at
// most the first 6 lines of a class-like declaration (its full range is kept
// in DeclEndLine), an "impl" chunk the header of a Rust impl block up to its
// first member, a "method", "function" or "macro" chunk a whole body of at
// most maxDefLines lines (a longer one is split: the first part is the
// definition's chunk, with DeclEndLine its last line, and the others are
// text chunks named "Owner.name (part k of n)" with its owner), and a
// "text" chunk is a run of whole lines of about 2000 characters used for
// files without a grammar, for the gaps between definitions, and for the
// parts of long definitions.
//
// Chunking is driven by one tree-sitter query per language (queries/*.scm,
// capture names documented in spec.go); the Go code only resolves owners by
// byte-range nesting and applies the conventions below.
//
// Naming conventions:
//   - Methods are "Owner.name(params)" with modifiers, return type and throws
//     dropped and whitespace collapsed: "Agent.run(String userInput)". Owner
//     is the innermost class-like declaration (simple name), so inner classes
//     own their methods: "ThreadLocalMap.set(ThreadLocal<?> key, Object value)".
//   - Go methods take the receiver type without '*' or type parameters:
//     "Server.Serve(l net.Listener)", "List.Push(v T)"; C++ "Foo::bar"
//     definitions take Foo; a Rust impl block is an impl chunk named
//     "Trait for Type" (or "Type") whose functions read "Store.new()";
//     macro_rules! json is a macro chunk "json!".
//   - Class chunks of nested classes are named by their path: "Outer.Inner".
//   - Functions nested in functions, lambdas and methods of anonymous classes
//     stay inside the enclosing chunk; Kotlin companion objects are not owners.
//     In JavaScript and TypeScript a definition of at least 3 lines nested
//     in a function is a chunk of its own, without the function as owner
//     (a closure is lexically scoped); members of an object bound to a
//     name take that owner ("fastify.get(url, options, handler)"), and
//     getters and setters are named "Request.contentType (get)".
//   - Decorators, annotations, attributes and touching comments belong to the
//     following definition; its chunk starts at the first of them and Doc
//     holds the comment text (or the Python docstring) without markers.
//   - Go top-level const/var declarations become text chunks named after
//     their first identifier; package clauses and imports (all languages with
//     an import statement) are deliberately not chunked.
//   - Remaining regions with at least 3 lines holding a letter or digit
//     (fields, top-level statements, comment blocks) become text chunks named
//     "path#N", owned by the class around them; a leading license comment is
//     skipped. When the tree has errors every such region is kept. A file
//     that yields no chunk at all is text-chunked whole.
//   - Text chunks of files without a grammar are named "path#N"; Markdown is
//     split at headings and named after them.
//
// Relations: imports (From = file path; standard libraries filtered),
// extends/implements (From = class chunk name), contains (class -> method or
// nested class chunk name), calls (From = "Owner.method" or "function" of the
// innermost enclosing function, else the class or file path; To = the callee
// as written, bare for method calls, "pkg.Func" for Go/Python calls on an
// imported package, "Type::fn" for Rust/C++ paths). Relations are
// deduplicated per (kind, From, To) and capped at 20000 per file.
package chunk

import "github.com/coderag/coderag/internal/lang"

// Kinds of chunk, as stored in code_chunks.chunk_type.
const (
	KindClass    = "class"
	KindMethod   = "method"
	KindFunction = "function"
	KindText     = "text"
	// KindImpl is a Rust impl block, named "Trait for Type" or "Type"
	// after its header; it names no symbol (the type's own definition
	// does), and its functions are methods of Type.
	KindImpl = "impl"
	// KindMacro is a macro definition (Rust macro_rules!), named "name!".
	KindMacro = "macro"
)

// Reasons a file falls back to text chunks (FileResult.FallbackReason).
const (
	ReasonNoParser   = "no parser for the language"
	ReasonMinified   = "minified or generated (long lines)"
	ReasonTimeout    = "parse timed out"
	ReasonErrors     = "syntax errors over 30% of the file"
	ReasonParseError = "parser failed"
)

// HasParser reports whether files of a lang.Detect language are chunked
// into definitions (by a tree-sitter grammar or a definition scanner).
func HasParser(language string) bool {
	return langTable[language] != nil || scanSpecs[language] != nil
}

// Relation kinds, as stored in code_relations.relation_type.
const (
	RelImports    = "imports"
	RelExtends    = "extends"
	RelImplements = "implements"
	RelContains   = "contains"
	RelCalls      = "calls"
)

// Chunk is one retrieval unit of a file. Lines are 1-based and inclusive;
// bytes are 0-based offsets into the file as read from disk (EndByte
// exclusive).
type Chunk struct {
	Path      string // root-relative, '/' separated
	Language  string // e.g. "go", "java", "python", "text", "markdown"
	Type      string // KindClass, KindMethod, KindFunction, KindText, KindImpl or KindMacro
	Name      string // e.g. "Agent.run(String userInput)", "Server.Serve(l net.Listener)", "README.md#2"
	Owner     string // innermost owning type, "" for top-level functions
	Signature string // signature without modifiers/return type, "" for class and text chunks
	Doc       string // doc comment text, trimmed; "" if none
	StartLine int
	EndLine   int
	// DeclEndLine is the last line of the whole declaration for class chunks
	// (whose Content is cut to 6 lines); equal to EndLine otherwise.
	DeclEndLine int
	StartByte   int
	EndByte     int
	Content     string // the chunk's source text, '\r' removed
}

// Relation is one edge of the code graph. From and To are names: for calls,
// From is "Owner.method" (or "method" for a top-level function) of the
// innermost enclosing function and To is the callee name as written (bare
// "findById" or qualified "pkg.Func"); for contains, From is the class and To
// is "Class.method"; for imports, From is the file's main type or the file
// path and To the imported package/module.
type Relation struct {
	Path string // root-relative file the relation was found in
	From string
	To   string
	Kind string // RelImports, RelExtends, RelImplements, RelContains, RelCalls
	Line int    // 1-based line where the relation occurs
	// Form is how a call is written (lang.CallPlain, CallSelf, CallValue;
	// lang.CallBare for every other call and relation).
	Form lang.CallForm
	// Args is how many arguments a call passes (lang.ArityCounted
	// languages; zero, not counted, for other relations).
	Args lang.Arity
}

// FileResult is everything extracted from one file by one parse.
type FileResult struct {
	Language  string
	Chunks    []Chunk
	Relations []Relation
	// Fallback is true when the file was chunked by lines (no grammar, or a
	// parse too broken for AST chunks).
	Fallback bool
	// FallbackReason says why a file of a language coderag parses was
	// chunked by lines (one of the Reason* constants); "" when Fallback is
	// false or the language has no parser at all (ReasonNoParser is then
	// reported by callers that want it).
	FallbackReason string
	// ParseErrors counts ERROR/MISSING nodes seen in the tree (0 when no tree).
	ParseErrors int
}
