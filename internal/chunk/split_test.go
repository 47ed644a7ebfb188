package chunk

import (
	"fmt"
	"strings"
	"testing"
)

// A definition over maxDefLines lines is split into parts of at most
// maxDefLines lines that keep its name and owner, cover every line of its
// body once and start at a statement, not inside one.
func TestLongDefinitionParts(t *testing.T) {
	t.Parallel()
	var gob, pyb, luab strings.Builder
	gob.WriteString("package p\n\n// Run does many things.\nfunc (s *Server) Run(x int) int {\n")
	pyb.WriteString("class Server:\n    def run(self, x):\n")
	luab.WriteString("local M = {}\n\nfunction M.run(x)\n")
	for i := 0; i < 180; i++ { // 180 three-line statements: 540 lines, 3 parts of at most maxDefLines (200)
		fmt.Fprintf(&gob, "\tif x > %d {\n\t\tx -= %d\n\t}\n", i, i)
		fmt.Fprintf(&pyb, "        if x > %d:\n            x -= %d\n            x += 1\n", i, i)
		fmt.Fprintf(&luab, "  if x > %d then\n    x = x - %d\n  end\n", i, i)
	}
	gob.WriteString("\treturn x\n}\n")
	pyb.WriteString("        return x\n")
	luab.WriteString("  return x\nend\n\nreturn M\n")
	for _, c := range []struct {
		path, src, first, part, owner, stmt string
	}{
		{"server.go", gob.String(), "Server.Run(x int)", "Server.Run", "Server", "if x > "},
		{"server.py", pyb.String(), "Server.run(self, x)", "Server.run", "Server", "if x > "},
		{"m.lua", luab.String(), "M.run(x)", "M.run", "M", "if x > "},
	} {
		r := mustParse(t, c.path, c.src)
		checkInvariants(t, c.path, []byte(c.src), r)
		lines := strings.Split(c.src, "\n")
		var parts []Chunk
		for _, ch := range r.Chunks {
			if ch.Name == c.first || strings.HasPrefix(ch.Name, c.part+" (part ") {
				parts = append(parts, ch)
			}
		}
		if len(parts) != 3 {
			t.Fatalf("%s: %d parts, want 3: %+v", c.path, len(parts), r.Chunks)
		}
		def := parts[0]
		covered := map[int]int{}
		for k, p := range parts {
			if n := p.EndLine - p.StartLine + 1; n > maxDefLines {
				t.Errorf("%s: part %q has %d lines", c.path, p.Name, n)
			}
			if p.Owner != c.owner {
				t.Errorf("%s: part %q owner %q, want %q", c.path, p.Name, p.Owner, c.owner)
			}
			if k > 0 {
				if want := fmt.Sprintf("%s (part %d of 3)", c.part, k+1); p.Name != want || p.Type != KindText {
					t.Errorf("%s: part %d is %s %q, want text %q", c.path, k+1, p.Type, p.Name, want)
				}
				if s := strings.TrimSpace(lines[p.StartLine-1]); !strings.HasPrefix(s, c.stmt) {
					t.Errorf("%s: part %q starts inside a statement: %q", c.path, p.Name, s)
				}
			}
			for l := p.StartLine; l <= p.EndLine; l++ {
				covered[l]++
			}
		}
		if def.DeclEndLine != parts[2].EndLine && c.path != "m.lua" {
			t.Errorf("%s: definition chunk decl-end %d, want %d", c.path, def.DeclEndLine, parts[2].EndLine)
		}
		for l := def.StartLine; l <= def.DeclEndLine; l++ {
			if significant(lines[l-1]) && covered[l] != 1 {
				t.Errorf("%s: line %d %q in %d parts", c.path, l, lines[l-1], covered[l])
			}
		}
	}
}

// A JavaScript factory's nested functions and members are units; the
// factory keeps its own lines (a run of fewer than minGapLines lines
// between nested definitions joins the unit before it, as gaps do: the
// member "tiny: () => 1" is api.close's last line), and a call in a
// nested function is the nested function's.
func TestNestedUnits(t *testing.T) {
	t.Parallel()
	src := `function build (opts) {
  const api = {
    close: function close (cb) {
      cleanup()
      cb()
    },
    tiny: () => 1
  }
  api.listen = function (port) {
    start(port)
    return api
  }
  function route (path) {
    register(path)
    return api
  }
  const done = () => finish()
  api.route = route
  return api
}
`
	r := mustParse(t, "build.js", src)
	got := map[string]string{}
	for _, c := range r.Chunks {
		got[c.Name] = fmt.Sprintf("%d-%d %s", c.StartLine, c.EndLine, c.Type)
	}
	for name, want := range map[string]string{
		"build(opts)":         "1-2 function",
		"api.close(cb)":       "3-7 method",
		"api.listen(port)":    "9-12 method",
		"route(path)":         "13-16 function",
		"build (part 2 of 2)": "17-20 text",
	} {
		if got[name] != want {
			t.Errorf("%s: %q, want %q (chunks %v)", name, got[name], want, got)
		}
	}
	calls := map[string]string{}
	for _, rel := range r.Relations {
		if rel.Kind == RelCalls {
			calls[rel.To] = rel.From
		}
	}
	for to, from := range map[string]string{"cleanup": "api.close", "start": "api.listen", "register": "route", "finish": "build"} {
		if calls[to] != from {
			t.Errorf("call of %s from %q, want %q", to, calls[to], from)
		}
	}
}

// A run of one or two significant lines that no definition covers joins
// the chunk next to it (joinGap): the last fields of a struct longer than
// its class head join the head, a trailing comment joins the nearer
// function, a section comment the function it leads on a tie. Lines beside an import
// block with no chunk next to them are still left out, and every other
// significant line is in exactly one chunk.
func TestSmallGapsJoinNeighbours(t *testing.T) {
	t.Parallel()
	src := `package bufio

import "io"

// Reader buffers an io.Reader.
type Reader struct {
	buf          []byte
	rd           io.Reader
	r, w         int
	err          error
	lastByte     int
	lastRuneSize int
}

func (b *Reader) Buffered() int { return b.w - b.r }
// Buffered never blocks.

// ---- sizes ----

func (b *Reader) Size() int { return len(b.buf) }
`
	r := mustParse(t, "bufio.go", src)
	checkInvariants(t, "bufio.go", []byte(src), r)
	wantChunk(t, r, "Reader", KindClass, 5, 12)
	wantChunk(t, r, "Reader.Buffered()", KindMethod, 15, 16)
	wantChunk(t, r, "Reader.Size()", KindMethod, 18, 20)
	if c := find(r, "Reader"); !strings.Contains(c.Content, "lastRuneSize int") || c.DeclEndLine != 13 {
		t.Errorf("class head %q (decl-end %d) lacks the struct's last field", c.Content, c.DeclEndLine)
	}
	lines := strings.Split(src, "\n")
	in := map[int]int{}
	for _, c := range r.Chunks {
		for l := c.StartLine; l <= c.EndLine; l++ {
			in[l]++
		}
	}
	for l := 5; l <= len(lines); l++ {
		if significant(lines[l-1]) && in[l] != 1 {
			t.Errorf("line %d %q is in %d chunks", l, lines[l-1], in[l])
		}
	}
	if in[1] != 0 || in[3] != 0 {
		t.Errorf("the package clause or the import joined a chunk: %v", r.Chunks)
	}
}

// A doc comment of one or two lines with no chunk beside it (a module
// docstring or package comment next to the imports) is a text chunk of its
// own; a directive or a stray statement there is still left out.
func TestOrphanDocCommentsAreChunks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		path, src string
		doc       string // a line the doc chunk holds; "" when nothing may be chunked
		docLine   int
	}{
		{"ratelimit.go", "// Copyright 2020 The Authors.\n// Use of this source is governed by a BSD license.\n\n//go:build linux && amd64\n\n// Package ratelimit implements token bucket rate limiting.\npackage ratelimit\n\nimport \"time\"\n\nfunc Take(d time.Duration) int { return 1 }\n",
			"Package ratelimit implements token bucket rate limiting.", 6},
		{"limit.py", "\"\"\"Token bucket rate limiting for outgoing requests.\n\nThe limiter refills tokens at a fixed rate.\n\"\"\"\nimport time\n\n\ndef take():\n    return 1\n",
			"The limiter refills tokens at a fixed rate.", 1},
		{"opener.py", "\"\"\"\nToken bucket rate limiting for requests.\n\"\"\"\nimport time\n\n\ndef take():\n    return 1\n",
			"Token bucket rate limiting for requests.", 1},
		{"lib.rs", "//! Token bucket rate limiting.\n//! The limiter refills tokens.\n\nuse std::time::Duration;\n\npub fn take(d: Duration) -> u32 { 1 }\n",
			"The limiter refills tokens.", 1},
		{"zh.py", "# 令牌桶限流\nimport time\n\n\ndef take():\n    return 1\n", "令牌桶限流", 1},
		// a block comment whose paragraphs blank lines part from its
		// opener is one chunk (jsondiffpatch's lcs.ts)
		{"lcs.ts", "/*\n\nLCS implementation that supports arrays or strings\n\nreference: http://en.wikipedia.org/wiki/Longest_common_subsequence_problem\n\n*/\n\nimport type { MatchContext } from './arrays.js';\n\nconst defaultMatch = (a: number[], i: number) => a[i] === 0;\n",
			"LCS implementation that supports arrays or strings", 1},
		// not prose: a directive, a short pragma, stray statements
		{"tags.go", "//go:build linux && amd64 && cgo\n\npackage x\n\nimport \"os\"\n\nfunc F() { os.Exit(1) }\n", "", 0},
		{"strict.js", "'use strict';\nconst util = require('util');\n\nfunction take(d) {\n  return util.inspect(d);\n}\n", "", 0},
		// a licence header is left out, also right before the code and
		// with blank or unmarked lines inside its block comment
		{"Agent.java", "/*\n * Copyright (c) 2024 Example Corp.\n * Licensed under the Apache License 2.0.\n */\npackage x;\n\nimport java.util.List;\n\nclass A {\n  void f() {}\n}\n", "", 0},
		{"lic.c", "/*\n   Copyright 2020 Example Corp.\n\n   Licensed under the MIT license.\n*/\n#include <stdio.h>\n\nint f(void) { return 1; }\n", "", 0},
		{"consts.py", "import os\nDEFAULT_RATE = 10\nimport time\n\n\ndef take():\n    return 1\n", "", 0},
	}
	for _, tc := range cases {
		r := mustParse(t, tc.path, tc.src)
		checkInvariants(t, tc.path, []byte(tc.src), r)
		var docs []Chunk
		for _, c := range r.Chunks {
			if c.Type == KindText {
				docs = append(docs, c)
			}
		}
		if tc.doc == "" {
			if len(docs) != 0 {
				t.Errorf("%s: %d text chunks, want none: %q", tc.path, len(docs), docs[0].Content)
			}
			continue
		}
		if len(docs) != 1 || !strings.Contains(docs[0].Content, tc.doc) || docs[0].StartLine != tc.docLine {
			t.Errorf("%s: text chunks %+v, want one from line %d holding %q", tc.path, docs, tc.docLine, tc.doc)
		}
	}
}
