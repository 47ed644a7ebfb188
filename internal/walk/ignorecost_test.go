package walk

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestCostlyIgnoreFile: issue 25's .gitignore (a plain pattern, then
// 20,000 lines of "!*a*a*a*a*a*a*a*a*N", 500 KB) is applied up to
// MaxIgnoreCost: the walk of 204 files stays within MaxIgnoreCost matcher
// steps per path (it tried 20,001 patterns, 200,001 units, per path
// before), the plain pattern still applies, and the file is reported as
// too costly with how many patterns applied.
func TestCostlyIgnoreFile(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	b.WriteString("*.log\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "!*a*a*a*a*a*a*a*a*%d\n", i)
	}
	write(t, root, ".gitignore", b.String())
	write(t, root, "debug.log", "noise\n")
	for i := range 204 {
		write(t, root, fmt.Sprintf("src/banana_%d.go", i), "package src\n")
	}
	files, skips, err := Collect(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 204 {
		t.Errorf("%d files, want the 204 .go files (debug.log ignored)", len(files))
	}
	var note *Skip
	for i, s := range skips {
		if s.Reason == ReasonIgnoreTooCostly && s.Path == ".gitignore" {
			note = &skips[i]
		}
	}
	if note == nil || !strings.Contains(note.Err, "of 20001 patterns applied") {
		t.Errorf("no too-costly note for .gitignore: %+v", skips)
	}
	m := NewMatcher(root)
	for _, f := range files {
		m.Load(f.Path)
		if m.Ignored(f.Path, false) {
			t.Errorf("%s ignored", f.Path)
		}
	}
	if !m.Ignored("debug.log", false) {
		t.Error("debug.log not ignored: the first pattern must still apply")
	}
	if per := m.Steps() / int64(len(files)+1); per > MaxIgnoreCost || per == 0 {
		t.Errorf("%d matcher steps per path, want 1..%d", per, MaxIgnoreCost)
	}
}

// TestIgnoreDuplicatesAreFree: a pattern repeated 10,000 times costs
// once (the last of equal patterns decides alone), so the file applies in
// full, in git's order: the negation after the repeats still wins.
func TestIgnoreDuplicatesAreFree(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".gitignore", strings.Repeat("gen_*.go\n", 10000)+"!gen_keep.go\n")
	for _, n := range []string{"gen_a.go", "gen_keep.go", "main.go"} {
		write(t, root, n, "package p\n")
	}
	files, skips, err := Collect(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Path != "gen_keep.go" || files[1].Path != "main.go" {
		t.Errorf("files %v, want gen_keep.go and main.go", files)
	}
	if len(skips) != 0 {
		t.Errorf("skips %+v: duplicates are not a cost", skips)
	}
}
