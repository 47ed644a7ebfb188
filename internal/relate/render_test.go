package relate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// chainPath is the PathResult of a call chain f0 -> f1 -> ... -> fN, one
// function per line of chain.go.
func chainPath(n int) *PathResult {
	defs := make([]*Def, n+1)
	for i := range defs {
		defs[i] = &Def{Name: fmt.Sprintf("f%d", i), Type: "function", Path: "chain.go", StartLine: i + 1, EndLine: i + 1}
	}
	p := &PathResult{Query: [2]string{"f0", fmt.Sprintf("f%d", n)}, From: defs[0], To: defs[n], Found: true, Edges: []Edge{}}
	for i := 0; i < n; i++ {
		p.Edges = append(p.Edges, Edge{Kind: "calls", From: defs[i].Name, To: defs[i+1].Name, Path: "chain.go", Line: i + 1,
			Caller: defs[i], Target: defs[i+1], Resolution: "same_file", Depth: i + 1})
	}
	return p
}

// TestPathTreeIsBounded: the tree of a 20,000-call path is a few
// kilobytes, not the 800 MB of indentation it was: the indentation stops
// at pathIndentMax levels and gives the depth instead, the middle steps
// are one line counting them, the first and last steps are shown; a
// short path is drawn in full; the JSON lists every step.
func TestPathTreeIsBounded(t *testing.T) {
	const n = 20000
	var b bytes.Buffer
	if err := Render(&b, chainPath(n), FormatTree); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if want := 2 + pathShownHead + 1 + pathShownTail; len(lines) != want || len(out) > 8<<10 {
		t.Fatalf("tree of a %d-call path: %d lines, %d bytes; want %d lines\n%s", n, len(lines), len(out), want, out)
	}
	for _, want := range []string{
		"path from f0 to f20000: 20000 calls\n",
		"\n└── f1 chain.go:2  [same_file; call at chain.go:1]\n",
		"\n" + strings.Repeat("    ", 7) + "└── f8 chain.go:9 ",
		"\n" + strings.Repeat("    ", 8) + "9 └── f9 chain.go:10 ",
		"\n" + strings.Repeat("    ", 8) + fmt.Sprintf("… %d more steps … (--format json lists every step)\n", n-pathShownHead-pathShownTail),
		"\n" + strings.Repeat("    ", 8) + "20000 └── f20000 chain.go:20001  [same_file; call at chain.go:20000]\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tree lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := Render(&b, chainPath(pathShownHead+pathShownTail), FormatTree); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "more step") || strings.Count(out, "└── ") != pathShownHead+pathShownTail {
		t.Errorf("a path of %d calls is not drawn in full:\n%s", pathShownHead+pathShownTail, out)
	}
	b.Reset()
	if err := Render(&b, chainPath(n), FormatJSON); err != nil {
		t.Fatal(err)
	}
	var got PathResult
	if err := json.Unmarshal(b.Bytes(), &got); err != nil || len(got.Edges) != n || got.Edges[n-1].Target.Name != "f20000" {
		t.Errorf("JSON of a %d-call path: %v, %d edges", n, err, len(got.Edges))
	}
}

// A guessed call (on a value of unknown type) with one definition of the
// name is shown as a guess of that definition, not as "ambiguous" with
// one candidate; with several it stays ambiguous.
func TestGuessOfOneCandidate(t *testing.T) {
	one := &Def{Name: "Parser.search(s)", Path: "tz.py", StartLine: 57}
	two := &Def{Name: "Index.search(q)", Path: "idx.py", StartLine: 9}
	e := Edge{Kind: "calls", To: "re.search", Resolution: ResAmbiguous, Guess: true, Candidates: []*Def{one}}
	if got, want := e.target(), "guess: Parser.search(s) tz.py:57 (the only definition of the name; the value's type is unknown)"; got != want {
		t.Errorf("one candidate: %q, want %q", got, want)
	}
	if got, want := e.callerAmbiguity(), "guess: calls re.search, the only definition of the name; the value's type is unknown"; got != want {
		t.Errorf("one candidate, callers tree: %q, want %q", got, want)
	}
	if got, want := e.stepHow(), "guess: the only definition of the name; the value's type is unknown"; got != want {
		t.Errorf("one candidate, path step: %q, want %q (was \"guess, ambiguous, 1 of 1 candidates\")", got, want)
	}
	if e.ambiguous() {
		t.Error("a guess of the only definition of its name counted as ambiguous")
	}
	e.Candidates = []*Def{one, two}
	if got := e.target(); !strings.HasPrefix(got, "guess, ambiguous: Parser.search(s) tz.py:57, Index.search(q) idx.py:9") {
		t.Errorf("two candidates: %q", got)
	}
	if got, want := e.callerAmbiguity(), "guess, ambiguous: calls re.search, 2 candidates"; got != want {
		t.Errorf("two candidates, callers tree: %q, want %q", got, want)
	}
	if got, want := e.stepHow(), "guess, ambiguous, 1 of 2 candidates"; got != want || !e.ambiguous() {
		t.Errorf("two candidates, path step: %q (counted ambiguous %v), want %q", got, e.ambiguous(), want)
	}
	e.Guess, e.CandidatesTotal = false, 7
	if got, want := e.callerAmbiguity(), "ambiguous: calls re.search, 7 candidates"; got != want {
		t.Errorf("seven candidates, two listed, callers tree: %q, want %q", got, want)
	}
}
