package lang

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestIsTestFile(t *testing.T) {
	for p, want := range map[string]bool{
		"net/http/serve_test.go": true, "net/http/server.go": false, "pkg/testdata/x.go": true,
		"tests/test_x.py": true, "json/test_decoder.py": true, "json/decoder_test.py": true, "json/decoder.py": false,
		"src/test/java/FooTest.java": true, "src/main/java/Foo.java": false, "web/app.test.ts": true,
		"web/app.spec.js": true, "web/__tests__/a.js": true, "web/app.ts": false, "contest/x.go": false,
		// SwiftPM, Kotlin Multiplatform and Gradle source sets, test class names
		"Tests/SplashTests/Tests/MarkdownTests.swift": true, "Tests/SplashTests/Core/TestCase.swift": true,
		"Sources/Splash/Tokenizing/Tokenizer.swift":                                false,
		"kotlinpoet/src/jvmTest/kotlin/com/squareup/kotlinpoet/CompilationRule.kt": true,
		"kotlinpoet/src/commonTest/kotlin/X.kt":                                    true, "app/src/androidUnitTest/kotlin/A.kt": true,
		"kotlinpoet/src/jvmMain/kotlin/com/squareup/kotlinpoet/TypeSpec.kt": false,
		"src/main/java/com/acme/LoadTest.java":                              true, "lib/FooTests.cs": true, "lib/Contest.java": false,
		"lib/Test.java": false, "lib/Tests.swift": false, "lib/Attest.kt": false,
		"src/FluentValidation.Tests/RuleBuilderTester.cs": true, "src/App.UnitTests/Helpers.cs": true,
		"src/FluentValidation/Validators/EmailValidator.cs": false, "docs/.Tests/x.cs": false,
		"spec/models/user_spec.rb": true, "lib/rack/lint_test.rb": true, "lib/rack/request.rb": false,
	} {
		if got := IsTestFile(p); got != want {
			t.Errorf("IsTestFile(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestDetect(t *testing.T) {
	for name, want := range map[string]string{
		"a/b.go": "go", "X.H": "c", "lib/x.hpp": "cpp", "config.ru": "ruby", "tasks/db.rake": "ruby",
		"rack.gemspec": "ruby", "Rakefile": "ruby", "Vagrantfile": "ruby", `win\dir\Makefile`: "make",
		"tool.pyw": "python", "docs/intro.mdx": "markdown", "build.sbt": "scala", "docs/about.rst.inc": "text", "x.h.inc": "cpp", "table.inc": "cpp", "LICENSE": "", "img.png": "",
	} {
		if got := Detect(name); got != want {
			t.Errorf("Detect(%q) = %q, want %q", name, got, want)
		}
	}
	if Indexable("photo.jpeg") || !Indexable("main.zig") {
		t.Error("Indexable")
	}
}

func TestHeaderLanguage(t *testing.T) {
	for src, want := range map[string]string{
		"namespace fmt {\nint f();\n}":                                    "cpp",
		"FMT_BEGIN_NAMESPACE\ntemplate <typename T> struct formatter;":    "cpp",
		"class Status {\n public:\n  Status();\n};":                       "cpp",
		"inline auto f() -> int { return std::max(1, 2); }":               "cpp",
		"#include <string>\n":                                             "cpp",
		"struct buf { char *p; };\nint buf_init(struct buf *b);":          "c",
		"#ifdef __cplusplus\nextern \"C\" {\n#endif\nint curl_f(void);\n": "c",
		"/* namespace x { */\n// template <class T>\nint f(void);":        "c",
		"#include <stdio.h>\nstatic int x = a ? b : c;":                   "c",
		"struct S {\n  size_t Tell() const { return n; }\n};":             "cpp",
		"#define N(x) ((int)(x))\nint f(void) { return g() + 1; }":        "c",
		"struct T { int v; };\nsize_t n = static_cast<size_t>(v);":        "cpp",
	} {
		if got := HeaderLanguage([]byte(src)); got != want {
			t.Errorf("HeaderLanguage(%q) = %q, want %q", src, got, want)
		}
	}
}

// mayBeCpp is a necessary condition of cppSyntax: every line the regular
// expression matches holds one of cppWords, so the test before it never
// turns a C++ header into C. Checked on lines of each kind of match and on
// random lines built from the pieces of the expression.
func TestMayBeCppBeforeRegexp(t *testing.T) {
	t.Parallel()
	lines := []string{
		"namespace fmt {", "namespace {", "template <typename T>", "class Foo : public Bar {", "class X;",
		"  public:", "private :", "protected:", "using namespace std;", "#include <vector>", "# include <string>",
		"a::b", "x>::y", "std::~string", "constexpr int x = 1;", "p = nullptr;", "typename T::type",
		"void f() noexcept;", "static_assert(x);", "decltype(x) y;", "bool operator==(const A&);", "operator()",
		"void *operator new(size_t);", "Ch Peek() const {", "int Size()const;", "x = static_cast<int>(y);", "int x;", "#include <stdio.h>", "struct s { int a; };", "",
	}
	pieces := []string{"namespace", " ", "{", "template", "<", "class", "A", ":", "::", ";", "public", "private",
		"protected", "using", "#", "include", ">", "x_y", "~", "constexpr", "nullptr", "typename", "noexcept",
		"static_assert", "decltype", "operator", "(", ")", "=", "new", "delete", "\t", "final"}
	r := rand.New(rand.NewPCG(14, 29))
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(6) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		lines = append(lines, b.String())
	}
	matched := 0
	for _, l := range lines {
		if cppSyntax().MatchString(l) {
			matched++
			if !mayBeCpp(l) {
				t.Errorf("%q matches cppSyntax but mayBeCpp says no", l)
			}
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d lines matched: the check proves little", matched)
	}
}

// BenchmarkHeaderLanguageC classifies a C header of 2,000 lines, which no
// line of marks as C++ (every line is tested).
func BenchmarkHeaderLanguageC(b *testing.B) {
	var sb strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&sb, "#define REG_%d_MASK 0x%08x /* bits of reg %d */\nint drv_probe_%d(struct device *dev, unsigned long flags);\n", i, i, i, i)
	}
	src := []byte(sb.String())
	b.SetBytes(int64(len(src)))
	for range b.N {
		if HeaderLanguage(src) != "c" {
			b.Fatal("a C header read as C++")
		}
	}
}
