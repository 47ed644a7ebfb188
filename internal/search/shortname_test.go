package search

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestShortName: a name past NameWidth runes keeps the parameters that fit
// whole and ends in "…)"; a short name is as it was.
func TestShortName(t *testing.T) {
	t.Parallel()
	long := `FastAPI.include_router(self, router: Annotated["APIRouter", Doc("The APIRouter to include, with all its path operations and their dependencies.")], *, prefix: Annotated[str, Doc("An optional path prefix.")] = "")`
	for _, c := range []struct{ in, want string }{
		{"Server.Serve(l net.Listener)", "Server.Serve(l net.Listener)"},
		{long, "FastAPI.include_router(self, …)"},
		{"f(" + strings.Repeat("a, ", 60) + "b)", "f(" + strings.Repeat("a, ", 38) + "…)"},
		{"g(" + strings.Repeat("x", 200) + ")", "g(" + strings.Repeat("x", NameWidth-4) + "…)"},
		{strings.Repeat("é", 130), strings.Repeat("é", NameWidth-1) + "…"},
		{"h(a) " + strings.Repeat("-> r ", 40), "h(a) " + strings.Repeat("-> r ", 40)[:NameWidth-6] + "…"},
	} {
		got := ShortName(c.in)
		if got != c.want {
			t.Errorf("ShortName(%.40q...) = %q, want %q", c.in, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n > NameWidth {
			t.Errorf("ShortName(%.40q...) has %d runes, more than %d", c.in, n, NameWidth)
		}
	}
}
