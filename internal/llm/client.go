package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coderag/coderag/internal/httpx"
)

// Defaults of a Client.
const (
	DefaultTimeout       = 3 * time.Minute // one attempt, headers and body
	DefaultMaxRetries    = 3               // retries after the first attempt
	DefaultRetryBase     = time.Second     // first backoff; doubles per retry
	DefaultMaxRetryDelay = 30 * time.Second
)

// Sentinel errors; test them with errors.Is.
var (
	// ErrNotConfigured: no base URL or no model.
	ErrNotConfigured = errors.New("no chat model configured: set LLM_BASE_URL, LLM_MODEL (and LLM_API_KEY)")
	// ErrToolsUnsupported: the server refused the request because the model
	// cannot call tools.
	ErrToolsUnsupported = errors.New("model does not support tool calling")
	// ErrUnreachable: the server could not be contacted at all.
	ErrUnreachable = errors.New("chat server unreachable")
)

// APIError is a non-2xx answer. Message is the server's own message (the
// OpenAI shape {"error":{"message":...}}, or the body's text).
type APIError struct {
	StatusCode int
	Message    string
	Type       string
	Code       string
	RetryAfter time.Duration // Retry-After-Ms / Retry-After, clamped to 60 s (httpx.RetryAfter); -1 when absent
	header     http.Header   // of the response, for httpx.Backoff
}

// Error returns "HTTP <status>: <server message>".
func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	return fmt.Sprintf("HTTP %d: %s", e.StatusCode, msg)
}

// Config configures a Client. Zero durations and counts take the defaults;
// MaxRetries < 0 disables retries.
type Config struct {
	BaseURL       string // e.g. https://api.openai.com/v1, http://localhost:11434
	APIKey        string // sent as a bearer token when set
	Model         string
	Timeout       time.Duration // per attempt
	MaxRetries    int
	RetryBase     time.Duration // first backoff delay
	MaxRetryDelay time.Duration // cap on any one delay, Retry-After included
	HTTPClient    *http.Client  // nil: a client without its own timeout
}

// Client calls one chat-completions endpoint. It is safe for concurrent use.
type Client struct {
	endpoint string
	shown    string // endpoint with any password masked, for messages
	redact   *httpx.Redactor
	cfg      Config
	hc       *http.Client
}

// New returns a client for cfg. It fails with ErrNotConfigured when BaseURL
// or Model is empty, and on a malformed BaseURL.
func New(cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" || strings.TrimSpace(cfg.Model) == "" {
		return nil, ErrNotConfigured
	}
	ep, err := Endpoint(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = DefaultRetryBase
	}
	if cfg.MaxRetryDelay <= 0 {
		cfg.MaxRetryDelay = DefaultMaxRetryDelay
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{CheckRedirect: refuseRedirect}
	}
	return &Client{endpoint: ep, shown: httpx.URL(ep), redact: httpx.NewRedactor(cfg.APIKey, cfg.BaseURL, ep), cfg: cfg, hc: hc}, nil
}

// Model returns the configured model name.
func (c *Client) Model() string { return c.cfg.Model }

// Endpoint returns the URL requests are posted to, with the password of a
// user:password in it masked (url.URL.Redacted).
func (c *Client) Endpoint() string { return c.shown }

// Endpoint maps a base URL to its chat-completions URL: a base with an empty
// path gets /v1 ("http://h" -> "http://h/v1/chat/completions"); any other
// path is used as is ("http://h/v1/", "https://open.bigmodel.cn/api/paas/v4");
// a base that already ends in /chat/completions is returned unchanged.
func Endpoint(base string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return "", fmt.Errorf("chat base URL %q: %w", base, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("chat base URL %q: want http(s)://host[/path]", base)
	}
	p := strings.TrimRight(u.Path, "/")
	switch {
	case p == "":
		p = "/v1/chat/completions"
	case strings.HasSuffix(p, "/chat/completions"):
	default:
		p += "/chat/completions"
	}
	u.Path, u.RawPath = p, ""
	return u.String(), nil
}

// Chat sends req and returns the completion. With req.Stream the answer is
// read as server-sent events, onDelta (if not nil) is called with each piece
// of content as it arrives, and the pieces (and tool-call fragments) are
// assembled into the same Response a non-streamed request returns.
//
// 429, 5xx and dropped connections are retried up to MaxRetries times. Errors:
// ErrUnreachable (connection refused, unknown host), ErrToolsUnsupported,
// *APIError, the context's error, or a timeout. No error message holds the
// API key or the base URL's password, even when the server echoes them.
func (c *Client) Chat(ctx context.Context, req Request, onDelta func(string)) (*Response, error) {
	resp, err := c.chat(ctx, req, onDelta)
	var apiErr *APIError
	if errors.As(err, &apiErr) { // callers may print the server's message alone
		apiErr.Message = c.redact.Redact(apiErr.Message)
	}
	return resp, c.redact.Error(err)
}

func (c *Client) chat(ctx context.Context, req Request, onDelta func(string)) (*Response, error) {
	if req.Model == "" {
		req.Model = c.cfg.Model
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode chat request: %w", err)
	}
	for attempt := 0; ; attempt++ {
		resp, err := c.once(ctx, body, req.Stream, onDelta)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("chat: %w", ctx.Err())
		}
		delay, retry := c.retryDelay(err, attempt)
		if !retry || attempt >= c.cfg.MaxRetries {
			return nil, c.explain(err, len(req.Tools) > 0)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("chat: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// errRetryable marks a transport failure worth another attempt.
type errRetryable struct{ err error }

func (e errRetryable) Error() string { return e.err.Error() }
func (e errRetryable) Unwrap() error { return e.err }

// once makes one attempt.
func (c *Client) once(ctx context.Context, body []byte, stream bool, onDelta func(string)) (*Response, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, errAttemptTimeout)
	defer cancel()
	var h http.Header
	if c.cfg.APIKey != "" {
		h = http.Header{"Authorization": {"Bearer " + c.cfg.APIKey}}
	}
	accept := "application/json"
	if stream {
		accept = "text/event-stream"
	}
	hresp, err := httpx.Post(ctx, c.hc, c.endpoint, h, body, accept)
	if err != nil {
		return nil, c.transportError(ctx, err)
	}
	defer hresp.Body.Close()
	if hresp.StatusCode/100 != 2 {
		return nil, readAPIError(hresp)
	}
	var out *Response
	if stream && strings.HasPrefix(hresp.Header.Get("Content-Type"), "text/event-stream") {
		emitted := false
		out, err = readStream(hresp.Body, func(s string) {
			emitted = true
			if onDelta != nil {
				onDelta(s)
			}
		})
		if err != nil && emitted {
			// Part of the answer was shown: a retry would show it twice.
			return nil, fmt.Errorf("chat stream from %s broke off: %w", c.shown, err)
		}
	} else {
		out, err = readJSON(hresp.Body)
		if err == nil && stream && onDelta != nil {
			onDelta(out.Message().Content) // the server ignored stream: true
		}
	}
	if err != nil {
		return nil, c.transportError(ctx, err)
	}
	return out, nil
}

var errAttemptTimeout = errors.New("attempt timed out")

// transportError classifies an error of Do or of reading the body.
func (c *Client) transportError(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errAttemptTimeout) {
		return fmt.Errorf("chat request to %s timed out after %s", c.shown, c.cfg.Timeout)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) { // an error event inside a stream
		return err
	}
	if httpx.Unreachable(err) {
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err // the URL is in the message already
		}
		return fmt.Errorf("%w at %s (is it running? check LLM_BASE_URL): %w", ErrUnreachable, c.shown, err)
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) || errors.Is(err, errBadBody) {
		return err
	}
	return errRetryable{fmt.Errorf("chat request to %s: %w", c.shown, err)}
}

// retryDelay says whether err is transient and how long to wait before
// attempt+1: Retry-After-Ms or Retry-After when the server sent it, else
// RetryBase * 2^attempt with up to 20% jitter, capped at MaxRetryDelay
// (httpx.Backoff, as the embedding clients wait).
func (c *Client) retryDelay(err error, attempt int) (time.Duration, bool) {
	var apiErr *APIError
	var rt errRetryable
	var h http.Header
	switch {
	case errors.As(err, &apiErr):
		if apiErr.StatusCode != http.StatusTooManyRequests && apiErr.StatusCode < 500 {
			return 0, false
		}
		h = apiErr.header
	case errors.As(err, &rt):
	default:
		return 0, false
	}
	return httpx.Backoff(attempt+1, c.cfg.RetryBase, c.cfg.MaxRetryDelay, h, time.Now()), true
}

// explain turns the last error into the one the caller sees.
func (c *Client) explain(err error, withTools bool) error {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		if withTools && toolsRefused(apiErr) {
			return fmt.Errorf("model %s does not support tool calling (%s): %w", c.cfg.Model, apiErr.Message, ErrToolsUnsupported)
		}
		if apiErr.StatusCode == http.StatusNotFound && strings.Contains(strings.ToLower(apiErr.Message), "model") {
			return fmt.Errorf("chat model %s: %w", c.cfg.Model, err)
		}
		return fmt.Errorf("chat %s: %w", c.shown, err)
	}
	var rt errRetryable
	if errors.As(err, &rt) {
		return rt.err
	}
	return err
}

// toolsRefused recognises the ways servers say a model cannot call tools:
// Ollama "registry.ollama.ai/library/x does not support tools", OpenAI
// "tools is not supported in this model", vLLM "auto tool choice requires
// --enable-auto-tool-choice", and "function calling is not supported".
func toolsRefused(e *APIError) bool {
	if e.StatusCode != http.StatusBadRequest && e.StatusCode != http.StatusNotFound &&
		e.StatusCode != http.StatusUnprocessableEntity && e.StatusCode != http.StatusNotImplemented {
		return false
	}
	m := strings.ToLower(e.Message)
	if !strings.Contains(m, "tool") && !strings.Contains(m, "function call") && !strings.Contains(m, "function_call") {
		return false
	}
	for _, w := range []string{"not support", "unsupported", "does not support", "not enabled", "requires", "not available", "not allowed"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// readAPIError builds an *APIError from a non-2xx response: its body read
// and parsed by httpx (ReadLimited, ParseError), as the embedding clients
// read theirs.
func readAPIError(resp *http.Response) error {
	raw, _ := httpx.ReadLimited(resp.Body, httpx.MaxErrorBodyBytes)
	e := &APIError{StatusCode: resp.StatusCode, RetryAfter: -1, header: resp.Header}
	if d, ok := httpx.RetryAfter(resp.Header, time.Now(), 0); ok {
		e.RetryAfter = d
	}
	e.Message, e.Type, e.Code = errorMessage(raw)
	return e
}

// maxMessageRunes bounds each field errorMessage returns.
const maxMessageRunes = httpx.MaxMessageRunes

// errorMessage extracts the message, type and code of an error body with
// httpx.ParseError (OpenAI {"error":{"message","type","code"}}, Ollama
// {"error":"text"}, {"message":...}, {"detail":...}; an HTML page says it is
// one; other text cut to 300 runes). Every field is cut to maxMessageRunes
// runes (a cut one ends with "…").
func errorMessage(raw []byte) (msg, typ, code string) {
	e := httpx.ParseError(raw)
	if e.HTML {
		e.Message = "the server sent an HTML page, not a chat completions answer (is LLM_BASE_URL right?)"
	}
	return e.Message, e.Type, e.Code
}

var errBadBody = errors.New("malformed chat response")

// ErrRedirected is returned when the chat server answers with a redirect:
// it is not followed, since the request carries the API key (Go's client
// keeps the Authorization header on a redirect to another port or scheme
// of the same host) and the conversation, and the configured address is
// the one that must answer.
var ErrRedirected = errors.New("the chat server redirected the request")

// refuseRedirect is the default client's CheckRedirect: the request fails
// naming where it was sent (scheme, host and path; no query).
func refuseRedirect(req *http.Request, via []*http.Request) error {
	return fmt.Errorf("%w to %s://%s%s: set LLM_BASE_URL to the address that answers", ErrRedirected, req.URL.Scheme, req.URL.Host, req.URL.Path)
}

// MaxResponseBytes bounds one answer, streamed or not: a body past it
// fails the request (a server that streams without end would otherwise
// hold the process's memory until the request's timeout).
const MaxResponseBytes = 64 << 20

// errTooLarge is the error of an answer longer than MaxResponseBytes.
var errTooLarge = fmt.Errorf("%w: the answer passed %d MiB", errBadBody, MaxResponseBytes>>20)

// cappedReader reads at most n bytes of r and fails with errTooLarge on
// the byte after them.
type cappedReader struct {
	r io.Reader
	n int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	k, err := c.r.Read(p)
	c.n -= int64(k)
	return k, err
}

// readJSON decodes a non-streamed response.
func readJSON(r io.Reader) (*Response, error) {
	raw, err := io.ReadAll(io.LimitReader(r, MaxResponseBytes))
	if err != nil {
		return nil, err
	}
	var out Response
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%w: %w (body starts %q)", errBadBody, err, httpx.Snippet(raw, 120))
	}
	if len(out.Choices) == 0 {
		if msg, _, _ := errorMessage(raw); strings.Contains(string(raw), `"error"`) && msg != "" {
			return nil, &APIError{StatusCode: http.StatusOK, Message: msg, RetryAfter: -1}
		}
		return nil, fmt.Errorf("%w: no choices (body starts %q)", errBadBody, httpx.Snippet(raw, 120))
	}
	return &out, nil
}
