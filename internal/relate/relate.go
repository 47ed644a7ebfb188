// Package relate answers the structural questions that similarity search
// cannot: what a class or method is directly related to (Graph), who calls a
// function (Callers), what it calls (Callees) and how one function reaches
// another (Path). It reads the relations written by the indexer
// (code_relations: imports, extends, implements, contains, calls) and the
// definition chunks (code_chunks) of one project.
//
// The indexer stores a call's callee as written, usually a bare name
// ("findById") or a package-qualified one ("store.Open"). Callee names are
// resolved to in-project definitions here, at query time, in this order; the
// first rule that finds candidates decides, and the rule is reported as the
// edge's Resolution:
//
//	receiver    a method of the caller's own class/receiver type (same file, else same directory)
//	enclosing   a method of a class enclosing the caller's class (Java inner classes)
//	inherited   a method of a super class of the caller's class (extends/implements chain)
//	same-file   a function, else a method, defined in the caller's file
//	package     a function (else a method) of the caller's directory (Go package), or for
//	            "pkg.Func" / "Class.method" a definition in that package or class
//	import      a definition in a file or class imported by the caller's file
//	unique      the only definition with that name in the project
//	ambiguous   several definitions match and none of the rules above chose one;
//	            they are listed as candidates and never merged
//	typed       Go: a call on a value whose type was read from declarations
//	            (chunk.goTypes), a method of that type
//	type        Go: a conversion T(x) to a type of the caller's package, a
//	            reference to that type
//	unresolved  nothing in the project has that name (library or builtin call)
//
// A call on another value whose type is unknown, matched by name by one of
// the rules above, is a guess (Edge.Guess): it is listed and marked, drawn
// dashed, and not followed by walks unless IncludeGuesses is set.
//
// A rule that finds several candidates (overloads such as run(String) and
// run()) yields "ambiguous" with those candidates: overloads and same-named
// methods of different classes are never merged silently. Walks (Callers,
// Callees) follow resolved edges only; ambiguous edges are reported but not
// expanded. Without the receiver's static type the rules can be wrong (in
// Python, self.st.get() from Cache.get may resolve to Cache.get itself): the
// resolution rule is always shown so a reader can judge. Go calls carry more:
// a plain call reaches functions only, a call on the method's own receiver
// the receiver type's methods, and a call on another value ("c.rwc.Close()")
// methods other than the caller, never the caller's own type by assumption.
package relate

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/english"
	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/store"
)

// Index is what a Resolver reads: the definition and relation rows of a
// project, and a token that changes with every write of the index (for
// Cache). *store.Store implements it; the methods are documented there.
type Index interface {
	Definitions(ctx context.Context, project string) ([]store.DefRow, error)
	RelationsFrom(ctx context.Context, project string, names, kinds []string) ([]store.RelationRow, error)
	RelationsTo(ctx context.Context, project string, names, kinds []string) ([]store.RelationRow, error)
	RelationsOfFile(ctx context.Context, project, path string, kinds []string) ([]store.RelationRow, error)
	CallRelations(ctx context.Context, project string, fn func(store.RelationRow) bool) error
	RelationNamesLike(ctx context.Context, project, sub string, n int) ([]string, error)
	DataVersion(ctx context.Context, project string) (string, error)
}

var _ Index = (*store.Store)(nil)

// MaxNameBytes is the longest name Lookup (and so Graph, Callers, Callees
// and Path) reads: a name of a megabyte cost seconds of CPU in the
// suggestions of a "not found" and came back whole in the error.
const MaxNameBytes = 1000

// CheckName returns an ErrNameTooLong error, which does not repeat the
// name, for a name longer than MaxNameBytes; nil otherwise.
func CheckName(name string) error {
	if len(name) > MaxNameBytes {
		return fmt.Errorf("%w: %d bytes, at most %d (a class, function or Class.method name)", ErrNameTooLong, len(name), MaxNameBytes)
	}
	return nil
}

// Sentinel errors; NotFoundError and AmbiguousError match them with errors.Is.
var (
	// ErrNotFound means no definition or relation has the requested name.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous means the name matches several definitions.
	ErrAmbiguous = errors.New("ambiguous name")
	// ErrNotCallable means a call-graph walk was asked for a class.
	ErrNotCallable = errors.New("not a function or method")
	// ErrNameTooLong means a name longer than MaxNameBytes was asked for.
	ErrNameTooLong = errors.New("name too long")
)

// Resolution rules of a call edge (see the package comment).
const (
	ResReceiver   = "receiver"
	ResEnclosing  = "enclosing"
	ResInherited  = "inherited"
	ResSameFile   = "same-file"
	ResPackage    = "package"
	ResImport     = "import"
	ResUnique     = "unique"
	ResAmbiguous  = "ambiguous"
	ResUnresolved = "unresolved"
	// ResTyped: a call on a value whose type was read from declarations
	// (Go's parameters, literals, results and fields; Python's annotations;
	// Java's and C#'s declared fields, locals and parameters): a method of
	// that type or of its nearest base that has it.
	ResTyped = "typed"
	// ResType: a Go conversion T(x) to a type T declared in the caller's
	// package: a reference to the type (Graph of T lists it), not a call
	// of code.
	ResType = "type"
)

// DefaultDepth is the depth of Callers and Callees when none is given.
const DefaultDepth = 4

// maxEdges bounds the edges of one walk; a walk that reaches it is Truncated.
const maxEdges = 5000

// maxCandidates bounds the candidates listed for an ambiguous edge or name.
const maxCandidates = 20

// Def is a definition of the project: a class-like type, a method or a
// function (or a "module" pseudo-definition standing for a file's top-level
// code). Lines are 1-based and inclusive; Path is relative to the project
// root. Field names follow `search --json`.
type Def struct {
	Name      string `json:"name"` // chunk name: "Owner.method(params)", "func(params)" or a class "Outer.Inner"
	Type      string `json:"type"` // "class", "method", "function" or "module"
	Owner     string `json:"owner,omitempty"`
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Language  string `json:"language,omitempty"`

	method string // bare name: method/function name, or a class's simple name
	call   string // name used as from_name of its calls: "Owner.method", "func"; a class's qualified name
	// lo and hi: the fewest and most arguments a call may pass
	// (hi -1: any number), when ranged (paramRange)
	lo, hi int
	ranged bool
}

// takes reports whether a call passing n arguments may reach d: always,
// unless d's parameters were counted and n is outside their range.
func (d *Def) takes(n int) bool {
	return !d.ranged || n >= d.lo && (d.hi < 0 || n <= d.hi)
}

// paramRange returns the fewest and most arguments (hi -1: any number) a
// definition of language with the parameter list params (without its
// parentheses, chunk.Symbol.Params) takes, and whether it can tell: in the
// lang.ArityCounted languages only. Parameters are split at commas
// outside brackets. Java's "T... xs" and C#'s "params T[] xs" take any
// number from there; a C# parameter with a default value
// may be left out, and a C# extension method ("this T x" first) is
// called with one argument less on a value.
func paramRange(language, params string) (lo, hi int, ok bool) {
	if !lang.ArityCounted[language] || strings.Contains(params, "…") {
		return 0, 0, false
	}
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(params); i++ {
		switch params[i] {
		case '"', '\'':
			// a default value's literal: "a,b" holds no parameter
			q := params[i]
			for i++; i < len(params) && params[i] != q; i++ {
				if params[i] == '\\' {
					i++
				}
			}
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, params[start:i])
				start = i + 1
			}
		}
		if depth < 0 {
			return 0, 0, false // a "->" or an unbalanced list: not read
		}
	}
	if depth != 0 {
		return 0, 0, false
	}
	if last := strings.TrimSpace(params[start:]); last != "" || len(parts) > 0 {
		parts = append(parts, params[start:])
	}
	hi = len(parts)
	for _, p := range parts {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
			return 0, 0, false
		case strings.Contains(p, "...") || language == "csharp" && strings.HasPrefix(p, "params "):
			hi = -1
		case language == "csharp" && strings.Contains(p, "="):
			// optional
		default:
			lo++
		}
	}
	if language == "csharp" && len(parts) > 0 && strings.HasPrefix(strings.TrimSpace(parts[0]), "this ") {
		// x.Ext(a) passes one argument less than Ext(x, a)
		lo = max(lo-1, 0)
	}
	return lo, hi, true
}

// CallName is the name the definition's own calls are recorded under
// ("Owner.method" or "func"; the qualified name of a class; the path of a
// module).
func (d *Def) CallName() string { return d.call }

// Loc is "path:line" of the definition.
func (d *Def) Loc() string { return fmt.Sprintf("%s:%d", d.Path, d.StartLine) }

func (d *Def) isClass() bool { return d.Type == chunk.KindClass }

// typeable is a form of the definition's name that a user can type back to
// select it: the name qualified by its directory ("httptest.Server"), the
// project's own directory name for files at the root ("http.Server").
func (d *Def) typeable(project string) string {
	dir := d.dir()
	if dir == "." {
		dir = project
	}
	name := d.Name
	if i := strings.IndexByte(name, '('); i > 0 {
		name = name[:i]
	}
	return path.Base(dir) + "." + name
}

func (d *Def) dir() string { return path.Dir(d.Path) }

// NotFoundError reports a name with no definition and no relation.
type NotFoundError struct {
	Name    string
	Project string
	// Suggestion is the definition's name nearest Name, written as Name is
	// (bare, or Owner.method), when one is close enough (a different case,
	// or a typo: Resolver.suggest); "" otherwise.
	Suggestion string
}

// Error is "no function or class named NAME in PROJECT", with "; did you
// mean SUGGESTION?" when there is one.
func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("no function or class named %s in %s", e.Name, e.Project)
	if e.Suggestion != "" {
		msg += fmt.Sprintf("; did you mean %s?", e.Suggestion)
	}
	return msg
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// AmbiguousError reports a name matching several definitions; Candidates
// lists them (at most maxCandidates, Total counts all) so the user can pick
// one by its full name.
type AmbiguousError struct {
	Name       string
	Project    string // absolute root, for typeable candidate names
	Candidates []*Def
	Total      int
}

// Error names the candidates on one line, with their locations.
func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is ambiguous (%d definitions); use one of:", e.Name, e.Total)
	sameDir := true
	for _, c := range e.Candidates {
		sameDir = sameDir && c.dir() == e.Candidates[0].dir()
	}
	// in several directories, the names when each is qualified by a whole
	// module path and they tell the candidates apart (Elixir's
	// Tesla.Adapter.Finch.call and Tesla.Adapter.Gun.call; a directory
	// before those is not looked up), else each prefixed by its directory
	// ("store.Open", typeable)
	qualified := !sameDir
	bare := map[string]bool{}
	for _, c := range e.Candidates {
		n := c.Name
		if i := strings.IndexByte(n, '('); i > 0 {
			n = n[:i]
		}
		qualified = qualified && strings.Count(n, ".") >= 2 && !bare[n]
		bare[n] = true
	}
	names := make([]string, len(e.Candidates))
	seen := map[string]int{}
	for i, c := range e.Candidates {
		names[i] = c.Name // overloads in one place: the full signature selects one
		switch {
		case qualified:
			if j := strings.IndexByte(names[i], '('); j > 0 {
				names[i] = names[i][:j]
			}
		case !sameDir:
			names[i] = c.typeable(e.Project)
		}
		seen[names[i]]++
	}
	for i, c := range e.Candidates {
		if i > 0 {
			b.WriteString(";")
		}
		name := names[i]
		if seen[name] > 1 {
			// same name, same package (two files declare it under build
			// tags): the file selects one; in the same file too (a Scala
			// class and its companion object), the line
			name = c.Path + ":" + name
			for j, o := range e.Candidates {
				if j != i && names[j] == names[i] && o.Path == c.Path {
					name = c.Loc()
					break
				}
			}
		}
		if name == c.Loc() {
			fmt.Fprintf(&b, " %s (%s)", name, c.Name)
		} else {
			fmt.Fprintf(&b, " %s (%s)", name, c.Loc())
		}
	}
	if e.Total > len(e.Candidates) {
		fmt.Fprintf(&b, "; and %d more", e.Total-len(e.Candidates))
	}
	return b.String()
}

// Is makes errors.Is(err, ErrAmbiguous) true.
func (e *AmbiguousError) Is(target error) bool { return target == ErrAmbiguous }

// Resolver holds one project's definitions in memory and answers graph
// queries over its relations. Build one with NewResolver and reuse it for
// several queries (the REPL, search --expand); it is not safe for
// concurrent use.
type Resolver struct {
	ctx     context.Context
	idx     Index
	project string

	defs     []*Def
	byName   map[string][]*Def // exact chunk name (and class qualified name)
	byCall   map[string][]*Def // call name "Owner.method" / "func" / class qualified name
	byMethod map[string][]*Def // bare method or function name
	classes  map[string][]*Def // class simple name
	byFile   map[string][]*Def
	modules  map[string]*Def

	// IncludeGuesses makes Callers, Callees and Path follow guessed edges
	// (Edge.Guess); they are listed either way.
	IncludeGuesses bool
	// NoTests leaves callers in test files out of Callers and Graph.
	NoTests bool

	imports map[string][]string // file -> imported module names
	supers  map[*Def][]*Def
	bases   map[*Def]map[string]bool // basesOf
	err     error                    // first database error of the current query
	omitted int                      // ambiguous calls left out of the current query (see GraphResult)
}

// NewResolver loads the definitions of project (absolute root path as
// stored) from idx.
func NewResolver(ctx context.Context, idx Index, project string) (*Resolver, error) {
	rows, err := idx.Definitions(ctx, project)
	if err != nil {
		return nil, err
	}
	n := len(rows)
	r := &Resolver{ctx: ctx, idx: idx, project: project,
		byName: make(map[string][]*Def, n), byCall: make(map[string][]*Def, n), byMethod: make(map[string][]*Def, n/2),
		classes: make(map[string][]*Def, n/8), byFile: make(map[string][]*Def, n/8), modules: map[string]*Def{},
		imports: map[string][]string{}, supers: map[*Def][]*Def{}, bases: map[*Def]map[string]bool{}}
	r.defs = make([]*Def, 0, n)
	all := make([]Def, n)
	for i, row := range rows {
		d := &all[i]
		newDef(d, row)
		r.defs = append(r.defs, d)
		r.byName[d.Name] = append(r.byName[d.Name], d)
		r.byCall[d.call] = append(r.byCall[d.call], d)
		r.byFile[d.Path] = append(r.byFile[d.Path], d)
		if d.isClass() {
			r.classes[d.method] = append(r.classes[d.method], d)
		} else {
			r.byMethod[d.method] = append(r.byMethod[d.method], d)
		}
	}
	return r, nil
}

// Project returns the project root the resolver reads.
func (r *Resolver) Project() string { return r.project }

func newDef(d *Def, row store.DefRow) {
	*d = Def{Name: row.Name, Type: row.Type, Owner: row.Owner, Path: row.Path,
		StartLine: row.StartLine, EndLine: row.EndLine, Language: row.Language}
	if d.EndLine < d.StartLine {
		d.EndLine = d.StartLine
	}
	d.method = row.Symbol
	if d.isClass() {
		d.call = d.Name
		return
	}
	d.lo, d.hi, d.ranged = paramRange(row.Language, row.Params)
	d.call = chunk.Symbol{Name: row.Symbol, Owner: row.Owner}.CallName()
}

func lastSeg(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// module returns the pseudo-definition for the top-level code of a file.
func (r *Resolver) module(p string) *Def {
	if d := r.modules[p]; d != nil {
		return d
	}
	d := &Def{Name: p, Type: "module", Path: p, StartLine: 1, EndLine: 1, call: p, method: p}
	r.modules[p] = d
	return d
}

// goRecv rewrites Go receiver spellings: "(*conn).serve" and "(conn).serve" -> "conn.serve".
// It is compiled at first use, not at package init.
var goRecv = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(\*?([\p{L}_][\p{L}\p{N}_]*)\)\.`) })

// Lookup resolves a name typed by a user to exactly one definition. It
// accepts a full chunk name ("UserService.find(long id)"), "Class.method",
// "Outer.Inner" or "Inner", a bare function or method name, Go forms
// ("time.ParseDuration", "(*conn).serve", "net/http.(*conn).serve") and
// Python "module.func". Several matches give an *AmbiguousError, none a
// *NotFoundError.
func (r *Resolver) Lookup(name string) (*Def, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if file, rest, ok := fileQualified(name); ok {
		inFile := func(d *Def) bool { return d.Path == file || strings.HasSuffix(d.Path, "/"+file) }
		if line, err := strconv.Atoi(rest); err == nil && line > 0 {
			// "SubProcess.scala:224": the definition that starts on that
			// line, else the innermost one holding it (a class and its
			// companion object share a name and a file)
			if d := r.defAtLine(inFile, line); d != nil {
				return d, nil
			}
			return nil, &NotFoundError{Name: name, Project: r.project}
		}
		// "decode.go:Unmarshal": the definitions of that name in that file
		cands := filter(r.lookupAll(rest), inFile)
		switch len(cands) {
		case 0:
			return nil, &NotFoundError{Name: name, Project: r.project}
		case 1:
			return cands[0], nil
		}
		return nil, ambiguous(name, r.project, cands)
	}
	cands := r.lookupAll(name)
	if len(cands) == 0 {
		// "net/http.(*Server).Shutdown" asked of a copy of net/http that
		// lives outside its module path: the name without the package path
		if i := strings.LastIndexByte(name, '/'); i >= 0 && !strings.Contains(name[:i], "(") {
			if rest := name[i+1:]; strings.IndexByte(rest, '.') > 0 {
				cands = r.lookupAll(rest[strings.IndexByte(rest, '.')+1:])
			}
		}
	}
	switch len(cands) {
	case 0:
		return nil, &NotFoundError{Name: name, Project: r.project, Suggestion: r.suggest(name)}
	case 1:
		return cands[0], nil
	}
	return nil, ambiguous(name, r.project, cands)
}

// defAtLine returns the definition of a file (inFile) that starts on line,
// else the smallest one whose lines hold it; nil when none does.
func (r *Resolver) defAtLine(inFile func(*Def) bool, line int) *Def {
	var best *Def
	for _, d := range r.defs {
		if !inFile(d) || d.Type == "module" || line < d.StartLine || line > d.EndLine {
			continue
		}
		if d.StartLine == line {
			return d
		}
		if best == nil || d.EndLine-d.StartLine < best.EndLine-best.StartLine {
			best = d
		}
	}
	return best
}

// suggest returns the name of a definition that name was probably meant
// for: one that differs only in case ("escapinghtmlentities"), else the
// nearest within an edit distance of 3 and under a third of the name
// ("escapingHTMLEntity"); a name written Owner.method is matched against
// the definitions' Owner.method names, a bare one against bare names. ""
// when none is close enough, or two are equally close.
func (r *Resolver) suggest(name string) string {
	name = strings.TrimSpace(name)
	if i := strings.IndexByte(name, '('); i > 0 {
		name = name[:i]
	}
	if name == "" || len(name) > 200 {
		return ""
	}
	byForm := r.byMethod
	if strings.Contains(name, ".") {
		byForm = r.byCall
	}
	best, bestD, tie := "", 4, false // at most 3 edits
	lower := strings.ToLower(name)
	for n := range byForm {
		if strings.ToLower(n) == lower {
			// a difference of case counts as the smallest edit
			if bestD == 0 && n != best {
				tie = true
			} else if bestD > 0 {
				best, bestD, tie = n, 0, false
			}
			continue
		}
		if abs(len(n)-len(name)) >= bestD {
			continue // the distance is at least the difference in length
		}
		d := english.EditDistance(name, n)
		if 3*d >= len([]rune(name)) {
			continue
		}
		switch {
		case d < bestD:
			best, bestD, tie = n, d, false
		case d == bestD && n != best:
			tie = true
		}
	}
	if tie {
		return ""
	}
	if best == "" && len(name) >= 3 {
		// a name cut short ("stringx.zorbify" for stringx.zorbify_lines):
		// the one name it begins
		for n := range byForm {
			if len(n) > len(name) && strings.HasPrefix(n, name) {
				if best != "" {
					return ""
				}
				best = n
			}
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Selector is a name that Lookup resolves to d and to nothing else, for
// links that must open that definition: d's own name when it selects d,
// else its package-qualified form ("cgi.response.writeCGIHeader"), else
// "PATH:NAME" (the forms an AmbiguousError offers); "" when none does.
func (r *Resolver) Selector(d *Def) string {
	for _, s := range []string{d.Name, d.typeable(r.project), d.Path + ":" + d.Name} {
		if got, err := r.Lookup(s); err == nil && got.Path == d.Path && got.StartLine == d.StartLine && got.Name == d.Name {
			return s
		}
	}
	return ""
}

// fileQualified splits "FILE:NAME" ("decode.go:Unmarshal",
// "encoding/json/stream.go:Decoder.Decode"), the form an ambiguity error
// offers when two definitions have the same name and package. A "::"
// (C++, Rust, PHP qualification) is not a file separator.
func fileQualified(name string) (file, rest string, ok bool) {
	// the file comes before the name and its parameters, whose own colons
	// ("Font.load(fromPath path: String)", Swift, Kotlin, Scala,
	// TypeScript) qualify nothing
	head := name
	if p := strings.IndexByte(name, '('); p >= 0 {
		head = name[:p]
	}
	i := strings.LastIndexByte(head, ':')
	if i <= 0 || i == len(name)-1 || head[i-1] == ':' || strings.Contains(head[i+1:], "::") {
		return "", "", false
	}
	file = name[:i]
	if strings.Contains(file, "::") || path.Ext(file) == "" {
		return "", "", false
	}
	return file, name[i+1:], true
}

func ambiguous(name, project string, cands []*Def) *AmbiguousError {
	e := &AmbiguousError{Name: name, Project: project, Total: len(cands)}
	e.Candidates = cands[:min(len(cands), maxCandidates)]
	return e
}

func (r *Resolver) lookupAll(name string) []*Def {
	s := strings.TrimSpace(name)
	if s == "" {
		return nil
	}
	if ds := r.byName[s]; len(ds) > 0 {
		if !strings.ContainsAny(s, ".:(") {
			// "Indent" names the type Indent and the function
			// Indent(dst, src, ...) alike: both are candidates, so the
			// choice is the user's, not a silent pick of the type
			for _, d := range r.byMethod[s] {
				if d.Owner == "" && !slices.Contains(ds, d) {
					ds = append(slices.Clip(ds), d)
				}
			}
		}
		return ds
	}
	s = goRecv().ReplaceAllString(s, "$1.")
	s = strings.ReplaceAll(s, "::", ".")
	pkg := ""
	if i := strings.LastIndexByte(s, '/'); i >= 0 && !strings.Contains(s[:i], "(") {
		rest := s[i+1:]
		j := strings.IndexByte(rest, '.')
		if j < 0 {
			return nil
		}
		pkg, s = s[:i+1]+rest[:j], rest[j+1:]
	}
	inPkg := func(ds []*Def) []*Def {
		if pkg == "" {
			return ds
		}
		return filter(ds, func(d *Def) bool { dir := r.absDir(d); return dir == pkg || strings.HasSuffix(dir, "/"+pkg) })
	}
	if ds := inPkg(r.byName[s]); len(ds) > 0 {
		return ds
	}
	if ds := inPkg(r.byCall[s]); len(ds) > 0 {
		return ds
	}
	segs := strings.Split(s, ".")
	if len(segs) == 1 {
		if ds := inPkg(r.byMethod[s]); len(ds) > 0 {
			return ds
		}
		return inPkg(r.classes[s])
	}
	// Outer.Inner.method, pkg.Type.method, pkg.Func, module.func, pkg.Type
	last2 := strings.Join(segs[len(segs)-2:], ".")
	prefix := strings.Join(segs[:len(segs)-2], ".")
	if ds := inPkg(r.byCall[last2]); len(ds) > 0 && prefix != "" {
		if got := filter(ds, func(d *Def) bool { return r.classQualOf(d) == prefix+"."+d.Owner || r.inPackage(d, prefix) }); len(got) > 0 {
			return got
		}
	}
	qual, m := strings.Join(segs[:len(segs)-1], "."), segs[len(segs)-1]
	if ds := inPkg(r.byMethod[m]); len(ds) > 0 {
		if got := filter(ds, func(d *Def) bool { return d.Owner == "" && r.inPackage(d, qual) }); len(got) > 0 {
			return got
		}
	}
	if ds := inPkg(r.classes[m]); len(ds) > 0 {
		if got := filter(ds, func(d *Def) bool {
			return strings.HasSuffix(d.Name, "."+m) && strings.HasSuffix(qual, strings.TrimSuffix(d.Name, "."+m)) || r.inPackage(d, qual)
		}); len(got) > 0 {
			return got
		}
	}
	// the owner's last segments, as an alias lets a caller write it
	// ("Backoff.jitter" for Oban.Backoff.jitter)
	if ds := inPkg(r.byMethod[m]); len(ds) > 0 {
		if got := filter(ds, func(d *Def) bool { return d.Owner != "" && strings.HasSuffix("."+d.Owner, "."+qual) }); len(got) > 0 {
			return got
		}
	}
	return nil
}

// inPackage reports whether d lives in the package or module named q: a
// directory whose path ends with q ("http", "net/http"; the project root's
// own path counts), or for Python a file whose module path ends with q
// ("models", "shop.models").
func (r *Resolver) inPackage(d *Def, q string) bool {
	q = strings.ReplaceAll(q, ".", "/")
	if strings.HasSuffix(r.absDir(d), "/"+q) {
		return true
	}
	mod := strings.TrimSuffix(d.Path, path.Ext(d.Path))
	return mod == q || strings.HasSuffix(mod, "/"+q)
}

// absDir is the absolute, '/'-separated directory of d.
func (r *Resolver) absDir(d *Def) string {
	return path.Join(filepath.ToSlash(r.project), d.dir())
}

// classQualOf returns the qualified name of the class owning method d (a
// class of that simple name in d's file whose declaration holds d), or "".
func (r *Resolver) classQualOf(d *Def) string {
	if c := r.classOf(d); c != nil {
		return c.Name
	}
	return ""
}

// classOf returns the class definition owning method d.
func (r *Resolver) classOf(d *Def) *Def {
	if d.Owner == "" {
		return nil
	}
	var best *Def
	for _, c := range r.byFile[d.Path] {
		// the owner is the class's name as its methods are qualified: the
		// last segment ("Backoff") or, for an Elixir module, the whole
		// name ("Oban.Backoff")
		if c.isClass() && (c.method == d.Owner || c.Name == d.Owner) && c.StartLine <= d.StartLine && d.StartLine <= c.EndLine {
			if best == nil || c.StartLine >= best.StartLine {
				best = c
			}
		}
	}
	if best != nil {
		return best
	}
	// Go: methods are declared outside the type, maybe in another file of the package.
	for _, c := range r.classes[d.Owner] {
		if c.dir() == d.dir() {
			return c
		}
	}
	if d.Language == "cpp" {
		// "std::string Status::ToString() const" in util/status.cc: the
		// class its file includes, or the only one of that name
		return r.resolveClass(d.Path, d.Owner)
	}
	return nil
}

func filter(ds []*Def, keep func(*Def) bool) []*Def {
	var out []*Def
	for _, d := range ds {
		if keep(d) {
			out = append(out, d)
		}
	}
	return out
}

func sortDefs(ds []*Def) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Path != ds[j].Path {
			return ds[i].Path < ds[j].Path
		}
		return ds[i].StartLine < ds[j].StartLine
	})
}
