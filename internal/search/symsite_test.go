package search

import (
	"fmt"
	"testing"
)

// A name defined outside the indexed tree is found where the project
// re-exports it, even when the re-exporting module chunk is not among the
// keyword route's candidates; with the pin off (which also turns the
// fallback off) it is not.
func TestSymbolSiteReexport(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"src/extract/mod.rs": `//! Types and traits for extracting data from requests.

pub mod path;
pub mod rejection;
mod raw_form;
mod raw_query;

#[doc(inline)]
pub use axum_core::extract::{
    DefaultBodyLimit, FromRef, FromRequest, FromRequestParts, OptionalFromRequest,
    Request,
};

#[doc(inline)]
pub use self::{path::Path, raw_form::RawForm, raw_query::RawQuery};
`,
	}
	// many short functions that say from_request win the keyword route
	for i := 0; i < 12; i++ {
		files[fmt.Sprintf("src/ext%02d.rs", i)] = fmt.Sprintf(`pub struct Ext%d;

impl Ext%d {
    pub async fn from_request(req: Request) -> Result<Self, Rejection> {
        from_request_inner(req).await
    }
}
`, i, i)
	}
	s := fixture(t, files)
	hp := s.HybridParams()
	hp.Candidates = 5
	s.Params = &hp
	rs := top(t, s, "FromRequest", RankerHybrid, 5)
	if len(rs) == 0 || rs[0].Path != "src/extract/mod.rs" || rs[0].Explain.Signal("site") <= 0 {
		t.Fatalf("the re-export should come first, pinned: %v", names(rs))
	}
	hp.ExactPin = 0
	rs = top(t, s, "FromRequest", RankerHybrid, 5)
	if rankOf(rs, "src/extract/mod.rs", "") == 1 {
		t.Fatalf("without the fallback the re-export should not lead: %v", names(rs))
	}
}

// A definition the parser left in a text chunk (here Dart, indexed as
// text) is pinned by its textual declaration, above files that use it.
func TestSymbolSiteTextDeclaration(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{
		"lib/render/box.dart": `// Layout boxes.
import 'object.dart';

abstract class RenderBox extends RenderObject {
  Size get size => _size;
  void performLayout() {}
}
`,
		"lib/widgets/a.dart": `import '../render/box.dart';
RenderBox wrap(RenderBox child) => child; // RenderBox RenderBox RenderBox
`,
		"lib/widgets/b.dart": `import '../render/box.dart';
void paintBox(RenderBox b, RenderBox c) { b.paint(); c.paint(); } // RenderBox
`,
	})
	rs := top(t, s, "RenderBox", RankerHybrid, 3)
	if len(rs) == 0 || rs[0].Path != "lib/render/box.dart" || rs[0].Explain.Signal("site") <= 0 {
		t.Fatalf("the declaring file should come first, pinned: %v", names(rs))
	}
}

// An identifier that only a test spells (a local variable) is found in
// that test, above code that merely shares its parts; one that code also
// spells pins no test.
func TestSymbolSiteTestOnly(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{
		"pad.go": `package pad

// rpad pads a string on the right to the input width.
func rpad(s string, padding int) string { return s }

// inputWidth returns the width of the input string.
func inputWidth(s string) int { return len(s) }
`,
		"pad_test.go": `package pad

func TestRpad(t *testing.T) {
	inputString := "cobra"
	if rpad(inputString, 10) == "" {
		t.Fatal("empty")
	}
}
`})
	rs := top(t, s, "inputString", RankerHybrid, 3)
	if len(rs) == 0 || rs[0].Path != "pad_test.go" || rs[0].Explain.Signal("site") <= 0 {
		t.Fatalf("the test that spells the name should come first, pinned: %v", names(rs))
	}
	for _, r := range top(t, s, "rpad", RankerHybrid, 3) {
		if r.Path == "pad_test.go" && r.Explain.Signal("site") != 0 {
			t.Fatalf("a name code defines pinned a test: %v", r.Name)
		}
	}
}

func TestDeclares(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		content string
		want    bool
	}{
		{"template <typename Context> class basic_format_args {\n  int desc_;\n};", true},
		{"template <typename Context> class basic_format_args;", false}, // forward declaration
		{"  friend class basic_format_args<Context>;\n", false},         // friend
		{"class FMT_API basic_format_args : public base {", true},       // export macro
		{"#define basic_format_args 1", true},
		{"using args = basic_format_args<context>;", false}, // a use, not a declaration
		{"struct my_basic_format_args {", false},            // longer name
		{"int x; // see class basic_format_args<T> { below", true},
	} {
		decl, _ := siteRegexps("basic_format_args")
		if got := declares(c.content, decl); got != c.want {
			t.Errorf("declares(%q) = %v, want %v", c.content, got, c.want)
		}
	}
}

func TestReexports(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		content string
		want    bool
	}{
		{"pub use axum_core::extract::{\n    DefaultBodyLimit, FromRequest,\n};", true},
		{"pub(crate) use inner::FromRequest;", true},
		{"use axum_core::extract::FromRequest;", false}, // private import
		{"export { FromRequest } from './core'", true},
		{"export type { FromRequest } from './core'", true},
		{"export function handler(r) {\n  return FromRequest(r)\n}", false},
		{"from .core import (\n    FromRequest,\n    Other,\n)\n", true},
		{"pub use a::FromRequestParts;", false},
		{"pub use a::B;\n\nfn f() { FromRequest::x() }", false}, // the statement ended
	} {
		_, re := siteRegexps("FromRequest")
		if got := reexports(c.content, "FromRequest", re); got != c.want {
			t.Errorf("reexports(%q) = %v, want %v", c.content, got, c.want)
		}
	}
	if hasWord("aFromRequest", "FromRequest") || !hasWord("(FromRequest)", "FromRequest") {
		t.Error("hasWord")
	}
}
