// Package openai embeds through any OpenAI-compatible embeddings endpoint:
// OpenAI, Zhipu GLM (https://open.bigmodel.cn/api/paas/v4), Qwen/DashScope
// (https://dashscope.aliyuncs.com/compatible-mode/v1), vLLM, LM Studio, ...
// (config maps the aliases glm, zhipu and qwen to "openai").
//
// Request: POST EndpointURL(base) with "Authorization: Bearer KEY" (omitted
// when the key is empty, for local servers) and {"model":M,"input":[...]};
// response {"data":[{"index":i,"embedding":[...]},...]}. Vectors are placed
// by each item's index; the count must equal the texts sent and every index
// must be in range and unique.
//
// 429 and 5xx are retried, up to Options.MaxTries attempts in all (default 5),
// waiting Retry-After-Ms / Retry-After (seconds or an HTTP date) when the
// server sends one, else RetryBase (default 1 s) doubling each time, capped at
// 30 s. Other errors surface the server's message, e.g. OpenAI's
// {"error":{"message":"Incorrect API key provided ...","type":...,"code":...}}.
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/httpx"
)

// Defaults.
const (
	Provider       = "openai"
	DefaultBaseURL = "https://api.openai.com/v1"
	DefaultModel   = "text-embedding-3-small"
	DefaultTries   = 5
)

// Options configures New; zero values mean the defaults.
type Options struct {
	BaseURL    string        // default DefaultBaseURL; see EndpointURL
	APIKey     string        // bearer key; "" sends no Authorization header
	Model      string        // default DefaultModel
	BatchSize  int           // texts per request, default embed.DefaultBatchSize
	HTTPClient *http.Client  // default embed.NewHTTPClient()
	MaxTries   int           // attempts per request for 429/5xx, default DefaultTries
	RetryBase  time.Duration // first backoff wait, doubled per retry; default 1 s (tests: 1 ms)
	MaxDelay   time.Duration // cap on one wait, Retry-After included; default 30 s
}

// Client is an OpenAI-compatible embedder; safe for concurrent use.
// embed.Remote gives it ID, Dim, Describe, Embed and EmbedQuery; it adds
// the request.
type Client struct {
	*embed.Remote
	endpoint, model, key string
	shown                string // endpoint with any password masked, for messages
	redact               *httpx.Redactor
	hc                   *http.Client
	retry                embed.Retry
}

var _ embed.Embedder = (*Client)(nil)
var _ embed.Describer = (*Client)(nil)

// New returns a Client; the only error is a base URL that is not http(s).
func New(opts Options) (*Client, error) {
	ep, err := EndpointURL(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	c := &Client{endpoint: ep, model: strings.TrimSpace(opts.Model), key: strings.TrimSpace(opts.APIKey),
		hc: opts.HTTPClient, shown: httpx.URL(ep)}
	c.redact = httpx.NewRedactor(c.key, ep)
	if c.model == "" {
		c.model = DefaultModel
	}
	if c.hc == nil {
		c.hc = embed.NewHTTPClient()
	}
	c.retry = embed.Retry{MaxTries: opts.MaxTries, Base: opts.RetryBase, MaxDelay: opts.MaxDelay, On: retryable}
	if c.retry.MaxTries <= 0 {
		c.retry.MaxTries = DefaultTries
	}
	if c.retry.Base <= 0 {
		c.retry.Base = time.Second
	}
	c.Remote = embed.NewRemote(embed.RemoteConfig{Provider: Provider, Model: c.model, Source: c.shown,
		BatchSize: opts.BatchSize, Redactor: c.redact, Send: c.send})
	return c, nil
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// EndpointURL resolves a base URL to the embeddings endpoint:
//
//   - "" -> DefaultBaseURL + "/embeddings";
//   - a path already ending in "/embeddings" is used as is;
//   - an empty path gets "/v1": "http://h", "http://h/" -> "http://h/v1/embeddings";
//   - any other path gets "/embeddings" as given: "http://h/v1", "http://h/v1/"
//     -> "http://h/v1/embeddings"; ".../api/paas/v4" (Zhipu) ->
//     ".../api/paas/v4/embeddings"; ".../compatible-mode/v1" (Qwen) likewise;
//     a proxy path such as "http://h/openai" -> "http://h/openai/embeddings".
//
// A base without a scheme gets "https://" (or "http://" for localhost and
// 127.0.0.1). Query strings are kept (some gateways carry an api-version).
func EndpointURL(base string) (string, error) {
	base = strings.TrimSpace(base)
	if base == "" {
		base = DefaultBaseURL
	}
	if !strings.Contains(base, "://") {
		if strings.HasPrefix(base, "localhost") || strings.HasPrefix(base, "127.0.0.1") {
			base = "http://" + base
		} else {
			base = "https://" + base
		}
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("openai base URL %q: want http(s)://host[/v1]", base)
	}
	p := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/embeddings"):
	case p == "":
		p = "/v1/embeddings"
	default:
		p += "/embeddings"
	}
	u.Path, u.RawPath, u.Fragment = p, "", ""
	return u.String(), nil
}

// Endpoint returns the resolved embeddings URL, with the password of a
// user:password in it masked (url.URL.Redacted).
func (c *Client) Endpoint() string { return c.shown }

// The errors of Embed and EmbedQuery (embed.Remote; no prefix) are
// embed.ErrUnreachable, embed.ErrHTTP carrying the status and the
// server's message (after retries for 429/5xx), embed.ErrModelNotFound
// (OpenAI's code "model_not_found"), embed.ErrCountMismatch (wrong count,
// index out of range or repeated), embed.ErrBadVector,
// embed.ErrDimMismatch, or the context's error. No error holds the API key
// or the base URL's password, even when the server echoes them.

func (c *Client) send(ctx context.Context, texts []string) ([][]float32, error) {
	var h http.Header
	if c.key != "" {
		h = http.Header{"Authorization": {"Bearer " + c.key}}
	}
	resp, err := embed.PostJSON(ctx, c.hc, c.endpoint, h, map[string]any{"model": c.model, "input": texts}, c.retry)
	if errors.Is(err, embed.ErrUnreachable) {
		return nil, fmt.Errorf("embeddings server not reachable at %s: check EMBEDDING_BASE_URL (%w)", c.shown, err)
	}
	if err != nil {
		return nil, err
	}
	if resp.Status != http.StatusOK {
		return nil, c.httpError(resp)
	}
	var out struct {
		Data []struct {
			Index     *int      `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := embed.DecodeJSON(resp.Body, &out); err != nil {
		return nil, fmt.Errorf("openai %s: %w", c.shown, err)
	}
	if len(out.Data) != len(texts) {
		return nil, fmt.Errorf("openai %s: %w: sent %d texts, got %d vectors", c.shown, embed.ErrCountMismatch, len(texts), len(out.Data))
	}
	vecs := make([][]float32, len(texts))
	for k, d := range out.Data {
		i := k // servers that omit index answer in order
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= len(texts) {
			return nil, fmt.Errorf("openai %s: %w: index %d out of range 0..%d", c.shown, embed.ErrCountMismatch, i, len(texts)-1)
		}
		if vecs[i] != nil {
			return nil, fmt.Errorf("openai %s: %w: index %d repeated", c.shown, embed.ErrCountMismatch, i)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("openai %s: item %d: %w: empty embedding", c.shown, i, embed.ErrBadVector)
		}
		vecs[i] = d.Embedding
	}
	return vecs, nil
}

func (c *Client) httpError(resp *embed.Response) error {
	msg := c.redact.Redact(embed.ServerMessage(resp.Body)) // a server may echo the key
	if msg == "" {
		msg = http.StatusText(resp.Status)
	}
	tries := ""
	if resp.Tries > 1 {
		tries = fmt.Sprintf(" after %d tries", resp.Tries)
	}
	if strings.Contains(msg, "model_not_found") {
		return fmt.Errorf("%w: openai %s: HTTP %d: %s (check EMBEDDING_MODEL=%s)", embed.ErrModelNotFound, c.shown, resp.Status, msg, c.model)
	}
	hint := ""
	switch resp.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		hint = " (check EMBEDDING_API_KEY)"
	case http.StatusNotFound:
		hint = " (check EMBEDDING_BASE_URL)"
	}
	return embed.NewStatusError(resp.Status, "openai %s: HTTP %d%s: %s%s", c.shown, resp.Status, tries, msg, hint)
}
