// Package httpx is the one client layer for OpenAI-compatible servers that
// the embedding clients (internal/embed) and the chat client (internal/llm)
// share, so both behave alike against an untrusted server: Post sends a
// request, Unreachable and Timeout classify transport errors, Backoff and
// RetryAfter decide the wait before a retry (Retry-After-Ms, Retry-After,
// clamped), ReadLimited and ParseError read an error body (the same limit,
// the same shapes, cut by runes), and a Redactor keeps configured secrets
// (API keys, passwords in a base URL) out of every error message built
// from a server's answer.
//
// It imports nothing of coderag; embed and llm are siblings and import it,
// never each other.
package httpx

import (
	"encoding/base64"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxRetryAfter is the clamp RetryAfter applies when the caller gives
// none (max <= 0).
const DefaultMaxRetryAfter = 60 * time.Second

// RetryAfter reads how long a server asked to wait before the next attempt:
// "Retry-After-Ms" (milliseconds, integer or decimal; sent by OpenAI), else
// "Retry-After" as seconds (integer or decimal) or an HTTP date, relative to
// now (a past date means 0). The result is clamped to [0, limit] (limit <= 0 means
// DefaultMaxRetryAfter), so a huge value ("Retry-After-Ms: 9227000000000",
// "Retry-After: 1e300", "Inf") waits limit instead of
// overflowing time.Duration into a negative wait. ok is false when neither
// header holds a usable value (absent, negative, NaN, garbage); the caller
// then uses its own backoff.
func RetryAfter(h http.Header, now time.Time, limit time.Duration) (d time.Duration, ok bool) {
	if limit <= 0 {
		limit = DefaultMaxRetryAfter
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 { // NaN fails ms >= 0
			return clamp(ms*float64(time.Millisecond), limit), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return clamp(s*float64(time.Second), limit), true
	}
	if t, err := http.ParseTime(v); err == nil {
		// t.Sub saturates at the Duration range instead of overflowing
		return min(max(t.Sub(now), 0), limit), true
	}
	return 0, false
}

// clamp converts ns nanoseconds to a Duration in [0, limit] without the
// implementation-defined float-to-int conversion of an out-of-range value.
func clamp(ns float64, limit time.Duration) time.Duration {
	if ns >= float64(limit) || math.IsInf(ns, 1) {
		return limit
	}
	if ns <= 0 || math.IsNaN(ns) {
		return 0
	}
	return time.Duration(ns)
}

// Redacted is what a Redactor writes in place of a secret.
const Redacted = "[REDACTED]"

// keyLike matches tokens shaped like API keys that a server may echo even
// when they are not the configured one (a key from another variable, or a
// partially masked one): OpenAI "sk-...", "sk-proj-...", Anthropic
// "sk-ant-...", and bearer tokens quoted after "Bearer ".
var keyLike = regexp.MustCompile(`\bsk-[A-Za-z0-9_\-*.]{6,}|(?i:bearer)\s+[A-Za-z0-9_\-.~+/*]{8,}=*`)

// A Redactor replaces secrets in text. The zero value (and nil) redacts only
// key-shaped tokens; it is safe for concurrent use once built.
type Redactor struct {
	secrets []string // longest first, so a key containing another goes whole
}

// minSecret is the shortest configured value treated as a secret: shorter
// ones ("x", "1") would blank ordinary words of every message.
const minSecret = 4

// NewRedactor returns a Redactor for the given secrets. Each secret may be
// an API key or a URL: for a URL, its password, its whole userinfo
// ("user:pass") and the values of its secret-looking query parameters
// (secretParam: "?api-key=...") are the secrets, not the URL itself. Each
// is redacted as written, URL-escaped (query, path, and every byte but
// letters and digits as %XX in either case: a server may echo a key
// escaped) and, for a userinfo, as the Basic credentials Go's client sends
// for it (base64 of "user:pass"). Empty values, and values shorter than 4
// bytes, are ignored.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	add := func(s string) {
		if len(s) < minSecret {
			return
		}
		for _, f := range []string{s, url.QueryEscape(s), url.PathEscape(s), escapeAll(s, "%%%02X"), escapeAll(s, "%%%02x")} {
			if !slices.Contains(r.secrets, f) {
				r.secrets = append(r.secrets, f)
			}
		}
	}
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if strings.Contains(s, "://") { // a URL: only its userinfo and secret parameters are secret
			u, err := url.Parse(s)
			if err != nil {
				continue
			}
			if u.User != nil {
				p, ok := u.User.Password()
				if ok {
					add(p)
				}
				add(u.User.String())
				if rest, _, ok := strings.Cut(s[strings.Index(s, "://")+3:], "@"); ok {
					add(rest) // the userinfo as written, escapes and all
				}
				// net/http sends a URL's userinfo as Basic credentials
				if ok {
					basic := base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + p))
					add(basic)
					add(strings.TrimRight(basic, "="))
				}
			}
			for k, vs := range u.Query() {
				if secretParam(k) {
					for _, v := range vs {
						add(v)
					}
				}
			}
			continue
		}
		add(s)
	}
	// longest first: "user:pass" before "pass"
	for i := 1; i < len(r.secrets); i++ {
		for j := i; j > 0 && len(r.secrets[j]) > len(r.secrets[j-1]); j-- {
			r.secrets[j], r.secrets[j-1] = r.secrets[j-1], r.secrets[j]
		}
	}
	return r
}

// Redact returns s with every configured secret, and every key-shaped token,
// replaced by Redacted.
func (r *Redactor) Redact(s string) string {
	if r != nil {
		for _, sec := range r.secrets {
			if strings.Contains(s, sec) {
				s = strings.ReplaceAll(s, sec, Redacted)
			}
		}
	}
	return keyLike.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(strings.ToLower(m), "bearer") {
			return "Bearer " + Redacted
		}
		return "sk-" + Redacted
	})
}

// Error returns err with its message redacted; errors.Is and errors.As still
// see the original chain. nil stays nil, and an error whose message holds no
// secret is returned unchanged.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := r.Redact(msg); red != msg {
		return &redactedError{msg: red, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// URL returns raw with the password of its userinfo replaced by "xxxxx"
// (url.URL.Redacted) and the values of its secret-looking query parameters
// (secretParam) too; a string that does not parse as a URL with a host is
// returned with any "user:pass@" before its host cut out.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err == nil && u.Host != "" {
		if u.RawQuery != "" {
			q := u.Query()
			hid := false
			for k, vs := range q {
				if secretParam(k) {
					for i := range vs {
						vs[i] = "xxxxx"
					}
					hid = true
				}
			}
			if hid {
				u.RawQuery = q.Encode()
			}
		}
		return u.Redacted()
	}
	if i := strings.Index(raw, "://"); i >= 0 {
		rest := raw[i+3:]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
			return raw[:i+3] + "xxxxx@" + rest[at+1:]
		}
	}
	return raw
}

// secretParam reports whether a URL query parameter's name says its value
// is a credential: it holds "key", "token", "secret", "pass", "auth",
// "cred" or "sig" in any case (api-key, access_token, X-Amz-Signature), but
// not "api-version".
func secretParam(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"key", "token", "secret", "pass", "auth", "cred", "sig"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// escapeAll returns s with every byte that is not an ASCII letter or digit
// written with format ("%%%02X": "sk-a" -> "sk%2Da").
func escapeAll(s, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, format, c)
		}
	}
	return b.String()
}

var _ error = (*redactedError)(nil)
