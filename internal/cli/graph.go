package cli

import (
	"flag"
	"slices"
	"strings"

	"github.com/coderag/coderag/internal/relate"
)

func init() {
	register(command{name: "graph", summary: "direct relations of a class or Class.method: coderag graph UserService", run: runGraph})
	register(command{name: "callers", summary: "who calls a function, transitively: coderag callers Store.Get --depth 2", run: runCallers})
	register(command{name: "callees", summary: "what a function calls, transitively: coderag callees main", run: runCallees})
	register(command{name: "path", summary: "shortest call path between two functions: coderag path main Store.missing", run: runPath})
}

// graphOpts are the flags shared by graph, callers, callees and path.
type graphOpts struct {
	project *string
	format  *string
	asJSON  *bool
	depth   *int
	guesses *bool
	noTests *bool
}

const nameHelp = `A NAME (FROM and TO for path) is a class ("UserService", "Outer.Inner"), "Class.method", a full chunk name
("UserService.find(long id)") to pick one overload, a bare function or method
name, a Go form ("time.ParseDuration", "(*conn).serve", "net/http.(*conn).serve"), a name
qualified by its owner's last segments ("Backoff.jitter" for Oban.Backoff.jitter), or a
name in a file ("decode.go:Unmarshal") or the definition at a line of it ("PagedSeq.scala:96").
An ambiguous name lists its candidates, each in a form that picks it.

Each call edge says by which rule it was resolved: receiver (a method of the caller's
own type), typed (a method of the receiver's type, read from Go's parameters, literals,
results and fields, Python's annotations, Java's, C#'s, C++'s and PHP's declarations), type (Go: a conversion T(x) to a type of the package, listed by
graph T), enclosing, inherited, same-file, package, import, unique, ambiguous (the
candidates are listed, never merged) or unresolved. A call on another value whose type
is unknown ("x.Close()") matched by name is marked "guess" (dashed in dot and mermaid,
"guess": true in JSON); callers, callees and path do not follow guesses and list at
most 10 of them (with a count of the rest) unless --include-guesses is given. Calls to
builtins and other packages ("len", "fmt.Errorf", JS "Object.hasOwn", Rust "Ok(v)",
"xs.push(x)") are counted, not listed. Production code never resolves into
test files; --no-tests leaves callers in test files out (tests are included by default).`

func newGraphFlags(e *env, name, usage, about string, depth bool) (*flag.FlagSet, *graphOpts) {
	fs := newFlags(e, name, usage, about+"\n\n"+nameHelp)
	o := &graphOpts{
		project: fs.String("project", ".", "project directory (or any directory inside it)"),
		format:  fs.String("format", relate.FormatTree, "output format: "+strings.Join(relate.Formats, ", ")),
		asJSON:  fs.Bool("json", false, `print JSON (same as --format json); an error as {"error": MSG}`),
	}
	if depth {
		o.depth = fs.Int("depth", relate.DefaultDepth, "how many calls away to walk (>= 1)")
	}
	o.guesses = fs.Bool("include-guesses", false, "list and follow every guessed edge (calls on values of unknown type)")
	o.noTests = fs.Bool("no-tests", false, "leave callers in test files out")
	return fs, o
}

// json reports whether the output is JSON (--json or --format json): an
// error is then {"error": MSG} on stdout too (env.jsonError).
func (o *graphOpts) json() bool { return *o.asJSON || *o.format == relate.FormatJSON }

// check validates the shared flags after parsing.
func (o *graphOpts) check() error {
	if *o.asJSON {
		*o.format = relate.FormatJSON
	}
	if !slices.Contains(relate.Formats, *o.format) {
		return usagef("unknown --format %q (want %s)", *o.format, strings.Join(relate.Formats, ", "))
	}
	if o.depth != nil && *o.depth < 1 {
		return usagef("--depth must be at least 1, got %d", *o.depth)
	}
	return nil
}

// withResolver opens the project's index and runs fn with its resolver
// (the engine's cached one), then renders the result.
func withResolver(e *env, o *graphOpts, fn func(r *relate.Resolver) (relate.Result, error)) error {
	p, release, err := openProject(e, *o.project)
	if err != nil {
		return err
	}
	defer release()
	var res relate.Result
	err = p.Graph(e.ctx, func(r *relate.Resolver) error {
		guesses, noTests := r.IncludeGuesses, r.NoTests
		defer func() { r.IncludeGuesses, r.NoTests = guesses, noTests }()
		r.IncludeGuesses, r.NoTests = *o.guesses, *o.noTests
		var err error
		res, err = fn(r)
		return err
	})
	if err != nil {
		return err
	}
	if err := relate.Render(e.stdout, res, *o.format); err != nil {
		return err
	}
	if pr, ok := res.(*relate.PathResult); ok && !pr.Found {
		return errSilent // like grep: nothing found is exit status 1
	}
	return nil
}

func oneName(pos []string, what string) (string, error) {
	name := strings.TrimSpace(strings.Join(pos, " "))
	if name == "" {
		return "", usagef("missing NAME (%s)", what)
	}
	return name, nil
}

func runGraph(e *env, args []string) (err error) {
	fs, o := newGraphFlags(e, "graph", "[flags] NAME",
		`Print every relation where NAME is the from or the to side: for a class its super
types, subclasses, members and their calls; for a method its class, the calls it
makes and the calls that reach it. Calls show the definition they resolve to and
by which rule (receiver, import, ...), or "unresolved" / "ambiguous".

With --stats and no NAME: the share of call sites that are exact, guessed, ambiguous,
library/builtin and unresolved (overall and per language), the most-called
definitions (the core of the codebase) and the widest callers (orchestrators),
counting exact edges only.`, false)
	defer func() { err = e.jsonError(o.json(), err) }()
	limit := fs.Int("limit", 60, "relations listed (0 = all); the rest are counted in a last line; with --stats, entries per ranking")
	stats := fs.Bool("stats", false, "call-graph statistics of the project instead of one NAME")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	if *limit < 0 {
		return usagef("--limit must be at least 0, got %d", *limit)
	}
	if *stats {
		if len(pos) > 0 {
			return usagef("--stats takes no NAME")
		}
		n := 10 // entries per ranking unless --limit is given
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "limit" && *limit > 0 {
				n = min(*limit, 1000)
			}
		})
		return withResolver(e, o, func(r *relate.Resolver) (relate.Result, error) { return r.Stats(n) })
	}
	name, err := oneName(pos, "coderag graph UserService")
	if err != nil {
		return err
	}
	return withResolver(e, o, func(r *relate.Resolver) (relate.Result, error) {
		g, err := r.Graph(name)
		if err != nil {
			return nil, err
		}
		g.Limit(*limit)
		return g, nil
	})
}

func runCallers(e *env, args []string) error {
	return runWalk(e, args, "callers", `List the functions that call NAME, then their callers, breadth first up to
--depth calls away, each with the call site and the rule that resolved it. Call
sites that may reach NAME but are ambiguous (same-named methods, overloads) are
listed and marked, not followed.`)
}

func runCallees(e *env, args []string) error {
	return runWalk(e, args, "callees", `List what NAME calls, then what those call, breadth first up to --depth calls
away. Calls to names defined nowhere in the project (library calls) are listed as
unresolved; ambiguous ones list their candidates and are not followed.`)
}

func runWalk(e *env, args []string, dir, about string) (err error) {
	fs, o := newGraphFlags(e, dir, "[flags] NAME", about, true)
	defer func() { err = e.jsonError(o.json(), err) }()
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	name, err := oneName(pos, "coderag "+dir+" Store.Get")
	if err != nil {
		return err
	}
	return withResolver(e, o, func(r *relate.Resolver) (relate.Result, error) {
		if dir == "callers" {
			return r.Callers(name, *o.depth)
		}
		return r.Callees(name, *o.depth)
	})
}

func runPath(e *env, args []string) (err error) {
	fs, o := newGraphFlags(e, "path", "[flags] FROM TO",
		`Print a shortest call path from function FROM to function TO over exact calls;
if there is none, over ambiguous calls too (marked). Guessed calls (on values of
unknown type) are used only with --include-guesses. Exit status 1 when no path
exists. A long path is drawn bounded: past 8 levels a step gives its depth instead
of more indentation, and past 32 steps the first 24 and the last 8 are shown around
one line counting the rest; --format json (or dot, mermaid) lists every step.`, false)
	defer func() { err = e.jsonError(o.json(), err) }()
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want FROM and TO, got %d argument(s) (coderag path main Store.missing)", len(pos))
	}
	return withResolver(e, o, func(r *relate.Resolver) (relate.Result, error) {
		res, err := r.Path(pos[0], pos[1])
		if err == nil && !res.Found && !*o.guesses {
			res.Hint = "guessed calls (on values of unknown type) were not followed: --include-guesses follows them too"
		}
		return res, err
	})
}
