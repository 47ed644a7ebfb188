package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/lines"
	"github.com/coderag/coderag/internal/walk"
)

// FuzzRead checks path resolution and Read on a fixed tree with symlinks
// inside and out: whatever the path, no answer and no error holds the
// outside file's content or its location. It also reads a file of fuzzed
// content and checks the streamed window against lines.Split, the rules
// every other surface uses. Seeds: f.Add and testdata/fuzz/FuzzRead.
func FuzzRead(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), "f.txt", 1, 2)
	f.Add([]byte("\ufeffx\r\ny\r"), "in/b.txt", 2, 1)
	f.Add([]byte("\r"), "out/secret.txt", 0, 0)
	f.Add([]byte("\n\n\x00"), "../outside/secret.txt", -3, 5000)
	f.Add([]byte(strings.Repeat("é", 1500)+"\n"), `"f.txt"`, 1, 1)
	f.Add([]byte("x"), "dir/../../outside/secret.txt", 1, 1)
	f.Add([]byte("x"), "outfile", 1, 1)
	base := f.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for p, c := range map[string]string{
		"root/a.txt": "alpha\n", "root/dir/b.txt": "beta\n", "outside/secret.txt": "SECRETCONTENT\n",
	} {
		write(f, base, p, c)
	}
	for link, target := range map[string]string{
		"in": "dir", "out": outside, "outfile": filepath.Join(outside, "secret.txt"), "loop": "loop",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			f.Skip("symlinks:", err)
		}
	}
	f.Fuzz(func(t *testing.T, content []byte, p string, offset, limit int) {
		ctx := context.Background()
		r, err := Read(ctx, root, ReadParams{Path: p, Offset: offset, Limit: limit})
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "SECRETCONTENT") || strings.Contains(msg, outside+"/") {
				t.Fatalf("read %q: the error shows the outside: %v", p, err)
			}
		} else if strings.Contains(r.Text, "SECRETCONTENT") {
			t.Fatalf("read %q returned outside content", p)
		}

		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), content, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err = Read(ctx, dir, ReadParams{Path: "f.txt", Offset: offset, Limit: limit})
		all := lines.Split(string(content))
		off, lim := max(offset, 1), limit
		if lim <= 0 {
			lim = DefaultReadLimit
		}
		lim = min(lim, MaxReadLimit)
		switch {
		case walk.IsBinary(content):
			if !errors.Is(err, ErrBinary) {
				t.Fatalf("binary content: %v", err)
			}
			return
		case off > len(all) && !(off == 1 && len(all) == 0):
			if !errors.Is(err, ErrOffsetPastEnd) {
				t.Fatalf("offset %d of %d lines: %v", off, len(all), err)
			}
			return
		case err != nil:
			t.Fatal(err)
		}
		if r.TotalLines != len(all) {
			t.Fatalf("total %d, lines.Split has %d", r.TotalLines, len(all))
		}
		var want []string
		for i := off; i <= min(len(all), off-1+lim); i++ {
			l := all[i-1]
			if len(l) > MaxReadLineChars {
				l = fmt.Sprintf("%s… [line clipped, %d bytes total]", clipRunes(l, MaxReadLineChars), len(l))
			}
			want = append(want, validUTF8(l))
		}
		if strings.Join(r.Lines, "\n") != strings.Join(want, "\n") || len(r.Lines) != len(want) {
			t.Fatalf("window %d+%d: got %q, want %q", off, lim, r.Lines, want)
		}
	})
}

// FuzzPattern checks the grep pattern translator: compilePattern never
// panics, and the native engine's scan of a text (prefilter literals plus
// the translated regexp) finds exactly the lines the pattern, compiled as
// given, matches one at a time. Seeds: f.Add and testdata/fuzz/FuzzPattern.
func FuzzPattern(f *testing.F) {
	f.Add(`foo`, "a foo\nbar\nfoo", false, false)
	f.Add(`(?i)kelvin`, "K\u212aELVIN\nkelvin\n", false, true)
	f.Add(`^x$|\Ay\z`, "x\ny\nxy\n", false, false)
	f.Add(`a\sb|[^a]c`, "a b\n\nac\nbc\n", false, false)
	f.Add(`.*\.go`, "x.go\r\nx.gob\n", false, false)
	f.Add(`a.b(`, "a.b(\n", true, false)
	f.Add(`\bgo\b`, "go\ngopher\n", false, true)
	f.Add(`x*`, "", false, false)
	f.Add(`ſ`, "S\ns\nſ\n", false, true)
	f.Fuzz(func(t *testing.T, pat, text string, fixed, icase bool) {
		if len(pat) > 1000 || len(text) > 1<<16 {
			return
		}
		pt, err := compilePattern(pat, fixed, icase)
		if err != nil {
			if !errors.Is(err, ErrBadPattern) {
				t.Fatalf("%q: error without ErrBadPattern: %v", pat, err)
			}
			return
		}
		src := pat
		if fixed {
			src = regexp.QuoteMeta(pat)
		}
		if icase {
			src = "(?i)" + src
		}
		orig := regexp.MustCompile(src)
		buf := clean([]byte(text))
		var want []int
		for i, l := range lines.Split(string(buf)) {
			if orig.MatchString(l) {
				want = append(want, i+1)
			}
		}
		s := newScanner(&query{pat: pt, head: 1 << 30})
		var got []int
		if !pt.never {
			for _, h := range s.scan(append([]byte(nil), buf...)) {
				got = append(got, h.line)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("pattern %q (fixed %v, icase %v) on %q: lines %v, want %v (rg form %s)", pat, fixed, icase, buf, got, want, pt.rg)
		}
	})
}
