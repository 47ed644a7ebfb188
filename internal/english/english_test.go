package english

import "testing"

func TestWordForms(t *testing.T) {
	for _, c := range []struct {
		n          int
		noun, want string
	}{
		{1, "file", "1 file"}, {0, "file", "0 files"}, {2, "file", "2 files"},
		{1, "guess", "1 guess"}, {3, "guess", "3 guesses"}, {2, "changed file", "2 changed files"},
	} {
		if got := Counted(c.n, c.noun); got != c.want {
			t.Errorf("Counted(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
	if Agree(1, "was", "were") != "was" || Agree(0, "was", "were") != "were" || Agree(5, "it", "them") != "them" {
		t.Error("Agree picks the wrong form")
	}
}
