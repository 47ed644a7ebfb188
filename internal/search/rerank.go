package search

import (
	"fmt"
	"path"
	"strings"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/lang"
)

// This file holds the re-ranking stages' functions that hybridStages
// (stages.go) declares: path priors, the file-name match and file
// coherence (weighted by the query's topicality), the exact-name pins
// (a symbol query's definition, else where the name is declared in text or
// re-exported, symsite.go; a name spelled in plain words) and
// diversification; delegation is in delegate.go. Each adds its signals
// to the scores and leaves the sorting to runStages. Scores are in fused
// units: the best candidate on both routes fuses to 1/FusionScale ~=
// 0.0164.

// auxKind names why a path holds code that rarely answers a question about
// what the project does: it documents, declares, demonstrates, measures,
// builds or releases it, or was generated. "" for ordinary source.
func auxKind(p string) string {
	lp := "/" + strings.ToLower(p)
	base := path.Base(lp)
	switch {
	// type declarations written beside the code they describe:
	// TypeScript's .d.ts and Python's .pyi stubs (PEP 484), whose
	// one-line "def peek(self) -> _T: ..." outranked more.py's peek
	case strings.HasSuffix(base, ".d.ts"), strings.HasSuffix(base, ".d.mts"), strings.HasSuffix(base, ".d.cts"),
		strings.HasSuffix(base, ".pyi"):
		return "declaration"
	case strings.Contains(base, ".pb.") || strings.HasSuffix(base, "_pb2.py") || strings.Contains(base, "_generated") ||
		strings.HasPrefix(base, "zz_generated") || strings.Contains(base, ".generated.") || strings.HasSuffix(base, ".min.js"):
		return "generated"
	}
	for _, d := range []string{"/examples/", "/example/", "/_examples/", "/samples/", "/sample/", "/demo/", "/demos/"} {
		if strings.Contains(lp, d) {
			return "example"
		}
	}
	// not "/doc/": it is as often a package (Go's go/doc) as a manual,
	// and a manual's prose is held back by DocPenalty anyway
	for _, d := range []string{"/docs/", "/documentation/", "/docs_src/", "/website/"} {
		if strings.Contains(lp, d) {
			return "docs"
		}
	}
	for _, d := range []string{"/bench/", "/benches/", "/benchmark/", "/benchmarks/"} {
		if strings.Contains(lp, d) {
			return "benchmark"
		}
	}
	// a scripts/ directory holds the project's own tooling (release,
	// docs builds, code generators, CI helpers: fastapi's
	// scripts/mkdocs_hooks.py resolve_files answered "how are
	// dependencies resolved"), not what the project does
	if strings.Contains(lp, "/scripts/") {
		return "tooling"
	}
	// third-party code copied into the tree goes by a few conventional
	// directory names (Go's vendor, Bazel's third_party, C/C++'s 3rdparty,
	// deps and bundled: spdlog's bundled fmt, redis's deps)
	for _, d := range []string{"/vendor/", "/third_party/", "/third-party/", "/thirdparty/", "/3rdparty/", "/bundled/", "/deps/",
		"/node_modules/", "/compat/", "/legacy/", "/deprecated/"} {
		if strings.Contains(lp, d) {
			return "vendored"
		}
	}
	return ""
}

// buildScripts are the base names (lower case) of build and packaging
// scripts written in a language the index parses: setup.py's functions
// hold "setup", "install" and "version" and answered "how is the timeout
// set" (设置 -> setup) on requests, but a question about the code is
// rarely about how it is packaged.
var buildScripts = map[string]bool{"setup.py": true, "build.rs": true, "noxfile.py": true, "fabfile.py": true,
	"rakefile": true, "gruntfile.js": true, "gulpfile.js": true, "karma.conf.js": true}

// isBuildScript reports whether base (lower case) is a build script: one
// of buildScripts, or a tool's JS/TS configuration (webpack.config.js,
// vite.config.ts, jest.config.mjs).
func isBuildScript(base string) bool {
	if buildScripts[base] {
		return true
	}
	for _, ext := range []string{".config.js", ".config.ts", ".config.mjs", ".config.cjs", ".config.mts", ".config.cts"} {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	return false
}

// docExts are files whose chunks are prose or build configuration, not
// code: they match many query words and rarely hold the implementation.
var docExts = map[string]bool{
	".md": true, ".mdx": true, ".markdown": true, ".rst": true, ".txt": true, ".adoc": true, ".html": true, ".htm": true,
	".cmake": true, ".bzl": true, ".bazel": true, ".yml": true, ".yaml": true, ".toml": true, ".json": true,
	".xml": true, ".cfg": true, ".ini": true, ".in": true, ".am": true, ".m4": true,
}

// isDocFile reports whether p is prose or build configuration (docExts, or
// a BUILD/CMakeLists/Makefile-style name).
func isDocFile(p string) bool {
	base := path.Base(p)
	switch strings.ToLower(base) {
	case "build", "build.bazel", "cmakelists.txt", "makefile", "workspace", "readme", "changelog", "license":
		return true
	}
	return docExts[strings.ToLower(path.Ext(base))]
}

// pathPrior returns how much to subtract from a candidate's score for where
// it lives: tests (TestPenalty), docs, examples, benchmarks, generated code,
// type declarations and vendored copies (AuxPenalty), and prose or build
// files (DocPenalty). A question about a code base is asked of the code
// that does the work; those files restate, exercise or describe it with the
// same words, so they win on term overlap alone unless held back.
func pathPrior(r Result, hp HybridParams) float64 {
	p := 0.0
	if isTestPath(r.Path) || inSourceTest(r) {
		p += hp.TestPenalty
	} else if auxKind(r.Path) != "" || isBuildScript(strings.ToLower(path.Base(r.Path))) {
		// a build script ranks as an auxiliary file, yet stays pinnable:
		// a name defined only there (app.config.ts's appConfig) is the
		// answer to a query for it
		p += hp.AuxPenalty
	}
	if r.Type == chunk.KindText && isDocFile(r.Path) {
		p += hp.DocPenalty
	}
	return p
}

// fileCoherence adds to the best candidate of every file a share (frac) of
// the scores of the file's other candidates, when they are positive. A file
// where many chunks match the question is stronger evidence than one lucky
// chunk: "how are routes grouped and registered" is answered by the file
// that defines the group, its methods and its helpers. Only the first pool
// candidates count, so a long file does not win on many weak matches. The
// idea and its form (boost the file's top chunk by a fraction of the rest) follow
// semble's multi-chunk file boost (MinishLab/semble, PR 25). ranked must be
// sorted; the boost is the signal "coherence".
func fileCoherence(ranked []Result, frac float64, pool int) {
	if frac <= 0 {
		return
	}
	best := map[string]int{}
	rest := map[string]float64{}
	for i, r := range ranked[:min(pool, len(ranked))] {
		if _, ok := best[r.Path]; !ok {
			best[r.Path] = i
			continue
		}
		if r.Score > 0 {
			rest[r.Path] += r.Score
		}
	}
	for p, i := range best {
		// capped at the file's own best score: a long file with many
		// weak matches gains at most frac of what its best chunk earned
		if b := frac * min(rest[p], ranked[i].Score); b > 0 {
			addSignal(&ranked[i], "coherence", b, "")
		}
	}
}

// diversify discounts a file's later candidates so that one file does not
// fill the list: the n-th candidate of a file (in ranked's order, which
// must be sorted) is scored as if it had decay^(n-free) of its score, and
// a definition that repeats a better-ranked one of another file (same
// type, name and signature) is decayed once more. Nothing is dropped; once
// the pool is re-sorted, a file's extra chunks move down behind other
// files' best ones. The first free candidates of a file are not decayed;
// decay 0 keeps the scores. The decayed score is written to Result.Score,
// so the scores shown descend with the list; the signal "diversity" holds
// the difference and, in its note, the factor.
func diversify(ranked []Result, decay float64, free int) {
	if decay <= 0 || decay >= 1 || len(ranked) < 2 {
		return
	}
	seen := make(map[string]int, len(ranked))
	defs := make(map[[2]string]string, len(ranked)) // type and name -> path of its first chunk
	notes := map[float64]string{}                   // factor -> its note, made once
	eff := make([]float64, len(ranked))
	for i, r := range ranked {
		n := seen[r.Path]
		seen[r.Path] = n + 1
		f := 1.0
		for range n - min(n, free-1) {
			f *= decay
		}
		// a definition with the same kind, name and signature as a
		// better-ranked one in a file beside it (same directory, or
		// sibling directories) is a parallel copy of it: a v3 and a v4
		// API, a platform variant, a classic and a mini build. It says
		// little the first does not, so it decays once as a file's extra
		// chunk does. A namesake further away (a public wrapper of an
		// internal implementation) is a different layer and keeps its place
		if r.Type != chunk.KindText {
			key := [2]string{r.Type, r.Name}
			if p, ok := defs[key]; !ok {
				defs[key] = r.Path
			} else if p != r.Path && parallelPaths(p, r.Path) {
				f *= decay
			}
		}
		// scores may be negative after penalties: push those further down
		if r.Score >= 0 {
			eff[i] = r.Score * f
		} else {
			eff[i] = r.Score / f
		}
		if f < 1 && ranked[i].Explain != nil {
			note, ok := notes[f]
			if !ok {
				note = fmt.Sprintf("x%.2f", f)
				notes[f] = note
			}
			ranked[i].Explain.Signals = append(ranked[i].Explain.Signals,
				Signal{Name: "diversity", Value: eff[i] - r.Score, Note: note})
		}
	}
	// the score shown is the one the list is ordered by
	for i := range ranked {
		ranked[i].Score = eff[i]
	}
}

// parallelPaths reports two files in the same directory or in sibling
// directories (v3/types.ts and v4/types.ts; classic/schemas.ts and
// mini/schemas.ts).
func parallelPaths(a, b string) bool {
	da, db := path.Dir(a), path.Dir(b)
	return da == db || path.Dir(da) == path.Dir(db)
}

// inSourceTest reports whether a chunk is a test kept inside a source file,
// as Rust keeps its unit tests: a definition under a test attribute
// (#[test], #[tokio::test], #[rstest], #[test_case(...)]) or a
// #[cfg(test)] module. It reads the attribute lines at the start of the
// chunk's content (the chunker puts a definition's attributes and doc
// comments in its chunk), up to the first line that is neither. A test
// exercises the code it tests with the same words, as a test file does, so
// it takes the same penalty.
func inSourceTest(r Result) bool {
	if r.Language != "rust" {
		return false
	}
	for rest := r.content; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "//"):
			continue
		case !strings.HasPrefix(line, "#["):
			return false
		case testAttribute(line):
			return true
		}
	}
	return false
}

// testAttribute reports whether a Rust attribute line marks a test:
// #[cfg(test)], or an attribute whose path ends in test, rstest or test_case
// (#[test], #[tokio::test], #[test_case(1, 2)]).
func testAttribute(line string) bool {
	a := strings.TrimPrefix(line, "#[")
	if strings.HasPrefix(a, "cfg(test)") {
		return true
	}
	if i := strings.IndexAny(a, "(]="); i >= 0 {
		a = a[:i]
	}
	if i := strings.LastIndex(a, "::"); i >= 0 {
		a = a[i+2:]
	}
	a = strings.TrimSpace(a)
	return a == "test" || a == "rstest" || a == "test_case"
}

// isTestPath is lang.IsTestFile plus the conventions of other ecosystems:
// spec/ directories and *_spec files (Ruby, JS), testing/ helpers,
// Java/Kotlin/C# classes named *Test or *Tests outside src/test, and
// *_test, *_unittest and test_* files in any language.
func isTestPath(p string) bool {
	if lang.IsTestFile(p) {
		return true
	}
	lp := "/" + strings.ToLower(p)
	if strings.Contains(lp, "/spec/") || strings.Contains(lp, "/specs/") || strings.Contains(lp, "/testing/") ||
		strings.Contains(lp, "/e2e/") {
		return true
	}
	base := path.Base(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	if strings.HasSuffix(stem, "_spec") || strings.HasSuffix(stem, "Test") || strings.HasSuffix(stem, "Tests") {
		return true
	}
	// foo_test.cc, foo_unittest.cc (googletest), foo_tests.rs, foo-test.js,
	// test_foo.c: the test-file names of C, C++, Rust and JS projects, which
	// keep tests beside the code rather than in a tests/ directory
	ls := strings.ToLower(stem)
	for _, suf := range []string{"_test", "_tests", "_unittest", "-test", "-tests"} {
		if strings.HasSuffix(ls, suf) && len(ls) > len(suf) {
			return true
		}
	}
	return strings.HasPrefix(ls, "test_") && len(ls) > len("test_")
}

// symbolQuery returns the name a query asks for when the whole query is one
// symbol ("ExecuteContext", "gin.Context", "Foo::bar", "Router#match"):
// the part after the last qualifier separator. "" for anything else.
func symbolQuery(q string) string {
	q = strings.TrimSpace(strings.Trim(strings.TrimSpace(q), "`'\"()"))
	if q == "" || strings.ContainsAny(q, " \t") {
		return ""
	}
	for _, r := range q {
		if !(r == '_' || r == '$' || r == '.' || r == ':' || r == '#' || r == '-' || r >= '0' && r <= '9' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return ""
		}
	}
	if i := strings.LastIndexAny(q, ".:#"); i >= 0 {
		q = q[i+1:]
	}
	return q
}

// exactPin adds pin to every definition outside tests, examples, docs and
// declarations whose bare name is exactly (case included) the symbol a
// symbol query names (name, see symbolQuery), and half of it to the name
// with a '$' sigil (sigilName), so that it comes first: a user
// who types a name wants its definition, not the functions that mention
// it. The pin is the signal "pin"; exactPin reports whether it pinned
// anything.
func exactPin(ranked []Result, name string, pin float64) bool {
	if name == "" || pin <= 0 {
		return false
	}
	// a name defined only in tests (TestParse, a test helper) is what the
	// user typed: its definition there is the answer
	testOnly := true
	for i := range ranked {
		if pinnable(ranked[i], name) {
			testOnly = false
			break
		}
	}
	// a name defined in several files (C# partial classes, a class
	// reopened): the definition in the file named after it is the one
	// (DynamicParameters.cs, not DynamicParameters.ParamInfo.cs)
	home := false
	for i := range ranked {
		if pinnable(ranked[i], name) && ranked[i].sym.Name == name && !isConstructor(ranked[i]) && namedAfter(ranked[i].Path, name) {
			home = true
			break
		}
	}
	return pinWhere(ranked, "pin", func(r *Result) float64 {
		// tests, examples and declarations mention the name too; the
		// definition the user wants is in ordinary source (pinnable)
		switch {
		case testOnly && r.sym.Name == name && r.Type != chunk.KindText && isTestPath(r.Path):
			return pin
		case r.sym.Owner == name && isConstructor(*r) && r.Type != chunk.KindText && !isTestPath(r.Path) && auxKind(r.Path) == "":
			// the class's constructor ("constructor", __init__,
			// initialize): how one is made, after the class's head. A
			// Java, C# or C++ constructor is named as its class, and the
			// words of its signature, its file's coherence lift and its
			// many overloads weigh with it: a quarter keeps the head first
			if r.sym.Name == name {
				return pin / 4
			}
			return pin / 2
		case !pinnable(*r, name):
			return 0
		case r.sym.Name != name:
			return pin / 2 // $ZodType for ZodType: after the exact spelling
		case home && !namedAfter(r.Path, name):
			return pin / 2 // another part of a class defined in its own file
		}
		return pin
	})
}

// namedAfter reports whether the file at p is named after name: its base
// name without the last extension is name (DynamicParameters.cs,
// StringSubstitutor.java, context.go for Context, case-insensitively).
func namedAfter(p, name string) bool {
	base := path.Base(p)
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return strings.EqualFold(base, name)
}

// spelledPin adds pin to every definition outside tests, examples, docs and
// declarations whose folded bare name (foldName) is the name a query of a
// few plain words spells (spelled, see Query.Spelled): "secure filename"
// asks for secure_filename and "file server" for FileServer, as surely as
// the identifier would, but the words alone match every chunk that
// mentions security, files or servers, and a file-name match or a
// wrapper's lift can push the function they name below its neighbours.
// The pin is the signal "spelled"; spelledPin reports whether it pinned
// anything.
func spelledPin(ranked []Result, spelled string, pin float64) bool {
	if spelled == "" || pin <= 0 {
		return false
	}
	return pinWhere(ranked, "spelled", func(r *Result) float64 {
		if r.Type == chunk.KindText || isTestPath(r.Path) || auxKind(r.Path) != "" {
			return 0
		}
		switch n := foldName(r.sym.Name); {
		case n == spelled:
			return pin
		case r.Type == chunk.KindClass && strings.HasPrefix(n, spelled) && roleSuffixes[n[len(spelled):]]:
			// "edmonds karp" names EdmondsKarpAlgorithm, "topsort"
			// TopsortIterator: a class named by the words and its role
			return pin / 2
		}
		return 0
	})
}

// roleSuffixes are the words a class name adds after what it is about to
// say what part it plays (EdmondsKarpAlgorithm, TopsortIterator,
// ConnectionPoolManager), folded as foldName folds names; a query that
// spells the rest names the class (spelledPin).
var roleSuffixes = map[string]bool{
	"algorithm": true, "iterator": true, "impl": true, "implementation": true, "handler": true,
	"manager": true, "service": true, "factory": true, "builder": true, "visitor": true,
	"strategy": true, "provider": true, "helper": true, "helpers": true, "util": true,
	"utils": true, "mixin": true, "base": true,
}

// pinWhere adds pin(r), when positive, to each result's score as the
// signal name, and reports whether it added any.
func pinWhere(ranked []Result, name string, pin func(r *Result) float64) bool {
	moved := false
	for i := range ranked {
		if p := pin(&ranked[i]); p > 0 {
			moved = addSignal(&ranked[i], name, p, "") || moved
		}
	}
	return moved
}

// fileNameTerms returns the analysed terms of the name a file goes by
// (fileSubject), or nil for a generic name.
func fileNameTerms(p string) []string {
	base, _ := fileSubject(p)
	if genericFileNames[strings.ToLower(base)] {
		return nil
	}
	return analyze.Terms(nil, base)
}

// fileSubject returns the name a file goes by: its base name before the
// first '.', or, for a file that a language's module system names after
// its directory (Rust's mod.rs, JavaScript's and TypeScript's index.js,
// Python's __init__.py, Lua's init.lua: directoryModules), that
// directory's name, with dirModule set. extract/mod.rs is the module
// extract, and defaults/index.js is what `require("./defaults")` loads. A
// module file at the root has no directory to go by and keeps its own
// name.
func fileSubject(p string) (name string, dirModule bool) {
	base := path.Base(p)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	if directoryModules[strings.ToLower(base)] {
		if dir := path.Base(path.Dir(p)); dir != "." && dir != "/" {
			return dir, true
		}
	}
	return base, false
}

// fileKey is the key baseNameCounts counts namesakes by: the lower-cased
// base name ("format.go"), or for a directory module its directory and
// base name ("handler/mod.rs"), since every Rust module directory has a
// mod.rs.
func fileKey(p string) string {
	base := strings.ToLower(path.Base(p))
	if dir, ok := fileSubject(p); ok {
		return strings.ToLower(dir) + "/" + base
	}
	return base
}

// directoryModules are the base names (before the first '.') of the files
// that a language loads for a directory: such a file is the directory's
// module.
var directoryModules = map[string]bool{"mod": true, "index": true, "__init__": true, "init": true}

// stemMatch returns the share of the terms of a file's base name (split
// and stemmed as the index does) that are terms of the query, or a query
// term's verb or agent noun (agentMatch): 1 for cookie.c
// on "cookie parsing and storage", 2/3 for HttpRedirect.kt on "how HTTP
// redirects are followed" (http, redirect, and the whole name httpredirect).
// Code bases name files after what they hold, so a file whose name the
// question spells is likely the one it asks about; semble's stem boost
// (MinishLab/semble) rests on the same observation. Generic names (index,
// mod, util, ...) never match.
func stemMatch(p string, terms map[string]bool) float64 {
	ts := fileNameTerms(p)
	if len(ts) == 0 {
		return 0
	}
	n := 0
	for _, t := range ts {
		if terms[t] || agentMatch(t, terms) {
			n++
		}
	}
	return float64(n) / float64(len(ts))
}

// agentMatch reports whether file term f and a query term are a verb and
// its agent noun, as the index stems them: router and rout (routing,
// routes), parser and pars (parses, parsing), extractor and extract,
// handler and handl (handling). Code bases name a file after the thing
// that does the work (router.ex, Parser.scala, exception_handlers.py),
// while a question names the work ("how routes are dispatched", "how
// circe parses JSON"); Snowball stems the two apart, so the file-name
// boost would miss the file the question is about.
func agentMatch(f string, terms map[string]bool) bool {
	if v, ok := agentVerb(f); ok && terms[v] {
		return true
	}
	for t := range terms {
		if v, ok := agentVerb(t); ok && v == f {
			return true
		}
	}
	return false
}

// agentVerb returns the verb stem of an agent noun's stem (router ->
// rout): t without its -er or -or, when t has at least 6 letters (so
// user, order and color stay nouns).
func agentVerb(t string) (string, bool) {
	if len(t) >= 6 && (strings.HasSuffix(t, "er") || strings.HasSuffix(t, "or")) {
		return t[:len(t)-2], true
	}
	return "", false
}

// baseNameCounts returns, for each file key (fileKey: the lower-cased base
// name, "format.go"), how many distinct files of ranked carry it.
func baseNameCounts(ranked []Result) map[string]int {
	seen := map[string]bool{}
	n := map[string]int{}
	for _, r := range ranked {
		if !seen[r.Path] {
			seen[r.Path] = true
			n[fileKey(r.Path)]++
		}
	}
	return n
}

// namesakeShare returns the share of the file-name boost that p keeps when
// namesakes[base] candidate files have its base name: 1/k for k of them,
// or 1 when a directory of p is named by a query term (terms). A base name
// that recurs across packages (format.go in time/, fmt/ and go/format/;
// parser.go beside every parser) names the role a file plays in its
// package, not the subject of the question, so the query word that
// matches it points at k files equally and each gets 1/k. A directory the
// query names ("classic zod schemas" for classic/schemas.ts) picks one of
// them, which keeps the whole boost. A unique name keeps it too.
func namesakeShare(p string, namesakes map[string]int, terms map[string]bool) float64 {
	k := namesakes[fileKey(p)]
	if k <= 1 {
		return 1
	}
	for _, t := range analyze.Terms(nil, path.Dir(p)) {
		if terms[t] {
			return 1
		}
	}
	return 1 / float64(k)
}

// genericFileNames are base names that say nothing of a file's subject.
var genericFileNames = map[string]bool{
	"index": true, "mod": true, "main": true, "lib": true, "init": true, "__init__": true, "util": true,
	"utils": true, "helpers": true, "helper": true, "common": true, "types": true, "base": true, "core": true,
	"api": true, "package-info": true, "doc": true, "readme": true,
}

// topicality says how much a query names a subject rather than describes a
// behaviour, from 1 (a short noun phrase of at most lo content words:
// "cookie parsing and storage", "radix tree path matching") down to 0 (a
// sentence of hi content words or more: "copy from a reader to a writer, preferring WriterTo or
// ReaderFrom when the types implement them"). A subject is answered by the
// file that holds it, so file-level evidence (file names, many matching
// chunks) counts for short queries; each added constraint narrows the
// answer to one function, so it counts less and less. Content words are
// the query's words that are not English stop words; a Chinese run counts
// its segmented words (Query.ContentWords).
func topicality(q *Query, lo, hi int) float64 {
	n := q.ContentWords
	switch {
	case n <= lo:
		return 1
	case n >= hi:
		return 0
	}
	return float64(hi-n) / float64(hi-lo)
}

// sigilName returns a name without a leading '$' sigil ("$ZodType" ->
// "ZodType"), or "" when it has none. JavaScript, TypeScript, PHP and
// shell code prefix a name with '$' to mark a core, internal or reactive
// variant of the same thing (zod's $ZodType under ZodType, Angular's
// $http, Svelte's $store); a query for the plain name is about it too.
func sigilName(n string) string {
	if len(n) > 1 && n[0] == '$' {
		return n[1:]
	}
	return ""
}
