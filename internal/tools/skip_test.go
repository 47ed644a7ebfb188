package tools

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// skipFixture is fastify's case in small: build/build-validation.js holds
// the only definition of defaultInitOptions, under a directory that only
// the built-in rule skips; .github/ is hidden; gen/ is in .gitignore.
func skipFixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	write(t, root, "fastify.js", "const { defaultInitOptions } = require('./lib/options')\n")
	write(t, root, "build/build-validation.js", "'use strict'\n\nconst x = 1\nconst defaultInitOptions = {\n  connectionTimeout: 0\n}\n")
	write(t, root, ".github/workflows/ci.yml", "name: defaultInitOptions check\n")
	write(t, root, ".gitignore", "gen/\n")
	write(t, root, "gen/out.js", "const defaultInitOptions = 2\n")
	write(t, root, "node_modules/dep/index.js", "module.exports = 1\n")
	return root
}

func paths(ms []Match) []string {
	var out []string
	for _, m := range ms {
		if !slices.Contains(out, m.Path) {
			out = append(out, m.Path)
		}
	}
	return out
}

// TestGrepSaysWhatItSkipped (#27): a directory skipped by the built-in rule
// is named in the note; --no-ignore searches it and ignored ones, --hidden
// hidden ones; both engines agree.
func TestGrepSaysWhatItSkipped(t *testing.T) {
	t.Parallel()
	root := skipFixture(t)
	for _, e := range engines(t) {
		t.Run(e, func(t *testing.T) {
			r := grep(t, root, GrepParams{Pattern: "defaultInitOptions =", Engine: e})
			if len(r.Matches) != 0 {
				t.Errorf("default search found %v", paths(r.Matches))
			}
			if !slices.Equal(r.SkippedDirs, []string{"build", "node_modules"}) ||
				!strings.Contains(r.Note, "Skipped build/, node_modules/ (built-in rule; no_ignore to search them).") {
				t.Errorf("skipped %q, note %q", r.SkippedDirs, r.Note)
			}
			r = grep(t, root, GrepParams{Pattern: "defaultInitOptions", NoIgnore: true, Engine: e})
			if got := paths(r.Matches); !slices.Equal(got, []string{"build/build-validation.js", "fastify.js", "gen/out.js"}) || len(r.SkippedDirs) != 0 {
				t.Errorf("no_ignore: files %q, skipped %q", got, r.SkippedDirs)
			}
			r = grep(t, root, GrepParams{Pattern: "defaultInitOptions", Hidden: true, Engine: e})
			if got := paths(r.Matches); !slices.Equal(got, []string{".github/workflows/ci.yml", "fastify.js"}) {
				t.Errorf("hidden: files %q", got)
			}
		})
	}
}

// TestGrepContext: -C/-A/-B give the lines around each match, numbered,
// without repeating a line shared by two matches' contexts, with "--"
// between groups that do not touch.
func TestGrepContext(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "a.txt", "one\ntwo\nhit 3\nfour\nhit 5\nsix\nseven\neight\nnine\nhit 10\neleven\n")
	for _, e := range engines(t) {
		t.Run(e, func(t *testing.T) {
			r := grep(t, root, GrepParams{Pattern: "hit", Context: 1, Engine: e})
			want := "a.txt\n  2- two\n  3: hit 3\n  4- four\n  5: hit 5\n  6- six\n  --\n  9- nine\n  10: hit 10\n  11- eleven\n"
			if got := r.Text(); !strings.HasPrefix(got, want) {
				t.Errorf("-C 1:\n%s\nwant:\n%s", got, want)
			}
			r = grep(t, root, GrepParams{Pattern: "hit 10", Before: 2, Engine: e})
			if len(r.Matches) != 1 || len(r.Matches[0].Before) != 2 || r.Matches[0].Before[0] != (ContextLine{Line: 8, Text: "eight"}) || len(r.Matches[0].After) != 0 {
				t.Errorf("-B 2: %+v", r.Matches)
			}
			r = grep(t, root, GrepParams{Pattern: "eleven", After: 3, Engine: e})
			if len(r.Matches) != 1 || len(r.Matches[0].After) != 0 {
				t.Errorf("-A 3 on the last line: %+v", r.Matches)
			}
		})
	}
}

// TestGlobSaysWhatItSkipped: glob names the directories the built-in rule
// skips and lists them with NoIgnore; Hidden lists hidden directories.
func TestGlobSaysWhatItSkipped(t *testing.T) {
	t.Parallel()
	root := skipFixture(t)
	ctx := context.Background()
	r, err := Glob(ctx, root, GlobParams{Pattern: "*.js"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Files, []string{"fastify.js"}) || !slices.Equal(r.SkippedDirs, []string{"build", "node_modules"}) ||
		!strings.Contains(r.Text(), "Skipped build/, node_modules/ (built-in rule") {
		t.Errorf("files %q skipped %q text %q", r.Files, r.SkippedDirs, r.Text())
	}
	if r, err = Glob(ctx, root, GlobParams{Pattern: "*.js", NoIgnore: true}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"build/build-validation.js", "fastify.js", "gen/out.js", "node_modules/dep/index.js"}; !slices.Equal(r.Files, want) || r.Note != "" {
		t.Errorf("no_ignore: %q note %q, want %q", r.Files, r.Note, want)
	}
	if r, err = Glob(ctx, root, GlobParams{Pattern: "*.yml", Hidden: true}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Files, []string{".github/workflows/ci.yml"}) {
		t.Errorf("hidden: %q", r.Files)
	}
	// a server's sessions (the indexed tools) ignore no_ignore: their note
	// must not offer it
	for _, noIgnore := range []bool{false, true} {
		g, err := GlobIndexed(ctx, root, GlobParams{Pattern: "*.js", NoIgnore: noIgnore})
		if err != nil {
			t.Fatal(err)
		}
		gr, err := GrepIndexed(ctx, root, GrepParams{Pattern: "defaultInitOptions", NoIgnore: noIgnore})
		if err != nil {
			t.Fatal(err)
		}
		for _, note := range []string{g.Text(), gr.Note} {
			if strings.Contains(note, "no_ignore") || !strings.Contains(note, "Skipped build/, node_modules/ (built-in rule: not indexed") {
				t.Errorf("indexed, no_ignore %v: note %q", noIgnore, note)
			}
		}
	}
}

// TestNoIgnoreKeepsSecretsOut: no_ignore and hidden lift the tidying rules,
// not the secret-file deny-list.
func TestNoIgnoreKeepsSecretsOut(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "build/.env", "TOKEN=defaultInitOptions\n")
	write(t, root, "build/a.js", "const defaultInitOptions = 1\n")
	for _, e := range engines(t) {
		r := grep(t, root, GrepParams{Pattern: "defaultInitOptions", NoIgnore: true, Hidden: true, Engine: e})
		if got := paths(r.Matches); !slices.Equal(got, []string{"build/a.js"}) {
			t.Errorf("%s: no_ignore+hidden searched %q, want build/a.js only", e, got)
		}
	}
	g, err := Glob(context.Background(), root, GlobParams{Pattern: "*", NoIgnore: true, Hidden: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Files, []string{"build/a.js"}) {
		t.Errorf("glob no_ignore+hidden: %q", g.Files)
	}
}
