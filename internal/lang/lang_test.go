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

func TestDetectSourceHeaders(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"fmt/base.h", "#pragma once\ntemplate <typename Context> class basic_format_args {\n};\n", "cpp"},
		{"a/b.h", "namespace absl {\nint f();\n}\n", "cpp"},
		{"a/b.h", "class Foo : public Bar {\n public:\n  int x;\n};\n", "cpp"},
		{"a/b.h", "#include <vector>\nstd::vector<int> v();\n", "cpp"},
		{"curl/curl.h", "#ifdef __cplusplus\nextern \"C\" {\n#endif\nstruct Curl_easy;\nint curl_easy_perform(CURL *c);\n", "c"},
		{"c/x.h", "/* namespace foo {\n template <T> */\n// std::string\nint g(void);\n", "c"},
		{"c/x.c", "template <typename T> class X {};\n", "c"},
		{"c/x.hpp", "int g(void);\n", "cpp"},
		{"x.go", "package x\n", "go"},
	} {
		if got := DetectSource(tc.name, []byte(tc.src)); got != tc.want {
			t.Errorf("DetectSource(%q, %q) = %q, want %q", tc.name, tc.src, got, tc.want)
		}
	}
}

func TestStripCComments(t *testing.T) {
	in := "a /* x */ b // y\n/* multi\nline */template <T>\n"
	want := "a         b     \n        \n       template <T>\n"
	if got := string(stripCComments([]byte(in))); got != want {
		t.Errorf("stripCComments = %q, want %q", got, want)
	}
}
