// Package lang maps file names to languages and says which files coderag
// indexes. The grammar registry lives in internal/chunk, keyed by these names.
package lang

import (
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// byExt maps a lower-case extension (with dot) to a language name. Languages
// with a tree-sitter grammar in internal/chunk use the grammar's name; others
// are chunked as text.
var byExt = map[string]string{
	".go": "go", ".java": "java", ".py": "python", ".pyi": "python",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
	".rs": "rust", ".c": "c", ".h": "c",
	".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
	".cs": "csharp", ".rb": "ruby", ".php": "php", ".scala": "scala", ".sc": "scala", ".sbt": "scala",
	".kt": "kotlin", ".kts": "kotlin", ".sh": "bash", ".bash": "bash", ".zsh": "bash",
	".swift": "swift", ".m": "objc", ".mm": "objc", ".lua": "lua", ".dart": "dart",
	".r": "r", ".pl": "perl", ".pm": "perl", ".ex": "elixir", ".exs": "elixir",
	".erl": "erlang", ".hs": "haskell", ".ml": "ocaml", ".clj": "clojure", ".groovy": "groovy",
	".gradle": "groovy", ".vue": "vue", ".svelte": "svelte", ".sql": "sql", ".proto": "protobuf",
	".md": "markdown", ".markdown": "markdown", ".rst": "text", ".rdoc": "text", ".txt": "text",
	".xml": "xml", ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml",
	".ini": "ini", ".cfg": "ini", ".conf": "ini", ".properties": "properties",
	".html": "html", ".htm": "html", ".css": "css", ".scss": "css", ".less": "css",
	".graphql": "graphql", ".tf": "hcl", ".hcl": "hcl", ".cmake": "cmake", ".mod": "gomod",
	".s": "asm", ".zig": "zig", ".zon": "zig", ".inc": "cpp", ".inl": "cpp", ".ipp": "cpp", ".tpp": "cpp",
	".cppm": "cpp", ".ixx": "cpp", ".bzl": "starlark", ".bazel": "starlark", ".star": "starlark",
	".jl": "julia", ".hrl": "erlang", ".mli": "ocaml", ".fs": "fsharp",
	".nim": "nim", ".sv": "verilog", ".vim": "vim", ".el": "elisp", ".lisp": "lisp",
	".ps1": "powershell", ".bat": "batch", ".cmd": "batch", ".awk": "awk", ".hcl2": "hcl",
	".nix": "nix", ".pas": "pascal", ".f90": "fortran", ".cu": "cpp", ".cuh": "cpp",
	".ru": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".podspec": "ruby", ".pyw": "python", ".mdx": "markdown",
}

// byName maps exact base names without a useful extension.
var byName = map[string]string{
	"Makefile": "make", "makefile": "make", "GNUmakefile": "make", "Dockerfile": "dockerfile",
	"CMakeLists.txt": "cmake", "Rakefile": "ruby", "Gemfile": "ruby", "BUILD": "starlark",
	"BUILD.bazel": "starlark", "WORKSPACE": "starlark", "Jenkinsfile": "groovy",
	"Vagrantfile": "ruby", "Podfile": "ruby", "Guardfile": "ruby", "Brewfile": "ruby",
}

// Detect returns the language of a file from its name, or "" when coderag does
// not index files of that kind. name may be a path with '/' or OS separators.
func Detect(name string) string {
	base := path.Base(strings.ReplaceAll(name, "\\", "/"))
	if l, ok := byName[base]; ok {
		return l
	}
	ext := strings.ToLower(path.Ext(base))
	if ext == ".inc" {
		// a fragment included by a document (about.rst.inc, intro.md.inc)
		// is that document's language, not C++'s
		if inner := byExt[strings.ToLower(path.Ext(strings.TrimSuffix(base, path.Ext(base))))]; inner != "" && !codeIncludes[inner] {
			return inner
		}
	}
	return byExt[ext]
}

// codeIncludes are the languages whose ".x.inc" fragment stays C++'s
// (a generated table included by C code: opcodes.h.inc).
var codeIncludes = map[string]bool{"c": true, "cpp": true}

// Indexable reports whether a file of this name is indexed (Detect != "").
func Indexable(name string) bool { return Detect(name) != "" }

// IsTestFile reports whether a root-relative path is test code: Go
// _test.go files, files under test/, tests/, testdata/ or __tests__/
// directories, SwiftPM's Tests/, a Gradle or Kotlin Multiplatform source
// set of tests (src/commonTest/, src/jvmTest/, src/androidUnitTest/),
// Python test_*.py and *_test.py, JS/TS *.test.* and *.spec.*, Ruby
// *_spec.rb and *_test.rb, and classes named *Test or *Tests (Java,
// Kotlin, Swift, C#, PHP: FooTest.kt, FooTests.swift), and .NET test
// projects (src/FluentValidation.Tests/).
func IsTestFile(p string) bool {
	p = "/" + p
	if strings.Contains(p, "/test/") || strings.Contains(p, "/tests/") || strings.Contains(p, "/testdata/") ||
		strings.Contains(p, "/__tests__/") || strings.Contains(p, "/src/test/") || strings.Contains(p, "/Tests/") ||
		testSourceSet(p) || testProject(p) {
		return true
	}
	base := path.Base(p)
	switch {
	case strings.HasSuffix(base, "_test.go"), strings.HasSuffix(base, "_test.py"),
		strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py"),
		strings.HasSuffix(base, "_spec.rb"), strings.HasSuffix(base, "_test.rb"):
		return true
	}
	stem := strings.TrimSuffix(base, path.Ext(base))
	if t := strings.TrimSuffix(strings.TrimSuffix(stem, "s"), "Test"); len(t) < len(stem)-3 && t != "" {
		// FooTest, FooTests, but not Test, Tests or Contest
		if c := t[len(t)-1]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return true
		}
	}
	return strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec")
}

// testProject reports whether p ("/"-prefixed) lies in a .NET test
// project, a directory named like "FluentValidation.Tests",
// "App.UnitTests" or "App.Specs".
func testProject(p string) bool {
	for _, suf := range []string{".Tests/", ".Test/", ".UnitTests/", ".IntegrationTests/", ".Specs/"} {
		if i := strings.Index(p, suf); i > 0 && p[i-1] != '/' {
			return true
		}
	}
	return false
}

// testSourceSet reports whether p ("/"-prefixed) lies in a Gradle or
// Kotlin Multiplatform source set of tests: a directory right under src/
// whose name is lower camel case ending in Test (commonTest, jvmTest,
// androidUnitTest, integrationTest).
func testSourceSet(p string) bool {
	for rest := p; ; {
		i := strings.Index(rest, "/src/")
		if i < 0 {
			return false
		}
		rest = rest[i+len("/src/"):]
		seg, _, ok := strings.Cut(rest, "/")
		if ok && len(seg) > len("Test") && strings.HasSuffix(seg, "Test") && seg[0] >= 'a' && seg[0] <= 'z' {
			return true
		}
	}
}

// cppSyntax (compiled on first use) matches a line of C++-only syntax: a namespace, a template, a
// class, an access specifier, a scope operator, a C++ standard header
// (no ".h"), a keyword C does not have, a C++ cast (static_cast<T>) or a
// const member function ("Ch Peek() const {").
var cppSyntax = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(namespace(\s+[A-Za-z_][\w:]*)?\s*\{|template\s*<|class\s+[A-Za-z_]\w*\s*(final\s*)?[:{;]|(public|private|protected)\s*:|using\s+namespace\s|#\s*include\s*<[a-z_]+>\s*$)|[A-Za-z_>]::[~A-Za-z_]|\b(constexpr|nullptr|typename|noexcept|static_assert|decltype)\b|\boperator\s*(\(\)|[-+*/=<>!&|^~\[]|new\b|delete\b)|\b(static|dynamic|reinterpret|const)_cast\s*<|\) ?const\s*(override\s*)?[{;]`)
})

// cppWords holds a substring of every match of cppSyntax: a line with
// none of them cannot match, and most lines of a C header have none.
var cppWords = []string{"::", "namespace", "template", "class", "public", "private", "protected",
	"using", "include", "constexpr", "nullptr", "typename", "noexcept", "static_assert", "decltype", "operator",
	"_cast", ") const", ")const"}

// mayBeCpp reports whether line holds one of cppWords, the test before the
// regular expression (which took 2% of the CPU of indexing the Linux
// kernel's drivers/net/ethernet, line by line over every .h file).
func mayBeCpp(line string) bool {
	for _, w := range cppWords {
		if strings.Contains(line, w) {
			return true
		}
	}
	return false
}

// HeaderLanguage returns "cpp" for a C/C++ header (.h) whose text outside
// comments has C++-only syntax (see cppSyntax), else "c". Headers that
// only wrap declarations in #ifdef __cplusplus / extern "C" are C.
func HeaderLanguage(src []byte) string {
	inBlock := false
	for _, l := range strings.Split(string(src), "\n") {
		var code strings.Builder
		for len(l) > 0 {
			if inBlock {
				i := strings.Index(l, "*/")
				if i < 0 {
					l = ""
					break
				}
				l, inBlock = l[i+2:], false
				continue
			}
			i := strings.Index(l, "/*")
			j := strings.Index(l, "//")
			if j >= 0 && (i < 0 || j < i) {
				code.WriteString(l[:j])
				break
			}
			if i < 0 {
				code.WriteString(l)
				break
			}
			code.WriteString(l[:i])
			l, inBlock = l[i+2:], true
		}
		if c := code.String(); mayBeCpp(c) && cppSyntax().MatchString(c) {
			return "cpp"
		}
	}
	return "c"
}

// Names returns every language name Detect gives (and HeaderLanguage's
// "cpp"), sorted and without duplicates: the names a query's lang: filter
// accepts besides the aliases of Lookup.
func Names() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]string{byExt, byName} {
		for _, l := range m {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	sort.Strings(out)
	return out
}

// aliases maps the short names people type (as zoekt and GitHub accept
// them) to the language names of Detect.
var aliases = map[string][]string{
	"js": {"javascript"}, "jsx": {"javascript"}, "ts": {"typescript", "tsx"}, "typescript": {"typescript", "tsx"},
	"py": {"python"}, "rb": {"ruby"}, "c++": {"cpp"}, "cxx": {"cpp"}, "cc": {"cpp"}, "golang": {"go"},
	"rs": {"rust"}, "sh": {"bash"}, "shell": {"bash"}, "cs": {"csharp"}, "c#": {"csharp"}, "md": {"markdown"},
	"yml": {"yaml"}, "kt": {"kotlin"}, "objective-c": {"objc"}, "hs": {"haskell"},
}

// Lookup returns the language names a lang: filter value stands for,
// case-insensitively: a name of Names ("go", "cpp"), or a common alias
// ("js", "ts" and "typescript" (both with "tsx"), "py", "rb", "c++");
// nil for a name it does not know.
func Lookup(name string) []string {
	name = strings.ToLower(strings.TrimSpace(name))
	if ls, ok := aliases[name]; ok {
		return ls
	}
	for _, l := range Names() {
		if l == name {
			return []string{l}
		}
	}
	return nil
}
