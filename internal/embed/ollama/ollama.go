// Package ollama embeds through a local Ollama server
// (https://github.com/ollama/ollama/blob/main/docs/api.md).
//
// Requests: POST {base}/api/embed {"model":M,"input":[...]} ->
// {"embeddings":[[...],...]}, EMBEDDING_BATCH_SIZE texts per request. Servers
// older than /api/embed (Ollama < 0.3.4) answer it with the Go mux's plain
// "404 page not found"; the Client then switches, for good, to the legacy
// POST {base}/api/embeddings {"model":M,"prompt":"..."} -> {"embedding":[...]},
// one text per request. A 404 whose JSON error says the model is not found
// ({"error":"model \"nomic-embed-text\" not found, try pulling it first"}) is
// never a fallback: it is embed.ErrModelNotFound telling the user to run
// `ollama pull MODEL`. 429 and 503 (server busy) are retried with backoff.
//
// Task prefixes: retrieval models trained with instructions embed much better
// with them, and Ollama does not add them. Prefixes(model) knows these
// families (matched on the model name without namespace and tag):
//
//	nomic-embed-text*        docs "search_document: "   queries "search_query: "
//	mxbai-embed-large*       queries "Represent this sentence for searching relevant passages: "
//	snowflake-arctic-embed   queries as mxbai (v1);  snowflake-arctic-embed2: queries "query: "
//	bge-large*               queries as mxbai (BGE v1.5 English)
//	*e5-* (multilingual-e5)  docs "passage: "  queries "query: "
//	embeddinggemma*          docs "title: none | text: "  queries "task: search result | query: "
//	qwen3-embedding*         queries "Instruct: Given a code search query, retrieve relevant code snippets that answer the query\nQuery: "
//
// Others (all-minilm, bge-m3, ...) get no prefix. Prefixes count toward the
// 2000-rune input limit.
package ollama

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/httpx"
)

// Defaults.
const (
	Provider       = "ollama"
	DefaultBaseURL = "http://localhost:11434"
	DefaultModel   = "nomic-embed-text"
)

// Options configures New; zero values mean the defaults.
type Options struct {
	BaseURL    string       // default DefaultBaseURL; a trailing "/" or "/api" is dropped
	Model      string       // default DefaultModel
	BatchSize  int          // texts per /api/embed request, default embed.DefaultBatchSize
	HTTPClient *http.Client // default embed.NewHTTPClient()
	// RetryBase is the first backoff wait for 429/503, default 500 ms (tests
	// set it to a millisecond).
	RetryBase time.Duration
}

// Client is an Ollama embedder; safe for concurrent use. embed.Remote
// gives it ID, Dim, Describe, Embed and EmbedQuery; it adds the requests.
type Client struct {
	*embed.Remote
	base, model string
	shown       string // base with any password masked, for messages
	redact      *httpx.Redactor
	hc          *http.Client
	retry       embed.Retry
	legacy      atomic.Bool // /api/embed is missing: use /api/embeddings
}

var _ embed.Embedder = (*Client)(nil)
var _ embed.Describer = (*Client)(nil)

// New returns a Client. The only error is a base URL that is not an
// http(s) URL ("localhost:11434" is accepted as http://localhost:11434).
func New(opts Options) (*Client, error) {
	base, err := normalizeBase(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	c := &Client{
		base:  base,
		model: cmp(opts.Model, DefaultModel),
		hc:    opts.HTTPClient,
	}
	if c.hc == nil {
		c.hc = embed.NewHTTPClient()
	}
	c.shown, c.redact = httpx.URL(base), httpx.NewRedactor(base)
	rb := opts.RetryBase
	if rb <= 0 {
		rb = 500 * time.Millisecond
	}
	c.retry = embed.Retry{MaxTries: 4, Base: rb, On: func(s int) bool {
		return s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable
	}}
	doc, query := Prefixes(c.model)
	c.Remote = embed.NewRemote(embed.RemoteConfig{Provider: Provider, Model: c.model, Source: "Ollama at " + c.shown,
		BatchSize: opts.BatchSize, DocPrefix: doc, QueryPrefix: query, Redactor: c.redact, Send: c.send})
	return c, nil
}

func cmp(s, def string) string {
	if s = strings.TrimSpace(s); s != "" {
		return s
	}
	return def
}

func normalizeBase(s string) (string, error) {
	s = cmp(s, DefaultBaseURL)
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("ollama base URL %q: want http://host:port", s)
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/api")
	u.RawQuery, u.Fragment = "", ""
	return strings.TrimRight(u.String(), "/"), nil
}

// Prefixes returns the document and query prefixes for a model (see the
// package doc), matched on the name without "namespace/" and ":tag".
func Prefixes(model string) (doc, query string) {
	name := strings.ToLower(model)
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	name, _, _ = strings.Cut(name, ":")
	const represent = "Represent this sentence for searching relevant passages: "
	switch {
	case strings.HasPrefix(name, "nomic-embed-text"):
		return "search_document: ", "search_query: "
	case strings.HasPrefix(name, "mxbai-embed-large"), strings.HasPrefix(name, "bge-large"):
		return "", represent
	case strings.HasPrefix(name, "snowflake-arctic-embed2"):
		return "", "query: "
	case strings.HasPrefix(name, "snowflake-arctic-embed"):
		return "", represent
	case strings.HasPrefix(name, "embeddinggemma"):
		return "title: none | text: ", "task: search result | query: "
	case strings.HasPrefix(name, "qwen3-embedding"):
		return "", "Instruct: Given a code search query, retrieve relevant code snippets that answer the query\nQuery: "
	case strings.HasPrefix(name, "e5-") || strings.Contains(name, "-e5-"):
		return "passage: ", "query: "
	}
	return "", ""
}

// Legacy reports whether the client has fallen back to /api/embeddings.
func (c *Client) Legacy() bool { return c.legacy.Load() }

// The errors of Embed and EmbedQuery (embed.Remote) are
// embed.ErrUnreachable ("ollama not reachable at URL: is `ollama serve`
// running?"), embed.ErrModelNotFound (run `ollama pull MODEL`),
// embed.ErrHTTP with the server's message, embed.ErrCountMismatch,
// embed.ErrBadVector, embed.ErrDimMismatch, or the context's error. No
// error holds the password of a user:password in the base URL.

func (c *Client) send(ctx context.Context, texts []string) ([][]float32, error) {
	if c.legacy.Load() {
		return c.sendLegacy(ctx, texts)
	}
	resp, err := c.post(ctx, "/api/embed", map[string]any{"model": c.model, "input": texts})
	if err != nil {
		return nil, err
	}
	switch {
	case resp.Status == http.StatusOK:
		var out struct {
			Embeddings [][]float32 `json:"embeddings"`
		}
		if err := embed.DecodeJSON(resp.Body, &out); err != nil {
			return nil, fmt.Errorf("ollama /api/embed: %w", err)
		}
		return out.Embeddings, nil
	case resp.Status == http.StatusNotFound && isMuxNotFound(resp.Body):
		c.legacy.Store(true)
		return c.sendLegacy(ctx, texts)
	}
	return nil, c.httpError("/api/embed", resp)
}

func (c *Client) sendLegacy(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		resp, err := c.post(ctx, "/api/embeddings", map[string]any{"model": c.model, "prompt": t})
		if err != nil {
			return nil, err
		}
		if resp.Status == http.StatusNotFound && isMuxNotFound(resp.Body) {
			return nil, embed.NewStatusError(resp.Status, "no Ollama API at %s (404 on /api/embed and /api/embeddings): check EMBEDDING_BASE_URL",
				c.shown)
		}
		if resp.Status != http.StatusOK {
			return nil, c.httpError("/api/embeddings", resp)
		}
		var one struct {
			Embedding []float32 `json:"embedding"`
		}
		if err := embed.DecodeJSON(resp.Body, &one); err != nil {
			return nil, fmt.Errorf("ollama /api/embeddings: %w", err)
		}
		if len(one.Embedding) == 0 {
			return nil, fmt.Errorf("ollama /api/embeddings: %w: empty embedding for a non-empty text", embed.ErrCountMismatch)
		}
		out[i] = one.Embedding
	}
	return out, nil
}

func (c *Client) post(ctx context.Context, path string, body any) (*embed.Response, error) {
	resp, err := embed.PostJSON(ctx, c.hc, c.base+path, nil, body, c.retry)
	if errors.Is(err, embed.ErrUnreachable) {
		return nil, fmt.Errorf("ollama not reachable at %s: is `ollama serve` running? (%w)", c.shown, err)
	}
	return resp, err
}

func (c *Client) httpError(path string, resp *embed.Response) error {
	msg := c.redact.Redact(embed.ServerMessage(resp.Body)) // a proxy may echo credentials
	if resp.Status == http.StatusNotFound {
		l := strings.ToLower(msg)
		if strings.Contains(l, "not found") && !strings.Contains(l, "page not found") && !strings.Contains(l, "html") {
			return fmt.Errorf("%w: ollama at %s: %s: run `ollama pull %s`", embed.ErrModelNotFound, c.shown, msg, c.model)
		}
		return embed.NewStatusError(resp.Status, "ollama %s%s: HTTP 404: %s (is EMBEDDING_BASE_URL an Ollama server?)", c.shown, path, msg)
	}
	if msg == "" {
		msg = http.StatusText(resp.Status)
	}
	return embed.NewStatusError(resp.Status, "ollama %s%s: HTTP %d: %s", c.shown, path, resp.Status, msg)
}

// isMuxNotFound reports the plain "404 page not found" of a Go HTTP mux
// (Ollama's router), as opposed to a JSON error or a web server's HTML page.
func isMuxNotFound(body []byte) bool {
	return strings.TrimSpace(string(body)) == "404 page not found"
}
