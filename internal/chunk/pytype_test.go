package chunk

import (
	"testing"
)

// pyTypes types the calls on annotated names with their class: a
// parameter, Optional[T], T | None, a dotted and a quoted class, a local
// annotated assignment; builtins, generics and unions of classes are not
// a receiver class, and a nested function keeps its own annotations.
func TestPyTypes(t *testing.T) {
	t.Parallel()
	src := "def f(a: Entry, b: Optional[Entry], c: 'Entry', d: stats.Entry, e: Entry | None = None,\n" +
		"      s: str = '', xs: list[Entry] = None, u: Entry | Other = None):\n" +
		"    a.m1(); b.m2(); c.m3(); d.m4(); e.m5(); s.strip(); xs.append(1); u.m6()\n" +
		"    loc: Entry = make()\n" +
		"    loc.m7()\n" +
		"    def inner(z):\n" +
		"        a.m8(); z.m9()\n"
	got := callTargets(t, "f.py", src)
	for _, want := range []string{"Entry.m1", "Entry.m2", "Entry.m3", "Entry.m4", "Entry.m5", "Entry.m7", "strip", "append", "m6", "m8", "m9"} {
		if !got[want] {
			t.Errorf("no call %q among %v", want, got)
		}
	}
	for _, c := range []struct{ ann, want string }{
		{"Entry", "Entry"}, {"Optional[Entry]", "Entry"}, {"None | Entry", "Entry"}, {"'pkg.Entry'", "Entry"},
		{"str", ""}, {"list[Entry]", ""}, {"Entry | Other", ""}, {"Dict[str, Entry]", ""},
	} {
		if got := pyAnnotatedClassText(c.ann); got != c.want {
			t.Errorf("annotation %q: class %q, want %q", c.ann, got, c.want)
		}
	}
}
