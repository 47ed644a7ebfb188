package relate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuessesAreMarked: cobra's tmpl() calls t.Execute on a
// *template.Template; matched by name it became Command.Execute and `path
// tmpl Command.ParseFlags` found a path that does not exist. The receiver
// is now typed (unresolved: another package), an untyped call on a value
// is a guess marked in every format, and walks do not follow guesses
// unless IncludeGuesses is set.
func TestGuessesAreMarked(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/c\n")
	write("command.go", `package c

import "bytes"

type Command struct{ buf bytes.Buffer }

func (c *Command) Execute() error { return c.ParseFlags(nil) }

func (c *Command) ParseFlags(args []string) error { _ = c.buf.Len(); return nil }

type sorter []int

func (s sorter) Len() int { return len(s) }
`)
	write("cobra.go", `package c

import (
	"io"
	"text/template"
)

func tmpl(w io.Writer, text string) error {
	t := template.New("top")
	t.Execute(w, nil)
	var tt *template.Template
	return tt.Execute(w, text)
}

func run(x interface{ Execute() error }, c *Command) {
	c.Execute()
	helper().Execute()
}

func helper() unknownType { return nil }

func other() { helper().Start() }

type job struct{}

func (j *job) Start() { tmpl(nil, "") }
`)
	write("cobra_test.go", `package c

import "testing"

func TestTmpl(t *testing.T) { tmpl(nil, "") }
`)
	st, root := indexDir(t, dir)
	r, err := NewResolver(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Path("tmpl", "Command.ParseFlags")
	if err != nil {
		t.Fatal(err)
	}
	if p.Found {
		t.Errorf("path tmpl -> Command.ParseFlags found through %+v", p.Edges)
	}
	w, err := r.Callees("run", 1)
	if err != nil {
		t.Fatal(err)
	}
	var typed, guess *Edge
	for i, e := range w.Edges {
		switch {
		case e.Resolution == ResTyped:
			typed = &w.Edges[i]
		case e.Guess:
			guess = &w.Edges[i]
		}
	}
	if typed == nil || typed.Target == nil || typed.Target.call != "Command.Execute" || typed.Guess {
		t.Fatalf("c.Execute() on c *Command: want typed Command.Execute, got %+v", w.Edges)
	}
	if guess == nil {
		t.Fatalf("helper().Execute() on an unknown type: want a guess, got %+v", w.Edges)
	}
	var b strings.Builder
	for _, f := range []string{FormatTree, FormatJSON, FormatDot, FormatMermaid} {
		b.Reset()
		if err := Render(&b, w, f); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{FormatTree: "guess", FormatJSON: `"guess": true`, FormatDot: `calls (guess)", style=dashed`, FormatMermaid: "-.->|calls (guess)|"}[f]
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s output lacks %q:\n%s", f, want, b.String())
		}
	}
	// a guessed callee is listed but not expanded; IncludeGuesses expands it
	w, _ = r.Callees("other", 2)
	n := len(w.Edges)
	r.IncludeGuesses = true
	w, _ = r.Callees("other", 2)
	if len(w.Edges) <= n {
		t.Errorf("IncludeGuesses did not follow the guess: %d edges, %d without", len(w.Edges), n)
	}
	r.IncludeGuesses = false
	// c.buf.Len() is bytes.Buffer.Len, not sorter.Len: a library call
	g, err := r.Graph("Command.ParseFlags")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range g.Edges {
		if e.Target != nil && e.Target.call == "sorter.Len" {
			t.Errorf("c.buf.Len() resolved to sorter.Len (%s)", e.Resolution)
		}
	}
	if g.Library == 0 {
		t.Errorf("bytes.Buffer.Len and len() not counted as library calls: %+v", g)
	}
	// callers from tests are listed, and left out with NoTests
	w, err = r.Callers("tmpl", 1)
	if err != nil || len(w.Edges) != 2 {
		t.Fatalf("callers of tmpl: %+v %v", w, err)
	}
	r.NoTests = true
	w, _ = r.Callers("tmpl", 1)
	if len(w.Edges) != 1 || w.Edges[0].Caller.call != "job.Start" {
		t.Errorf("callers of tmpl without tests: %+v", w.Edges)
	}
	r.NoTests = false
	stats, err := r.Stats(5)
	if err != nil {
		t.Fatal(err)
	}
	if s := stats.ByLanguage["go"]; s == nil || s.Guessed == 0 || s.Exact == 0 || s.Library == 0 {
		t.Errorf("stats: %+v", s)
	}
}
