package search

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestHintsAreData: an answer's suggestions are Hints, not a front end's
// command in a message; each formatter words them for its reader (the
// command line names `coderag` commands, a model's tools name tools).
func TestHintsAreData(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{"a.go": "package a\n\n// Parse parses.\nfunc Parse() {}\n"})
	resp, err := s.Search(context.Background(), "?!", Options{TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Note != NoWordsNote || !reflect.DeepEqual(resp.Hints, []Hint{{Do: HintGrep}}) || strings.Contains(resp.Note, "coderag") {
		t.Fatalf("no-words answer: note %q, hints %+v", resp.Note, resp.Hints)
	}
	var b bytes.Buffer
	FormatHuman(&b, resp, HumanOptions{})
	if !strings.Contains(b.String(), "note: "+NoWordsNote+"; use `coderag grep` for an exact string") {
		t.Errorf("CLI wording: %q", b.String())
	}
	if tool := FormatForTool(resp); strings.Contains(tool, "coderag") || !strings.Contains(tool, "grep_code") {
		t.Errorf("tool wording: %q", tool)
	}

	partial := &Response{Query: "parse", Results: []Result{}, Incomplete: "index incomplete: 1 of 2 files indexed (x)",
		Hints: []Hint{{Do: HintIndex, Project: "/p"}}}
	b.Reset()
	FormatHuman(&b, partial, HumanOptions{})
	if !strings.Contains(b.String(), "note: index incomplete: 1 of 2 files indexed (x); run `coderag index /p`\n") {
		t.Errorf("CLI wording: %q", b.String())
	}
	if tool := FormatForTool(partial); strings.Contains(tool, "coderag") || !strings.Contains(tool, "index_project") {
		t.Errorf("tool wording: %q", tool)
	}

	// a mixed index: the index run is worded with the settings that
	// finish the change of embedder
	mixed := &Response{Query: "parse", Results: []Result{}, Incomplete: MixedLead + " 1 of 2 files carry vectors of local:hashing-768-v1",
		Hints: []Hint{{Do: HintIndex, Project: "/p", Env: EmbedderEnv("local:hashing-768-v1")}}}
	b.Reset()
	FormatHuman(&b, mixed, HumanOptions{})
	if !strings.Contains(b.String(), "; run `EMBEDDING_MODEL=hashing-768-v1 coderag index /p`\n") {
		t.Errorf("CLI wording of a mixed index: %q", b.String())
	}
}

// TestNeighbourListIsCapped: the text format lists at most shownNeighbours
// callers or callees of a result and counts the rest.
func TestNeighbourListIsCapped(t *testing.T) {
	var names []string
	for i := range 21 {
		names = append(names, fmt.Sprintf("f%d a.go:%d", i, i+1))
	}
	got := neighbourList(names)
	if !strings.HasSuffix(got, "; … and 13 more (--json lists all)") || strings.Count(got, "a.go:") != shownNeighbours {
		t.Errorf("21 callers: %q", got)
	}
	if got := neighbourList(names[:3]); got != "f0 a.go:1; f1 a.go:2; f2 a.go:3" {
		t.Errorf("3 callers: %q", got)
	}
}

// bestLines quotes a long result's lines that hold the most different
// words of the query, in line order; a short result gets none.
func TestBestLines(t *testing.T) {
	var body []string
	body = append(body, "func convertAndSend(request Request, options Options) {")
	for i := 0; i < 10; i++ {
		body = append(body, "\trequest.header(request)")
	}
	body = append(body, "\tconnection.setConnectTimeout(options.connectTimeoutMillis())")
	body = append(body, "\tconnection.setReadTimeout(options.readTimeoutMillis())")
	for i := 0; i < 5; i++ {
		body = append(body, "\tlog()")
	}
	body = append(body, "}")
	content := strings.Join(body, "\n")
	r := Result{StartLine: 100, EndLine: 100 + len(body) - 1, content: content}
	for i, l := range body {
		for _, w := range []string{"request", "connect", "Connect", "Timeout", "read", "Read"} {
			for off := 0; ; {
				j := strings.Index(l[off:], w)
				if j < 0 {
					break
				}
				r.LineMatches = append(r.LineMatches, LineSpan{Line: 100 + i, Start: off + j, End: off + j + len(w)})
				off += j + len(w)
			}
		}
	}
	got := bestLines(r, 2)
	if !strings.HasPrefix(got, "111 `connection.setConnectTimeout") || !strings.Contains(got, " · 112 `connection.setReadTimeout") {
		t.Errorf("bestLines = %q, want lines 111 and 112", got)
	}
	r.EndLine = r.StartLine + 5
	if got := bestLines(r, 2); got != "" {
		t.Errorf("a short result: %q, want none", got)
	}
}
