package ollama

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/embedtest"
	"github.com/coderag/coderag/internal/vec"
)

var ctx = context.Background()

func client(t *testing.T, base string, model string) *Client {
	t.Helper()
	c, err := New(Options{BaseURL: base, Model: model, RetryBase: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEmbedExact(t *testing.T) {
	srv := embedtest.NewOllama(t, 8)
	c := client(t, srv.URL, "")
	vs, err := c.Embed(ctx, []string{"alpha", "", "beta"})
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range map[int]string{0: "alpha", 2: "beta"} {
		want := vec.Normalize(embedtest.Vector("search_document: "+text, 8))
		if !slices.Equal(vs[i], want) {
			t.Errorf("slot %d = %v, want %v", i, vs[i], want)
		}
	}
	q, err := c.EmbedQuery(ctx, "where is alpha")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q, vec.Normalize(embedtest.Vector("search_query: where is alpha", 8))) {
		t.Error("query vector not the prefixed query's")
	}
	if got := srv.Texts(); !slices.Equal(got, []string{"search_document: alpha", "search_document: beta", "search_query: where is alpha"}) {
		t.Errorf("server saw %q", got)
	}
	if c.Dim() != 8 || c.ID() != "ollama:nomic-embed-text" || !strings.Contains(c.Describe(), "8-d") {
		t.Errorf("Dim %d ID %q Describe %q", c.Dim(), c.ID(), c.Describe())
	}
}

func TestLegacyFallbackForGood(t *testing.T) {
	srv := embedtest.NewOllama(t, 8)
	srv.Legacy = true
	c := client(t, srv.URL, "")
	vs, err := c.Embed(ctx, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(vs[1], vec.Normalize(embedtest.Vector("search_document: b", 8))) {
		t.Error("legacy vectors out of order")
	}
	if !c.Legacy() || srv.RequestsTo("/api/embed") != 1 || srv.RequestsTo("/api/embeddings") != 3 {
		t.Fatalf("legacy %v, /api/embed %d, /api/embeddings %d", c.Legacy(), srv.RequestsTo("/api/embed"), srv.RequestsTo("/api/embeddings"))
	}
	if _, err := c.Embed(ctx, []string{"d", "e"}); err != nil {
		t.Fatal(err)
	}
	if srv.RequestsTo("/api/embed") != 1 || srv.RequestsTo("/api/embeddings") != 5 {
		t.Errorf("second call probed /api/embed again: %d, %d", srv.RequestsTo("/api/embed"), srv.RequestsTo("/api/embeddings"))
	}
}

func TestModelNotFound(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		srv := embedtest.NewOllama(t, 8, "all-minilm")
		srv.Legacy = legacy
		c := client(t, srv.URL, "nomic-embed-text")
		_, err := c.Embed(ctx, []string{"x"})
		if !errors.Is(err, embed.ErrModelNotFound) || !strings.Contains(err.Error(), "run `ollama pull nomic-embed-text`") {
			t.Errorf("legacy=%v: %v, want ErrModelNotFound telling to pull", legacy, err)
		}
		if !legacy && (c.Legacy() || srv.RequestsTo("/api/embeddings") != 0) {
			t.Error("model not found caused a fallback")
		}
	}
}

func TestWrongBaseURL(t *testing.T) {
	// A web server's HTML 404: an error, not a fallback.
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(404)
		w.Write([]byte(embedtest.HTMLNotFound))
	}))
	defer html.Close()
	c := client(t, html.URL, "")
	if _, err := c.Embed(ctx, []string{"x"}); !errors.Is(err, embed.ErrHTTP) || !strings.Contains(err.Error(), "HTML page") || c.Legacy() {
		t.Errorf("HTML 404: %v (legacy %v)", err, c.Legacy())
	}
	// A Go server without either endpoint.
	mux := httptest.NewServer(http.NotFoundHandler())
	defer mux.Close()
	if _, err := client(t, mux.URL, "").Embed(ctx, []string{"x"}); !errors.Is(err, embed.ErrHTTP) || !strings.Contains(err.Error(), "no Ollama API") {
		t.Errorf("no API at all: %v", err)
	}
	// Nothing listening.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	_, err := client(t, "http://"+addr, "").Embed(ctx, []string{"x"})
	if !errors.Is(err, embed.ErrUnreachable) || !strings.Contains(err.Error(), "ollama not reachable at http://"+addr+": is `ollama serve` running?") {
		t.Errorf("connection refused: %v", err)
	}
}

func TestBadResponses(t *testing.T) {
	srv := embedtest.NewOllama(t, 8)
	c := client(t, srv.URL, "")
	for _, tc := range []struct {
		name string
		rep  embedtest.Reply
		want error
	}{
		{"NaN", embedtest.Reply{Status: 200, Body: `{"embeddings":[[0.1,NaN]]}`}, embed.ErrBadVector},
		{"200 HTML page", embedtest.Reply{Status: 200, Body: embedtest.HTMLNotFound}, nil},
		{"200 without embeddings", embedtest.Reply{Status: 200, Body: `{}`}, embed.ErrCountMismatch},
		{"zero vectors", embedtest.Reply{Status: 200, Body: `{"model":"nomic-embed-text","embeddings":[]}`}, embed.ErrCountMismatch},
		{"not an embedding model", embedtest.Reply{Status: 400, Body: `{"error":"\"llama3\" does not support embeddings"}`}, embed.ErrHTTP},
	} {
		srv.Inject(tc.rep)
		_, err := c.Embed(ctx, []string{"x"})
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	srv.Inject(embedtest.Reply{Status: 400, Body: `{"error":"\"llama3\" does not support embeddings"}`})
	if _, err := c.Embed(ctx, []string{"x"}); err == nil || !strings.Contains(err.Error(), `"llama3" does not support embeddings`) {
		t.Errorf("server message lost: %v", err)
	}
	// Busy server: 503 then success.
	srv.Inject(embedtest.Reply{Status: 503, Body: `{"error":"server busy, please try again.  maximum pending requests exceeded"}`})
	if _, err := c.Embed(ctx, []string{"x"}); err != nil {
		t.Errorf("503 not retried: %v", err)
	}
	// The model changes dimension behind the same name.
	if _, err := c.Embed(ctx, []string{"y"}); err != nil {
		t.Fatal(err)
	}
	srv.SetDim(12)
	if _, err := c.Embed(ctx, []string{"z"}); !errors.Is(err, embed.ErrDimMismatch) {
		t.Errorf("dimension change: %v", err)
	}
}

func TestPrefixes(t *testing.T) {
	for model, want := range map[string][2]string{
		"nomic-embed-text":                         {"search_document: ", "search_query: "},
		"nomic-embed-text:v1.5":                    {"search_document: ", "search_query: "},
		"library/nomic-embed-text:latest":          {"search_document: ", "search_query: "},
		"mxbai-embed-large":                        {"", "Represent this sentence for searching relevant passages: "},
		"snowflake-arctic-embed:335m":              {"", "Represent this sentence for searching relevant passages: "},
		"snowflake-arctic-embed2":                  {"", "query: "},
		"jeffh/intfloat-multilingual-e5-large:f16": {"passage: ", "query: "},
		"embeddinggemma":                           {"title: none | text: ", "task: search result | query: "},
		"all-minilm":                               {"", ""},
		"bge-m3":                                   {"", ""},
	} {
		d, q := Prefixes(model)
		if d != want[0] || q != want[1] {
			t.Errorf("Prefixes(%q) = %q, %q", model, d, q)
		}
	}
}

func TestBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                            "http://localhost:11434",
		"localhost:11434":             "http://localhost:11434",
		"http://gpu:11434/":           "http://gpu:11434",
		"http://gpu:11434/api":        "http://gpu:11434",
		"https://ollama.example.com/": "https://ollama.example.com",
	} {
		if got, err := normalizeBase(in); got != want || err != nil {
			t.Errorf("normalizeBase(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := New(Options{BaseURL: "ftp://x"}); err == nil {
		t.Error("ftp base accepted")
	}
}

// A password in the base URL (an Ollama behind a proxy with basic auth)
// is never printed.
func TestBaseURLPasswordNotInErrors(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	c := client(t, "http://user:pa55-w0rd-x@"+addr, "")
	_, err := c.Embed(ctx, []string{"x"})
	if !errors.Is(err, embed.ErrUnreachable) || strings.Contains(err.Error(), "pa55-w0rd-x") {
		t.Errorf("unreachable: %v", err)
	}
	srv := embedtest.NewOllama(t, 8) // serves no "missing-model"
	c2, err := New(Options{BaseURL: strings.Replace(srv.URL, "http://", "http://user:pa55-w0rd-x@", 1), Model: "missing-model"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c2.Embed(ctx, []string{"x"})
	if !errors.Is(err, embed.ErrModelNotFound) || strings.Contains(err.Error(), "pa55-w0rd-x") || strings.Contains(c2.Describe(), "pa55-w0rd-x") {
		t.Errorf("model not found: %v / %s", err, c2.Describe())
	}
}
