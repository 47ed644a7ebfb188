package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// The one client layer for OpenAI-compatible servers (chat completions in
// internal/llm, embeddings in internal/embed): one POST, one transport
// classification, one backoff, one error-body reader and parser. Callers
// add only their own wording and hints.

// Limits of error bodies and of the messages taken from them.
const (
	// MaxErrorBodyBytes is how much of a non-2xx body is read (64 KiB).
	MaxErrorBodyBytes = 64 << 10
	// MaxMessageRunes bounds each field of a ServerError (a cut one ends
	// with "…").
	MaxMessageRunes = 500
	// maxTextRunes bounds a body that is plain text (not JSON).
	maxTextRunes = 300
	// DefaultMaxDelay caps one wait of Backoff when the caller gives none.
	DefaultMaxDelay = 30 * time.Second
)

// Post sends one POST of payload to url with header, Content-Type
// application/json and the given Accept, and returns the response with its
// body open: the caller closes it. Errors: ctx's error once ctx is done
// (wrapped in nothing, so errors.Is(err, context.Canceled) holds), else
// the transport error of http.Client.Do, which Unreachable and Timeout
// classify.
func Post(ctx context.Context, c *http.Client, url string, header http.Header, payload []byte, accept string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	resp, err := c.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, err
	}
	return resp, nil
}

// Unreachable reports a failure to connect at all (connection refused,
// unknown host, unreachable network or host, a failed dial), as opposed to
// a failure after the request was sent.
func Unreachable(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

// Timeout reports a network timeout (a net.Error whose Timeout is true).
func Timeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Backoff returns the wait before attempt try+1 (try >= 1): the server's
// Retry-After-Ms or Retry-After in h when usable (RetryAfter, clamped to
// maxDelay), else base doubled for each attempt after the first, plus up
// to 20 % jitter, capped at maxDelay. maxDelay <= 0 means
// DefaultMaxDelay; h may be nil.
func Backoff(try int, base, maxDelay time.Duration, h http.Header, now time.Time) time.Duration {
	if maxDelay <= 0 {
		maxDelay = DefaultMaxDelay
	}
	if d, ok := RetryAfter(h, now, maxDelay); ok {
		return d
	}
	d := base
	for i := 1; i < try && d < maxDelay; i++ {
		d *= 2
	}
	if d > 0 {
		d += rand.N(d/5 + 1)
	}
	return min(d, maxDelay)
}

// Sleep waits d or until ctx is done, and returns ctx's error in that
// case; d <= 0 returns at once.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ReadLimited reads at most n bytes of r. When the limit cuts a UTF-8
// sequence in two, the partial sequence at the end is dropped, so a
// multibyte body cut at the limit stays valid text.
func ReadLimited(r io.Reader, n int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, n))
	if int64(len(b)) == n {
		b = trimPartialRune(b)
	}
	return b, err
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if !utf8.RuneStart(c) {
			continue
		}
		if !utf8.FullRune(b[len(b)-i:]) {
			return b[:len(b)-i]
		}
		break
	}
	return b
}

// CutRunes returns s cut to at most n runes on a rune boundary, ending
// with "…" when cut.
func CutRunes(s string, n int) string {
	if len(s) <= n { // bytes >= runes
		return s
	}
	k := 0
	for i := range s {
		if k == n {
			return s[:i] + "…"
		}
		k++
	}
	return s
}

// Snippet returns the start of a body for a message ("body starts %q"):
// at most n runes, never half a UTF-8 sequence.
func Snippet(body []byte, n int) string {
	s := string(trimPartialRune(body[:min(len(body), n*utf8.UTFMax)]))
	k := 0
	for i := range s {
		if k == n {
			return s[:i]
		}
		k++
	}
	return s
}

// ServerError is what a non-2xx body of an OpenAI-compatible server (or of
// Ollama, a FastAPI server, a proxy) says.
type ServerError struct {
	Message string // the server's message; "" for an empty body
	Type    string // OpenAI error.type
	Code    string // OpenAI error.code (a string or a number)
	// HTML: the body is a web page (a proxy's or web server's error page,
	// usually a wrong base URL); Message is then a sentence saying so.
	HTML bool
}

// String returns the message with its type and code in parentheses when
// set: "Incorrect API key provided (type invalid_request_error, code
// invalid_api_key)".
func (e ServerError) String() string {
	var extra []string
	if e.Type != "" {
		extra = append(extra, "type "+e.Type)
	}
	if e.Code != "" {
		extra = append(extra, "code "+e.Code)
	}
	if len(extra) == 0 {
		return e.Message
	}
	return e.Message + " (" + strings.Join(extra, ", ") + ")"
}

// htmlMessage is the Message of a ServerError for an HTML body.
const htmlMessage = "the server sent an HTML page, not an API answer (is the base URL right?)"

// ParseError reads an error body in the shapes servers send: OpenAI
// {"error":{"message","type","code"}}, Ollama {"error":"text"}, vLLM and
// others {"message":...}, FastAPI {"detail":"text"} or {"detail":[...]}
// (kept as compact JSON); an HTML page gives HTML and a fixed sentence;
// any other body is its text with runs of white space made one space, cut
// to 300 runes. Every field is cut to MaxMessageRunes runes (CutRunes) and
// is valid UTF-8.
func ParseError(body []byte) ServerError {
	e := parseError(body)
	e.Message = CutRunes(strings.ToValidUTF8(e.Message, "\uFFFD"), MaxMessageRunes)
	e.Type = CutRunes(strings.ToValidUTF8(e.Type, "\uFFFD"), MaxMessageRunes)
	e.Code = CutRunes(strings.ToValidUTF8(e.Code, "\uFFFD"), MaxMessageRunes)
	return e
}

func parseError(body []byte) ServerError {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return ServerError{}
	}
	var m struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &m) == nil {
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		}
		var str string
		switch {
		case len(m.Error) > 0 && json.Unmarshal(m.Error, &str) == nil && str != "":
			return ServerError{Message: str}
		case len(m.Error) > 0 && json.Unmarshal(m.Error, &obj) == nil && obj.Message != "":
			e := ServerError{Message: obj.Message, Type: obj.Type}
			if obj.Code != nil {
				e.Code = fmt.Sprint(obj.Code)
			}
			return e
		case m.Message != "":
			return ServerError{Message: m.Message}
		case len(m.Detail) > 0 && json.Unmarshal(m.Detail, &str) == nil && str != "":
			return ServerError{Message: str}
		case len(m.Detail) > 0 && string(m.Detail) != "null":
			var buf bytes.Buffer
			if json.Compact(&buf, m.Detail) == nil {
				return ServerError{Message: buf.String()}
			}
		}
	}
	if l := strings.ToLower(s[:min(len(s), 512)]); strings.HasPrefix(l, "<!doctype html") || strings.HasPrefix(l, "<html") || strings.Contains(l, "<body") {
		return ServerError{Message: htmlMessage, HTML: true}
	}
	return ServerError{Message: CutRunes(strings.Join(strings.Fields(s), " "), maxTextRunes)}
}
