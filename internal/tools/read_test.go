package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRead(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var ten strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&ten, "line%d\n", i)
	}
	write(t, root, "nl.txt", "a\nb\nc\n")
	write(t, root, "nonl.txt", "a\nb\nc")
	write(t, root, "crlf.txt", "a\r\nb\r\nc\r\n")
	write(t, root, "bom.go", "\ufeffpackage x\nfunc F() {}\n")
	write(t, root, "ten.txt", ten.String())
	write(t, root, "empty.txt", "")
	write(t, root, "dir/inner.txt", "inner\n")
	ctx := context.Background()

	tests := []struct {
		name  string
		p     ReadParams
		lines []string
		total int
		rem   int
		next  int
	}{
		{"trailing newline", ReadParams{Path: "nl.txt"}, []string{"a", "b", "c"}, 3, 0, 0},
		{"no trailing newline", ReadParams{Path: "nonl.txt"}, []string{"a", "b", "c"}, 3, 0, 0},
		{"crlf", ReadParams{Path: "crlf.txt"}, []string{"a", "b", "c"}, 3, 0, 0},
		{"bom", ReadParams{Path: "bom.go", Limit: 1}, []string{"package x"}, 2, 1, 2},
		{"window", ReadParams{Path: "ten.txt", Offset: 3, Limit: 4}, []string{"line3", "line4", "line5", "line6"}, 10, 4, 7},
		{"last window", ReadParams{Path: "ten.txt", Offset: 8, Limit: 5}, []string{"line8", "line9", "line10"}, 10, 0, 0},
		{"last line", ReadParams{Path: "ten.txt", Offset: 10}, []string{"line10"}, 10, 0, 0},
		{"zero offset is 1", ReadParams{Path: "nl.txt", Offset: 0, Limit: 1}, []string{"a"}, 3, 2, 2},
		{"empty file", ReadParams{Path: "empty.txt"}, nil, 0, 0, 0},
		{"sub dir", ReadParams{Path: "dir/inner.txt"}, []string{"inner"}, 1, 0, 0},
		{"dot dot inside", ReadParams{Path: "dir/../nl.txt", Limit: 1}, []string{"a"}, 3, 2, 2},
		{"absolute inside", ReadParams{Path: filepath.Join(root, "nl.txt"), Limit: 1}, []string{"a"}, 3, 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Read(ctx, root, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.Lines, tc.lines) || r.TotalLines != tc.total || r.Remaining != tc.rem || r.NextOffset != tc.next {
				t.Fatalf("got lines %q total %d remaining %d next %d", r.Lines, r.TotalLines, r.Remaining, r.NextOffset)
			}
			if strings.Contains(r.Text, "\r") || strings.Contains(r.Text, "\ufeff") {
				t.Errorf("text has \\r or BOM: %q", r.Text)
			}
			if strings.Contains(r.Path, "\\") || strings.HasPrefix(r.Path, "/") || strings.Contains(r.Path, "..") {
				t.Errorf("path %q is not root-relative", r.Path)
			}
		})
	}

	t.Run("numbered text", func(t *testing.T) {
		r, err := Read(ctx, root, ReadParams{Path: "ten.txt", Offset: 3, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		want := "     3\tline3\n     4\tline4\n(lines 3-4 of 10; 6 more, next offset 5)\n"
		if r.Text != want {
			t.Fatalf("text %q, want %q", r.Text, want)
		}
		if r.Path != "ten.txt" || r.Offset != 3 || r.Limit != 2 {
			t.Errorf("echo: %+v", r)
		}
	})
	t.Run("default and max limit", func(t *testing.T) {
		write(t, root, "long.txt", strings.Repeat("x\n", 5000))
		r, _ := Read(ctx, root, ReadParams{Path: "long.txt"})
		if len(r.Lines) != DefaultReadLimit || r.NextOffset != DefaultReadLimit+1 || r.Remaining != 5000-DefaultReadLimit {
			t.Errorf("default: %d lines next %d", len(r.Lines), r.NextOffset)
		}
		r, _ = Read(ctx, root, ReadParams{Path: "long.txt", Limit: 1 << 30})
		if len(r.Lines) != MaxReadLimit || r.Limit != MaxReadLimit {
			t.Errorf("cap: %d lines", len(r.Lines))
		}
	})
	t.Run("long line clipped", func(t *testing.T) {
		write(t, root, "min.js", strings.Repeat("é", 5000)+"\nnext\n")
		r, err := Read(ctx, root, ReadParams{Path: "min.js"})
		if err != nil {
			t.Fatal(err)
		}
		l := r.Lines[0]
		if len(l) > MaxReadLineChars+60 || !strings.Contains(l, "[line clipped, 10000 bytes total]") || !utf8.ValidString(l) {
			t.Errorf("clipped line: len %d, tail %q", len(l), l[len(l)-50:])
		}
		if r.Lines[1] != "next" {
			t.Errorf("line 2 = %q", r.Lines[1])
		}
	})
	t.Run("invalid utf8 replaced", func(t *testing.T) {
		write(t, root, "latin1.txt", "caf\xe9\n")
		r, err := Read(ctx, root, ReadParams{Path: "latin1.txt"})
		if err != nil || r.Lines[0] != "caf\uFFFD" {
			t.Errorf("got %v %q", err, r.Lines)
		}
	})
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	root := filepath.Join(parent, "proj")
	write(t, parent, "outside.txt", "secret\n")
	write(t, root, "three.txt", "a\nb\nc\n")
	write(t, root, "empty.txt", "")
	write(t, root, "bin.dat", "abc\x00def\n")
	write(t, root, "d/x.txt", "x\n")
	if err := os.Symlink(filepath.Join(parent, "outside.txt"), filepath.Join(root, "out.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("three.txt", filepath.Join(root, "in.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(parent, filepath.Join(root, "updir")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		p    ReadParams
		want error
	}{
		{ReadParams{Path: "three.txt", Offset: 4}, ErrOffsetPastEnd},
		{ReadParams{Path: "three.txt", Offset: 100}, ErrOffsetPastEnd},
		{ReadParams{Path: "empty.txt", Offset: 2}, ErrOffsetPastEnd},
		{ReadParams{Path: "bin.dat"}, ErrBinary},
		{ReadParams{Path: "../outside.txt"}, ErrOutsideRoot},
		{ReadParams{Path: "d/../../outside.txt"}, ErrOutsideRoot},
		{ReadParams{Path: filepath.Join(parent, "outside.txt")}, ErrOutsideRoot},
		{ReadParams{Path: "/etc/passwd"}, ErrOutsideRoot},
		{ReadParams{Path: "out.txt"}, ErrOutsideRoot},
		{ReadParams{Path: "updir/outside.txt"}, ErrOutsideRoot},
		{ReadParams{Path: "../nonexistent"}, ErrOutsideRoot},
		{ReadParams{Path: "missing.txt"}, ErrNotFound},
		{ReadParams{Path: ""}, ErrNotFound},
		{ReadParams{Path: "d"}, ErrIsDir},
	}
	for _, tc := range tests {
		t.Run(tc.p.Path, func(t *testing.T) {
			_, err := Read(ctx, root, tc.p)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	t.Run("offset past end message", func(t *testing.T) {
		_, err := Read(ctx, root, ReadParams{Path: "three.txt", Offset: 4})
		if !strings.Contains(err.Error(), "offset 4") || !strings.Contains(err.Error(), "3 lines") {
			t.Errorf("unclear error: %v", err)
		}
	})
	t.Run("symlink inside the root", func(t *testing.T) {
		r, err := Read(ctx, root, ReadParams{Path: "in.txt"})
		if err != nil || r.TotalLines != 3 || r.Path != "in.txt" {
			t.Fatalf("%v %+v", err, r)
		}
	})
	t.Run("empty file offset 1", func(t *testing.T) {
		r, err := Read(ctx, root, ReadParams{Path: "empty.txt", Offset: 1})
		if err != nil || len(r.Lines) != 0 || r.TotalLines != 0 {
			t.Fatalf("%v %+v", err, r)
		}
	})
	t.Run("root given through a symlink", func(t *testing.T) {
		link := filepath.Join(parent, "link")
		if err := os.Symlink(root, link); err != nil {
			t.Fatal(err)
		}
		r, err := Read(ctx, link, ReadParams{Path: filepath.Join(root, "three.txt")})
		if err != nil || r.Path != "three.txt" {
			t.Fatalf("%v %+v", err, r)
		}
	})
}

func TestGlob(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	ctx := context.Background()
	tests := []struct {
		p    GlobParams
		want []string
	}{
		{GlobParams{Pattern: "**/*.go"}, []string{"a.go", "bom.go", "go/build/build.go", "order/b.go", "sub/x.go"}},
		{GlobParams{Pattern: "*.go"}, []string{"a.go", "bom.go", "go/build/build.go", "order/b.go", "sub/x.go"}}, // name pattern: any depth
		{GlobParams{Pattern: "order/**"}, []string{"order/b/c.txt", "order/b.go"}},                               // walk order
		{GlobParams{Pattern: "*.txt", Path: "sub"}, []string{"sub/deep/open.txt"}},
		{GlobParams{Pattern: "deep/*", Path: "sub"}, []string{"sub/deep/.coderagignore", "sub/deep/open.txt"}},
		{GlobParams{Pattern: "sub/**/*.{txt,log}"}, []string{"sub/deep/open.txt", "sub/keep.log"}},
		{GlobParams{Pattern: "*.log"}, []string{"sub/keep.log"}}, // app.log is gitignored, keep.log re-included
		{GlobParams{Pattern: "**/m.js"}, nil},                    // node_modules skipped
		{GlobParams{Pattern: "big.txt"}, []string{"big.txt"}},    // no size cap for listing
		{GlobParams{Pattern: "x.go", Path: "sub/x.go"}, []string{"sub/x.go"}},
	}
	for _, tc := range tests {
		t.Run(tc.p.Pattern+"|"+tc.p.Path, func(t *testing.T) {
			r, err := Glob(ctx, root, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Files) != len(tc.want) || (len(tc.want) > 0 && !reflect.DeepEqual(r.Files, tc.want)) || r.Partial || r.Total != len(tc.want) {
				t.Fatalf("got %q (partial %v total %d), want %q", r.Files, r.Partial, r.Total, tc.want)
			}
		})
	}
	t.Run("limit", func(t *testing.T) {
		r, err := Glob(ctx, root, GlobParams{Pattern: "**", Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Files) != 3 || !r.Partial || r.Total <= 3 {
			t.Fatalf("%+v", r)
		}
		all, _ := Glob(ctx, root, GlobParams{Pattern: "**"})
		if !reflect.DeepEqual(all.Files[:3], r.Files) || all.Partial || all.Total != len(all.Files) {
			t.Fatalf("not a sorted prefix: %q vs %q", r.Files, all.Files[:3])
		}
		if !strings.Contains(r.Text(), "partial: 3 of") {
			t.Errorf("text: %q", r.Text())
		}
	})
	t.Run("default limit", func(t *testing.T) {
		many := t.TempDir()
		for i := 0; i < DefaultGlobLimit+5; i++ {
			write(t, many, fmt.Sprintf("f%03d.txt", i), "")
		}
		r, _ := Glob(ctx, many, GlobParams{Pattern: "*.txt"})
		if len(r.Files) != DefaultGlobLimit || !r.Partial || r.Total != DefaultGlobLimit+5 {
			t.Fatalf("%d files partial %v total %d", len(r.Files), r.Partial, r.Total)
		}
	})
	for _, bad := range []struct {
		p    GlobParams
		want error
	}{
		{GlobParams{Pattern: "[a-"}, ErrBadPattern},
		{GlobParams{Pattern: ""}, ErrBadPattern},
		{GlobParams{Pattern: "*", Path: ".."}, ErrOutsideRoot},
		{GlobParams{Pattern: "*", Path: "nope"}, ErrNotFound},
	} {
		if _, err := Glob(ctx, root, bad.p); !errors.Is(err, bad.want) {
			t.Errorf("%+v: err %v, want %v", bad.p, err, bad.want)
		}
	}
}

// TestGlobIndexed lists only what ReadIndexed then reads: no ignore file,
// no gitignored or skipped file even with NoIgnore and Hidden, no text
// file of a language the index does not take; every file it lists,
// ReadIndexed reads.
func TestGlobIndexed(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	ctx := context.Background()
	all, err := Glob(ctx, root, GlobParams{Pattern: "**", NoIgnore: true, Hidden: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := GlobIndexed(ctx, root, GlobParams{Pattern: "**", NoIgnore: true, Hidden: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Files) == 0 || len(got.Files) >= len(all.Files) {
		t.Fatalf("indexed glob %q of all %q", got.Files, all.Files)
	}
	for _, f := range got.Files {
		if strings.Contains(f, "ignore") || strings.HasSuffix(f, "app.log") || strings.Contains(f, "node_modules") {
			t.Errorf("listed %s, which the index does not take", f)
		}
		if _, err := ReadIndexed(ctx, root, ReadParams{Path: f, Limit: 1}); err != nil {
			t.Errorf("listed %s, which ReadIndexed refuses: %v", f, err)
		}
	}
	// a path naming a file or directory the index does not take (an
	// ignore file, a hidden or skipped directory) is refused, as
	// GrepIndexed refuses it
	for _, p := range []string{"sub/deep/.coderagignore", ".hidden", "node_modules"} {
		if r, err := GlobIndexed(ctx, root, GlobParams{Pattern: "**", Path: p}); !errors.Is(err, ErrNotIndexed) {
			t.Errorf("GlobIndexed with path %s: %+v %v, want ErrNotIndexed", p, r, err)
		}
	}
}
