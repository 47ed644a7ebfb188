package relate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/store"
)

// edgesByCallee resolves every call of the project and groups the edges by
// callee as written.
func edgesByCallee(t *testing.T, r *Resolver) map[string][]Edge {
	t.Helper()
	out := map[string][]Edge{}
	err := r.idx.CallRelations(r.ctx, r.project, func(row store.RelationRow) bool {
		out[row.To] = append(out[row.To], r.edge(row))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func resolverOf(t *testing.T, dir string) *Resolver {
	t.Helper()
	st, root := indexDir(t, dir)
	r, err := NewResolver(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// callerNames lists the callers of name, one "Caller (resolution)" each.
func callerNames(t *testing.T, r *Resolver, name string) []string {
	t.Helper()
	w, err := r.Callers(name, 1)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range w.Edges {
		out = append(out, fmt.Sprintf("%s (%s)", e.Caller.CallName(), e.how()))
	}
	return out
}

// TestRustMacroCallsAndPrelude, on excerpts of serde_json: calls inside
// tri!(...) are edges (format_escaped_str calls format_escaped_str_contents,
// ignore_escape calls decode_hex_escape), self.f() is a call on the own
// receiver, and Ok/Err/Some are the prelude's, not "ambiguous: 2
// candidates" between the associated types `type Ok`.
func TestRustMacroCallsAndPrelude(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/serde_json")
	if got := callerNames(t, r, "format_escaped_str_contents"); strings.Join(got, ";") != "format_escaped_str (same-file)" {
		t.Errorf("callers of format_escaped_str_contents = %q, want format_escaped_str by same-file", got)
	}
	if got := callerNames(t, r, "SliceRead.decode_hex_escape"); len(got) != 1 || !strings.HasPrefix(got[0], "ignore_escape ") {
		t.Errorf("callers of SliceRead.decode_hex_escape = %q, want ignore_escape (a call on a value: a guess)", got)
	}
	by := edgesByCallee(t, r)
	for _, name := range []string{"Ok", "Err", "Some", "None", "write_string_fragment", "as_bytes"} {
		for _, e := range by[name] {
			if name == "write_string_fragment" {
				if e.form != lang.CallValue || e.library() {
					t.Errorf("%s at %s:%d: form=%v library=%v, want a call on a value, not std's", name, e.Path, e.Line, e.form, e.library())
				}
				continue
			}
			if !e.library() {
				t.Errorf("%s at %s:%d resolved %s (%d candidates), want a builtin", name, e.Path, e.Line, e.Resolution, len(e.Candidates))
			}
		}
	}
	if len(by["Ok"]) == 0 || len(by["format_escaped_str_contents"]) == 0 || len(by["next_or_eof"]) != 2 {
		t.Errorf("calls of Ok %d, format_escaped_str_contents %d, next_or_eof %d (both inside tri!): want >0, >0, 2",
			len(by["Ok"]), len(by["format_escaped_str_contents"]), len(by["next_or_eof"]))
	}
	st, err := r.Stats(5)
	if err != nil {
		t.Fatal(err)
	}
	if st.Calls.Ambiguous != 0 {
		t.Errorf("ambiguous calls %d of %d, want 0", st.Calls.Ambiguous, st.Calls.Total)
	}
}

// TestGoConversionIsATypeReference, on an excerpt of viper:
// UnsupportedConfigError(configType) converts to a type of the package: it
// resolves to the type (ResType) and Graph of the type lists it; string(x)
// is a builtin.
func TestGoConversionIsATypeReference(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/viper")
	g, err := r.Graph("UnsupportedConfigError")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range g.Edges {
		if e.Kind == "calls" && e.From == "checkConfigType" && e.Resolution == ResType && e.Target != nil && e.Target.Name == "UnsupportedConfigError" {
			found = true
		}
	}
	if !found {
		var b strings.Builder
		if err := Render(&b, g, FormatTree); err != nil {
			t.Fatal(err)
		}
		t.Errorf("graph UnsupportedConfigError does not list the conversion in checkConfigType:\n%s", b.String())
	}
	for _, e := range edgesByCallee(t, r)["string"] {
		if !e.library() {
			t.Errorf("string(str) at %s:%d is %s, want a builtin", e.Path, e.Line, e.Resolution)
		}
	}
}

// TestJSBuiltins, on fastify's lib/decorate.js: Object.hasOwn,
// Object.defineProperty, Array.isArray, fn.call, includes and friends are
// ECMAScript built-ins (library), not unresolved; the file's own functions
// still resolve.
func TestJSBuiltins(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/fastify")
	by := edgesByCallee(t, r)
	n := 0
	for _, name := range []string{"hasOwn", "defineProperty", "isArray", "call", "includes", "push", "getPrototypeOf", "apply", "bind", "assign"} {
		for _, e := range by[name] {
			n++
			if !e.library() {
				t.Errorf("%s at %s:%d is %s, want a builtin", name, e.Path, e.Line, e.Resolution)
			}
		}
	}
	if n < 5 {
		t.Errorf("only %d calls of built-in methods in decorate.js, want at least 5", n)
	}
	for _, e := range by["checkDependencies"] {
		if !e.Exact() {
			t.Errorf("checkDependencies at line %d is %s, want exact", e.Line, e.Resolution)
		}
	}
}

// TestGuessesCapped: a method name called on values of unknown type from
// many places lists maxGuesses guesses and counts the rest, unless
// IncludeGuesses is set; exact callers are all listed.
func TestGuessesCapped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("'use strict'\n\nclass Reply {\n  handleError (err) { return err }\n  send () { this.handleError(1) }\n}\n\n")
	for i := 0; i < maxGuesses+5; i++ {
		fmt.Fprintf(&b, "function hook%d (reply) { reply.handleError(%d) }\n", i, i)
	}
	b.WriteString("\nmodule.exports = { Reply }\n")
	if err := os.WriteFile(filepath.Join(dir, "reply.js"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := resolverOf(t, dir)
	w, err := r.Callers("Reply.handleError", 1)
	if err != nil {
		t.Fatal(err)
	}
	guesses, exact := 0, 0
	for _, e := range w.Edges {
		if e.Guess {
			guesses++
		} else if e.Exact() {
			exact++
		}
	}
	if guesses != maxGuesses || exact != 1 || w.OmittedGuesses != 5 {
		t.Errorf("callers: %d guesses, %d exact, %d omitted; want %d, 1, 5", guesses, exact, w.OmittedGuesses, maxGuesses)
	}
	var out strings.Builder
	if err := Render(&out, w, FormatTree); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "5 more guessed callers; --include-guesses shows them") {
		t.Errorf("tree does not count the omitted guesses:\n%s", out.String())
	}
	g, err := r.Graph("Reply.handleError")
	if err != nil {
		t.Fatal(err)
	}
	if g.OmittedGuesses != 5 {
		t.Errorf("graph omitted %d guesses, want 5", g.OmittedGuesses)
	}
	r.IncludeGuesses = true
	if w, err = r.Callers("Reply.handleError", 1); err != nil {
		t.Fatal(err)
	}
	if len(w.Edges) != maxGuesses+6 || w.OmittedGuesses != 0 {
		t.Errorf("with IncludeGuesses: %d edges, %d omitted; want %d, 0", len(w.Edges), w.OmittedGuesses, maxGuesses+6)
	}
}

// TestIndexIsAFunctionOfItsInput (#25 item 12): a Go package whose files
// declare the same function with different result types under build tags
// (as runtime does) is indexed four times; the relations are the same
// each time. Before NewGoPackage read its files in order and untyped the
// declarations they disagree on, the file read last decided the type of
// getg().m() and the graph changed from run to run.
func TestIndexIsAFunctionOfItsInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":        "module example.com/rt\n",
		"types.go":      "package rt\n\ntype gA struct{}\n\nfunc (gA) m() {}\n\ntype gB struct{}\n\nfunc (gB) m() {}\n",
		"stubs.go":      "package rt\n\nfunc use() {\n\tgetg().m()\n\tcur.m()\n}\n",
		"os_darwin.go":  "//go:build darwin\n\npackage rt\n\nfunc getg() *gB { return nil }\n\nvar cur = &gB{}\n",
		"os_windows.go": "//go:build windows\n\npackage rt\n\nfunc getg() *gA { return nil }\n\nvar cur = &gA{}\n",
	}
	for i := 0; i < 6; i++ { // more variants: more orders to disagree in
		files[fmt.Sprintf("os_v%d.go", i)] = fmt.Sprintf("//go:build v%d\n\npackage rt\n\nfunc getg() *g%c { return nil }\n\nvar cur = &g%c{}\n", i, "AB"[i%2], "BA"[i%2])
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var first string
	for run := 0; run < 4; run++ {
		st, root := indexDir(t, dir)
		got := dumpRelations(t, st, root)
		if run == 0 {
			first = got
			if !strings.Contains(got, "stubs.go:4 calls use -> getg") {
				t.Fatalf("no call of getg in stubs.go:\n%s", got)
			}
			continue
		}
		if got != first {
			t.Fatalf("run %d differs from run 0:\n%s", run, lineDiff(first, got))
		}
	}
}

// mustAmbiguous looks name up and stops the test unless it is ambiguous
// between total definitions; it returns the error and its message.
func mustAmbiguous(t *testing.T, r *Resolver, name string, total int) (*AmbiguousError, error) {
	t.Helper()
	_, err := r.Lookup(name)
	var amb *AmbiguousError
	if !errors.As(err, &amb) || amb.Total != total {
		t.Fatalf("%s: %v, want ambiguous between %d definitions", name, err, total)
	}
	return amb, err
}

// wantLibrary fails unless each name is called at least once and every
// call of it is a library or builtin call.
func wantLibrary(t *testing.T, by map[string][]Edge, names ...string) {
	t.Helper()
	for _, name := range names {
		if len(by[name]) == 0 {
			t.Errorf("no call of %s recorded", name)
		}
		for _, e := range by[name] {
			if !e.library() {
				t.Errorf("%s at %s:%d is %s, want a library or builtin call", name, e.Path, e.Line, e.Resolution)
			}
		}
	}
}

// exactTarget fails unless every call written as callee resolves exactly
// (no guess, one definition) to a definition whose CallName is want; it
// returns how many such calls there are.
func exactTarget(t *testing.T, by map[string][]Edge, callee, want string) int {
	t.Helper()
	for _, e := range by[callee] {
		if !e.Exact() || e.Target == nil || e.Target.CallName() != want {
			got := "<none>"
			if e.Target != nil {
				got = e.Target.CallName()
			}
			t.Errorf("%s at %s:%d: %s (guess %v) -> %s, want exact -> %s", callee, e.Path, e.Line, e.Resolution, e.Guess, got, want)
		}
	}
	return len(by[callee])
}

// TestLuaModuleCalls: a function of a required module, called through
// the local the require is bound to (whatever it is named: "v" for
// rocks.core.vers, "fs" for rocks/fs/init.lua whose table is M), and a
// function of the file's own module table called through it, are exact
// calls of that module's function, not guesses on a value; callers of
// such a function find those calls; Lua's basic functions are builtins,
// and a bare call never reaches a module table's function.
func TestLuaModuleCalls(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/luamods")
	by := edgesByCallee(t, r)
	n := exactTarget(t, by, "vers.parse_version", "vers.parse_version")
	n += exactTarget(t, by, "vers.compare_versions", "vers.compare_versions")
	n += exactTarget(t, by, "fs.exists", "M.exists")
	n += exactTarget(t, by, "fs.read_all", "M.read_all")
	n += exactTarget(t, by, "M.exists", "M.exists")
	if n != 7 {
		// one edge per caller and callee: vers.parse_version from
		// compare_versions and deps.pick; vers.compare_versions from
		// newest and, through the alias newer, deps.describe
		t.Errorf("%d module calls, want 7 (vers.parse_version 2, compare_versions 2, fs.exists, fs.read_all, M.exists)", n)
	}
	if got := callerNames(t, r, "M.read_all"); len(got) != 1 || !strings.HasPrefix(got[0], "deps.pick ") {
		t.Errorf("callers of M.read_all = %q, want deps.pick", got)
	}
	// a bare call reaches no module function or method: type(x) is the
	// basic function (a file-level "local type = type" keeps it), not
	// vers.type; a file-level alias (local concat = table.concat) is the
	// field it stands for
	if got := callerNames(t, r, "vers.type"); len(got) != 0 {
		t.Errorf("callers of vers.type = %q, want none", got)
	}
	wantLibrary(t, by, "ipairs", "tonumber", "print", "setmetatable", "error", "assert", "table.insert", "io.open", "math.max",
		"type", "table.concat")
}

// TestElixirModuleCalls: the clauses of attempt/3 and sleep/1 are one
// definition each, so calls of them are exact, not "ambiguous" between
// their own clauses; a call through an alias (Clock.sleep for
// App.Clock.sleep) is exact; a call after a keyword ("delay:
// positive!(...)") is a plain call, not one on a value named delay;
// integer() in a @spec is no call; Kernel's functions, Erlang modules
// (:rand.uniform) and standard modules (Keyword.get) are library calls,
// and an unqualified to_string is Kernel's though App.Clock defines one.
func TestElixirModuleCalls(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/exmods")
	by := edgesByCallee(t, r)
	n := exactTarget(t, by, "attempt", "App.Backoff.attempt")
	n += exactTarget(t, by, "positive!", "App.Backoff.positive!")
	n += exactTarget(t, by, "delay", "App.Backoff.delay")
	n += exactTarget(t, by, "Clock.sleep", "App.Clock.sleep")
	if n != 5 {
		// one edge per caller and callee: attempt from run and from
		// attempt itself
		t.Errorf("%d calls, want 5 (attempt 2, positive!, delay, Clock.sleep)", n)
	}
	for _, name := range []string{"fun", "keyword", "term", "non_neg_integer"} {
		if len(by[name]) > 0 {
			t.Errorf("%s in a @spec recorded as a call", name)
		}
	}
	wantLibrary(t, by, "is_integer", "raise", "rand.uniform", "Keyword.get", "Integer.pow", "Process.sleep", "to_string")
	// an unqualified call reaches no other module's function of its name
	if got := callerNames(t, r, "App.Clock.to_string"); len(got) != 0 {
		t.Errorf("callers of App.Clock.to_string = %q, want none (Kernel's to_string)", got)
	}
	// a function named with its module's last segments, as an alias
	// lets a caller write it
	if d, err := r.Lookup("Backoff.attempt"); err != nil || d.Owner != "App.Backoff" {
		t.Errorf("Lookup(Backoff.attempt) = %v, %v; want App.Backoff.attempt", d, err)
	}
	// a module's graph lists its functions (their owner is its whole name)
	g, err := r.Graph("App.Backoff")
	if err != nil {
		t.Fatal(err)
	}
	contains := 0
	for _, e := range g.Edges {
		if e.Kind == "contains" {
			contains++
		}
	}
	if contains != 5 {
		t.Errorf("graph App.Backoff: %d contains relations, want 5 (run, attempt, delay, positive!, label)", contains)
	}
	defs, err := r.idx.Definitions(r.ctx, r.project)
	if err != nil {
		t.Fatal(err)
	}
	var attempts []string
	for _, d := range defs {
		if strings.Contains(d.Name, ".attempt(") {
			attempts = append(attempts, fmt.Sprintf("%s %d-%d", d.Name, d.StartLine, d.EndLine))
		}
	}
	if len(attempts) != 1 || !strings.HasSuffix(attempts[0], " 16-27") {
		t.Errorf("definitions of attempt: %q, want one spanning both clauses (16-27)", attempts)
	}
}

// TestAmbiguousSuggestionsResolve: every name an ambiguity error offers
// for a name defined in several directories selects its definition. Elixir
// definitions are named by their whole module ("App.Plug.Auth.call"), so
// that name is offered as it is; a directory before it
// ("plug.App.Plug.Auth.call") named nothing.
func TestAmbiguousSuggestionsResolve(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/exmods")
	amb, err := mustAmbiguous(t, r, "call", 3)
	msg := err.Error()
	for _, c := range amb.Candidates {
		name := strings.TrimSuffix(c.Name, c.Name[strings.IndexByte(c.Name, '('):])
		if !strings.Contains(msg, " "+name+" ("+c.Loc()+")") {
			t.Errorf("%s is not offered as %q: %s", c.Loc(), name, msg)
			continue
		}
		d, err := r.Lookup(name)
		if err != nil || d.Path != c.Path {
			t.Errorf("Lookup(%q) = %v, %v; want %s", name, d, err, c.Loc())
		}
	}
}

// TestHaskellImportedCalls: a function named in an import list
// ("import Site.Core.Paths (normalise)") and one called through a
// qualified import ("P.splitDirs") are exact calls of the other module's
// functions, so callers across modules are found (only calls of the
// file's own functions were recorded); imported library functions
// (fromMaybe, L.filter) are library calls.
func TestHaskellImportedCalls(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/hsmods")
	by := edgesByCallee(t, r)
	n := exactTarget(t, by, "Paths.normalise", "normalise")
	n += exactTarget(t, by, "Paths.splitDirs", "splitDirs")
	if n != 2 {
		t.Errorf("%d cross-module calls, want 2 (toUrl -> normalise, depth -> splitDirs)", n)
	}
	if got := callerNames(t, r, "normalise"); len(got) != 2 {
		t.Errorf("callers of normalise = %q, want splitDirs and toUrl", got)
	}
	wantLibrary(t, by, "Maybe.fromMaybe", "List.filter")
}

// TestOverloadNamesWithTypedParameters: the full names an ambiguity error
// offers for overloads whose parameters are written "label: Type" (Swift,
// Kotlin, Scala, TypeScript) select their definition, with or without a
// file before them; the colons inside the parameters were read as a
// "FILE:NAME" separator and every such name was refused.
func TestOverloadNamesWithTypedParameters(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/swiftover")
	amb, err := mustAmbiguous(t, r, "Font.load", 2)
	for _, c := range amb.Candidates {
		if !strings.Contains(err.Error(), " "+c.Name+" (") {
			t.Errorf("%s not offered: %v", c.Name, err)
		}
		for _, name := range []string{c.Name, c.Path + ":" + c.Name} {
			d, err := r.Lookup(name)
			if err != nil || d.StartLine != c.StartLine {
				t.Errorf("Lookup(%q) = %v, %v; want line %d", name, d, err, c.StartLine)
			}
		}
	}
	if d, err := r.Lookup("Font.init(path: String, size: Double)"); err != nil || d.StartLine != 13 {
		t.Errorf("Lookup of the second initializer: %v, %v", d, err)
	}
}

// TestNotFoundSuggests: a name no definition has names the one meant when
// it differs in case or by a typo, in the form it was written in (bare or
// Owner.method), or when it is the start of one name; a name close to
// nothing suggests nothing.
func TestNotFoundSuggests(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/swiftover")
	for name, want := range map[string]string{
		"Font.lod":    "Font.load",
		"font.load":   "Font.load",
		"laod":        "load",
		"LOAD":        "load",
		"Font.loader": "Font.load",
		"desc":        "describe", // cut short
		"parseJSON":   "",
		"Font.save":   "",
	} {
		_, err := r.Lookup(name)
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Errorf("Lookup(%q): %v, want not found", name, err)
			continue
		}
		if nf.Suggestion != want {
			t.Errorf("Lookup(%q) suggests %q, want %q", name, nf.Suggestion, want)
		}
		if want != "" && !strings.HasSuffix(err.Error(), "; did you mean "+want+"?") {
			t.Errorf("Lookup(%q): %q does not name %s", name, err, want)
		}
	}
}

// TestSwiftPlatformCalls: a capitalised call that nothing in the project
// defines makes a value of a platform type (CGFloat(2), String(...)), and
// print, precondition and max are the standard library's: library calls,
// not unresolved ones; "#if os(iOS)" and "#elseif canImport(AppKit)" are
// compiler conditions, no calls.
func TestSwiftPlatformCalls(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/swiftover")
	by := edgesByCallee(t, r)
	wantLibrary(t, by, "CGFloat", "String", "Int", "print", "precondition", "max")
	for _, name := range []string{"os", "canImport"} {
		if len(by[name]) > 0 {
			t.Errorf("the compiler condition %s( recorded as a call", name)
		}
	}
}

// TestNeighborsOfTheResultsOwnDefinition: search --expand lists the
// callers and callees of the result's own definition when several files
// define one chunk name (it took the first in path order: html's Add
// showed text's callees, or none).
func TestNeighborsOfTheResultsOwnDefinition(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/dupnames")
	for path, want := range map[string]string{"html/builder.go": "Builder.flush html/builder.go:12", "text/builder.go": "Builder.reset text/builder.go:12"} {
		_, callees, err := r.Neighbors("Builder.Add(text string)", path, 7)
		if err != nil || !slices.Contains(callees, want) {
			t.Errorf("callees of %s's Add: %q, %v; want %q among them", path, callees, err, want)
		}
	}
}

// TestSwiftInterpolatedCalls: a call inside a string's \( ... ) is a call
// (the masker blanked the interpolation with the string), and a string
// inside the interpolation is still no code.
func TestSwiftInterpolatedCalls(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/swiftover")
	by := edgesByCallee(t, r)
	if n := exactTarget(t, by, "describe", "describe"); n != 1 {
		t.Errorf("%d calls of describe, want 1 (from banner's multi-line string)", n)
	}
	if len(by["size"]) > 0 {
		t.Errorf("the string \"(size)\" inside an interpolation read as a call")
	}
}

// TestStaticCallOfAnotherClass: in C# (Java and Scala alike) a call
// qualified by another class's name ("OtherLang.Translate(key)") calls
// that class's method, not the caller's own method of the same name
// (it was read as a bare call and resolved to the caller itself); a call
// on "this" is a call on the own receiver.
func TestStaticCallOfAnotherClass(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/csstatic")
	by := edgesByCallee(t, r)
	if n := exactTarget(t, by, "OtherLang.Translate", "OtherLang.Translate"); n != 1 {
		t.Errorf("%d calls of OtherLang.Translate, want 1", n)
	}
	if n := exactTarget(t, by, "Suffix", "Rule.Suffix"); n != 1 {
		t.Errorf("%d calls of Suffix, want 1", n)
	}
	if got := callerNames(t, r, "OtherLang.Translate"); len(got) != 1 || !strings.HasPrefix(got[0], "Rule.Translate ") {
		t.Errorf("callers of OtherLang.Translate = %q, want Rule.Translate", got)
	}
}

// TestSameNameSameFileByLine: a Scala class and its companion object share
// a name and a file; the ambiguity offers each as FILE:LINE, which selects
// it (FILE:NAME gave the same ambiguity again and FILE:LINE was not read).
func TestSameNameSameFileByLine(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/scalacomp")
	amb, err := mustAmbiguous(t, r, "SubProcess", 2)
	for _, c := range amb.Candidates {
		if !strings.Contains(err.Error(), " "+c.Loc()+" (") {
			t.Errorf("%s not offered by its line: %v", c.Loc(), err)
		}
		d, err := r.Lookup(c.Loc())
		if err != nil || d.StartLine != c.StartLine {
			t.Errorf("Lookup(%q) = %v, %v", c.Loc(), d, err)
		}
	}
	if d, err := r.Lookup("SubProcess.scala:8"); err != nil || d.Name != "SubProcess.kill(pid: Long)" {
		t.Errorf("a line inside the object's method: %v, %v; want the method", d, err)
	}
	if _, err := r.Lookup("SubProcess.scala:200"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a line past every definition: %v", err)
	}
}

// TestZigSelfAndImportedFiles: a call on self ("self.check()", self:
// *Image by convention) and a call through a file imported by name
// ("Editor.flipVertically(...)" after const Editor =
// @import("Image/Editor.zig")) are exact calls; both were guesses on a
// value of unknown type, so walks stopped at them.
func TestZigSelfAndImportedFiles(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/zigmods")
	by := edgesByCallee(t, r)
	if n := exactTarget(t, by, "check", "check"); n != 1 {
		t.Errorf("%d calls of check, want 1", n)
	}
	for _, e := range by["Editor.flipVertically"] {
		if !e.Exact() || e.Target == nil || e.Target.Path != "src/Image/Editor.zig" {
			t.Errorf("Editor.flipVertically at %s:%d: %s (guess %v), want exact -> src/Image/Editor.zig", e.Path, e.Line, e.Resolution, e.Guess)
		}
	}
	if len(by["Editor.flipVertically"]) != 1 {
		t.Errorf("%d calls of Editor.flipVertically, want 1", len(by["Editor.flipVertically"]))
	}
}

// TestRustSelfAndPathCalls: Type::m and Self::m reach the method of that
// type (Self: the caller's own), and Callers finds the calls written
// either way, so callers and callees agree.
func TestRustSelfAndPathCalls(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/rustself")
	for name, want := range map[string]string{
		"Level.from_usize":  "Level.parse (package);Level.up (package)",
		"Filter.from_usize": "Filter.up (package)",
	} {
		got := callerNames(t, r, name)
		sort.Strings(got)
		if strings.Join(got, ";") != want {
			t.Errorf("callers of %s = %q, want %s", name, got, want)
		}
	}
	w, err := r.Callees("Level.up", 1)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range w.Edges {
		if e.Target != nil && e.Target.CallName() == "Level.from_usize" {
			found = true
		}
	}
	if !found {
		t.Errorf("callees of Level.up lack Level.from_usize: %+v", w.Edges)
	}
}

// TestArityChoosesTheCallee: a call's argument count rules out the
// definitions that cannot take it (Java, C#): value.getClass() is not
// the project's getClass(String) (nor, value being an Object, any
// project method); session.insert(name, row) is Vfs's two-parameter
// overload; a varargs method takes any number from its fixed ones; a C#
// extension method is called on a value with one argument less and may
// leave out its optional ones. Go's calls are not counted (no overloads):
// x.Close() stays a guess between both Close methods.
func TestArityChoosesTheCallee(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/arity")
	by := edgesByCallee(t, r)
	for _, e := range by["Object.getClass"] {
		if !e.library() {
			t.Errorf("getClass at %s:%d resolved %s to %v, want a library call", e.Path, e.Line, e.Resolution, e.Target)
		}
	}
	if len(by["Object.getClass"]) == 0 {
		t.Error("no getClass call recorded")
	}
	want := map[string]string{ // callee as stored (typed by declarations) -> the one target
		"Vfs.insert": "Vfs.insert(String statement, Object parameter)",
		"Vfs.join":   "Vfs.join(String sep, String... parts)",
		"List.Take":  "Ext.Take(this List<int> xs, int n, bool strict = false)",
	}
	found := 0
	for callee, target := range want {
		for _, e := range by[callee] {
			if e.Path == "Vfs.java" { // insert(statement, null) inside Vfs
				continue
			}
			found++
			if e.Target == nil || e.Target.Name != target || len(e.Candidates) > 0 {
				t.Errorf("%s at %s:%d: %s target %v candidates %d, want %s alone", callee, e.Path, e.Line, e.Resolution, e.Target, len(e.Candidates), target)
			}
		}
	}
	if found < 3 {
		t.Errorf("only %d of the calls were found: %v", found, by)
	}
	if len(by["Close"])+len(by["x.Close"]) == 0 {
		t.Error("no call of Close recorded")
	}
	for _, callee := range []string{"Close", "x.Close"} {
		for _, e := range by[callee] {
			if !e.Guess || len(e.Candidates) != 2 {
				t.Errorf("Go's %s at %s:%d: guess %v, %d candidates; want a guess between both", callee, e.Path, e.Line, e.Guess, len(e.Candidates))
			}
		}
	}
}

// paramRange reads the fewest and most arguments from a parameter list.
func TestParamRange(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lang, params string
		lo, hi       int
		ok           bool
	}{
		{"java", "", 0, 0, true},
		{"java", "String statement, Object parameter", 2, 2, true},
		{"java", "Map<String, Object> m, int n", 2, 2, true},
		{"java", "@Param(\"a,b\") String s", 1, 1, true},
		{"java", "String sep, String... parts", 1, -1, true},
		{"go", "a, b int", 0, 0, false},
		{"java", "Map<K, List<V>> m, Object... rest", 1, -1, true},
		{"csharp", "this List<int> xs, int n, bool strict = false", 1, 3, true},
		{"csharp", "string s = \"a,b\", params object[] rest", 0, -1, true},
		{"python", "self, x", 0, 0, false},
		{"java", "int a, …", 0, 0, false},
	} {
		lo, hi, ok := paramRange(c.lang, c.params)
		if lo != c.lo || hi != c.hi || ok != c.ok {
			t.Errorf("paramRange(%s, %q) = %d, %d, %v; want %d, %d, %v", c.lang, c.params, lo, hi, ok, c.lo, c.hi, c.ok)
		}
	}
}

// A callers walk that finds no call says the function may be handed on as
// a value and how to list its mentions; one that finds calls does not.
func TestNoCallersHint(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/rustself")
	for name, want := range map[string]bool{"Level.parse": true, "Level.from_usize": false} {
		w, err := r.Callers(name, 1)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := Render(&b, w, FormatTree); err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(b.String(), "passed as a value") && strings.Contains(b.String(), `coderag grep '\b`)
		if got != want {
			t.Errorf("callers of %s: hint %v, want %v:\n%s", name, got, want, b.String())
		}
	}
}

// The calls of a .h file read as C++ count as C++ in the graph's shares,
// not as C by the file's extension.
func TestStatsHeaderLanguage(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/cpphdr")
	st, err := r.Stats(5)
	if err != nil {
		t.Fatal(err)
	}
	if st.ByLanguage["cpp"] == nil || st.ByLanguage["c"] != nil {
		t.Errorf("languages %v, want cpp alone", slices.Collect(maps.Keys(st.ByLanguage)))
	}
}

// TestPlatformMethodsOnValues: a Java call on a value whose class no
// declaration names (find().put(...)) of a method every collection or
// object has (size, put) is a call on a value: with a project method of
// that name it is a guess, not an exact edge (it was every list.size()
// reaching Registry.size()). On a declared value it is typed: the
// project's Registry.put and Registry.lookup exactly, List.size and
// String.trim the platform's.
func TestPlatformMethodsOnValues(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/platform")
	by := edgesByCallee(t, r)
	for _, name := range []string{"size", "put"} {
		if len(by[name]) == 0 {
			t.Errorf("no undeclared %s call among %v", name, slices.Collect(maps.Keys(by)))
		}
		for _, e := range by[name] {
			if e.Path == "Loader.java" && (!e.Guess || e.Exact()) {
				t.Errorf("%s at %s:%d: %s, guess %v; want a guess", name, e.Path, e.Line, e.Resolution, e.Guess)
			}
		}
	}
	for _, name := range []string{"String.trim", "List.size"} {
		if es := by[name]; len(es) != 1 || !es[0].library() {
			t.Errorf("%s: %+v, want the platform's", name, es)
		}
	}
	for _, name := range []string{"Registry.put", "Registry.lookup"} {
		if es := by[name]; len(es) != 1 || !es[0].Exact() || es[0].Target == nil || es[0].Target.CallName() != name {
			t.Errorf("%s: %+v, want exact", name, es)
		}
	}
}

// TestPythonAnnotatedCalls: a call on a name the function annotates with a
// class (a parameter, Optional[T], a local "x: T = ...", a quoted forward
// reference) reaches that class's method, or its base class's, exactly;
// without an annotation it stays a guess among the same-named methods; on
// a class from another package it is a library call.
func TestPythonAnnotatedCalls(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/pytyped")
	w, err := r.Callers("StatsEntry.response_time_percentile", 1)
	if err != nil {
		t.Fatal(err)
	}
	var exact []string
	for _, e := range w.Edges {
		if e.Exact() {
			exact = append(exact, e.Caller.CallName()+" ("+e.Resolution+")")
		}
	}
	sort.Strings(exact)
	if want := "local (typed);maybe (typed);report (typed)"; strings.Join(exact, ";") != want {
		t.Errorf("exact callers %q, want %s", exact, want)
	}
	if got := callerNames(t, r, "Base.reset"); strings.Join(got, ";") != "report (typed)" {
		t.Errorf("callers of Base.reset = %q, want report through StatsEntry's base", got)
	}
	by := edgesByCallee(t, r)
	for _, e := range by["response_time_percentile"] {
		if e.Caller != nil && e.Caller.CallName() == "untyped" && !e.Guess {
			t.Errorf("untyped's call resolved %s without a guess", e.Resolution)
		}
	}
	for _, e := range by["Session.get"] {
		if !e.library() {
			t.Errorf("session.get at %s:%d: %s, want a library call", e.Path, e.Line, e.Resolution)
		}
	}
	if len(by["Session.get"]) == 0 {
		t.Errorf("session.get was not typed: %v", slices.Collect(maps.Keys(by)))
	}
}

// TestGoFuncFieldCall: a call through a func-typed field (cfg.Next(c) with
// cfg a Config) is no call of a method named Next: it resolves to none and
// says why, where it was a guess on Ctx.Next; the method call beside it
// (c.Next() on a *Ctx) stays exact.
func TestGoFuncFieldCall(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/gofuncfield")
	by := edgesByCallee(t, r)
	field := by["Config.Next"]
	if len(field) != 1 || field[0].Resolution != ResUnresolved || field[0].Guess ||
		!strings.Contains(field[0].target(), "Config has no method Next") {
		t.Errorf("cfg.Next(c): %+v", field)
	}
	method := by["Ctx.Next"]
	if len(method) != 1 || !method[0].Exact() || method[0].Target == nil || method[0].Target.CallName() != "Ctx.Next" {
		t.Errorf("c.Next(): %+v", method)
	}
}

// TestJavaDeclaredCalls: a call on a field, this-field or parameter is
// typed with its declared class (chunk.declaredTypes): executor.query
// reaches the interface's method, which the implementations' callers list
// as a candidate by dispatch (not followed); a declared class of the
// platform (StringBuilder) or of another package the file does not import
// (java.util.Optional beside the project's org.app.util.Optional) is a
// library call, where the bare name used to pick the project's method.
func TestJavaDeclaredCalls(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/javatyped")
	by := edgesByCallee(t, r)
	// a test of the class's package under another source root (src/test/java)
	// sees it without an import: typed, not a library call
	if es := by["SimpleExecutor.commit"]; len(es) != 1 || es[0].Resolution != ResTyped || es[0].Target == nil {
		t.Errorf("executor.commit(true) in src/test/java: %+v, want typed to SimpleExecutor.commit", es)
	}
	for _, name := range []string{"Executor.query", "Executor.commit"} {
		es := by[name]
		if len(es) == 0 {
			t.Fatalf("no call typed %s among %v", name, slices.Collect(maps.Keys(by)))
		}
		for _, e := range es {
			if e.Resolution != ResTyped || e.Target == nil || e.Target.Owner != "Executor" || e.Guess {
				t.Errorf("%s at %s:%d: %s %v, want typed to the interface's method", name, e.Path, e.Line, e.Resolution, e.Target)
			}
		}
	}
	for _, name := range []string{"StringBuilder.append", "Optional.get"} {
		es := by[name]
		if len(es) != 1 || !es[0].library() {
			t.Errorf("%s: %+v, want one library call", name, es)
		}
	}
	w, err := r.Callers("CachingExecutor.query", 1)
	if err != nil {
		t.Fatal(err)
	}
	var via []string
	for _, e := range w.Edges {
		if e.Resolution == ResAmbiguous && contains(e.Candidates, w.Root) {
			via = append(via, e.Caller.CallName())
		}
		if e.Exact() {
			t.Errorf("exact caller %s of CachingExecutor.query: only dispatch reaches it", e.Caller.CallName())
		}
	}
	sort.Strings(via)
	if want := "CachingExecutor.query;Session.select"; strings.Join(via, ";") != want {
		t.Errorf("dispatch callers of CachingExecutor.query = %q, want %s", via, want)
	}
	if got := callerNames(t, r, "Optional.get"); len(got) != 0 {
		t.Errorf("callers of the project's Optional.get = %q, want none (Reader's Optional is java.util's)", got)
	}
}

// TestCSharpDeclaredCalls: a call on a field or property of an interface
// type is typed; a method the interface lacks is the project's extension
// method of that interface ("this IValidator validator"), and a call on a
// string stays by name.
func TestCSharpDeclaredCalls(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/csharptyped")
	by := edgesByCallee(t, r)
	check := func(name, target string) {
		t.Helper()
		es := by[name]
		if len(es) != 1 || es[0].Target == nil || !strings.HasPrefix(es[0].Target.Name, target) || es[0].Resolution != ResTyped {
			t.Errorf("%s: %+v, want typed to %s", name, es, target)
		}
	}
	check("IValidator.ValidateAndThrow", "ValidatorExtensions.ValidateAndThrow(")
	if es := by["IValidator.Validate"]; len(es) != 2 {
		t.Errorf("IValidator.Validate: %d calls, want the extension's and the property's", len(es))
	}
	for _, e := range by["IValidator.Validate"] {
		if e.Target == nil || e.Target.Owner != "IValidator" {
			t.Errorf("IValidator.Validate at %s:%d: %v", e.Path, e.Line, e.Target)
		}
	}
	if es := by["CountWords"]; len(es) != 1 || es[0].Target == nil {
		t.Errorf("name.CountWords(): %+v, want the extension by name", es)
	}
	// Tests.cs: locals declared var, typed by what their initialiser
	// creates or casts to; an extension method reached through a generic
	// base, from a class name that two classes share
	check("NestedValidator.Validate", "AbstractValidator.Validate(")
	check("TestValidator.Validate", "AbstractValidator.Validate(")
	if es := by["TestValidator.ValidateAndThrow"]; len(es) != 2 {
		t.Errorf("TestValidator.ValidateAndThrow: %+v, want 2 calls", es)
	}
	for _, e := range by["TestValidator.ValidateAndThrow"] {
		if e.Target == nil || !strings.HasPrefix(e.Target.Name, "ValidatorExtensions.ValidateAndThrow(") || e.Resolution != ResTyped {
			t.Errorf("TestValidator.ValidateAndThrow at %s:%d: %+v, want typed to the extension", e.Path, e.Line, e)
		}
	}
	if es := by["StringBuilder.Append"]; len(es) != 1 || !es[0].library() {
		t.Errorf("StringBuilder.Append: %+v, want one library call", es)
	}
}

// TestRubyConstantCalls: a call on a constant path
// (App::Util::PathNormalizer.call) reaches that module's singleton method
// from another directory (it was a library call); a bare new(...) in a
// class method makes the class (its initialize), not the one project
// method named new; Kernel, core and RSpec calls (raise, include?,
// Set.new, describe, expect) are the runtime's, not holes in the graph.
func TestRubyConstantCalls(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/rubyconst")
	if got := callerNames(t, r, "PathNormalizer.call"); strings.Join(got, ";") != "Router.mount (typed)" {
		t.Errorf("callers of PathNormalizer.call = %q, want Router.mount typed", got)
	}
	if got := callerNames(t, r, "MediaType.initialize"); len(got) != 1 || !strings.HasPrefix(got[0], "MediaType.parse ") {
		t.Errorf("callers of MediaType.initialize = %q, want MediaType.parse", got)
	}
	if got := callerNames(t, r, "Widget.initialize"); len(got) != 1 || !strings.HasPrefix(got[0], "Widget.build ") {
		t.Errorf("callers of Widget.initialize (class App::Widget) = %q, want Widget.build", got)
	}
	if got := callerNames(t, r, "FreezeOnNew.new"); len(got) != 0 {
		t.Errorf("callers of FreezeOnNew.new = %q, want none", got)
	}
	by := edgesByCallee(t, r)
	for _, name := range []string{"raise", "include?", "Set", "describe", "expect", "eq", "attr_reader"} {
		es := by[name]
		if len(es) == 0 {
			t.Errorf("no call of %s among %v", name, slices.Collect(maps.Keys(by)))
		}
		for _, e := range es {
			if !e.library() {
				t.Errorf("%s at %s:%d: %s, want a library call", name, e.Path, e.Line, e.Resolution)
			}
		}
	}
}

// TestKotlinObjectCallsAndStdlib: a call on a capitalised name is a call of
// that object's (or class's companion's) method, resolved exactly where it
// was a guess on a value; the standard library's methods called on a value
// (substring, filterNot, toSet) are library calls, not unresolved ones.
func TestKotlinObjectCallsAndStdlib(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/kotlinobj")
	w, err := r.Callers("CommandLineParser.tokenize", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Edges) != 1 || !w.Edges[0].Exact() || w.Edges[0].Caller.CallName() != "run" {
		t.Errorf("callers of CommandLineParser.tokenize: %+v, want run exactly", w.Edges)
	}
	by := edgesByCallee(t, r)
	for _, name := range []string{"substring", "filterNot", "toSet"} {
		es := by[name]
		if len(es) != 1 || !es[0].library() {
			t.Errorf("%s: %+v, want one library call", name, es)
		}
	}
}

// TestCppDeclaredCalls: a C++ call on a parameter, local or field is typed
// by its declaration: Status's ToString, defined outside the class in
// another file, is reached exactly; a pure virtual method (Comparator's
// Compare) reaches its subclasses' overrides as candidates; a call on a
// standard string or container (out.size(), rows.push_back) is the
// library's, not the project's size().
func TestCppDeclaredCalls(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/cpptyped")
	by := edgesByCallee(t, r)
	if es := by["Status.ToString"]; len(es) != 1 || es[0].Resolution != ResTyped || es[0].Target == nil || es[0].Target.Path != "src/status.cc" {
		t.Errorf("s.ToString(): %+v, want typed to Status::ToString in src/status.cc", es)
	}
	if es := by["Comparator.Compare"]; len(es) != 1 || es[0].Exact() || len(es[0].Candidates) != 1 || !strings.HasPrefix(es[0].Candidates[0].Name, "BytewiseComparator.Compare(") {
		t.Errorf("cmp->Compare(): %+v, want BytewiseComparator.Compare as the one candidate", es)
	}
	wantLibrary(t, by, "std::string.size", "std::vector.push_back")
	if got := callerNames(t, r, "Table.size"); len(got) != 0 {
		t.Errorf("callers of Table.size = %q, want none (out.size() is std::string's)", got)
	}
	// callers of an override list the call typed with its base class as a
	// candidate by dispatch
	if got := callerNames(t, r, "BytewiseComparator.Compare"); len(got) != 1 || !strings.HasPrefix(got[0], "Table.Describe ") {
		t.Errorf("callers of BytewiseComparator.Compare = %q, want Table.Describe", got)
	}
	if got := callerNames(t, r, "Status.ToString"); len(got) != 1 || !strings.HasPrefix(got[0], "Table.Describe ") {
		t.Errorf("callers of Status.ToString = %q, want Table.Describe", got)
	}
	// a free function called through its namespace (util::clamp)
	if got := callerNames(t, r, "clamp"); len(got) != 1 || !strings.HasPrefix(got[0], "Table.Describe ") {
		t.Errorf("callers of clamp = %q, want Table.Describe (util::clamp)", got)
	}
	// through a namespace no file or directory is named after, with
	// template arguments
	if got := callerNames(t, r, "widen"); len(got) != 1 || !strings.HasPrefix(got[0], "Table.Describe ") {
		t.Errorf("callers of widen = %q, want Table.Describe (util::detail::widen<2>)", got)
	}
	// a namespace whose name starts with "std" is the project's, not the
	// standard library's
	if got := callerNames(t, r, "narrow"); len(got) != 1 || !strings.HasPrefix(got[0], "Table.Describe ") {
		t.Errorf("callers of narrow = %q, want Table.Describe (util::stdx::narrow)", got)
	}
}

// TestPHPReceivers: a call on a parameter typed with an interface reaches
// that interface's method (and, by dispatch, its implementation's
// callers list it), never the caller's own method of that name; parent::m
// reaches the base class's m, not the override that makes it; self::m is
// the class's own; PHP's functions (count, strlen) are library calls; a
// class imported under another name is that class.
func TestPHPReceivers(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/phptyped")
	if got := callerNames(t, r, "EmailValidator.isValid"); len(got) != 0 {
		t.Errorf("callers of EmailValidator.isValid = %q, want none ($emailValidation->isValid is the interface's)", got)
	}
	if got := callerNames(t, r, "RFCValidation.isValid"); len(got) != 1 || !strings.HasPrefix(got[0], "EmailValidator.isValid ") {
		t.Errorf("callers of RFCValidation.isValid = %q, want EmailValidator.isValid by dispatch", got)
	}
	if got := callerNames(t, r, "Parser.parse"); len(got) != 1 || !strings.HasPrefix(got[0], "EmailParser.parse ") {
		t.Errorf("callers of Parser.parse = %q, want EmailParser.parse (parent::parse)", got)
	}
	if got := callerNames(t, r, "EmailParser.parse"); len(got) != 0 {
		t.Errorf("callers of EmailParser.parse = %q, want none (parent::parse is not a call of itself)", got)
	}
	if got := callerNames(t, r, "EmailValidator.helper"); len(got) != 1 {
		t.Errorf("callers of EmailValidator.helper = %q, want EmailValidator.isValid (self::helper)", got)
	}
	if got := callerNames(t, r, "RFCValidation.check"); len(got) != 1 {
		t.Errorf("callers of RFCValidation.check = %q, want RFCValidation.isValid ($this->check)", got)
	}
	wantLibrary(t, edgesByCallee(t, r), "count", "strlen", "explode", "trim")
	// a class imported under another name (use ... as ValidationReason)
	if got := callerNames(t, r, "Reason.__construct"); len(got) != 1 || !strings.HasPrefix(got[0], "EmailValidator.getError ") {
		t.Errorf("callers of Reason.__construct = %q, want EmailValidator.getError (new ValidationReason())", got)
	}
}

// TestSuperCalls: super.draw() in Java and super().draw() in Python reach
// the base class's draw, not the override that makes the call (which a
// call by name on the caller's own class gave: a call of itself).
func TestSuperCalls(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/supercalls")
	for base, want := range map[string]string{"Shapes.java:Shape.draw": "Circle.draw ", "shapes.py:Shape.draw": "Square.draw "} {
		got := callerNames(t, r, base)
		if len(got) != 1 || !strings.HasPrefix(got[0], want) {
			t.Errorf("callers of %s = %q, want %s(super)", base, got, want)
		}
	}
	for _, own := range []string{"Circle.draw", "Square.draw"} {
		if got := callerNames(t, r, own); len(got) != 0 {
			t.Errorf("callers of %s = %q, want none", own, got)
		}
	}
	// a call typed with a nested class as its declaration writes it
	// (Request.Options options) is among the method's callers
	if got := callerNames(t, r, "Options.readTimeoutMillis"); len(got) != 1 || !strings.HasPrefix(got[0], "HttpClient.timeout ") {
		t.Errorf("callers of Options.readTimeoutMillis = %q, want HttpClient.timeout", got)
	}
}

// TestValueCallsReachMethods: a call on a value (m.set(k, v) on a Map)
// reaches a method, never a top-level function of that name; the bare
// call set(2) still does.
func TestValueCallsReachMethods(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/valuecalls")
	if got := callerNames(t, r, "set"); len(got) != 1 || got[0] != "run (same-file)" {
		t.Errorf("callers of set = %q, want the bare call of run alone", got)
	}
}

// TestJavaImplementorsOfANameTwoClassesShare: a class importing app.Client
// implements that Client, not a test's app.form.spring.Client of the
// same name (a package's name alone matched both, and the implementor was
// lost), and the graph of app.Client holds none of the other's members.
func TestJavaImplementorsOfANameTwoClassesShare(t *testing.T) {
	t.Parallel()
	r := resolverOf(t, "testdata/edges/javaclient")
	d, err := r.Lookup("src/main/java/app/Client.java:Client")
	if err != nil {
		t.Fatal(err)
	}
	g, err := r.Graph(d.Path + ":" + d.Name)
	if err != nil {
		t.Fatal(err)
	}
	implemented := false
	for _, e := range g.Edges {
		if e.Kind == "implements" && e.From == "HttpClient" {
			implemented = true
		}
		if e.Kind == "contains" && strings.Contains(e.To, "Config") {
			t.Errorf("the other Client's member listed: %+v", e)
		}
	}
	if !implemented {
		t.Errorf("HttpClient implements Client not listed among %+v", g.Edges)
	}
}
