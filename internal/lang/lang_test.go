package lang

import "testing"

func TestIsTestFile(t *testing.T) {
	for p, want := range map[string]bool{
		"net/http/serve_test.go": true, "net/http/server.go": false, "pkg/testdata/x.go": true,
		"tests/test_x.py": true, "json/test_decoder.py": true, "json/decoder_test.py": true, "json/decoder.py": false,
		"src/test/java/FooTest.java": true, "src/main/java/Foo.java": false, "web/app.test.ts": true,
		"web/app.spec.js": true, "web/__tests__/a.js": true, "web/app.ts": false, "contest/x.go": false,
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
		"tool.pyw": "python", "docs/intro.mdx": "markdown", "LICENSE": "", "img.png": "",
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
	} {
		if got := HeaderLanguage([]byte(src)); got != want {
			t.Errorf("HeaderLanguage(%q) = %q, want %q", src, got, want)
		}
	}
}
