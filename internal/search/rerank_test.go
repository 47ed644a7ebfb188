package search

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/coderag/coderag/internal/chunk"
)

// Build and packaging scripts take the auxiliary penalty but are no
// auxiliary kind: a name defined only there is still pinned.
func TestBuildScriptsPenalisedNotUnpinned(t *testing.T) {
	t.Parallel()
	hp := DefaultHybridParams()
	for p, want := range map[string]bool{
		"setup.py": true, "tokio/build.rs": true, "packages/app/vite.config.ts": true, "webpack.config.js": true,
		"src/app/app.config.ts": true, "src/setup_logging.py": false, "src/config.ts": false,
	} {
		r := Result{Path: p, Type: "function"}
		if got := pathPrior(r, hp) == hp.AuxPenalty; got != want {
			t.Errorf("pathPrior(%s) = %v, want the aux penalty: %v", p, pathPrior(r, hp), want)
		}
		if auxKind(p) != "" {
			t.Errorf("auxKind(%s) = %q: a build script must stay pinnable", p, auxKind(p))
		}
	}
	r := Result{Path: "src/app/app.config.ts", Name: "appConfig", Type: "function", Score: 0.001, Explain: &Explain{}, sym: chunk.Symbol{Name: "appConfig"}}
	if !pinnable(r, "appConfig") {
		t.Error("a definition in app.config.ts is not pinnable")
	}
}

func TestAuxKind(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]string{
		"types/index.d.ts":              "declaration",
		"more_itertools/more.pyi":       "declaration",
		"more_itertools/more.py":        "",
		"api/v1/service.pb.go":          "generated",
		"k8s/zz_generated.deepcopy.go":  "generated",
		"examples/basic/main.go":        "example",
		"docs/guide/routing.py":         "docs",
		"benches/throughput.rs":         "benchmark",
		"vendor/github.com/x/y/y.go":    "vendored",
		"include/x/fmt/bundled/core.h":  "vendored",
		"deps/jemalloc/src/arena.c":     "vendored",
		"src/3rdparty/zlib/inflate.c":   "vendored",
		"src/router.ts":                 "",
		"lib/examplesupport/support.go": "",
		"internal/docsgen/gen.go":       "",
		"scripts/mkdocs_hooks.py":       "tooling",
		".github/scripts/release.sh":    "tooling",
		"src/transcripts/parse.py":      "",
	} {
		if got := auxKind(p); got != want {
			t.Errorf("auxKind(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestPathPrior(t *testing.T) {
	t.Parallel()
	hp := DefaultHybridParams()
	cases := []struct {
		r    Result
		want float64
	}{
		{Result{Path: "src/router.go", Type: "function"}, 0},
		{Result{Path: "src/router_test.go", Type: "function"}, hp.TestPenalty},
		{Result{Path: "spec/router_spec.rb", Type: "method"}, hp.TestPenalty},
		{Result{Path: "db/db_test.cc", Type: "function"}, hp.TestPenalty},
		{Result{Path: "util/env_posix_unittest.cc", Type: "function"}, hp.TestPenalty},
		{Result{Path: "src/test_parser.c", Type: "function"}, hp.TestPenalty},
		{Result{Path: "lib/router-test.js", Type: "function"}, hp.TestPenalty},
		{Result{Path: "src/latest.rs", Type: "function"}, 0},
		{Result{Path: "src/contest_test_data.c", Type: "function"}, 0},
		{Result{Path: "examples/app.go", Type: "function"}, hp.AuxPenalty},
		{Result{Path: "types/index.d.ts", Type: "class"}, hp.AuxPenalty},
		{Result{Path: "README.md", Type: "text"}, hp.DocPenalty},
		{Result{Path: "docs/guide.md", Type: "text"}, hp.AuxPenalty + hp.DocPenalty},
		{Result{Path: "CMakeLists.txt", Type: "text"}, hp.DocPenalty},
		{Result{Path: "src/router.go", Type: "text"}, 0}, // code between definitions is not prose
		// Rust unit tests inside a source file
		{Result{Path: "src/lib.rs", Type: "function", Language: "rust", content: "    #[test]\n    fn adds() {\n        assert_eq!(add(2, 3), 5);\n    }"}, hp.TestPenalty},
		{Result{Path: "src/lib.rs", Type: "function", Language: "rust", content: "/// Runs on tokio.\n#[tokio::test(flavor = \"multi_thread\")]\nasync fn serves() {}"}, hp.TestPenalty},
		{Result{Path: "src/lib.rs", Type: "text", Language: "rust", content: "#[cfg(test)]\nmod tests {\n    use super::*;"}, hp.TestPenalty},
		{Result{Path: "src/lib.rs", Type: "function", Language: "rust", content: "#[test_case(1, 2)]\nfn sums(a: i32, b: i32) {}"}, hp.TestPenalty},
		{Result{Path: "src/lib.rs", Type: "function", Language: "rust", content: "/// Adds.\n#[inline]\n#[must_use]\npub fn add(a: i32, b: i32) -> i32 { a + b }"}, 0},
		{Result{Path: "src/lib.rs", Type: "function", Language: "rust", content: "#[cfg(feature = \"test-util\")]\npub fn pause() {}"}, 0},
		{Result{Path: "src/lib.rs", Type: "function", Language: "rust", content: "pub fn latest() {\n    #[test]\n}"}, 0},
		{Result{Path: "src/attest.rs", Type: "function", Language: "rust", content: "#[attest]\nfn x() {}"}, 0},
		{Result{Path: "src/lib.go", Type: "function", Language: "go", content: "#[test]\nfunc x() {}"}, 0},
	}
	for _, c := range cases {
		if got := pathPrior(c.r, hp); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("pathPrior(%s %s) = %v, want %v", c.r.Path, c.r.Type, got, c.want)
		}
	}
}

func TestFileCoherence(t *testing.T) {
	t.Parallel()
	ranked := []Result{
		{Path: "lucky.go", Name: "Lucky", Score: 0.010, Explain: &Explain{}},
		{Path: "routes.go", Name: "Group", Score: 0.009, Explain: &Explain{}},
		{Path: "routes.go", Name: "Handle", Score: 0.004, Explain: &Explain{}},
		{Path: "routes.go", Name: "Use", Score: 0.003, Explain: &Explain{}},
		{Path: "big.go", Name: "A", Score: 0.002, Explain: &Explain{}},
		{Path: "big.go", Name: "B", Score: 0.002, Explain: &Explain{}},
		{Path: "big.go", Name: "C", Score: 0.002, Explain: &Explain{}},
		{Path: "big.go", Name: "D", Score: 0.002, Explain: &Explain{}},
	}
	fileCoherence(ranked, 0.5, 50)
	sortResults(ranked)
	if ranked[0].Name != "Group" {
		t.Fatalf("the file with several matching chunks should lead: %v", names(ranked))
	}
	if got, want := ranked[0].Explain.Signal("coherence"), 0.5*0.007; math.Abs(got-want) > 1e-12 {
		t.Errorf("Group's boost = %v, want %v (half of its siblings' scores)", got, want)
	}
	// big.go's siblings add 0.006, but the boost is capped at its best (0.002)
	for _, r := range ranked {
		if r.Name == "A" && math.Abs(r.Explain.Signal("coherence")-0.5*0.002) > 1e-12 {
			t.Errorf("big.go's boost = %v, want it capped at half its best score", r.Explain.Signal("coherence"))
		}
		if r.Name == "Handle" && r.Explain.Signal("coherence") != 0 {
			t.Errorf("only a file's best chunk is boosted, Handle got %v", r.Explain.Signal("coherence"))
		}
	}
	// a pool of 1 sees no sibling: nothing moves
	ranked2 := []Result{{Path: "a.go", Score: 2, Explain: &Explain{}}, {Path: "a.go", Score: 1, Explain: &Explain{}}}
	fileCoherence(ranked2, 0.5, 1)
	if ranked2[0].Explain.Signal("coherence") != 0 {
		t.Errorf("siblings outside the pool counted: %v", ranked2[0].Explain.Signal("coherence"))
	}
}

func TestStemMatch(t *testing.T) {
	t.Parallel()
	terms := func(q string) map[string]bool {
		m := map[string]bool{}
		for _, t := range QueryTerms(q) {
			m[t] = true
		}
		return m
	}
	cases := []struct {
		path, query string
		want        float64
	}{
		{"lib/cookie.c", "cookie parsing and storage", 1},
		{"plugins/HttpRedirect.kt", "how HTTP redirects are followed", 2.0 / 3},
		{"src/index.ts", "index the documents", 0}, // generic name
		{"lib/transfer.c", "cookie parsing and storage", 0},
		// a directory's module file goes by the directory's name
		{"axum/src/response/mod.rs", "how IntoResponse converts return values to HTTP responses", 1},
		{"lib/defaults/index.js", "axios default configuration", 1},
		{"src/json/__init__.py", "encode a value as json", 1},
		{"lua/telescope/actions/init.lua", "telescope actions", 1},
		{"axum/src/response/mod.rs", "modules of the crate", 0},
		{"lib/index.js", "the lib entry point", 0}, // its directory's name is generic
		{"mod.rs", "mod", 0}, // no directory to go by
		// a verb and its agent noun, stemmed apart by Snowball
		{"lib/phoenix/router.ex", "how routes are dispatched", 1},
		{"io/circe/Parser.scala", "how circe parses a JSON string", 1},
		{"axum/src/routing/mod.rs", "how axum nests routers", 1},
		{"src/extract/mod.rs", "how extractors implement FromRequest", 1},
		{"fastapi/exception_handlers.py", "request validation and error handling", 1.0 / 3}, // exception, handler, exceptionhandl
		{"lib/user.go", "how users are stored", 1},                                          // plural: the same stem
		{"lib/us.go", "how users are stored", 0},                                            // user is too short to be an agent noun
		{"src/author.rs", "auth middleware", 1},                                             // a false match the rule accepts
		{"lib/order.go", "the ord function", 0},                                             // nor order
	}
	for _, c := range cases {
		if got := stemMatch(c.path, terms(c.query)); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("stemMatch(%s, %q) = %v, want %v", c.path, c.query, got, c.want)
		}
	}
}

func TestDirectoryModuleNamesakes(t *testing.T) {
	t.Parallel()
	var ranked []Result
	for _, p := range []string{"src/handler/mod.rs", "src/routing/mod.rs", "src/handler/mod.rs",
		"time/format.go", "fmt/format.go", "src/handler.rs"} {
		ranked = append(ranked, Result{Path: p})
	}
	n := baseNameCounts(ranked)
	want := map[string]int{"handler/mod.rs": 1, "routing/mod.rs": 1, "format.go": 2, "handler.rs": 1}
	if !reflect.DeepEqual(n, want) {
		t.Errorf("baseNameCounts = %v, want %v", n, want)
	}
	terms := map[string]bool{"handler": true}
	// every Rust module directory has a mod.rs: handler/mod.rs is not
	// one namesake among them, it is the handler module
	if got := namesakeShare("src/handler/mod.rs", n, terms); got != 1 {
		t.Errorf("namesakeShare(handler/mod.rs) = %v, want 1", got)
	}
	if got := namesakeShare("time/format.go", n, map[string]bool{"format": true}); got != 0.5 {
		t.Errorf("namesakeShare(time/format.go) = %v, want 0.5", got)
	}
}

func TestTopicality(t *testing.T) {
	t.Parallel()
	hp := DefaultHybridParams()
	cases := []struct {
		q    string
		want float64
	}{
		{"cookie parsing and storage", 1},
		{"how are routes grouped and registered", 1},
		{"copy from a reader to a writer, preferring WriterTo or ReaderFrom when the types implement them", 0},
		// 7 content words: parse binary tzif time zone database format
		{"parse the binary TZif time zone database format", float64(hp.TopicalMax-7) / float64(hp.TopicalMax-hp.TopicalMin)},
	}
	for _, c := range cases {
		if got := topicality(AnalyzeQuery(nil, c.q, hp.QueryOptions), hp.TopicalMin, hp.TopicalMax); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("topicality(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}

func TestSymbolQuery(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"ExecuteContext":         "ExecuteContext",
		"gin.Context":            "Context",
		"Foo::bar":               "bar",
		"Router#match":           "match",
		"`ShouldBindQuery`":      "ShouldBindQuery",
		"how routes are grouped": "",
		"路由":                     "",
	} {
		if got := symbolQuery(q); got != want {
			t.Errorf("symbolQuery(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestDiversifyReorders(t *testing.T) {
	t.Parallel()
	ranked := []Result{
		{Path: "a.go", Name: "a1", Score: 10}, {Path: "a.go", Name: "a2", Score: 9},
		{Path: "a.go", Name: "a3", Score: 8}, {Path: "a.go", Name: "a4", Score: 7},
		{Path: "b.go", Name: "b1", Score: 6},
	}
	diversify(ranked, 0.5, 2)
	sortResults(ranked)
	got := ""
	for _, r := range ranked {
		got += r.Name + " "
	}
	// a3 is decayed to 4 and a4 to 1.75: both move behind b1
	if want := "a1 a2 b1 a3 a4 "; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	// the scores are the ones the list is ordered by: a3 shows 4, and
	// they descend
	if ranked[3].Score != 4 || ranked[4].Score != 1.75 {
		t.Errorf("decayed scores %v %v, want 4 1.75", ranked[3].Score, ranked[4].Score)
	}
	for i := 1; i < len(ranked); i++ {
		if ranked[i].Score > ranked[i-1].Score {
			t.Errorf("scores out of order at %d: %v > %v", i+1, ranked[i].Score, ranked[i-1].Score)
		}
	}
	// --explain says by how much the order discounted a later chunk
	ex := []Result{{Path: "a.go", Score: 3, Explain: &Explain{}}, {Path: "a.go", Score: 2, Explain: &Explain{}}, {Path: "a.go", Score: 1, Explain: &Explain{}}}
	diversify(ex, 0.5, 2)
	if ex[0].Explain.Signal("diversity") != 0 || ex[1].Explain.Signal("diversity") != 0 ||
		ex[2].Explain.Signal("diversity") != -0.5 || ex[2].Explain.note("diversity") != "x0.50" {
		t.Errorf("explained discounts %+v %+v %+v, want none, none, -0.5 (x0.50)", ex[0].Explain, ex[1].Explain, ex[2].Explain)
	}
}

// A definition repeated with the same name and signature in a file beside
// the first (classic/ and mini/ builds of one API) decays once, letting
// another file's answer up; a namesake in a distant package (a public
// wrapper of an internal implementation) keeps its place.
func TestDiversifyParallelCopies(t *testing.T) {
	t.Parallel()
	ranked := []Result{
		{Path: "v4/classic/schemas.ts", Name: "record(k: K, v: V)", Type: "function", Score: 10},
		{Path: "v4/mini/schemas.ts", Name: "record(k: K, v: V)", Type: "function", Score: 9},
		{Path: "v4/core/api.ts", Name: "_record(k: K, v: V)", Type: "function", Score: 8},
	}
	diversify(ranked, 0.7, 2)
	sortResults(ranked)
	if got := ranked[1].Path; got != "v4/core/api.ts" {
		t.Errorf("second result %s, want the core file ahead of the mini copy", got)
	}
	far := []Result{
		{Path: "crypto/internal/fips140/subtle/constant_time.go", Name: "ConstantTimeCompare(x, y []byte)", Type: "function", Score: 10},
		{Path: "crypto/subtle/constant_time.go", Name: "ConstantTimeCompare(x, y []byte)", Type: "function", Score: 9},
		{Path: "bytes/bytes.go", Name: "Compare(a, b []byte)", Type: "function", Score: 8},
	}
	diversify(far, 0.7, 2)
	sortResults(far)
	if got := far[1].Path; got != "crypto/subtle/constant_time.go" {
		t.Errorf("second result %s, want the public wrapper kept in place", got)
	}
	if !parallelPaths("v3/types.ts", "v4/types.ts") || !parallelPaths("net/fd_unix.go", "net/fd_windows.go") ||
		parallelPaths("crypto/subtle/a.go", "crypto/internal/fips140/subtle/a.go") {
		t.Error("parallelPaths: want same and sibling directories only")
	}
}

// A query that is exactly a definition's name puts that definition first,
// above the functions it delegates to and above a test that mentions it;
// the wrapper lift neither chains (ExecuteContext -> Execute -> ExecuteC)
// nor passes the named chunk.
func TestExactNameComesFirst(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{
		"command.go": `package cobra

// ExecuteContext is the same as Execute(), but sets the ctx on the command.
func (c *Command) ExecuteContext(ctx context.Context) error {
	c.ctx = ctx
	return c.Execute()
}

// Execute uses the args and runs through the command tree finding
// appropriate matches for commands and then corresponding flags. It
// calls ExecuteC with the context set by ExecuteContext.
func (c *Command) Execute() error {
	_, err := c.ExecuteC()
	return err
}

// ExecuteC executes the command; ExecuteContext and Execute end here.
func (c *Command) ExecuteC() (cmd *Command, err error) {
	return c, nil
}
`,
		"command_test.go": `package cobra

func TestExecuteContext(t *testing.T) { ExecuteContext(ctx); ExecuteContext(ctx) }

func ExecuteContext(ctx context.Context) {}
`,
	})
	rs := top(t, s, "ExecuteContext", RankerHybrid, 5)
	if len(rs) == 0 || rs[0].Path != "command.go" || rs[0].sym.Name != "ExecuteContext" {
		t.Fatalf("ExecuteContext should come first: %v", names(rs))
	}
}

func TestExactPinSkipsTests(t *testing.T) {
	t.Parallel()
	ranked := []Result{
		{Path: "x_test.go", Name: "Parse()", Type: "function", Score: 0.02, Explain: &Explain{}, sym: chunk.Symbol{Name: "Parse"}},
		{Path: "x.go", Name: "Parse()", Type: "function", Score: 0.01, Explain: &Explain{}, sym: chunk.Symbol{Name: "Parse"}},
		{Path: "x.go", Name: "parse()", Type: "function", Score: 0.015, Explain: &Explain{}, sym: chunk.Symbol{Name: "parse"}},
	}
	exactPin(ranked, "Parse", 0.05)
	sortResults(ranked)
	if ranked[0].Path != "x.go" || ranked[0].Name != "Parse()" {
		t.Errorf("the non-test exact definition should lead: %v", names(ranked))
	}
	for _, r := range ranked {
		if r.Path == "x_test.go" && r.Explain.Signal("pin") != 0 {
			t.Errorf("a test chunk was pinned")
		}
		if r.Name == "parse()" && r.Explain.Signal("pin") != 0 {
			t.Errorf("the pin is case-sensitive; parse() was pinned")
		}
	}
	_ = context.Background
}

// A name defined only in a test (TestParse) is what the user typed: its
// test definition is pinned; while an ordinary definition of the name
// exists, the test's is not.
func TestExactPinTestOnlyName(t *testing.T) {
	t.Parallel()
	ranked := []Result{
		{Path: "parse.go", Name: "Parse()", Type: "function", Score: 0.012, Explain: &Explain{}, sym: chunk.Symbol{Name: "Parse"}},
		{Path: "parse_test.go", Name: "TestParse(t)", Type: "function", Score: 0.004, Explain: &Explain{}, sym: chunk.Symbol{Name: "TestParse"}},
	}
	exactPin(ranked, "TestParse", 0.05)
	sortResults(ranked)
	if ranked[0].Name != "TestParse(t)" || ranked[0].Explain.Signal("pin") == 0 {
		t.Errorf("a test-only name: want its test first, pinned: %v", names(ranked))
	}
	ranked = []Result{
		{Path: "parse.go", Name: "Parse()", Type: "function", Score: 0.004, Explain: &Explain{}, sym: chunk.Symbol{Name: "Parse"}},
		{Path: "parse_test.go", Name: "Parse()", Type: "function", Score: 0.012, Explain: &Explain{}, sym: chunk.Symbol{Name: "Parse"}},
	}
	exactPin(ranked, "Parse", 0.05)
	sortResults(ranked)
	if ranked[0].Path != "parse.go" || ranked[1].Explain.Signal("pin") != 0 {
		t.Errorf("an ordinary definition exists: the test's must not be pinned: %v", names(ranked))
	}
}

// A '$'-prefixed definition ($ZodType) answers a query for the plain name,
// after the exact spelling.
func TestExactPinSigil(t *testing.T) {
	t.Parallel()
	ranked := []Result{
		{Path: "a.ts", Name: "useType()", Type: "function", Score: 0.03, Explain: &Explain{}, sym: chunk.Symbol{Name: "useType"}},
		{Path: "core.ts", Name: "$ZodType", Type: "class", Score: 0.01, Explain: &Explain{}, sym: chunk.Symbol{Name: "$ZodType"}},
		{Path: "classic.ts", Name: "ZodType", Type: "class", Score: 0.005, Explain: &Explain{}, sym: chunk.Symbol{Name: "ZodType"}},
	}
	exactPin(ranked, "ZodType", 0.05)
	sortResults(ranked)
	if got := names(ranked); got[0] != "classic.ts:ZodType" || got[1] != "core.ts:$ZodType" {
		t.Errorf("want the exact name, then the sigil name: %v", got)
	}
	if sigilName("$x") != "x" || sigilName("x") != "" || sigilName("$") != "" {
		t.Error("sigilName")
	}
}

// A symbol query for a class puts the class first and its constructor
// ("constructor", __init__) next, at half the pin, as a Java constructor named as its class
// is pinned with it; another class's constructor and a test's are not.
func TestExactPinClassConstructor(t *testing.T) {
	t.Parallel()
	r := func(path, name string, score float64, sym chunk.Symbol) Result {
		return Result{Path: path, Name: name, Type: "method", Score: score, Explain: &Explain{}, sym: sym}
	}
	ranked := []Result{
		// fused scores are at most 1/61 before the boosts
		r("axios.js", "axios.all(promises)", 0.012, chunk.Symbol{Name: "all", Owner: "axios"}),
		r("core/Axios.js", "Axios.request(config)", 0.01, chunk.Symbol{Name: "request", Owner: "Axios"}),
		r("core/AxiosHeaders.js", "AxiosHeaders.constructor(h)", 0.011, chunk.Symbol{Name: "constructor", Owner: "AxiosHeaders"}),
		r("core/Axios.js", "Axios.constructor(instanceConfig)", 0.001, chunk.Symbol{Name: "constructor", Owner: "Axios"}),
		r("test/Axios_test.js", "Axios.constructor()", 0.004, chunk.Symbol{Name: "constructor", Owner: "Axios"}),
		{Path: "core/Axios.js", Name: "Axios", Type: "class", Score: 0.01, Explain: &Explain{}, sym: chunk.Symbol{Name: "Axios"}},
	}
	exactPin(ranked, "Axios", 0.05)
	sortResults(ranked)
	if got := names(ranked); got[0] != "core/Axios.js:Axios" || got[1] != "core/Axios.js:Axios.constructor(instanceConfig)" {
		t.Errorf("want the class, then its constructor: %v", got)
	}
	for _, x := range ranked {
		if (x.Path == "test/Axios_test.js" || x.Name == "AxiosHeaders.constructor(h)" || x.Name == "Axios.request(config)") && x.Explain.Signal("pin") != 0 {
			t.Errorf("%s:%s was pinned", x.Path, x.Name)
		}
	}
}

// A query of a few plain words that spell a definition's name asks for it:
// the named function comes first, above a file whose name the words match
// and the implementation a wrapper there lifts.
func TestSpelledName(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{
		"pkg/security.py": `def _hash_internal(method, salt, password):
    """Internal secure hashing of a password with a salt; secure by default."""
    return method + salt + password


def check_password_hash(pwhash, password):
    """Securely check that a stored secure hash matches a password (secure filename safe)."""
    return _hash_internal(pwhash, "", password)
`,
		"pkg/utils.py": `def secure_filename(filename):
    """Return a secure version of a filename."""
    return filename.replace("/", "_")


def other(x):
    return x
`,
	})
	rs := top(t, s, "secure filename", RankerHybrid, 3)
	if len(rs) == 0 || rs[0].sym.Name != "secure_filename" || rs[0].Explain.Signal("spelled") <= 0 {
		t.Fatalf("secure_filename should come first, pinned: %v", names(rs))
	}
	for _, c := range []struct{ q, want string }{
		{"secure filename", "securefilename"}, {"File Server", "fileserver"}, {"get user by id", "getuserbyid"},
		{"filename", ""}, {"how are secure filenames made here", ""}, {"secure_filename x", ""}, {"gin.Context", ""},
	} {
		if got := AnalyzeQuery(nil, c.q, DefaultHybridParams().QueryOptions).Spelled; got != c.want {
			t.Errorf("Spelled(%q) = %q, want %q", c.q, got, c.want)
		}
	}
	for n, want := range map[string]string{"generate_password_hash": "generatepasswordhash", "FileServer": "fileserver", "$ZodType": "zodtype", "safe-join": "safejoin"} {
		if got := foldName(n); got != want {
			t.Errorf("foldName(%q) = %q, want %q", n, got, want)
		}
	}
}

// A file name shared by several candidate files (format.go in three
// packages) earns each of them a third of the file-name boost, unless the
// query also names the file's directory; a unique name keeps the whole.
func TestFileNameBoostSharedByNamesakes(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{
		"tz/format.go":     "package tz\n\n// layoutChunks splits a layout string into chunks.\nfunc layoutChunks(s string) []string { return nil }\n",
		"fmtx/format.go":   "package fmtx\n\n// padNumber pads a number with zeros.\nfunc padNumber(n int) string { return \"\" }\n",
		"report/format.go": "package report\n\n// columnWidth measures a column of a table.\nfunc columnWidth(c []string) int { return 0 }\n",
		"tz/zone.go":       "package tz\n\n// loadZoneData decodes the binary zone database.\nfunc loadZoneData(b []byte) {}\n",
	})
	full := DefaultHybridParams().StemBoost // topicality 1: at most six content words
	stem := func(rs []Result, p string) float64 {
		t.Helper()
		for _, r := range rs {
			if r.Path == p {
				return r.Explain.Signal("file_name")
			}
		}
		t.Fatalf("%s not ranked: %v", p, names(rs))
		return 0
	}
	rs := top(t, s, "binary zone database format", RankerHybrid, 10)
	for _, p := range []string{"tz/format.go", "fmtx/format.go", "report/format.go"} {
		if got := stem(rs, p); math.Abs(got-full/3) > 1e-9 {
			t.Errorf("%s: file-name boost %v, want a third of %v (three format.go files)", p, got, full)
		}
	}
	if got := stem(rs, "tz/zone.go"); math.Abs(got-full) > 1e-9 {
		t.Errorf("tz/zone.go: file-name boost %v, want all of %v (a unique name)", got, full)
	}
	if r := rankOf(rs, "tz/zone.go", "loadZoneData"); r != 1 {
		t.Errorf("loadZoneData should rank first, got %d: %v", r, names(rs))
	}
	rs = top(t, s, "tz layout format", RankerHybrid, 10)
	if got := stem(rs, "tz/format.go"); math.Abs(got-full) > 1e-9 {
		t.Errorf("tz/format.go on a query naming tz: file-name boost %v, want all of %v", got, full)
	}
}

// A class named in a symbol query comes before its constructors, also
// when they are named as the class (Java, C#, C++) and score more before
// the pin (a file's coherence lift goes to its best candidate, and the
// constructor's signature holds the name again); of a class defined in
// several files (C# partial classes), the part in the file named after it
// comes first.
func TestExactPinClassBeforeItsConstructors(t *testing.T) {
	t.Parallel()
	ranked := []Result{
		{Path: "StringSubstitutor.java", Name: "StringSubstitutor.StringSubstitutor()", Type: "method", Score: 0.060, Explain: &Explain{},
			sym: chunk.Symbol{Name: "StringSubstitutor", Owner: "StringSubstitutor"}},
		{Path: "StringSubstitutor.java", Name: "StringSubstitutor.StringSubstitutor(StringLookup r)", Type: "method", Score: 0.045, Explain: &Explain{},
			sym: chunk.Symbol{Name: "StringSubstitutor", Owner: "StringSubstitutor"}},
		{Path: "StringSubstitutor.java", Name: "StringSubstitutor", Type: "class", Score: 0.031, Explain: &Explain{},
			sym: chunk.Symbol{Name: "StringSubstitutor"}},
		{Path: "StringSubstitutor.java", Name: "StringSubstitutor.replace(Object source)", Type: "method", Score: 0.050, Explain: &Explain{},
			sym: chunk.Symbol{Name: "replace", Owner: "StringSubstitutor"}},
	}
	exactPin(ranked, "StringSubstitutor", 0.05)
	sortResults(ranked)
	if ranked[0].Type != "class" || ranked[1].Name != "StringSubstitutor.StringSubstitutor()" {
		t.Errorf("want the class, then its constructor: %v", names(ranked))
	}
	ranked = []Result{
		{Path: "Dapper/DynamicParameters.ParamInfo.cs", Name: "DynamicParameters", Type: "class", Score: 0.054, Explain: &Explain{}, sym: chunk.Symbol{Name: "DynamicParameters"}},
		{Path: "Dapper/DynamicParameters.cs", Name: "DynamicParameters.DynamicParameters()", Type: "method", Score: 0.059, Explain: &Explain{},
			sym: chunk.Symbol{Name: "DynamicParameters", Owner: "DynamicParameters"}},
		{Path: "Dapper/DynamicParameters.cs", Name: "DynamicParameters", Type: "class", Score: 0.032, Explain: &Explain{}, sym: chunk.Symbol{Name: "DynamicParameters"}},
	}
	exactPin(ranked, "DynamicParameters", 0.05)
	sortResults(ranked)
	if ranked[0].Path != "Dapper/DynamicParameters.cs" || ranked[0].Type != "class" {
		t.Errorf("want the part of the class in DynamicParameters.cs first: %v", names(ranked))
	}
	// a class defined in one file not named after it keeps the whole pin
	ranked = []Result{
		{Path: "lib/models.py", Name: "Session", Type: "class", Score: 0.01, Explain: &Explain{}, sym: chunk.Symbol{Name: "Session"}},
		{Path: "lib/models.py", Name: "Session.__init__(self)", Type: "method", Score: 0.03, Explain: &Explain{}, sym: chunk.Symbol{Name: "__init__", Owner: "Session"}},
	}
	exactPin(ranked, "Session", 0.05)
	if got := ranked[0].Explain.Signal("pin"); got != 0.05 {
		t.Errorf("Session in models.py: pin %v, want 0.05", got)
	}
	if got := ranked[1].Explain.Signal("pin"); got != 0.025 {
		t.Errorf("Session.__init__: pin %v, want 0.025", got)
	}
}

// A query that spells a class's name but for its role suffix names the
// class too ("edmonds karp" -> EdmondsKarpAlgorithm), pinned half as
// strongly as an exact spelling; a function so named, a longer or another
// suffix, and a text chunk are not.
func TestSpelledNameWithRoleSuffix(t *testing.T) {
	t.Parallel()
	mk := func(name string, typ string) Result {
		return Result{Path: "lib/flow.rb", Name: name, Type: typ, sym: chunk.Symbol{Name: name}, Explain: &Explain{}}
	}
	ranked := []Result{
		mk("EdmondsKarpAlgorithm", chunk.KindClass),
		mk("EdmondsKarp", chunk.KindFunction),
		mk("edmonds_karp_algorithm", chunk.KindFunction),
		mk("EdmondsKarpBFSIterator", chunk.KindClass),
		mk("EdmondsKarpAlgorithmCache", chunk.KindClass),
		mk("EdmondsKarpHandler", chunk.KindText),
	}
	if !spelledPin(ranked, "edmondskarp", 0.05) {
		t.Fatal("nothing pinned")
	}
	want := []float64{0.025, 0.05, 0, 0, 0, 0}
	for i, r := range ranked {
		if got := r.Explain.Signal("spelled"); got != want[i] {
			t.Errorf("%s (%s): spelled %v, want %v", r.Name, r.Type, got, want[i])
		}
	}
}
