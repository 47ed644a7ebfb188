package lines

import (
	"reflect"
	"testing"
)

func TestCountAndSplit(t *testing.T) {
	cases := []struct {
		in    string
		count int
		split []string
	}{
		{"a\nb\nc\n", 3, []string{"a", "b", "c"}},
		{"a\nb\nc", 3, []string{"a", "b", "c"}},
		{"a\r\nb\r\nc\r\n", 3, []string{"a", "b", "c"}},
		{"\ufeffa\nb", 2, []string{"a", "b"}},
		{"", 0, nil},
		{"\n", 1, []string{""}},
		{"a\n\nb", 3, []string{"a", "", "b"}},
	}
	for _, c := range cases {
		if got := NewIndex([]byte(c.in)).Count(); got != c.count {
			t.Errorf("Count(%q) = %d, want %d", c.in, got, c.count)
		}
		if got := Split(c.in); !reflect.DeepEqual(got, c.split) {
			t.Errorf("Split(%q) = %q, want %q", c.in, got, c.split)
		}
	}
}

func TestLineOfOffset(t *testing.T) {
	src := []byte("ab\ncd\r\nef")
	x := NewIndex(src)
	for off, want := range map[int]int{0: 1, 1: 1, 2: 1, 3: 2, 5: 2, 6: 2, 7: 3, 8: 3, 100: 3, -1: 1} {
		if got := x.Line(off); got != want {
			t.Errorf("Line(%d) = %d, want %d", off, got, want)
		}
	}
	if x.Start(2) != 3 || x.Start(3) != 7 || x.End(1, src) != 2 || x.End(3, src) != 9 {
		t.Errorf("Start/End: %d %d %d %d", x.Start(2), x.Start(3), x.End(1, src), x.End(3, src))
	}
	if Clean("a\r\nb\r") != "a\nb" {
		t.Errorf("Clean")
	}
}
