package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"strings"
	"time"

	"github.com/coderag/coderag/internal/httpx"
)

// Timeouts of NewHTTPClient. A model's first load (Ollama) can take a minute,
// hence the long header wait.
const (
	ConnectTimeout = 30 * time.Second  // TCP connect and TLS handshake
	ReadTimeout    = 120 * time.Second // from request sent to response headers, and from them to the body's end
	// MaxResponseBytes bounds one response body (a batch of 32 3072-d vectors
	// is about 2 MiB of JSON).
	MaxResponseBytes = 256 << 20
)

// NewHTTPClient returns the client providers use by default: 30 s connect
// (net.Dialer.Timeout) and TLS handshake timeouts, 120 s to wait for response
// headers, proxies from the environment, no redirect followed (ErrRedirected:
// a 307 re-sent the code to whatever host it named, and that host's 403 was
// blamed on the key), and no overall timeout — requests are bounded by their
// context.
func NewHTTPClient() *http.Client {
	d := &net.Dialer{Timeout: ConnectTimeout, KeepAlive: 30 * time.Second}
	return &http.Client{CheckRedirect: refuseRedirect, Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           d.DialContext,
		TLSHandshakeTimeout:   ConnectTimeout,
		ResponseHeaderTimeout: ReadTimeout,
		ExpectContinueTimeout: time.Second,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}}
}

// refuseRedirect is NewHTTPClient's CheckRedirect: the configured address
// is the one that answers, or the request fails naming where it was sent
// (scheme, host and path; no query, which may hold a key).
func refuseRedirect(req *http.Request, via []*http.Request) error {
	return fmt.Errorf("%w to %s://%s%s: set EMBEDDING_BASE_URL to the address that answers", ErrRedirected, req.URL.Scheme, req.URL.Host, req.URL.Path)
}

// Retry says which responses PostJSON retries and how long it waits.
type Retry struct {
	// MaxTries is the total number of attempts; <= 1 means no retry.
	MaxTries int
	// Base is the first wait; each further wait doubles it (plus up to 20 %
	// jitter), capped at MaxDelay. A Retry-After (or Retry-After-Ms) header
	// replaces the computed wait.
	Base time.Duration
	// MaxDelay caps one wait, Retry-After included; 0 means 30 s.
	MaxDelay time.Duration
	// On reports whether a status is worth retrying (e.g. 429 and 5xx); nil
	// means never.
	On func(status int) bool
}

// Response is the final HTTP exchange of PostJSON.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	Tries  int // attempts made, >= 1
}

// PostJSON marshals body, POSTs it to url with Content-Type
// application/json plus header, and reads the whole response (at most
// MaxResponseBytes). Statuses accepted by r.On are retried up to r.MaxTries
// attempts with exponential backoff honouring Retry-After; the last response
// is returned whatever its status — the caller interprets it.
//
// Errors: ctx.Err() once the context is done (also while waiting);
// ErrUnreachable (wrapping the net error) when the server cannot be reached —
// connection refused, unknown host, connect timeout; other transport errors
// wrapped with "POST url".
func PostJSON(ctx context.Context, c *http.Client, url string, header http.Header, body any, r Retry) (*Response, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	if c == nil {
		c = NewHTTPClient()
	}
	for try := 1; ; try++ {
		resp, err := postOnce(ctx, c, url, header, payload)
		if err != nil {
			return nil, err
		}
		resp.Tries = try
		if try >= r.MaxTries || r.On == nil || !r.On(resp.Status) || ctx.Value(noRetryKey{}) != nil {
			return resp, nil
		}
		if resp.Status >= 500 && ctx.Value(noRetry5xxKey{}) != nil {
			return resp, nil // a split batch: this 5xx is likely one input's
		}
		if err := sleep(ctx, r.wait(try, resp.Header, time.Now())); err != nil {
			return nil, err
		}
	}
}

// noRetryKey marks a context under which PostJSON makes one attempt per
// request (WithoutRetry).
type noRetryKey struct{}

// WithoutRetry returns ctx marked so that PostJSON sends each request once
// and returns its answer, a 429 or a 5xx included, without waiting to try
// again: for a caller that a user is waiting on and that can leave the work
// for later, such as a search's refresh of changed files (engine.Freshen),
// which leaves a file it could not embed stale for the next index run,
// whose requests are retried. A split batch's requests are sent once each
// as well.
func WithoutRetry(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRetryKey{}, true)
}

// bodyTimeout bounds the read of a response body once its headers came
// (ReadTimeout; a variable for tests): a server that sends its headers and
// then trickles the body held an index run for as long as it pleased.
var bodyTimeout = ReadTimeout

func postOnce(ctx context.Context, c *http.Client, url string, header http.Header, payload []byte) (*Response, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := httpx.Post(rctx, c, url, header, payload, "application/json")
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if ue := (*neturl.Error)(nil); errors.As(err, &ue) && errors.Is(ue.Err, ErrRedirected) {
			// the redirect's own words: its target without the query
			return nil, fmt.Errorf("POST %s: %w", url, ue.Err)
		}
		if httpx.Unreachable(err) {
			return nil, fmt.Errorf("%w: %w", ErrUnreachable, err)
		}
		if httpx.Timeout(err) {
			return nil, fmt.Errorf("%w (%s): POST %s: %w", ErrTimeout, ReadTimeout, url, err)
		}
		return nil, fmt.Errorf("POST %s: %w", url, err)
	}
	defer resp.Body.Close()
	late := time.AfterFunc(bodyTimeout, cancel)
	defer late.Stop()
	var b []byte
	if resp.StatusCode/100 != 2 {
		// an error body is read as the chat client reads it
		b, err = httpx.ReadLimited(resp.Body, httpx.MaxErrorBodyBytes)
	} else {
		b, err = io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if rctx.Err() != nil {
			return nil, fmt.Errorf("%w (%s): POST %s: the response body did not arrive in time after its headers", ErrTimeout, bodyTimeout, url)
		}
		return nil, fmt.Errorf("POST %s: read response: %w", url, err)
	}
	if len(b) > MaxResponseBytes {
		return nil, fmt.Errorf("POST %s: response larger than %d bytes", url, MaxResponseBytes)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

func (r Retry) wait(try int, h http.Header, now time.Time) time.Duration {
	return httpx.Backoff(try, r.Base, r.MaxDelay, h, now)
}

func sleep(ctx context.Context, d time.Duration) error { return httpx.Sleep(ctx, d) }

// MaxServerMessageRunes bounds the message ServerMessage returns (a longer
// one is cut and ends with "…").
const MaxServerMessageRunes = httpx.MaxMessageRunes

// ServerMessage extracts a readable error from a response body with
// httpx.ParseError (the one parser the chat client uses too): the "error"
// string (Ollama: {"error":"..."}), "error.message" plus its type and code
// (OpenAI: {"error":{"message":..,"type":..,"code":..}}), "message" or
// "detail"; an HTML page is reported as such (usually a wrong base URL);
// anything else is the text cut to 300 runes. The message is cut to
// MaxServerMessageRunes runes. An empty body gives "".
func ServerMessage(body []byte) string {
	e := httpx.ParseError(body)
	if e.HTML {
		return "the server sent an HTML page, not an embeddings API answer (is the base URL right?)"
	}
	return httpx.CutRunes(e.String(), MaxServerMessageRunes)
}

// DecodeJSON unmarshals a 2xx response body into v. A body holding NaN or
// Infinity (invalid JSON some servers emit) or a number overflowing float32
// is reported as ErrBadVector; other failures say the body is not the
// expected JSON and quote its start.
func DecodeJSON(body []byte, v any) error {
	err := json.Unmarshal(body, v)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && strings.HasPrefix(typeErr.Value, "number") {
		return fmt.Errorf("%w: %s out of float32 range", ErrBadVector, typeErr.Value)
	}
	var synErr *json.SyntaxError
	if errors.As(err, &synErr) && (bytes.Contains(body, []byte("NaN")) || bytes.Contains(body, []byte("Infinity"))) {
		return fmt.Errorf("%w: server sent NaN or Infinity (%v)", ErrBadVector, err)
	}
	return fmt.Errorf("decode response: %w (body starts %q)", err, httpx.Snippet(body, 120))
}
