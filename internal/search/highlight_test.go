package search

import (
	"context"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
)

// marked renders text with each span wrapped in [ ].
func marked(text string, spans []Span) string {
	var b strings.Builder
	at := 0
	for _, s := range spans {
		b.WriteString(text[at:s.Start] + "[" + text[s.Start:s.End] + "]")
		at = s.End
	}
	return b.String() + text[at:]
}

// TestHighlightSpans: the words a query's terms match, as the keyword
// route analyses them: sub-words of identifiers by their stems, a whole
// identifier named by the query, Han pairs, and with case:yes the words
// exactly as written.
func TestHighlightSpans(t *testing.T) {
	t.Parallel()
	tests := []struct{ query, text, want string }{
		{"record the response headers", "func (rw *ResponseRecorder) writeHeader(b []byte) { // records headers",
			"func (rw *[ResponseRecorder]) write[Header](b []byte) { // [records] [headers]"},
		{"where is writeHeader called", "rw.writeHeader(nil); rw.write(b); header := 1",
			"rw.[writeHeader](nil); rw.[write](b); [header] := 1"},
		{"retry_count", "RetryCount retry_count retry", "[RetryCount] [retry_count] [retry]"},
		{"上下文压缩", "// 压缩上下文: compact", "// [压缩上下文]: [compact]"}, // the glossary's English for 压缩,
		{"case:yes Header", "header Header headers", "header [Header] headers"},
		{"lang:go the", "the cat", "the cat"},
	}
	for _, tc := range tests {
		words, filter, err := ParseQuery(tc.query)
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		q := AnalyzeQuery(nil, words, DefaultHybridParams().QueryOptions)
		q.Filter = filter
		if got := marked(tc.text, newHighlighter(q).spans(tc.text)); got != tc.want {
			t.Errorf("%q over %q:\n got %s\nwant %s", tc.query, tc.text, got, tc.want)
		}
	}
}

// TestSearchMatches: a search fills each result's preview_matches and
// line_matches, offsets that cut the query's words out of the preview and
// out of the file's lines.
func TestSearchMatches(t *testing.T) {
	t.Parallel()
	st, emb := testStore(t)
	s := indexInto(t, st, emb, map[string]string{
		"timeout.go": "package net\n\n// LoginTimeout is how long a login may take.\nfunc LoginTimeout() int {\n\treturn 30 // seconds of login timeout\n}\n",
	})
	resp, err := s.Search(context.Background(), "login timeout", Options{TopK: 3})
	if err != nil || len(resp.Results) == 0 {
		t.Fatalf("%v %+v", err, resp)
	}
	r := resp.Results[0]
	if len(r.PreviewMatches) == 0 {
		t.Fatalf("no preview matches in %q", r.Preview)
	}
	for _, m := range r.PreviewMatches {
		if w := strings.ToLower(r.Preview[m.Start:m.End]); !strings.Contains(w, "login") && !strings.Contains(w, "timeout") {
			t.Errorf("preview match %q is not a query word", r.Preview[m.Start:m.End])
		}
	}
	lines := strings.Split(r.Content(), "\n")
	seen := map[int]bool{}
	for _, m := range r.LineMatches {
		line := lines[m.Line-r.StartLine]
		if w := strings.ToLower(line[m.Start:m.End]); !strings.Contains(w, "login") && !strings.Contains(w, "timeout") {
			t.Errorf("line %d match %q is not a query word", m.Line, line[m.Start:m.End])
		}
		seen[m.Line] = true
	}
	if !seen[r.EndLine-1] { // "return 30 // seconds of login timeout"
		t.Errorf("line %d not matched: %+v", r.EndLine-1, r.LineMatches)
	}
}

// TestAbsentIdentifierNote: a query naming an identifier that occurs
// nowhere says so; one that exists, whole or inside a longer name, does
// not; a plain word gets the old weak-result note only.
func TestAbsentIdentifierNote(t *testing.T) {
	t.Parallel()
	st, emb := testStore(t)
	s := indexInto(t, st, emb, map[string]string{
		"bridge.go": "package cfg\n\n// ConfigBridge links the config to the server.\nfunc ConfigBridge() {}\n\nfunc loadServerConfigBridgeOptions() {}\n",
	})
	ctx := context.Background()
	want := "no identifier `zorblaxConfigBridge` in the code; results match its parts"
	resp, err := s.Search(ctx, "where is zorblaxConfigBridge set up", Options{})
	if err != nil || !strings.Contains(resp.Note, want) {
		t.Fatalf("absent identifier: note %q, %v", resp.Note, err)
	}
	// for a tool: the note, then the summary (the results match its parts)
	if text := FormatForTool(resp); !strings.Contains(text, "Note: "+want) || !strings.Contains(text, "Best entry point: ConfigBridge") {
		t.Errorf("tool format:\n%s", text)
	}
	for _, q := range []string{"where is ConfigBridge set up", "ServerConfigBridge", "config bridge"} {
		if resp, err := s.Search(ctx, q, Options{}); err != nil || strings.Contains(resp.Note, "no identifier") {
			t.Errorf("%q: note %q, %v", q, resp.Note, err)
		}
	}
}

// TestAbsentIdentifierNoteAgrees: when no result holds a word of the
// query, the note on an absent identifier does not say the results match
// its parts (they said both "no word of the query occurs" and "results
// match its parts"): with no word anywhere the vector-only note alone, with
// the words in a chunk ranked below the results that note and the absent
// identifier without its parts.
func TestAbsentIdentifierNoteAgrees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, emb := testStore(t)
	s := indexInto(t, st, emb, map[string]string{
		"server.go": "package server\n\n// Serve accepts connections and handles requests.\nfunc Serve(addr string) error { return nil }\n\n// Close shuts the listener down.\nfunc Close() error { return nil }\n",
	})
	resp, err := s.Search(ctx, "zebraStripeCounter", Options{TopK: 2})
	if err != nil || resp.Note != NoKeywordNote {
		t.Errorf("no word anywhere: note %q, %v; want %q", resp.Note, err, NoKeywordNote)
	}
	// the learned model, as the command line: the test ranks below Serve
	st, _ = testStore(t)
	emb, err = provider.New(embed.Options{Provider: "local"})
	if err != nil {
		t.Fatal(err)
	}
	s = indexInto(t, st, emb, map[string]string{
		"server.go":      "package server\n\n// Serve accepts connections and handles requests.\nfunc Serve(addr string) error { return nil }\n\n// Close shuts the listener down.\nfunc Close() error { return nil }\n",
		"server_test.go": "package server\n\nimport \"testing\"\n\n// TestZebra checks the zebra stripe counter.\nfunc TestZebra(t *testing.T) {\n\tzebra, stripe, counter := 1, 2, 3\n\t_ = zebra + stripe + counter\n}\n",
	})
	resp, err = s.Search(ctx, "zebraStripeCounter", Options{TopK: 1})
	if err != nil || !strings.HasPrefix(resp.Note, lowerKeywordLead) {
		t.Fatalf("words in a test only: note %q, %v; want the lower-keyword note (the fixture no longer gives it): %+v", resp.Note, err, resp.Results)
	}
	if !strings.Contains(resp.Note, "no identifier `zebraStripeCounter` in the code") || strings.Contains(resp.Note, "results match its parts") {
		t.Errorf("words in a test only: note %q", resp.Note)
	}
	// the parts in a result: they are said
	resp, err = s.Search(ctx, "zebraStripeCounter", Options{TopK: 2})
	if err != nil || resp.Note != "no identifier `zebraStripeCounter` in the code; results match its parts" {
		t.Errorf("parts in a result: note %q, %v", resp.Note, err)
	}
}
