package search

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/embedtest"
	"github.com/coderag/coderag/internal/embed/provider"
)

// TestQueryEmbedFails: when the project's embedder (a server) cannot embed
// the query, the search sends the request once, answers with the keyword
// routes' results and says why in the note; a rejected key and a
// cancelled search still fail. With the server well again, the vector
// route is back.
func TestQueryEmbedFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := embedtest.NewOpenAI(t, 8, "k")
	emb, err := provider.New(embed.Options{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	s := indexInto(t, tempStore(t), emb, map[string]string{
		"retry.go": "package net\n\n// Backoff waits longer after each failed attempt to reconnect.\nfunc Backoff(n int) int { return n * n }\n",
		"parse.go": "package net\n\n// ParseHost splits a host and port.\nfunc ParseHost(s string) (string, string) { return s, \"\" }\n",
	})
	const q = "wait longer after a failed attempt to reconnect"
	srv.Inject(embedtest.Reply{Status: 500, Body: embedtest.OpenAIServerError})
	before := srv.Requests()
	resp, err := s.Search(ctx, q, Options{TopK: 5, Explain: true})
	if err != nil {
		t.Fatalf("a server failing the query: %v, want the keyword results", err)
	}
	if n := srv.Requests() - before; n != 1 {
		t.Errorf("%d requests for the query, want 1 (no retry)", n)
	}
	if len(resp.Results) == 0 || resp.Results[0].Path != "retry.go" || !strings.Contains(resp.Note, "the query could not be embedded") ||
		!strings.Contains(resp.Note, "The server had an error") {
		t.Fatalf("results %v, note %q: want retry.go first and the reason", names(resp.Results), resp.Note)
	}
	for _, r := range resp.Results {
		if r.Explain.VectorRank != 0 {
			t.Errorf("%s has a vector rank without a query vector", r.Path)
		}
	}
	srv.Inject(embedtest.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: sk-***123.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`})
	if _, err := s.Search(ctx, q, Options{TopK: 5}); err == nil || !strings.Contains(err.Error(), "Incorrect API key") {
		t.Errorf("a rejected key: %v, want the search to fail with it", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Search(cctx, q, Options{TopK: 5}); err == nil {
		t.Error("a cancelled search answered")
	}
	resp, err = s.Search(ctx, q, Options{TopK: 5, Explain: true})
	if err != nil || len(resp.Results) == 0 || strings.Contains(resp.Note, "could not be embedded") || resp.Results[0].Explain.VectorRank == 0 {
		t.Fatalf("the server well again: %v %q %v", names(resp.Results), resp.Note, err)
	}
}

// TestQueryEmbedTimesOut: an embedding server that takes the query's
// request and never answers holds the search only for the query's own
// bound (Searcher.QueryTimeout, EMBEDDING_QUERY_TIMEOUT), not for the HTTP
// client's two minutes: the search answers with the keyword routes'
// results and a note naming the time-out and how long it waited, after
// one request. A later search given the same Options.Vector reuses that
// outcome and sends nothing.
func TestQueryEmbedTimesOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := embedtest.NewOllama(t, 8)
	emb, err := provider.New(embed.Options{Provider: "ollama", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	s := indexInto(t, tempStore(t), emb, map[string]string{
		"retry.go": "package net\n\n// Backoff waits longer after each failed attempt to reconnect.\nfunc Backoff(n int) int { return n * n }\n",
		"parse.go": "package net\n\n// ParseHost splits a host and port.\nfunc ParseHost(s string) (string, string) { return s, \"\" }\n",
	})
	s.QueryTimeout = 200 * time.Millisecond
	srv.Hang()
	before := srv.Requests()
	const q = "wait longer after a failed attempt to reconnect"
	vec := &QueryVector{}
	resp, err := s.Search(ctx, q, Options{TopK: 5, Explain: true, Vector: vec})
	if err != nil {
		t.Fatalf("a server that never answers: %v, want the keyword results", err)
	}
	if n := srv.Requests() - before; n != 1 {
		t.Errorf("%d requests for the query, want 1", n)
	}
	if len(resp.Results) == 0 || resp.Results[0].Path != "retry.go" {
		t.Fatalf("results %v, want retry.go first from the keyword routes", names(resp.Results))
	}
	for _, r := range resp.Results {
		if r.Explain.VectorRank != 0 {
			t.Errorf("%s has a vector rank without a query vector", r.Path)
		}
	}
	if !errors.Is(resp.Analysis.embedErr, embed.ErrTimeout) {
		t.Errorf("why the query has no vector: %v, want embed.ErrTimeout", resp.Analysis.embedErr)
	}
	for _, want := range []string{"the query could not be embedded", "did not answer in time", "waited 200ms", "EMBEDDING_QUERY_TIMEOUT",
		"keyword matches alone"} {
		if !strings.Contains(resp.Note, want) {
			t.Errorf("note %q lacks %q", resp.Note, want)
		}
	}
	again, err := s.Search(ctx, q, Options{TopK: 5, Vector: vec})
	if err != nil || again.Note != resp.Note || len(again.Results) == 0 || again.Results[0].Path != "retry.go" {
		t.Errorf("the same query again with its QueryVector: %v %q %v", names(again.Results), again.Note, err)
	}
	if n := srv.Requests() - before; n != 1 {
		t.Errorf("%d requests after the second search with the first's QueryVector, want 1", n)
	}
}
