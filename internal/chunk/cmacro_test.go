package chunk

import "testing"

// TestMaskCMacros checks which upper-case identifiers maskCMacros blanks:
// annotations the file shows used as such, and nothing in comments,
// literals, preprocessor lines, macro calls or capitalised types.
func TestMaskCMacros(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"alone on its line", "FMT_BEGIN_NAMESPACE\nint x;\nFMT_END_NAMESPACE\n",
			"                   \nint x;\n                 \n"},
		{"before a keyword", "FMT_CONSTEXPR20 void f() {}\n", "                void f() {}\n"},
		{"everywhere once shown", "FMT_CONSTEXPR void f();\nFMT_CONSTEXPR basic_buffer(int n);\n",
			"              void f();\n              basic_buffer(int n);\n"},
		{"destructor", "FMT_CONSTEXPR20 ~buffer() {}\n", "                ~buffer() {}\n"},
		{"class name", "class FMT_API format_error : public std::runtime_error {};\n",
			"class         format_error : public std::runtime_error {};\n"},
		{"two identifiers", "  FMT_NO_UNIQUE_ADDRESS Allocator alloc_;\n", "                        Allocator alloc_;\n"},
		{"call in class head", "class FMT_VIS(\"default\") format_error {};\n", "class                    format_error {};\n"},
		{"call on its own line", "FMT_PRAGMA_CLANG(diagnostic push)\nint x;\n", "                                 \nint x;\n"},
		{"template constraint", "template <typename T, FMT_ENABLE_IF(!is_signed<T>::value)>\nvoid f(T);\n",
			"template <typename T, FMT_ENABLE_IF(                    )>\nvoid f(T);\n"},
		{"if constexpr macro", "FMT_CONSTEXPR20 void f();\nvoid g() { if FMT_CONSTEXPR20 (x) h(); }\n",
			"                void f();\nvoid g() { if                 (x) h(); }\n"},
		{"after the parameters", "  bool Empty() const RAPIDJSON_NOEXCEPT { return n == 0; }\n  void Clear() RAPIDJSON_NOEXCEPT;\n  Foo(int x) RAPIDJSON_NOEXCEPT : x_(x) {}\n",
			"  bool Empty() const                    { return n == 0; }\n  void Clear()                   ;\n  Foo(int x)                    : x_(x) {}\n"},
		{"before a specifier", "  void f() QT_OVERRIDE_X final;\n", "  void f()               final;\n"},
		// left alone
		{"a cast's operand", "int g() { return (int) INT_MAXX; }\n", "int g() { return (int) INT_MAXX; }\n"},
		{"a call with chained calls", "BENCHMARK(BM_A)\n    ->Arg(0);\n", "BENCHMARK(BM_A)\n    ->Arg(0);\n"},
		{"a capitalised type", "DWORD n;\nFILE* f = open();\n", "DWORD n;\nFILE* f = open();\n"},
		{"a macro call", "void f() { FMT_ASSERT(x, \"bad\"); }\n", "void f() { FMT_ASSERT(x, \"bad\"); }\n"},
		{"a definition macro", "TEST_F(Suite, Name)\n{\n}\n", "TEST_F(Suite, Name)\n{\n}\n"},
		{"preprocessor", "#ifndef FMT_API\n#define FMT_API FMT_VISIBILITY void\n#endif\n",
			"#ifndef FMT_API\n#define FMT_API FMT_VISIBILITY void\n#endif\n"},
		{"comment and string", "// FMT_API void\n/* FMT_API void */ const char* s = \"FMT_API void\";\n",
			"// FMT_API void\n/* FMT_API void */ const char* s = \"FMT_API void\";\n"},
		{"short names", "IO void f();\n", "IO void f();\n"},
	} {
		got, _ := maskCMacros([]byte(c.in))
		if string(got) != c.want {
			t.Errorf("%s:\n in   %q\n got  %q\n want %q", c.name, c.in, got, c.want)
		}
	}
}
