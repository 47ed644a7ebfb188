// Package index is the indexing pipeline: walk -> diff against the stored
// fingerprints -> parse changed files with N workers -> batch chunks for the
// embedder -> replace each batch's files in one transaction.
//
// Change detection follows git's index: a file whose size and mtime equal the
// stored ones, and whose mtime is older than the moment its fingerprint was
// written by more than a second, is unchanged without being read. A file
// modified within that second is "racy" and is hashed again (SHA-256), so a
// same-size edit within the same second is still caught on the next run.
// The fingerprint includes the embedder id: changing provider or model
// re-embeds every file.
//
// The walk itself is spared the same way (walk.List): the tree listing
// of the last walk is stored, and only directories whose stamp changed
// since are read again; an unchanged tree costs one lstat per directory and
// per file, as `git status` does with its untracked cache.
//
// Beside a local index, the fingerprints are also kept in one file read in
// one go (snapshot.go), as git keeps its index, and used while the store's
// fingerprint key says no write of them happened since; the tree listing
// is kept in a file there too. A run that writes nothing keeps them.
//
// Crash safety: deletions, and every batch of changed files, are committed in
// single transactions; a file's fingerprint is written in the same transaction
// as its rows. A killed run leaves each file fully old or fully new, and the
// next run redoes what is missing.
package index

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/walk"
)

// Options tune a run.
type Options struct {
	// Threads is the number of parse workers (default 4; the CLI passes
	// config.DefaultIndexThreads unless told otherwise); at most
	// Threads*(1+parsedPerWorker) files, and at most WindowBytes bytes of
	// them, are in flight at once (read and parsed, not yet handed to the
	// writer).
	Threads int
	// WindowBytes bounds the bytes of the files in flight (default 32
	// MiB; a larger file is in flight alone), so memory does not grow
	// with the size of the files.
	WindowBytes int64
	// ProbeTimeout bounds the wait for a remote embedder's answer to the
	// model probe (see probe.go; default 15 s): the probe is a check, not
	// work, and a no-change run must not wait out a hanging server's
	// 2-minute read timeout for it.
	ProbeTimeout time.Duration
	// BatchSize is the number of chunks gathered (across files) before they
	// are embedded in one call (default 32). Embedded files are written in
	// transactions of about WriteChunks chunks or WriteBytes bytes of
	// chunk text, whichever comes first.
	BatchSize int
	// WriteChunks and WriteBytes bound one write transaction (defaults
	// 1024 chunks, 4 MiB of chunk text): fewer, larger transactions write
	// each page of the index fewer times and build larger full-text
	// segments, while a search during the run still sees files appear and
	// the rows waiting for their transaction stay a few MiB (the write
	// path's CPU on tokio was the same within noise from 512 to 100,000
	// chunks per transaction: BenchmarkWriteRoot).
	WriteChunks int
	WriteBytes  int
	// Progress, if set, is called after each file is processed (from one
	// goroutine at a time).
	Progress func(Progress)
	// Paths, if set, limits the run to these root-relative files (for
	// --watch); files in Paths that no longer exist are removed.
	Paths []string
	// OnWait, if set, is called once with a one-line message when another
	// process is indexing the same project and this run waits for it.
	OnWait func(msg string)
	// AllowSecrets indexes files whose names look like secrets
	// (walk.SecretName); without it they are withheld: skips with
	// walk.ReasonSecret, counted in the run record (store.RunState.Withheld),
	// and rows indexed from them earlier are removed.
	AllowSecrets bool
}

// Progress is a snapshot of a running index.
type Progress struct {
	Phase   string // "scan", "index", "done"
	Done    int    // changed files processed so far
	Total   int    // changed files to process
	Scanned int
	Elapsed time.Duration
}

// Failure is a file that could not be indexed; it keeps its previous rows
// and fingerprint and is retried on the next run.
type Failure struct {
	Path string `json:"path"`
	Err  string `json:"error"`
}

// Report summarises a run. Its JSON form (`index --json`) names the
// project's absolute root "root" and the run's wall time "duration_ms".
type Report struct {
	Project   string `json:"root"` // absolute, symlink-resolved project root
	Embedder  string `json:"embedder"`
	Scanned   int    `json:"scanned"`
	Changed   int    `json:"changed"`
	Unchanged int    `json:"unchanged"`
	// Touched counts the unchanged files read again whose content (sha256)
	// was found the same: their size or modification time differed from
	// their fingerprint (a touch, a checkout of the same bytes) or their
	// time was too recent to trust. The progress lines count them among
	// the files to index; Unchanged holds them too.
	Touched int `json:"touched,omitempty"`
	Removed int `json:"removed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	// Reread counts the files parsed again though they did not change,
	// because a file of their directory did and their parse reads it: Go
	// files whose package's declarations changed, .h files whose
	// directory's C++ sources came or went (dirstate.go). Changed counts
	// them too.
	Reread int `json:"reread,omitempty"`
	// Reanalysed counts the changed files re-embedded only because the
	// text analysis their Chinese text was embedded with is not the
	// embedder's now (CC-CEDICT installed or removed, another glossary;
	// see fileIDs): their bytes did not change.
	Reanalysed int `json:"reanalysed,omitempty"`
	// Reused counts the chunks of changed files given the vector stored
	// for the same text instead of being embedded again (remote embedders
	// only; collector.reusable).
	Reused int `json:"reused,omitempty"`
	// ModelChanged says that the remote server answered the probe text
	// (ProbeText) differently than when the project was indexed: the model
	// behind the embedder's name was replaced, and every file is embedded
	// again (ModelChangedNote says it in words).
	ModelChanged bool        `json:"model_changed,omitempty"`
	Chunks       int         `json:"chunks"`    // chunks written this run
	Relations    int         `json:"relations"` // relations written this run
	Failures     []Failure   `json:"failures,omitempty"`
	Skips        []walk.Skip `json:"skips,omitempty"`
	// Fallbacks lists the files parsed this run that were chunked by lines
	// instead of definitions, with the reason.
	Fallbacks []Fallback `json:"fallbacks,omitempty"`
	// Unindexed counts, for a full walk, the files no language claims, by
	// extension (see walk.Options.Unindexed); nil after a partial run.
	Unindexed map[string]int `json:"unindexed_extensions,omitempty"`
	// Elapsed is the run's wall time, from when it held root's lock;
	// DurationMS is the same in whole milliseconds, the form JSON carries.
	Elapsed    time.Duration `json:"-"`
	DurationMS int64         `json:"duration_ms"`
	// Waited is how long the run waited for another process's run of the
	// same root to end before it began (0 when Options.OnWait was not
	// called); WaitedMS the same in milliseconds, omitted when 0.
	Waited   time.Duration `json:"-"`
	WaitedMS int64         `json:"waited_ms,omitempty"`
}

// racyWindow is the mtime granularity assumed by the stat fast path.
const racyWindow = int64(time.Second)

// AnalysisVersion is the version of chunking and term analysis (packages
// chunk and analyze) that index rows are made with. Bump it when the same
// bytes would give other chunks or other full-text terms: every file
// indexed with another version is then re-parsed on the next run even
// though its content and embedder are unchanged.
//
//	1: first release
//	2: stems lose a final double consonant ("sniff"/"sniffing" -> snif,
//	   "add"/"added" -> ad)
//	3: Go calls on the method's own receiver are marked (lang.CallSelf)
//	4: calls on another value are marked (lang.CallValue); CallSelf also
//	   for Python, JavaScript, TypeScript and Kotlin
//	5: JavaScript/TypeScript methods assigned to an object
//	   (res.send = function ..., Layer.prototype.match = ...) are chunks;
//	   "new Foo(...)" is a call of Foo (Java, JS, TS, C#, PHP)
//	6: JavaScript/TypeScript consts bound to a call whose last argument is
//	   a function (const h = wrap((req, res) => ...)) are function chunks
//	7: Zig, Swift, Lua, Elixir, Haskell, Julia and R chunked by definition
//	   scanners;
//	   Rust items inside item macros (cfg_rt! { ... }) are chunks; .inc,
//	   .bzl and other extensions are indexed; TS overloads fold into their
//	   implementation, type aliases are text chunks named after the alias;
//	   JS consts bound to a conditional of functions are function chunks
//	8: the local embedder's features of Chinese text are the terms of the
//	   query-side Chinese analysis (segmentation, glossary, CC-CEDICT)
//	   instead of glossary look-ups of every substring
//	9: Go calls on values whose receiver type is read from declarations
//	   are stored typed ("T.m", "pkg.T.m"; chunk.goTypes)
//	10: Rust `pub use` re-exports stay in their module's text chunk
//	11: Rust calls inside macro arguments (tri!(f(x)), vec![g(y)]) are
//	    calls; Rust method calls are marked Self/Value; Go package
//	    declarations are read in file order (index is a function of the
//	    tree, #25 item 12);
//	    definitions over 100 lines are split into parts ("f (part 2 of
//	    3)"); JS/TS functions nested in functions, object members and
//	    accessors ("Request.contentType (get)") are chunks; class heads
//	    stop before their first member; Rust impl blocks are of kind impl
//	    ("Trait for Type"), macro_rules! of kind macro;
//	    a file with Han text records the identity of the Chinese
//	    translation data beside its embedder id (fileIDs), so files
//	    embedded before, with unknown data, are embedded again once
//	12: C and C++ macro annotations are blanked for a second parse
//	    (FMT_API, FMT_CONSTEXPR20 void); a class whose errors lie in a few
//	    members keeps its head; Scala vals and vars of classes and objects
//	    are definitions; the keyword body of a split definition's first
//	    part is the whole definition (isSplitHead);
//	13: a word mixing ASCII and other non-Han letters ("naïve", "größe")
//	    is one term, not split at the first non-ASCII letter (analyze.Terms)
//	14: an uncovered run of one or two significant lines (a section
//	    comment, a one-line var, a struct's last fields) joins the chunk
//	    next to it instead of being left out (chunk.joinGap)
//	15: a doc comment of one or two lines with no chunk beside it (a module
//	    docstring, a package comment next to the imports) is a text chunk
//	    (chunk.prose); a licence header ends before the first line of code
//	    and spans its whole block comment
//	16: the segmenter's HMM joins no edge particle (时, 在) to a
//	    neighbour: 上限时新提交 is 上限/时/新/提交, not 上限/时新/提交
//	17: a JavaScript or TypeScript object key whose value is an array of
//	    one function is that function, a member as a function-valued key
//	    is (transformRequest: [function transformRequest(data) {...}])
//	18: in JavaScript and TypeScript, a chained assignment's function is a
//	    definition named by its inner target (req.get = req.header =
//	    function header() {...})
//	19: a documentation block ("/** ... */", not a licence) documents the
//	    declaration after it across one blank line (chunk.blockDoc)
//	20: Ruby calls on a receiver are marked Self or Value (@queue.pop is
//	    a guess, no longer an exact call of the project's pop), a call on
//	    a constant names its class (Foo.new calls Foo, A::Foo.bar Foo.bar);
//	    a block comment whose paragraphs blank lines part from its "/*" is
//	    a text chunk (chunk.blockSpan); a tie between two segmentations of
//	    Chinese text goes to the longer first word whatever the
//	    dictionary's total (analyze.segmentTie); a signature drops the
//	    trailing comma of a parameter list written one a line
//	21: the clauses of an Elixir function are one definition
//	    (chunk.exMergeClauses); Elixir calls on a module and Lua calls
//	    through a required module or the file's own module table are
//	    stored as "Module.name", not as guesses on a value
//	    (chunk.exModuleCalls, chunk.luaModuleCalls); calls inside an
//	    Elixir type attribute are dropped; "key: f(x)" is no call on key
//	22: a Kotlin primary constructor on the line after its class header
//	    keeps the class (chunk.joinKotlinConstructors); a Haskell
//	    equation written infix defines its operator (chunk.hsInfixDef);
//	    Haskell calls of imported and qualified names are stored as
//	    "Module.name" (chunk.hsImports)
//	23: Swift's "#if os(iOS)" and "#elseif canImport(X)" are no calls
//	24: calls inside a Swift string's \( ... ) are calls
//	25: in the scanned languages a banner comment ("-----") above a
//	    definition's doc comment is not part of its chunk
//	    (chunk.separatorLine)
//	26: a Scala def's indented body ends with its code (chunk.codeEnd);
//	    Java, C# and Scala calls on a capitalised name are stored as
//	    "Class.method" (chunk.staticReceivers)
//	27: Zig calls through a file imported by name are "Stem.name"; a call
//	    on self is a call on the own receiver in Zig, Swift and Lua
//	28: a C or C++ macro between a parameter list and the body, an
//	    initialiser list or a trailing specifier (Foo() RAPIDJSON_NOEXCEPT
//	    { ... }) is masked like other annotations (chunk.maskCMacros); a
//	    .h file with a C++ cast or a const member function is C++
//	    (lang.HeaderLanguage)
//	29: Java, C# and Go calls carry how many arguments they pass
//	    (chunk.Relation.Args), and calls of one name with different
//	    counts are separate relations
//	30: a JavaScript or TypeScript function assigned to a plain variable
//	    (camelize = function(str) {...}) is a definition; a Java, C# or
//	    Scala call of a platform method (x.toString(), map.put(k, v)) on a
//	    value is stored as a call on a value (chunk.platformMethods)
//	32: a Python call on a name its function annotates with a class is
//	    stored typed, "T.m" (chunk.pyTypes); a Go call through a
//	    func-typed field of a package type is typed "T.f" (chunk.goTypes)
//	34: Go calls no longer carry their argument count (no overloads; one
//	    relation per callee again)
//	35: a Java or C# call on a name or this-field whose declaration names
//	    a class is stored typed, "T.m" (chunk.declaredTypes)
//	36: a Ruby new(...) or self.new(...) in a class's methods is a call of
//	    that class (its constructor), as Foo.new is
//	37: a Swift type after an attribute line is one unit, and Swift's
//	    inheritance clauses give extends and implements relations
//	38: a Kotlin call on a capitalised name is a call of that object's or
//	    class's method, "Obj.m"
//	40: a Kotlin property whose value is a lambda or an anonymous
//	    function is a unit
//	41: a Java or C# local declared var takes the class its initialiser
//	    creates or casts to (var x = new Foo(), var x = (Foo)o)
//	42: a multi-paragraph Elixir @doc or Julia docstring stays with its
//	    definition; Lua file-level aliases are read; a C++ call on a value
//	    is typed by its receiver's declaration (declaredTypes) or, for a
//	    standard container's method, stored as a call on a value
//	43: overloads that share a caller name keep their own calls (one
//	    relation per overload and callee)
//	44: a C or C++ function head split over #if branches, its body after
//	    #endif, is parsed with one branch (chunk.pruneCBranches)
//	45: PHP calls carry their receiver ($this, a typed value, parent::,
//	    self::, a class) and super.m() is stored as "super::m"
//	46: a Scala class whose body the grammar read as a block of its own
//	    keeps its members; Scala methods named by operators are units
//	47: a PHP class imported under another name (use X as Y) is called
//	    as X
//	48: a definition nested deeper than 24 levels is its encloser's text
//	49: a C++ call through a namespace drops its template arguments
//	    (ns::swap_bytes<4> calls ns::swap_bytes)
//	50: a name a Python from-import binds (a module, a class) qualifies
//	    the calls through it (models.format_name(x), Schema.from_dict(d))
const AnalysisVersion = 50

// ResolveRoot is rootrule.Resolve: the absolute, symlink-resolved form of
// dir, the identity of a project.
func ResolveRoot(dir string) (string, error) { return rootrule.Resolve(dir) }

// CheckRoot applies rootrule.Check to root with the roots of the
// projects indexed in st: nil when root may be a project, else the
// refusal (wrapping rootrule.ErrRefused), or the error of reading the
// project list. An indexed root must also still be the directory that
// was indexed (rootrule.Unmoved, wrapping rootrule.ErrMoved): a watcher
// or a search's refresh re-indexing a root whose directory was swapped
// for a symlink would index the link's target under the old name. Run
// calls it first; front ends call it to refuse a directory before
// starting a run, and before serving a project.
func CheckRoot(ctx context.Context, st Store, root string) error {
	ps, err := st.Projects(ctx)
	if err != nil {
		return fmt.Errorf("list projects: %w", err)
	}
	indexed := make([]string, len(ps))
	for i, p := range ps {
		indexed[i] = p.Path
	}
	if err := rootrule.Check(root, indexed); err != nil {
		return err
	}
	if slices.Contains(indexed, root) {
		return rootrule.Unmoved(root)
	}
	return nil
}

type work struct {
	file    walk.File
	prev    *store.FileRecord
	sha     string
	content []byte
	res     *chunk.FileResult
	terms   []chunkTerms // full-text terms per chunk, computed on the worker
	skip    walk.Reason
	skipErr string // detail of a ReasonUnreadable skip
	err     error
	// gone: the file was deleted (or its directory) between the listing
	// and its read: removed, not failed
	gone bool
	same bool // hash equal to prev: only touch
	// reread: the same bytes as prev, parsed again because what its
	// parse reads beyond the file changed (Report.Reread)
	reread bool
	embID  string // the embedder id its fingerprint records (fileIDs.record)
	// reanalysed: the same bytes and analysis version as prev, re-embedded
	// only because prev names another text analysis (Report.Reanalysed)
	reanalysed bool
	// embedded: vecs (one per chunk of res) and embedErr come from the
	// worker (embedOnWorker, an embed.InProcess embedder); otherwise the
	// collector embeds the file in a batch
	embedded bool
	vecs     [][]float32
	embedErr error
}

// embedOnWorker embeds w's chunks with emb, an embed.InProcess embedder, on
// the parsing worker that prepared w, but for those prepare embedded from
// their terms already (termVector). A file that is skipped, unchanged or
// failed has nothing to embed.
func (w *work) embedOnWorker(ctx context.Context, emb embed.Embedder) {
	if w.res == nil || w.same || w.skip != "" || w.err != nil {
		return
	}
	if len(w.vecs) != len(w.res.Chunks) {
		w.vecs = make([][]float32, len(w.res.Chunks))
	}
	var texts []string
	var at []int
	for i, ch := range w.res.Chunks {
		if w.vecs[i] == nil {
			texts = append(texts, chunk.EmbedText(ch))
			at = append(at, i)
		}
	}
	w.embedded = true
	if len(texts) == 0 {
		return
	}
	vecs, err := emb.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("%d vectors for %d texts", len(vecs), len(texts))
	}
	if err != nil {
		w.embedErr = err
		return
	}
	for k, i := range at {
		w.vecs[i] = vecs[k]
	}
}

// termVector embeds ch from the terms of its text, for a TermEmbedder, and
// returns them with the terms of ch.Content (its full-text body): the text
// is analysed once for both. ok is false for a chunk whose embedding text
// (chunk.EmbedText) is not ASCII, which te must embed from the text.
// EmbedText is "[type:name] " and the content, cut at chunk's rune limit;
// when it is cut inside the content, the content is analysed in two parts
// split at a byte that is not part of a word at or before the cut (Terms
// reads words one by one, so the parts' terms are the whole's), and the
// embedding takes the first part and the words up to the cut.
func termVector(te embed.TermEmbedder, ch chunk.Chunk) (vec []float32, body []string, ok bool) {
	text := chunk.EmbedText(ch)
	head := "[" + ch.Type + ":" + ch.Name + "] "
	if !analyze.IsASCII(text) || !strings.HasPrefix(text, head) || len(text) > embed.MaxInputRunes {
		return nil, nil, false
	}
	cut := len(text) - len(head) // bytes of the content in the text
	content := ch.Content
	terms := analyze.Terms(nil, head)
	nhead := len(terms)
	if cut == len(content) {
		terms = analyze.Terms(terms, content)
		return te.EmbedTerms(terms), terms[nhead:], true
	}
	safe := cut
	for safe > 0 && analyze.IsWordByte(content[safe-1]) {
		safe--
	}
	terms = analyze.Terms(terms, content[:safe])
	first := len(terms)
	vec = te.EmbedTerms(analyze.Terms(terms, content[safe:cut]))
	body = analyze.Terms(append([]string(nil), terms[nhead:first]...), content[safe:])
	return vec, body, true
}

// termVectorOf is termVector for a chunk whose full-text body is body:
// only when te is set and body is the chunk's content (not a split
// definition's head, whose body is the whole definition).
func termVectorOf(te embed.TermEmbedder, ch chunk.Chunk, body string) ([]float32, []string, bool) {
	if te == nil || body != ch.Content {
		return nil, nil, false
	}
	return termVector(te, ch)
}

// Run indexes root (absolute, resolved) into st with emb and returns the
// report. Per-file failures are in the report, not the error; the error is
// for failures that stop the run (database, cancelled context, an embedder
// that fails for every file).
// A root that may not be a project (CheckRoot: rootrule's refusal) is
// refused before anything is read.
//
// The steps, in order: lock the project, probe the database while the
// scan (walk or stat the given paths) runs and the fingerprints load
// (and, with a remote embedder, embed the model probe: probe.go), diff
// (again, after retiring the vectors of a replaced model), remove what is gone, record the project, parse and embed and write
// the changed files (pipeline), then finish (fingerprints, project
// dimension, language statistics, run record, report) and, when no
// fingerprint was written, keep those read in the snapshot (snapshot.go).
func Run(ctx context.Context, st Store, emb embed.Embedder, root string, opts Options) (*Report, error) {
	r := &run{st: st, emb: emb, ids: newFileIDs(emb), root: root, opts: withDefaults(opts), start: time.Now(),
		rep: &Report{Project: root, Embedder: emb.ID()}, gopkgs: newGoPackages(nil), cpp: newCppDirs()}
	if err := CheckRoot(ctx, st, root); err != nil {
		return nil, err
	}
	waited, onWait := false, opts.OnWait
	if onWait != nil {
		onWait = func(msg string) { waited = true; opts.OnWait(msg) }
	}
	asked := time.Now()
	release, err := Lock(ctx, st, root, onWait)
	if err != nil {
		return nil, err
	}
	defer release()
	if waited {
		// the run is timed from here: waiting for another process's run
		// of root is not this one's work (Report.Waited)
		r.rep.Waited, r.start = time.Since(asked), time.Now()
	}
	// a remote embedder embeds the probe text meanwhile (probe.go)
	pending := r.startProbe(ctx)
	// a few milliseconds of reads at the root and ends of every table:
	// a damaged index must not report "0 changed" while search fails. It
	// runs beside the scan (a core is idle while one directory after the
	// other is looked at), and its verdict comes before the scan's.
	probed := make(chan error, 1)
	go func() { probed <- st.Probe(ctx) }()
	err = r.scan(ctx)
	if perr := <-probed; perr != nil {
		return nil, perr // store.Damaged: each front end says how to repair it
	}
	if err != nil {
		return nil, err
	}
	r.diff()
	if err := r.checkModel(ctx, pending); err != nil {
		return nil, err
	}
	gone := r.gone()
	if err := r.removeGone(ctx); err != nil {
		return nil, err
	}
	if err := r.recordStart(ctx); err != nil {
		return nil, err
	}
	c, err := r.pipeline(ctx)
	if err == nil {
		// the unchanged files whose parse reads what changed (dirstate.go)
		err = r.rereadDependents(ctx, c, gone)
	}
	if err != nil {
		// what was written stays: the states it was parsed with too, so a
		// resumed run does not parse it again (a short bound: the run's
		// context may be the one cancelled)
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = r.saveDirStates(sctx, false) // best effort: without them a directory counts as changed
		cancel()
		return r.rep, err
	}
	rep, err := r.finish(ctx, c)
	if err == nil {
		// a run that wrote no fingerprint keeps those it read (when they
		// came from the store) for the next run
		r.fps.saveSnapshot(ctx, r.st, r.root)
	}
	return rep, err
}

// run is the state of one Run, shared by its steps.
type run struct {
	st    Store
	emb   embed.Embedder
	ids   *fileIDs // the embedder id each file's fingerprint records
	root  string
	opts  Options
	start time.Time
	rep   *Report
	// serverDim is the dimension of the vectors the embedder returned
	// this run, 0 before the first (collector.serverDim)
	serverDim int

	fps   *fingerprints    // the stored fingerprints (snapshot.go)
	prevs map[string]int32 // index in fps.recs of each, by path
	files []walk.File      // candidates found by the scan
	skips []walk.Skip      // skips of the scan
	seen  []bool           // by index in fps.recs: still present (or kept as unreadable)
	todo  []walk.File      // files whose stat differs from their fingerprint

	gopkgs *goPackages         // the Go packages the run's parses read
	cpp    *cppDirs            // the C++ evidence of the directories of .h files
	states map[string]dirState // recorded directory states, once read (dirstate.go)
	reread map[string]bool     // unchanged files parsed again for their directory (rereadDependents)
	// retried: the retry list the run read (dirstate.go), sorted
	retried []string

	prevProj   *store.Project
	newProject bool // no project row before this run
	switching  bool // the project's embedder is not emb, or its model was replaced (modelChanged)
	// modelChanged: another model answers under emb's id than the one
	// the project's vectors were made with (checkModel)
	modelChanged bool
	recordRun    bool // the run record is begun and ended by this run
	done         int  // changed files processed so far
}

// withDefaults fills the zero fields of opts.
func withDefaults(opts Options) Options {
	if opts.Threads < 1 {
		opts.Threads = 4
	}
	if opts.BatchSize < 1 {
		opts.BatchSize = 32
	}
	if opts.WindowBytes < 1 {
		opts.WindowBytes = 32 << 20
	}
	if opts.WriteChunks < 1 {
		opts.WriteChunks = 1024
	}
	if opts.WriteBytes < 1 {
		opts.WriteBytes = 4 << 20
	}
	return opts
}

// scan lists the candidate files (a walk of the tree, or a stat of
// opts.Paths) while the stored fingerprints load: one is file-system
// bound, the other SQLite bound, so they overlap.
func (r *run) scan(ctx context.Context) error {
	var prevErr error
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		r.fps, prevErr = loadFingerprints(ctx, r.st, r.root, true)
		if prevErr == nil {
			r.prevs = r.fps.byPath()
		}
	}()
	var err error
	if r.opts.Paths != nil {
		r.files, r.skips = walk.Stat(r.root, r.opts.Paths, walk.Options{AllowSecrets: r.opts.AllowSecrets})
	} else {
		r.rep.Unindexed = map[string]int{}
		r.files, r.skips, _, err = listTree(ctx, r.st, r.root, walk.Options{Unindexed: r.rep.Unindexed, AllowSecrets: r.opts.AllowSecrets}, false)
	}
	<-loaded
	if prevErr != nil {
		return fmt.Errorf("read fingerprints: %w", prevErr)
	}
	if err != nil {
		return fmt.Errorf("scan %s: %w", r.root, err)
	}
	r.rep.Scanned = len(r.files)
	return nil
}

// diff splits the scanned files into unchanged ones (counted) and todo, and
// marks which stored paths are still present. Files under a directory (or
// a file) that could not be read are kept as they are: unreadable is not
// deleted.
func (r *run) diff() {
	r.seen = make([]bool, len(r.fps.recs))
	for _, f := range r.files {
		i, ok := r.prevs[f.Path]
		if ok {
			r.seen[i] = true
		}
		if ok && unchanged(r.fps.recs[i], f, r.ids) {
			r.rep.Unchanged++
			continue
		}
		r.todo = append(r.todo, f)
	}
	for _, sk := range r.skips {
		if sk.Reason != walk.ReasonUnreadable {
			continue
		}
		for i, q := range r.fps.recs {
			if q.Path == sk.Path || strings.HasPrefix(q.Path, sk.Path+"/") {
				r.seen[i] = true
			}
		}
	}
}

// gone returns the stored paths that left the scan (deleted, now ignored,
// too large, symlink), sorted; for a run over opts.Paths, only those at or
// under one of the paths (a path may be a deleted directory).
func (r *run) gone() []string {
	var remove []string
	if r.opts.Paths != nil {
		for _, p := range r.opts.Paths {
			for i, q := range r.fps.recs {
				if !r.seen[i] && (q.Path == p || strings.HasPrefix(q.Path, p+"/")) {
					remove = append(remove, q.Path)
				}
			}
		}
		remove = dedupe(remove)
	} else {
		for i, q := range r.fps.recs {
			if !r.seen[i] {
				remove = append(remove, q.Path)
			}
		}
	}
	sort.Strings(remove)
	return remove
}

// removeGone deletes the rows of the files gone from the scan in one
// transaction.
func (r *run) removeGone(ctx context.Context) error {
	remove := r.gone()
	if len(remove) > 0 {
		if err := r.st.ReplaceFiles(ctx, r.root, nil, remove); err != nil {
			return fmt.Errorf("remove deleted files: %w", err)
		}
	}
	r.rep.Removed = len(remove)
	return nil
}

// recordStart writes the project row of a new project and begins the run
// record.
//
// The project row names the embedder queries must use. A new project gets
// it now, so a partial first run is searchable; a project switching
// embedders keeps its old one until a run re-embeds every file without a
// failure, so a failed switch (server down) never breaks search.
//
// The run record says the project is incomplete until the run ends, so a
// search meanwhile (or after a crash) can say so; a switching run marks it
// mixed (store.RunState.Mixed) until a run ends with every vector of the
// project's embedder, so a search meanwhile says which files it ranks by
// keywords alone. A --watch update of a few paths leaves the record as it
// is.
func (r *run) recordStart(ctx context.Context) error {
	prevProj, perr := r.st.GetProject(ctx, r.root)
	r.prevProj = prevProj
	r.newProject = perr != nil
	r.switching = !r.newProject && (prevProj.Embedder != r.emb.ID() || r.modelChanged)
	if r.newProject {
		if err := r.st.PutProject(ctx, store.Project{Path: r.root, Embedder: r.emb.ID(), Dim: r.emb.Dim()}); err != nil {
			return fmt.Errorf("record project: %w", err)
		}
	}
	r.recordRun = r.opts.Paths == nil && len(r.todo) > 0
	if r.recordRun {
		if err := r.st.BeginRun(ctx, r.root, len(r.files), r.switching); err != nil {
			return err
		}
	}
	return nil
}

// trimEvery is how often an index run gives the C heap's free pages back
// (chunk.TrimCHeap) while it parses. On GOROOT/src that took the peak RSS
// from 387 to 326 MiB for 1.04x the CPU (medians of 4, alternating); a run
// shorter than trimEvery never trims.
const trimEvery = time.Second

// pipeline parses the todo files with opts.Threads workers in a bounded
// window and hands them, in one goroutine, to a collector that embeds and
// writes them in batches. Files are opened through the root
// (walk.OpenRegular), so a file swapped since the walk for a FIFO or a
// symlink out is not read.
func (r *run) pipeline(ctx context.Context) (*collector, error) {
	if len(r.todo) == 0 {
		// nothing to read: no root to open, no workers to start
		return r.newCollector(ctx), nil
	}
	rt, err := os.OpenRoot(r.root)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", r.root, err)
	}
	defer rt.Close()
	in := make(chan walk.File)
	out := make(chan *work, r.opts.Threads*parsedPerWorker)
	g, gctx := errgroup.WithContext(ctx)
	window := semaphore.NewWeighted(r.opts.WindowBytes)
	weight := func(f walk.File) int64 { return min(max(f.Size, 1), r.opts.WindowBytes) }
	g.Go(func() error {
		defer close(in)
		for _, f := range largestFirst(r.todo, r.opts.Threads) {
			if err := window.Acquire(gctx, weight(f)); err != nil {
				return err
			}
			select {
			case in <- f:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	var wg sync.WaitGroup
	gopkgs, cpp := r.gopkgs, r.cpp
	gopkgs.expect(r.todo)
	compress := r.st.CompressesContent()
	onWorker := embed.IsInProcess(r.emb)
	te, _ := r.emb.(embed.TermEmbedder)
	for i := 0; i < r.opts.Threads; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range in {
				var prev *store.FileRecord
				sha := ""
				if i, ok := r.prevs[f.Path]; ok {
					p := r.fps.recs[i]
					if sha = p.SHA256; r.reread[f.Path] {
						p.SHA256 = "" // parsed again, though its bytes may be the same
					}
					prev = &p
				}
				w := prepare(rt, f, prev, r.ids, gopkgs, cpp, compress, te)
				w.reread = r.reread[f.Path] && w.sha == sha && w.res != nil
				gopkgs.done(f.Abs)
				if onWorker {
					w.embedOnWorker(gctx, r.emb)
				}
				select {
				case out <- w:
				case <-gctx.Done():
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(out) }()
	// the C heap is trimmed every trimEvery while files are parsed: the
	// arenas of the parsing threads keep the pages of freed trees
	stopTrim := make(chan struct{})
	defer close(stopTrim)
	go func() {
		t := time.NewTicker(trimEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				chunk.TrimCHeap()
			case <-stopTrim:
				return
			}
		}
	}()

	c := r.newCollector(gctx)
	g.Go(func() error {
		err := func() error {
			for {
				var w *work
				var ok bool
				select {
				case w, ok = <-out:
				default:
					// no file is ready: the workers are parsing, so
					// write what is queued meanwhile (writeIdle)
					if err := c.writeIdle(); err != nil {
						return err
					}
					w, ok = <-out
				}
				if !ok {
					break
				}
				r.done++
				err := c.add(w)
				window.Release(weight(w.file))
				if err != nil {
					return err
				}
				r.progress("index", time.Since(r.start))
			}
			if err := c.flush(); err != nil {
				return err
			}
			return c.writeOut()
		}()
		if err != nil && ctx.Err() != nil {
			// cancelled: the files embedded and queued for a write
			// transaction are whole; write them, so that the next run
			// starts after them
			c.ctx = context.WithoutCancel(ctx)
			if werr := c.writeOut(); werr != nil {
				return errors.Join(err, werr)
			}
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return c, nil
}

// parsedPerWorker is how many parsed files per worker may wait for the
// collector. While the collector writes a transaction (about 1,024
// chunks, tens of ms), the workers go on parsing into this queue; with 4
// per worker it filled before the write ended and the workers stopped,
// leaving a core idle: laravel-framework's index took 1.55 of the 2 cores.
// 12 per worker (bench/PROFILE.md, session 23): laravel 0.93x the wall
// time, tokio and zod 0.96x, abseil-cpp level, the CPU time the same, peak
// memory 1-4 MiB more (the bytes in flight stay bounded by WindowBytes).
const parsedPerWorker = 12

// largestFirst returns the files in the order the workers take them: the
// files that are each at least 1/(8·threads) of all the bytes to read (at
// most 4·threads of them), largest first, then the others in walk order.
// A file that large parses for a good part of the run on one worker; met
// last, it kept one core busy after the others had finished (zls/src's
// 280 KB analysis.zig, Dapper's 214 KB SqlMapper.cs). A large tree has no
// such file and keeps its walk order, which keeps a directory's files, and
// the Go package declarations they share (goPackages), together.
func largestFirst(todo []walk.File, threads int) []walk.File {
	var total int64
	for _, f := range todo {
		total += f.Size
	}
	var big []int
	for i, f := range todo {
		if f.Size*8*int64(threads) >= total && f.Size > 0 {
			big = append(big, i)
		}
	}
	if len(big) == 0 {
		return todo
	}
	slices.SortStableFunc(big, func(a, b int) int { return cmp.Compare(todo[b].Size, todo[a].Size) })
	big = big[:min(len(big), 4*threads)]
	out := make([]walk.File, 0, len(todo))
	first := make([]bool, len(todo))
	for _, i := range big {
		out = append(out, todo[i])
		first[i] = true
	}
	for i, f := range todo {
		if !first[i] {
			out = append(out, f)
		}
	}
	return out
}

// newCollector returns the collector of the run's changed files, its
// writes done under ctx.
func (r *run) newCollector(ctx context.Context) *collector {
	return &collector{ctx: ctx, st: r.st, emb: r.emb, root: r.root, rep: r.rep, batch: r.opts.BatchSize,
		writeChunks: r.opts.WriteChunks, writeBytes: r.opts.WriteBytes, serverDim: &r.serverDim}
}

// progress calls opts.Progress, if set, with the run's counts.
func (r *run) progress(phase string, elapsed time.Duration) {
	if r.opts.Progress != nil {
		r.opts.Progress(Progress{Phase: phase, Done: r.done, Total: len(r.todo), Scanned: r.rep.Scanned, Elapsed: elapsed})
	}
}

// finish writes what the pipeline left (fingerprints of files whose
// content was unchanged, the project's embedder and dimension, language
// statistics, the end of the run record) and completes the report. A run
// in which every changed file failed (more than one) is an error.
func (r *run) finish(ctx context.Context, c *collector) (*Report, error) {
	rep := r.rep
	if err := r.st.TouchFiles(ctx, r.root, c.touch); err != nil {
		return rep, fmt.Errorf("update fingerprints: %w", err)
	}
	d := max(r.emb.Dim(), c.dim)
	switch {
	case r.switching && len(rep.Failures) == 0,
		!r.switching && d > 0 && (r.newProject || r.prevProj.Dim != d),
		// the project's rows changed: its updated_at says when
		!r.switching && !r.newProject && r.prevProj != nil && rep.Changed+rep.Removed > 0:
		if !r.switching && d == 0 {
			d = r.prevProj.Dim
		}
		if err := r.st.PutProject(ctx, store.Project{Path: r.root, Embedder: r.emb.ID(), Dim: d}); err != nil {
			return rep, fmt.Errorf("record project: %w", err)
		}
	}
	if r.switching && len(rep.Failures) == 0 {
		// every vector of the project was replaced (by vectors of another
		// size, as a rule): hand the freed space back (on SQLite an
		// incremental vacuum on any index since schema 5). Best effort: a
		// failure leaves a valid, larger file, and the pages are reused by
		// later writes anyway.
		r.st.Reclaim(ctx)
	}
	if err := saveLangStats(ctx, r.st, r.root, c.parsed, rep.Fallbacks, rep.Unindexed, rep.Removed > 0); err != nil {
		return rep, err
	}
	if err := r.saveDirStates(ctx, true); err != nil {
		return rep, err
	}
	rep.Skips = append(r.skips, c.skips...)
	rep.Skipped = len(rep.Skips)
	rep.Failed = len(rep.Failures)
	rep.Elapsed = time.Since(r.start)
	rep.DurationMS = rep.Elapsed.Milliseconds()
	rep.WaitedMS = rep.Waited.Milliseconds()
	if r.recordRun {
		skipped := make([]store.Skipped, len(rep.Skips))
		for i, sk := range rep.Skips {
			skipped[i] = store.Skipped{Path: sk.Path, Reason: string(sk.Reason), Err: sk.Err}
		}
		if err := r.st.EndRun(ctx, r.root, len(r.files)-len(c.skips), rep.Failed, rep.Changed+rep.Removed > 0, skipped...); err != nil {
			return rep, err
		}
	}
	r.progress("done", rep.Elapsed)
	if rep.Changed == 0 && rep.Failed > 0 && rep.Failed == len(r.todo)-len(c.touch)-len(c.skips) && rep.Failed > 1 {
		return rep, fmt.Errorf("every changed file failed (%d); first: %s: %s", rep.Failed, rep.Failures[0].Path, rep.Failures[0].Err)
	}
	return rep, nil
}

// prepare reads (through rt, the project root: regular files only, at most
// walk.MaxFileBytes), hashes and parses one file (runs on a worker); gopkgs
// gives a Go file its package's declarations, cpp a .h file the C++
// evidence of its directory; compress: the store keeps chunk text
// compressed, so the worker makes its stored form; te, when not nil, embeds
// the chunks whose terms it reads (termVector), the rest are left to
// work.embedOnWorker.
func prepare(rt *os.Root, f walk.File, prev *store.FileRecord, ids *fileIDs, gopkgs *goPackages, cpp *cppDirs, compress bool, te embed.TermEmbedder) *work {
	w := &work{file: f, prev: prev}
	data, cut, err := walk.ReadRegular(rt, filepath.FromSlash(f.Path), walk.MaxFileBytes)
	if errors.Is(err, fs.ErrPermission) {
		// not a failure to retry: a skip, until its permissions change
		w.skip, w.skipErr = walk.ReasonUnreadable, err.Error()
		return w
	}
	if errors.Is(err, fs.ErrNotExist) {
		w.gone = true
		return w
	}
	if err != nil {
		w.err = fmt.Errorf("read: %w", err)
		return w
	}
	if cut {
		w.skip = walk.ReasonTooLarge // grew past the cap since the walk
		return w
	}
	if walk.IsBinary(data) {
		w.skip = walk.ReasonBinary
		return w
	}
	sum := sha256.Sum256(data)
	w.sha = hex.EncodeToString(sum[:])
	if prev != nil && prev.SHA256 == w.sha && prev.Analysis == AnalysisVersion {
		if ids.current(prev.Embedder) {
			w.same = true
			return w
		}
		w.reanalysed = OtherAnalysis(prev.Embedder, ids.emb)
	}
	if !utf8.Valid(data) {
		data = []byte(strings.ToValidUTF8(string(data), "\uFFFD"))
	}
	w.content = data
	w.embID = ids.record(data)
	res, err := parseSafe(f.Path, data, chunk.Options{Go: gopkgs.get(f.Abs), CppHeader: cpp.header(f.Abs)})
	if err != nil {
		// parse failure: fall back to text chunks, never lose the file
		res = &chunk.FileResult{Language: "text", Chunks: chunk.TextChunks(f.Path, "text", data), Fallback: true,
			FallbackReason: chunk.ReasonParseError}
	}
	w.res = res
	pathTerms := analyze.Join(analyze.PathText(f.Path))
	w.terms = make([]chunkTerms, len(res.Chunks))
	var lineStarts []int
	for i, ch := range res.Chunks {
		body := ch.Content
		if isSplitHead(ch) {
			if lineStarts == nil {
				lineStarts = lineOffsets(data)
			}
			body = lineRange(data, lineStarts, ch.StartLine, ch.DeclEndLine)
		}
		var bodyText string
		if vec, terms, ok := termVectorOf(te, ch, body); ok {
			if w.vecs == nil {
				w.vecs = make([][]float32, len(res.Chunks))
			}
			w.vecs[i], bodyText = vec, strings.Join(terms, " ")
		} else {
			bodyText = analyze.Join(body)
		}
		w.terms[i] = chunkTerms{name: analyze.Join(symbolName(ch)), owner: analyze.Join(ch.Owner), path: pathTerms,
			doc: analyze.Join(ch.Doc), body: bodyText}
		// the stored text is compressed here, on the worker, not by the
		// one writer (a failure leaves it to the writer)
		if compress {
			w.terms[i].encoded, w.terms[i].encodedDoc, _ = store.EncodeChunkText(ch.Content, ch.Doc)
		}
	}
	return w
}

// isSplitHead reports the chunk of a definition split into parts
// (chunk.maxDefLines): a function, method or macro chunk whose
// declaration ends past its last line. Its keyword body is the whole
// definition, so BM25 scores it as it scored the definition before the
// split: a part is shorter than the definition, and BM25's length
// normalisation would otherwise favour the first part of a long
// orchestrator (findRunnable) over the small functions it calls
// (stealWork), though the part holds only a fragment of it. The chunk's
// text, vector and lines stay the part's.
func isSplitHead(ch chunk.Chunk) bool {
	switch ch.Type {
	case chunk.KindFunction, chunk.KindMethod, chunk.KindMacro:
		return ch.DeclEndLine > ch.EndLine
	}
	return false
}

// lineOffsets returns the byte offset of each line of data (line 1 at
// index 0).
func lineOffsets(data []byte) []int {
	offs := []int{0}
	for i, b := range data {
		if b == '\n' {
			offs = append(offs, i+1)
		}
	}
	return offs
}

// lineRange returns lines a..b (1-based, inclusive, clamped) of data.
func lineRange(data []byte, offs []int, a, b int) string {
	a, b = max(a, 1), min(b, len(offs))
	if a > b {
		return ""
	}
	end := len(data)
	if b < len(offs) {
		end = offs[b]
	}
	return string(data[offs[a-1]:end])
}

// chunkTerms is what a worker makes of one chunk for the writer: its
// full-text terms per column and its stored text.
type chunkTerms struct {
	name, owner, path, doc, body string
	encoded                      any    // the chunk text as stored (store.ChunkRow.Encoded)
	encodedDoc                   string // the doc comment as stored (store.ChunkRow.EncodedDoc)
}

// symbolName is the part of a chunk's name that names the symbol itself
// (chunk.Symbol.Name: "Server.Serve(l net.Listener)" -> "Serve",
// "Outer.Inner" -> "Inner"); text chunks named "path#N" have none, a
// Markdown section keeps its heading.
func symbolName(ch chunk.Chunk) string {
	n := ch.Name
	if ch.Type == chunk.KindText {
		if strings.Contains(n, "#") {
			return ""
		}
		return n
	}
	return chunk.ParseSymbol(ch.Type, n, ch.Owner).Name
}

// bigParseBytes is the size from which a file is a big parse: the process
// parses one big file at a time (bigParse). tree-sitter's tree of a file
// takes tens of times the file's bytes of C heap, and on GOROOT/src two
// workers parsing two of cmd/compile/internal/ssa's generated files (0.5-0.9
// MB each) at once made the C heap's peak.
const bigParseBytes = 256 << 10

// bigParse is held while a big file (bigParseBytes or more) is parsed.
var bigParse sync.Mutex

// parseSafe parses data as the file at path, a panic of the parser
// turned into an error; a big file waits for the big parse of another
// worker to end (bigParse).
func parseSafe(path string, data []byte, o chunk.Options) (res *chunk.FileResult, err error) {
	if len(data) >= bigParseBytes {
		bigParse.Lock()
		defer bigParse.Unlock()
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parse panic: %v", r)
		}
	}()
	return chunk.ParseWith(path, data, o)
}

type collector struct {
	ctx     context.Context
	st      Store
	emb     embed.Embedder
	root    string
	rep     *Report
	batch   int
	pending []*work
	nchunks int
	// written: files embedded and turned into rows, not yet written;
	// wchunks and wbytes their chunks and bytes of chunk text, against
	// the bounds writeChunks and writeBytes of one transaction
	written                 []store.FileData
	wchunks, wbytes         int
	writeChunks, writeBytes int
	touch                   []store.FileRecord
	skips                   []walk.Skip
	dim                     int
	// serverDim points to the dimension of the vectors the embedder
	// returned this run (0 before the first; run.serverDim, shared by the
	// run's two pipelines): stored vectors are kept only at that
	// dimension (checkKept)
	serverDim *int
	// reusedOf counts, by path, the chunks of a file built last with
	// stored vectors; writeOut adds those of the files it wrote to
	// Report.Reused
	reusedOf   map[string]int
	parsed     []string        // paths parsed this run
	changed    []string        // of those, the new ones and those whose bytes changed
	reanalysed map[string]bool // paths re-embedded for another text analysis (work.reanalysed)
	// embedded counts files written this run; failedRun counts the files
	// that failed to embed in a row before the first one was written.
	embedded, failedRun int
}

// maxFailedStart is how many files in a row may fail to embed, with none
// embedded yet, before the run stops: a server that fails for every input
// is down, even when each request holds too few inputs to tell.
const maxFailedStart = 16

// embedFailed records a file that could not be embedded, and stops the
// run when the embedder has failed for every file so far.
func (c *collector) embedFailed(path string, err error) error {
	c.rep.Failures = append(c.rep.Failures, Failure{Path: path, Err: err.Error()})
	if c.embedded == 0 {
		c.failedRun++
		if c.failedRun >= maxFailedStart {
			return fmt.Errorf("%w: each of the first %d files failed (last: %s: %w); the files written before are kept: run again when the embedder answers",
				errEmbedderFailing, c.failedRun, path, err)
		}
	}
	return nil
}

func (c *collector) add(w *work) error {
	switch {
	case w.err != nil:
		c.rep.Failures = append(c.rep.Failures, Failure{Path: w.file.Path, Err: w.err.Error()})
		return nil
	case w.gone:
		// deleted since the listing: as if the listing had missed it
		if w.prev != nil {
			if err := c.st.ReplaceFiles(c.ctx, c.root, nil, []string{w.file.Path}); err != nil {
				return err
			}
			c.rep.Removed++
		}
		return nil
	case w.skip != "":
		c.skips = append(c.skips, walk.Skip{Path: w.file.Path, Reason: w.skip, Err: w.skipErr})
		// became binary or too large: drop its old rows; unreadable: keep
		// them, as for an unreadable directory
		if w.prev != nil && w.skip != walk.ReasonUnreadable {
			if err := c.st.ReplaceFiles(c.ctx, c.root, nil, []string{w.file.Path}); err != nil {
				return err
			}
			c.rep.Removed++
		}
		return nil
	case w.same:
		c.rep.Unchanged++
		c.rep.Touched++
		c.touch = append(c.touch, store.FileRecord{Path: w.file.Path, Size: w.file.Size, MtimeNS: w.file.ModTime.UnixNano()})
		return nil
	}
	c.pending = append(c.pending, w)
	c.parsed = append(c.parsed, w.file.Path)
	if w.prev == nil || w.prev.SHA256 != w.sha {
		c.changed = append(c.changed, w.file.Path)
	}
	if w.reread {
		c.rep.Reread++
	}
	if w.reanalysed {
		if c.reanalysed == nil {
			c.reanalysed = map[string]bool{}
		}
		c.reanalysed[w.file.Path] = true
	}
	if w.res.Fallback && (w.res.FallbackReason != "" || chunk.HasParser(w.res.Language)) {
		reason := w.res.FallbackReason
		if reason == "" {
			reason = chunk.ReasonParseError
		}
		l := w.res.Language
		if l == "text" {
			l = lang.Detect(w.file.Path)
		}
		c.rep.Fallbacks = append(c.rep.Fallbacks, Fallback{Path: w.file.Path, Language: l, Reason: reason})
	}
	c.nchunks += len(w.res.Chunks)
	if c.nchunks >= c.batch {
		return c.flush()
	}
	return nil
}

func (c *collector) flush() error {
	if len(c.pending) == 0 {
		return nil
	}
	batch := c.pending
	c.pending, c.nchunks = nil, 0
	data, err := c.build(batch)
	if err != nil {
		if ctxErr := c.ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if errors.Is(err, errEmbedderFailing) {
			return err
		}
		if embed.Fatal(err) {
			// no other file would fare better: stop now instead of
			// retrying (and timing out) file by file
			return fmt.Errorf("%w; the files written before are kept: run again when the embedder answers", err)
		}
		// retry file by file; a file that still fails keeps its old rows
		for _, w := range batch {
			d, ferr := c.build([]*work{w})
			if ferr != nil {
				if ctxErr := c.ctx.Err(); ctxErr != nil {
					return ctxErr
				}
				if errors.Is(ferr, errEmbedderFailing) {
					return ferr
				}
				if embed.Fatal(ferr) {
					return fmt.Errorf("%w; the files written before are kept: run again when the embedder answers", ferr)
				}
				if err := c.embedFailed(w.file.Path, ferr); err != nil {
					return err
				}
				continue
			}
			if err := c.write(d); err != nil {
				return err
			}
		}
		return nil
	}
	return c.write(data)
}

// write queues the rows of embedded files and writes the queue in one
// transaction once it reaches the bounds of one (writeChunks,
// writeBytes).
func (c *collector) write(data []store.FileData) error {
	c.embedded += len(data)
	for _, d := range data {
		c.written = append(c.written, d)
		c.wchunks += len(d.Chunks)
		for _, ch := range d.Chunks {
			c.wbytes += len(ch.Content)
		}
	}
	if c.wchunks >= c.writeChunks || c.wbytes >= c.writeBytes {
		return c.writeOut()
	}
	return nil
}

// idleWriteChunks is the fewest queued chunks writeIdle writes: half a
// transaction (WriteChunks' default). At 256 the transactions of a large
// tree's run came often enough to cost 2-4% more CPU (laravel,
// drivers/net/ethernet/intel); at 512 its CPU is level and Dapper's,
// gson's and zls's index 0.92-0.95x the wall time.
const idleWriteChunks = 512

// writeIdle writes the queued rows, the files gathered for a batch
// included, when they hold at least idleWriteChunks chunks: the collector
// calls it when no parsed file is waiting, so the transaction runs while
// the workers parse, instead of after the last file (a small tree's rows
// were all written in one transaction at the end, with the other core
// idle).
func (c *collector) writeIdle() error {
	if c.wchunks+c.nchunks < idleWriteChunks {
		return nil
	}
	if err := c.flush(); err != nil {
		return err
	}
	return c.writeOut()
}

// writeOut writes the queued rows in one transaction.
func (c *collector) writeOut() error {
	data := c.written
	if len(data) == 0 {
		return nil
	}
	// the queue is cleared only once its transaction committed: a write
	// the cancelled context failed is tried again by the cancel path of
	// pipeline, with a context that is not cancelled
	if err := c.st.ReplaceFiles(c.ctx, c.root, data, nil); err != nil {
		if cerr := c.ctx.Err(); cerr != nil {
			// a cancelled transaction can fail with database/sql's own
			// "statement is closed" instead of the context's error
			return fmt.Errorf("write batch: %w", cerr)
		}
		return fmt.Errorf("write batch: %w", err)
	}
	c.written, c.wchunks, c.wbytes = nil, 0, 0
	for _, d := range data {
		c.rep.Changed++
		if c.reanalysed[d.Record.Path] {
			c.rep.Reanalysed++
		}
		c.rep.Reused += c.reusedOf[d.Record.Path]
		delete(c.reusedOf, d.Record.Path)
		c.rep.Chunks += len(d.Chunks)
		c.rep.Relations += len(d.Relations)
	}
	return nil
}

// build embeds the chunks of a batch of files (unless their workers did:
// work.embedOnWorker) and turns them into rows. A
// file with a chunk the embedder could not embed alone is recorded as failed
// (with the chunk's reason) and left out of the rows.
func (c *collector) build(batch []*work) ([]store.FileData, error) {
	var texts []string
	var textAt []int     // the position among vecs of each text's chunk
	var vecs [][]float32 // one per chunk of the batch, in batch order
	// the chunks given stored vectors (reusable): their positions and texts
	var keptAt []int
	var keptText []string
	onWorker := false
	for _, w := range batch {
		if w.embedded {
			// embedded on its worker (an in-process embedder, whose only
			// error is the context's)
			if w.embedErr != nil {
				return nil, fmt.Errorf("embed: %w", w.embedErr)
			}
			vecs = append(vecs, w.vecs...)
			onWorker = true
			continue
		}
		kept := c.reusable(w)
		reused := 0
		for _, ch := range w.res.Chunks {
			t := chunk.EmbedText(ch)
			if v, ok := kept[t]; ok {
				keptAt = append(keptAt, len(vecs))
				keptText = append(keptText, t)
				vecs = append(vecs, v)
				reused++
				continue
			}
			textAt = append(textAt, len(vecs))
			vecs = append(vecs, nil)
			texts = append(texts, t)
		}
		if c.reusedOf == nil {
			c.reusedOf = map[string]int{}
		}
		c.reusedOf[w.file.Path] = reused
	}
	failed := map[*work]error{} // files with a chunk the embedder refused
	if len(texts) > 0 && onWorker {
		return nil, errors.New("embed: a batch mixes files embedded on the workers with files to embed") // a bug
	}
	if len(texts) > 0 {
		got, err := c.emb.Embed(c.ctx, texts)
		var pe *embed.PartialError
		if errors.As(err, &pe) && len(got) == len(texts) {
			// some chunks failed alone: their files fail with the reason,
			// the other files of the batch are written
			bad := make(map[int]error, len(pe.Failed))
			for k, ferr := range pe.Failed {
				bad[textAt[k]] = ferr
			}
			k := 0
			for _, w := range batch {
				for range w.res.Chunks {
					if ferr, ok := bad[k]; ok && failed[w] == nil {
						failed[w] = fmt.Errorf("embed chunk %d of %d: %w", k-firstChunk(batch, w)+1, len(w.res.Chunks), ferr)
					}
					k++
				}
			}
			err = nil
		}
		if err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		if len(got) != len(texts) {
			return nil, fmt.Errorf("embed: %d vectors for %d texts", len(got), len(texts))
		}
		dim := c.dimNow()
		for k, v := range got {
			vecs[textAt[k]] = v
			if *dim == 0 && len(v) > 0 {
				*dim = len(v)
			}
		}
	}
	if err := c.checkKept(batch, vecs, keptAt, keptText); err != nil {
		return nil, err
	}
	for _, v := range vecs {
		if len(v) == 0 {
			continue
		}
		if c.dim == 0 {
			c.dim = len(v)
		} else if len(v) != c.dim {
			return nil, fmt.Errorf("embed: %w: got %d, want %d", errDim, len(v), c.dim)
		}
	}
	id := c.emb.ID()
	out := make([]store.FileData, 0, len(batch))
	k := 0
	for _, w := range batch {
		if ferr := failed[w]; ferr != nil {
			if err := c.embedFailed(w.file.Path, ferr); err != nil {
				return nil, err
			}
			k += len(w.res.Chunks)
			continue
		}
		d := store.FileData{
			Record: store.FileRecord{Path: w.file.Path, SHA256: w.sha, Embedder: w.embID, Analysis: AnalysisVersion,
				Size: w.file.Size, MtimeNS: w.file.ModTime.UnixNano()},
			Language: w.res.Language,
		}
		for i, ch := range w.res.Chunks {
			v := vecs[k]
			k++
			t := w.terms[i]
			sym := chunk.ParseSymbol(ch.Type, ch.Name, ch.Owner)
			d.Chunks = append(d.Chunks, store.ChunkRow{
				Path: w.file.Path, Type: ch.Type, Name: ch.Name, Owner: ch.Owner, Symbol: sym.Name, Params: sym.Params,
				Signature: ch.Signature,
				Language:  ch.Language, Doc: ch.Doc, StartLine: ch.StartLine, EndLine: ch.EndLine,
				DeclEndLine: ch.DeclEndLine, StartByte: ch.StartByte, EndByte: ch.EndByte,
				Content: ch.Content, Encoded: t.encoded, EncodedDoc: t.encodedDoc, Vector: v, Embedder: id,
				NameTerms: t.name, OwnerTerms: t.owner, PathTerms: t.path, DocTerms: t.doc, BodyTerms: t.body,
			})
		}
		for _, r := range w.res.Relations {
			d.Relations = append(d.Relations, store.RelationRow{Path: w.file.Path, From: r.From, To: r.To, Kind: r.Kind, Line: r.Line, Form: r.Form, Args: r.Args})
		}
		out = append(out, d)
	}
	return out, nil
}

// reusable returns the vectors stored for w's previous chunks, by their
// embedding text (chunk.EmbedText), when the file was embedded before by
// the embedder this run records for it (w.embID) and with the same text
// analysis: a chunk whose text has not changed has the vector it had, so
// an edit of one function of a file, or a file parsed again for its
// directory (rereadDependents), does not send its other chunks to a
// remote embedder again (checkKept then checks their dimension). Only
// build's remote path asks (an in-process embedder embeds on the workers,
// faster than this reads). A file whose vectors were retired (a model
// replaced behind the same id: probe.go) records the retired id, so none
// of them is reused. A failure to read them only means every chunk is
// embedded.
func (c *collector) reusable(w *work) map[string][]float32 {
	if w.prev == nil || w.prev.Embedder != w.embID || w.reanalysed || len(w.res.Chunks) == 0 {
		return nil
	}
	blobs, err := c.st.FileVectors(c.ctx, c.root, w.file.Path)
	if err != nil || len(blobs) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(blobs))
	for id := range blobs {
		ids = append(ids, id)
	}
	rows, err := c.st.ChunksByID(c.ctx, ids)
	if err != nil {
		return nil
	}
	kept := make(map[string][]float32, len(rows))
	for id, r := range rows {
		if v := store.DecodeVector(blobs[id]); len(v) > 0 {
			kept[chunk.EmbedText(chunk.Chunk{Type: r.Type, Name: r.Name, Content: r.Content})] = v
		}
	}
	return kept
}

// checkKept makes sure the stored vectors build gave the chunks at keptAt
// (of texts keptText) have the dimension the embedder returns now: a model
// swapped behind the same name at another dimension must not leave a file
// with vectors of both. The dimension is the run's (serverDim); before the
// run's first embedding, one of those texts is embedded to learn it. When
// it differs, every one of them is embedded again and none counts as
// reused. Errors are the embedder's, for the whole batch (flush retries
// its files one by one).
func (c *collector) checkKept(batch []*work, vecs [][]float32, keptAt []int, keptText []string) error {
	if len(keptAt) == 0 {
		return nil
	}
	dim := c.dimNow()
	if *dim == 0 {
		got, err := c.emb.Embed(c.ctx, keptText[:1])
		if err != nil {
			return fmt.Errorf("embed: %w", err)
		}
		if len(got) != 1 || len(got[0]) == 0 {
			return fmt.Errorf("embed: %d vectors for 1 text", len(got))
		}
		*dim = len(got[0])
	}
	if len(vecs[keptAt[0]]) == *dim {
		return nil
	}
	got, err := c.emb.Embed(c.ctx, keptText)
	if err != nil {
		return fmt.Errorf("embed: %w", err)
	}
	if len(got) != len(keptText) {
		return fmt.Errorf("embed: %d vectors for %d texts", len(got), len(keptText))
	}
	for k, v := range got {
		vecs[keptAt[k]] = v
	}
	for _, w := range batch {
		c.reusedOf[w.file.Path] = 0
	}
	return nil
}

// dimNow returns the run's serverDim (a collector made outside a run, as
// a test's, gets one of its own).
func (c *collector) dimNow() *int {
	if c.serverDim == nil {
		c.serverDim = new(int)
	}
	return c.serverDim
}

var errDim = errors.New("embedding dimension changed within a run")

// errEmbedderFailing stops a run whose first files all failed to embed.
var errEmbedderFailing = errors.New("the embedder fails for every file")

// firstChunk returns the position of w's first chunk among the chunks of
// batch, in the order build sends them.
func firstChunk(batch []*work, w *work) int {
	k := 0
	for _, x := range batch {
		if x == w {
			return k
		}
		k += len(x.res.Chunks)
	}
	return k
}

func dedupe(ss []string) []string {
	sort.Strings(ss)
	out := ss[:0]
	for i, s := range ss {
		if i == 0 || s != ss[i-1] {
			out = append(out, s)
		}
	}
	return out
}
