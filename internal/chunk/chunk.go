// Package chunk turns one source file into retrieval units (chunks) and the
// code relations found in the same parse.
//
// Chunk kinds follow the seed (PaiCLI CodeChunker): a "class" chunk holds at
// most the first 6 lines of a class-like declaration (its full range is kept
// in DeclEndLine), a "method" or "function" chunk holds a whole body, and a
// "text" chunk is a run of whole lines of about 2000 characters used for files
// without a grammar or whose parse is unreliable.
package chunk

// Kinds of chunk, as stored in code_chunks.chunk_type.
const (
	KindClass    = "class"
	KindMethod   = "method"
	KindFunction = "function"
	KindText     = "text"
)

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
	Type      string // KindClass, KindMethod, KindFunction or KindText
	Name      string // e.g. "Agent.run(String userInput)", "(*Server).Serve(l net.Listener)", "README.md#2"
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
}

// FileResult is everything extracted from one file by one parse.
type FileResult struct {
	Language  string
	Chunks    []Chunk
	Relations []Relation
	// Fallback is true when the file was chunked by lines (no grammar, or a
	// parse too broken for AST chunks).
	Fallback bool
	// ParseErrors counts ERROR/MISSING nodes seen in the tree (0 when no tree).
	ParseErrors int
}
