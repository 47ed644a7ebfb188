package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func write(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func needRG(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("ripgrep (rg) is not installed")
	}
}

// fixture builds a tree with the awkward cases both engines must agree on.
func fixture(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"a.go":                    "package a\n\nfunc Foo() {}\n",
		"crlf.txt":                "alpha\r\nfoo bar\r\nbaz foo\r\nlast\r",
		"bom.go":                  "\ufeffpackage bom\nvar foo = 1\n",
		"bin.dat":                 "foo\x00bar\n",
		"late_nul.txt":            strings.Repeat("filler line\n", 400) + "foo before nul\x00 foo after\n",
		"min.js":                  strings.Repeat("var a=1;", 40_000) + "foo()" + strings.Repeat(";b=2", 40_000) + "\n",
		"latin1.txt":              "caf\xe9 foo\n\xff\xfe\n",
		"unicode.txt":             "ünïcödé foo\nKELVIN \u212a foo\nkelvin\n",
		"many.txt":                strings.Repeat("foo many\n", 30),
		"empty.txt":               "",
		"nl.txt":                  "\n",
		".hiddenfile":             "foo in hidden file\n",
		".hidden/x.txt":           "foo in hidden dir\n",
		"node_modules/m.js":       "foo\n",
		"vendor/v.go":             "foo\n",
		"sub/build/b.txt":         "foo\n",
		"go/build/build.go":       "package build // foo\n", // a source package named like an output dir
		"go/build/doc.txt":        "foo doc\n",
		"dist/bundle.js":          "foo\n",
		".gitignore":              "*.log\nout/\ntmpd/*\n!tmpd/ok.txt\ndoc?/*.md\n",
		"tmpd/ok.txt":             "foo re-included\n",
		"tmpd/no.txt":             "foo\n",
		"docs/r.md":               "foo\n",
		"app.log":                 "foo\n",
		"out/o.txt":               "foo\n",
		"sub/.gitignore":          "!keep.log\n",
		"sub/keep.log":            "foo kept\n",
		"sub/x.go":                "package sub // foo\n",
		"sub/deep/.coderagignore": "secret.txt\n",
		"sub/deep/secret.txt":     "foo secret\n",
		"sub/deep/open.txt":       "foo open\n",
		".coderagignore":          "private/\n",
		"private/p.txt":           "foo\n",
		"big.txt":                 strings.Repeat("foo big\n", (MaxFileBytes/8)+10),
		"tabs.txt":                "\tfoo\t$x\n",
		"size/exact.txt":          "foo exact\n" + strings.Repeat("x", MaxFileBytes-10),
		"size/over.txt":           "foo over\n" + strings.Repeat("x", MaxFileBytes-8),
		"order/b/c.txt":           "foo in dir b\n",
		"order/b.go":              "foo in b.go\n",
	}
	for rel, c := range files {
		write(t, root, rel, c)
	}
	if err := os.Symlink(".", filepath.Join(root, "sub", "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../a.go", filepath.Join(root, "sub", "link.go")); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestEnginesAgree(t *testing.T) {
	t.Parallel()
	needRG(t)
	root := fixture(t)
	cases := []GrepParams{
		{Pattern: "foo"},
		{Pattern: "foo$"},
		{Pattern: "^package"},
		{Pattern: "FOO", IgnoreCase: true},
		{Pattern: "kelvin", IgnoreCase: true},
		{Pattern: `\bfoo\b`},
		{Pattern: `\w+ foo`},
		{Pattern: `[^a-z]foo`},
		{Pattern: `x*`},
		{Pattern: `$x`, FixedStrings: true},
		{Pattern: "foo|alpha|last"},
		{Pattern: "o{2}"},
		{Pattern: "foo", Path: "sub"},
		{Pattern: "foo", Path: "sub/deep"},
		{Pattern: "foo", Path: "sub/keep.log"},
		{Pattern: "foo", Glob: "*.txt"},
		{Pattern: "foo", Glob: "sub/**"},
		{Pattern: "foo", Path: "sub", Glob: "deep/*.txt"},
		{Pattern: "nomatchatall"},
		{Pattern: "ÜNÏ", IgnoreCase: true},
		{Pattern: `foo\s*$`},
		{Pattern: `^\s*foo`},
		{Pattern: `(?s)a.b`},
		{Pattern: `fo+?`},
		{Pattern: `(foo|bar)\W+(many|bar)`},
		{Pattern: `\pL+ foo`},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s|%s|%s|%v", c.Pattern, c.Path, c.Glob, c.IgnoreCase), func(t *testing.T) {
			c.HeadLimit, c.MaxResults, c.MaxChars, c.Timeout = 1000, 1000, 10_000_000, time.Minute
			var got [2]*GrepResult
			for i, e := range []string{EngineRipgrep, EngineNative} {
				c.Engine = e
				r, err := Grep(context.Background(), root, c)
				if err != nil {
					t.Fatalf("%s: %v", e, err)
				}
				// the one reason allowed: big.txt and size/over.txt (over
				// MaxFileBytes) match, which both engines must say
				if r.Partial && !slices.Equal(r.PartialReasons, []string{ReasonTooLarge}) {
					t.Fatalf("%s: partial %v", e, r.PartialReasons)
				}
				if r.Engine != e {
					t.Fatalf("engine %s ran as %s (note %q)", e, r.Engine, r.Note)
				}
				got[i] = r
			}
			if !reflect.DeepEqual(got[0].Matches, got[1].Matches) {
				t.Errorf("engines differ:\n%s", diffMatches(got[0].Matches, got[1].Matches))
			}
			if got[0].Partial != got[1].Partial || got[0].Note != got[1].Note {
				t.Errorf("engines differ on what they did not show:\n ripgrep %v %q\n  native %v %q", got[0].Partial, got[0].Note, got[1].Partial, got[1].Note)
			}
		})
	}
}

// TestFixtureRules pins what the shared rules select, so agreement is not
// agreement on nothing.
func TestFixtureRules(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	r, err := Grep(context.Background(), root, GrepParams{Pattern: "foo", Engine: EngineNative, MaxResults: 1000, HeadLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, m := range r.Matches {
		files = append(files, m.Path)
	}
	want := []string{".hiddenfile", "bom.go", "crlf.txt", "go/build/build.go", "go/build/doc.txt", "late_nul.txt", "latin1.txt", "many.txt", "min.js",
		"order/b/c.txt", "order/b.go", "size/exact.txt", "sub/deep/open.txt", "sub/keep.log", "sub/x.go", "tabs.txt", "tmpd/ok.txt", "unicode.txt"}
	if !reflect.DeepEqual(files, want) {
		t.Fatalf("files with matches:\n got %q\nwant %q", files, want)
	}
	byPath := map[string]Match{}
	for _, m := range r.Matches {
		byPath[m.Path] = m
	}
	if m := byPath["crlf.txt"]; m.Line != 2 || m.Text != "foo bar" {
		t.Errorf("crlf: %+v", m)
	}
	if m := byPath["bom.go"]; m.Line != 2 {
		t.Errorf("bom: %+v", m)
	}
	if m := byPath["latin1.txt"]; m.Text != "caf\uFFFD foo" {
		t.Errorf("latin1: %q", m.Text)
	}
	if m := byPath["min.js"]; !m.Clipped || len(m.Text) > MaxMatchChars+8 || !strings.Contains(m.Text, "foo()") {
		t.Errorf("min.js: clipped=%v len=%d", m.Clipped, len(m.Text))
	}
	if m := byPath["late_nul.txt"]; m.Line != 401 {
		t.Errorf("late NUL: %+v", m)
	}
}

func diffMatches(a, b []Match) string {
	var out []string
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y Match
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if !reflect.DeepEqual(x, y) {
			out = append(out, fmt.Sprintf("#%d\n  ripgrep %s:%d %q clipped=%v\n  native  %s:%d %q clipped=%v", i,
				x.Path, x.Line, clipRunes(x.Text, 120), x.Clipped, y.Path, y.Line, clipRunes(y.Text, 120), y.Clipped))
		}
	}
	return strings.Join(out, "\n")
}
