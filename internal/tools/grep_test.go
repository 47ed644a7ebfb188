package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/testutil"
)

// engines lists the engines to run a test over: native always, ripgrep
// when installed.
func engines(t *testing.T) []string {
	es := []string{EngineNative}
	if _, err := rgPath(); err == nil {
		es = append(es, EngineRipgrep)
	} else {
		t.Log("ripgrep not installed: native engine only")
	}
	return es
}

func grep(t *testing.T, root string, p GrepParams) *GrepResult {
	t.Helper()
	r, err := Grep(context.Background(), root, p)
	if err != nil {
		t.Fatalf("grep %+v: %v", p, err)
	}
	return r
}

func TestGrepLimits(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	write(t, root, "utf8long.txt", strings.Repeat("é", 1000)+"needle"+strings.Repeat("ü", 1000)+"\n")
	for _, e := range engines(t) {
		t.Run(e, func(t *testing.T) {
			t.Run("head_limit", func(t *testing.T) {
				r := grep(t, root, GrepParams{Pattern: "foo many", HeadLimit: 5, Engine: e})
				if len(r.Matches) != 5 || !r.Partial || !slices.Equal(r.PartialReasons, []string{ReasonHeadLimit}) {
					t.Fatalf("%d matches, reasons %v", len(r.Matches), r.PartialReasons)
				}
				if r.Matches[4].Line != 5 || !strings.Contains(r.Note, "head_limit") {
					t.Errorf("%+v note %q", r.Matches[4], r.Note)
				}
			})
			t.Run("default head_limit", func(t *testing.T) {
				r := grep(t, root, GrepParams{Pattern: "foo many", Engine: e})
				if len(r.Matches) != DefaultHeadLimit || !slices.Equal(r.PartialReasons, []string{ReasonHeadLimit}) {
					t.Fatalf("%d matches, reasons %v", len(r.Matches), r.PartialReasons)
				}
			})
			t.Run("exactly head_limit is whole", func(t *testing.T) {
				r := grep(t, root, GrepParams{Pattern: "foo many", HeadLimit: 30, Engine: e})
				if len(r.Matches) != 30 || r.Partial {
					t.Fatalf("%d matches, reasons %v", len(r.Matches), r.PartialReasons)
				}
			})
			t.Run("max_results", func(t *testing.T) {
				r := grep(t, root, GrepParams{Pattern: "foo", MaxResults: 3, Engine: e})
				if len(r.Matches) != 3 || !slices.Contains(r.PartialReasons, ReasonMaxResults) {
					t.Fatalf("%d matches, reasons %v", len(r.Matches), r.PartialReasons)
				}
				want := []string{".hiddenfile", "bom.go", "crlf.txt"}
				for i, m := range r.Matches {
					if m.Path != want[i] {
						t.Errorf("match %d in %s, want %s (path order)", i, m.Path, want[i])
					}
				}
			})
			t.Run("exactly max_results is whole", func(t *testing.T) {
				r := grep(t, root, GrepParams{Pattern: "foo", Path: "crlf.txt", MaxResults: 2, Engine: e})
				if len(r.Matches) != 2 || r.Partial {
					t.Fatalf("%d matches, reasons %v", len(r.Matches), r.PartialReasons)
				}
			})
			t.Run("max_chars", func(t *testing.T) {
				r := grep(t, root, GrepParams{Pattern: "foo", MaxChars: 300, Engine: e})
				out := r.Text()
				if !slices.Contains(r.PartialReasons, ReasonMaxChars) || len(out) > 300+len(r.Note)+1 {
					t.Fatalf("reasons %v, %d chars:\n%s", r.PartialReasons, len(out), out)
				}
				if !strings.Contains(out, "max_chars") || len(r.Matches) == 0 {
					t.Errorf("no note or no matches:\n%s", out)
				}
			})
			t.Run("default max_chars never flooded", func(t *testing.T) {
				r := grep(t, root, GrepParams{Pattern: "a", HeadLimit: 1000, MaxResults: 100_000, Engine: e})
				if out := r.Text(); len(out) > DefaultMaxChars+len(r.Note)+1 {
					t.Fatalf("%d chars", len(out))
				}
			})
			t.Run("minified line clipped", func(t *testing.T) {
				r := grep(t, root, GrepParams{Pattern: `foo\(\)`, Engine: e})
				if len(r.Matches) != 1 {
					t.Fatalf("%+v", r.Matches)
				}
				m := r.Matches[0]
				if !m.Clipped || len(m.Text) > MaxMatchChars+6 || !strings.Contains(m.Text, "foo()") ||
					!strings.HasPrefix(m.Text, "…") || !strings.HasSuffix(m.Text, "…") {
					t.Errorf("clipped=%v len=%d %q", m.Clipped, len(m.Text), m.Text)
				}
				if len(r.Text()) > 1000 {
					t.Errorf("600 KB line flooded the output: %d chars", len(r.Text()))
				}
			})
			t.Run("clipping is rune safe", func(t *testing.T) {
				r := grep(t, root, GrepParams{Pattern: "needle", Engine: e})
				if len(r.Matches) != 1 || !r.Matches[0].Clipped || !utf8.ValidString(r.Matches[0].Text) ||
					!strings.Contains(r.Matches[0].Text, "needle") || strings.Contains(r.Matches[0].Text, "\uFFFD") {
					t.Fatalf("%+v", r.Matches)
				}
			})
			t.Run("non-utf8 is valid json", func(t *testing.T) {
				r := grep(t, root, GrepParams{Pattern: "caf", Engine: e})
				b, err := json.Marshal(r)
				if err != nil || !json.Valid(b) || !utf8.Valid(b) || !strings.Contains(r.Matches[0].Text, "\uFFFD") {
					t.Fatalf("%v %s", err, b)
				}
			})
			t.Run("suggested reads", func(t *testing.T) {
				r := grep(t, root, GrepParams{Pattern: "foo", Engine: e})
				if len(r.SuggestedReads) != MaxSuggestedReads {
					t.Fatalf("%+v", r.SuggestedReads)
				}
				seen := map[string]bool{}
				for i, s := range r.SuggestedReads {
					if s.Tool != "read_file" || seen[s.Args.Path] || s.Args.Limit != 80 {
						t.Errorf("suggestion %d: %+v", i, s)
					}
					seen[s.Args.Path] = true
				}
				if s := r.SuggestedReads[0]; s.Args.Path != ".hiddenfile" || s.Args.Offset != 1 {
					t.Errorf("first suggestion %+v", s)
				}
				r = grep(t, root, GrepParams{Pattern: "foo before nul", Engine: e})
				if s := r.SuggestedReads[0]; s.Args.Offset != 401-20 || s.Args.Path != "late_nul.txt" {
					t.Errorf("offset %+v", s)
				}
				if !strings.Contains(r.Text(), `read_file {"path":"late_nul.txt","offset":381,"limit":80}`) {
					t.Errorf("text:\n%s", r.Text())
				}
			})
			t.Run("path restricts", func(t *testing.T) {
				r := grep(t, root, GrepParams{Pattern: "foo", Path: "sub/deep", Engine: e})
				if len(r.Matches) != 1 || r.Matches[0].Path != "sub/deep/open.txt" {
					t.Fatalf("%+v", r.Matches)
				}
				r = grep(t, root, GrepParams{Pattern: "foo", Path: filepath.Join(root, "crlf.txt"), Engine: e})
				if len(r.Matches) != 2 || r.Matches[0].Path != "crlf.txt" {
					t.Fatalf("%+v", r.Matches)
				}
				r = grep(t, root, GrepParams{Pattern: "foo", Path: "bin.dat", Engine: e})
				if len(r.Matches) != 0 || !strings.Contains(r.Note, "binary") {
					t.Fatalf("binary file: %+v", r)
				}
				r = grep(t, root, GrepParams{Pattern: "foo", Path: "big.txt", Engine: e})
				if len(r.Matches) != 0 || !strings.Contains(r.Note, "2 MiB") {
					t.Fatalf("big file: %+v", r)
				}
				r = grep(t, root, GrepParams{Pattern: "foo", Path: "vendor", Engine: e})
				if len(r.Matches) != 1 || r.Matches[0].Path != "vendor/v.go" {
					t.Fatalf("an explicit path is searched even if skipped by default: %+v", r.Matches)
				}
			})
			t.Run("no matches is not an error", func(t *testing.T) {
				r := grep(t, root, GrepParams{Pattern: "zzznothing", Engine: e})
				if len(r.Matches) != 0 || r.Partial || !strings.HasPrefix(r.Note, "No matches. Skipped dist/, node_modules/, sub/build/, vendor/ (built-in rule") || r.Matches == nil {
					t.Fatalf("%+v", r)
				}
				if !strings.Contains(r.Text(), "No matches") {
					t.Errorf("text %q", r.Text())
				}
			})
		})
	}
}

func TestGrepErrors(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	ctx := context.Background()
	for _, e := range engines(t) {
		tests := []struct {
			p    GrepParams
			want error
			msg  []string
		}{
			{GrepParams{Pattern: "func ("}, ErrBadPattern, []string{"missing closing )", "fixed_strings"}},
			{GrepParams{Pattern: "a[z-a]"}, ErrBadPattern, []string{"invalid character class range", "fixed_strings"}},
			{GrepParams{Pattern: `x\Ky`}, ErrBadPattern, []string{"invalid escape"}},
			{GrepParams{Pattern: ""}, ErrBadPattern, []string{"empty pattern"}},
			{GrepParams{Pattern: `a\nb`}, ErrBadPattern, []string{"span lines"}},
			{GrepParams{Pattern: "a\nb", FixedStrings: true}, ErrBadPattern, []string{"span lines"}},
			{GrepParams{Pattern: "foo", Glob: "[x-"}, ErrBadPattern, nil},
			{GrepParams{Pattern: "foo", Path: "../"}, ErrOutsideRoot, nil},
			{GrepParams{Pattern: "foo", Path: "/etc"}, ErrOutsideRoot, nil},
			{GrepParams{Pattern: "foo", Path: "nope"}, ErrNotFound, nil},
		}
		for _, tc := range tests {
			tc.p.Engine = e
			_, err := Grep(ctx, root, tc.p)
			if !errors.Is(err, tc.want) {
				t.Errorf("%s %+v: err %v, want %v", e, tc.p, err, tc.want)
				continue
			}
			for _, m := range tc.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("%s %q: error %q lacks %q", e, tc.p.Pattern, err, m)
				}
			}
		}
	}
	t.Run("fixed strings need no escaping", func(t *testing.T) {
		write(t, root, "paren.go", "func (s *T) M() {}\n")
		for _, e := range engines(t) {
			r := grep(t, root, GrepParams{Pattern: "func (s *T)", FixedStrings: true, Engine: e})
			if len(r.Matches) != 1 || r.Matches[0].Path != "paren.go" {
				t.Errorf("%s: %+v", e, r.Matches)
			}
		}
	})
}

func TestPatternTranslation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, rg string
		lits   []lit
	}{
		{`foo`, `(?:foo)`, []lit{{"foo", false}}},
		{`a.b`, `(?:a(?-s:.)b)`, []lit{{"a", false}}},
		{`\w+Error`, `(?:(?:[0-9A-Z_a-z])+(?:Error))`, []lit{{"Error", false}}},
		{`^x$`, `(?:(?m:^)x(?m:$))`, []lit{{"x", false}}},
		{`\bgo\b`, `(?:(?-u:\b)(?:go)(?-u:\b))`, []lit{{"go", false}}},
		{`(?i)kx`, `(?i:KX)`, []lit{{"KX", true}}},
		{`a\sb`, `(?:a[\x{9}\x{C}-\x{D}\x{20}]b)`, []lit{{"a", false}}},
		{`foo|barbaz`, `(?:(?:foo)|(?:barbaz))`, []lit{{"foo", false}, {"barbaz", false}}},
		{`x{2,}?`, `(?:x){2,}?`, []lit{{"x", false}}},
		{`.*\.go`, `(?:(?:(?-s:.))*(?:\x{2E}go))`, []lit{{".go", false}}},
	}
	for _, tc := range tests {
		p, err := compilePattern(tc.in, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if p.rg != tc.rg || !slices.Equal(p.lits, tc.lits) {
			t.Errorf("%s: rg %s lits %v, want %s %v", tc.in, p.rg, p.lits, tc.rg, tc.lits)
		}
	}
}

func TestLowerASCII(t *testing.T) {
	t.Parallel()
	in := []byte("Hello, WORLD! @[`{ ÄÖÜ ÉCOLE 0123456789 AZaz")
	got := make([]byte, len(in))
	lowerASCII(got, in)
	want := "hello, world! @[`{ ÄÖÜ École 0123456789 azaz"
	want = strings.Replace(want, "École", "\u00c9cole", 1)
	if string(got) != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

// TestUnreadableIsReported: a file or directory grep cannot read makes the
// result partial with a note naming it, on both engines; it is never a
// silent "No matches." (needs an unprivileged user: root reads mode 000).
func TestUnreadableIsReported(t *testing.T) {
	t.Parallel()
	if testutil.RerunUnprivileged(t) {
		return
	}
	root := t.TempDir()
	write(t, root, "a.txt", "needle in a\n")
	write(t, root, "sub/b.txt", "needle in b\n")
	write(t, root, "ok.txt", "nothing here\n")
	os.Chmod(filepath.Join(root, "a.txt"), 0)
	os.Chmod(filepath.Join(root, "sub"), 0)
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "sub"), 0o755) })
	engines := []string{EngineNative}
	if _, err := rgPath(); err == nil {
		engines = append(engines, EngineRipgrep)
	}
	for _, e := range engines {
		r, err := Grep(context.Background(), root, GrepParams{Pattern: "needle", Engine: e})
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		if !r.Partial || !slices.Contains(r.PartialReasons, ReasonUnreadable) ||
			!strings.Contains(r.Note, "a.txt: permission denied") || !strings.Contains(r.Note, "sub: permission denied") {
			t.Errorf("%s: partial %v %v note %q", e, r.Partial, r.PartialReasons, r.Note)
		}
	}
}

// TestGlobReportsUnreadableDirectories: a directory glob cannot read
// makes the list partial with a note naming it, for a pattern inside it
// and for one across the tree; it is never a bare "(no matching files)"
// (needs an unprivileged user: root reads mode 000).
func TestGlobReportsUnreadableDirectories(t *testing.T) {
	t.Parallel()
	if testutil.RerunUnprivileged(t) {
		return
	}
	root := t.TempDir()
	write(t, root, "a.go", "package a\n")
	write(t, root, "sub/b.go", "package b\n")
	os.Chmod(filepath.Join(root, "sub"), 0)
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "sub"), 0o755) })
	for _, pattern := range []string{"sub/*.go", "**/*.go"} {
		r, err := Glob(context.Background(), root, GlobParams{Pattern: pattern})
		if err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		if !r.Partial || !strings.Contains(r.Note, "sub: permission denied") {
			t.Errorf("%s: partial %v note %q", pattern, r.Partial, r.Note)
		}
		if text := r.Text(); strings.Contains(text, "(no matching files)") {
			t.Errorf("%s: %q reads as complete", pattern, text)
		}
	}
}

// TestSuggestionsPreferNonTestFiles: the suggested reads go to the code
// before the tests, whatever the path order, and keep result order.
func TestSuggestionsPreferNonTestFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, f := range []string{"a_test.go", "b_test.go", "c_test.go", "d.go", "e_test.go", "f.go"} {
		write(t, root, f, "package p\n\nfunc needle() {}\n")
	}
	for _, e := range engines(t) {
		r := grep(t, root, GrepParams{Pattern: "needle", Engine: e})
		var got []string
		for _, s := range r.SuggestedReads {
			got = append(got, s.Args.Path)
		}
		if want := []string{"a_test.go", "d.go", "f.go"}; !slices.Equal(got, want) {
			t.Errorf("%s: suggestions %v, want %v", e, got, want)
		}
		if len(r.Text()) > DefaultMaxChars {
			t.Errorf("%s: text over the budget", e)
		}
	}
}

// TestGrepSaysWhatItDidNotSearch: a match inside a file over MaxFileBytes
// (one long line, its match past a window of largeMatch) is not shown,
// but no engine answers a plain "No matches.": both name the file and
// the result is partial (too_large); the native engine also names a
// directory nested deeper than its walk goes (too_deep), where ripgrep
// finds the file.
func TestGrepSaysWhatItDidNotSearch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "huge.js", "var x = \""+strings.Repeat("a", largeWindow+MaxFileBytes)+"NEEDLE\";\n")
	write(t, root, "small.txt", "nothing here\n")
	deep := "d"
	for range 100 {
		deep += "/d"
	}
	write(t, root, deep+"/deep.go", "package deep\n\nfunc NEEDLE() {}\n")
	for _, e := range engines(t) {
		r := grep(t, root, GrepParams{Pattern: "aNEEDLE", Engine: e})
		if len(r.Matches) != 0 || !r.Partial || !slices.Contains(r.PartialReasons, ReasonTooLarge) ||
			!strings.HasPrefix(r.Note, "No matches shown.") || !strings.Contains(r.Note, "1 file larger than 2 MiB matches but is not shown (huge.js)") {
			t.Errorf("%s, a match in a large file: %+v", e, r)
		}
		r = grep(t, root, GrepParams{Pattern: "zzznothing", Engine: e})
		if slices.Contains(r.PartialReasons, ReasonTooLarge) || strings.Contains(r.Note, "huge.js") {
			t.Errorf("%s, no match in the large file: %+v", e, r)
		}
		// the large file named alone: not searched, and not said to match
		r = grep(t, root, GrepParams{Pattern: "zzznothing", Path: "huge.js", Engine: e})
		if !strings.Contains(r.Note, "huge.js is larger than 2 MiB and was not searched") || strings.Contains(r.Note, "matches but") {
			t.Errorf("%s, the large file named: %+v", e, r)
		}
		r = grep(t, root, GrepParams{Pattern: "func NEEDLE", Engine: e})
		switch e {
		case EngineNative:
			if len(r.Matches) != 0 || !slices.Contains(r.PartialReasons, ReasonTooDeep) || !strings.Contains(r.Note, "1 directory nested too deep was not searched") {
				t.Errorf("native, a file too deep: %+v", r)
			}
		case EngineRipgrep:
			if len(r.Matches) != 1 || r.Partial {
				t.Errorf("ripgrep, a file too deep for the native walk: %+v", r)
			}
		}
	}
}

// TestGlobSaysWhatItDidNotList: a directory nested deeper than the walk
// goes makes the list partial, and the note names it, so an empty list is
// not mistaken for "no such file".
func TestGlobSaysWhatItDidNotList(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	deep := "d"
	for range 100 {
		deep += "/d"
	}
	write(t, root, deep+"/deep.go", "package deep\n")
	write(t, root, "top.go", "package top\n")
	r, err := Glob(context.Background(), root, GlobParams{Pattern: "**/*.go"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Files, []string{"top.go"}) || !r.Partial || !strings.Contains(r.Note, "1 directory nested too deep was not listed (d/d/d") {
		t.Errorf("%+v", r)
	}
	if strings.Contains(r.Text(), "files shown") {
		t.Errorf("the list was not cut by the limit: %q", r.Text())
	}
}
