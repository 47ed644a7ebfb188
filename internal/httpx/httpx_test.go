package httpx

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const limit = 60 * time.Second
	for _, c := range []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"none", nil, 0, false},
		{"seconds", map[string]string{"Retry-After": "2"}, 2 * time.Second, true},
		{"decimal seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond, true},
		{"ms wins", map[string]string{"Retry-After-Ms": "20", "Retry-After": "9"}, 20 * time.Millisecond, true},
		{"date", map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second, true},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"far date", map[string]string{"Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT"}, limit, true},
		// the attack: 9227000000000 ms * 1e6 overflows int64 nanoseconds
		{"huge ms", map[string]string{"Retry-After-Ms": "9227000000000"}, limit, true},
		{"huge seconds", map[string]string{"Retry-After": "9227000000000"}, limit, true},
		{"1e300", map[string]string{"Retry-After": "1e300"}, limit, true},
		{"Inf", map[string]string{"Retry-After": "Inf"}, limit, true},
		{"NaN", map[string]string{"Retry-After": "NaN"}, 0, false},
		{"negative", map[string]string{"Retry-After": "-5"}, 0, false},
		{"negative ms falls back to seconds", map[string]string{"Retry-After-Ms": "-1", "Retry-After": "3"}, 3 * time.Second, true},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
	} {
		h := http.Header{}
		for k, v := range c.header {
			h.Set(k, v)
		}
		got, ok := RetryAfter(h, now, limit)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: RetryAfter = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	h := http.Header{"Retry-After-Ms": {"9227000000000"}}
	if got, _ := RetryAfter(h, now, 0); got != DefaultMaxRetryAfter {
		t.Errorf("limit 0: got %v, want %v", got, DefaultMaxRetryAfter)
	}
}

func TestRedactor(t *testing.T) {
	const key = "sk-proj-Abc123SECRETxyz"
	r := NewRedactor(key, "http://alice:pa%24%24word@proxy.example/v1", "", "x")
	for _, in := range []string{
		"HTTP 401: Incorrect API key provided: " + key + ". You can find your API key at https://platform.openai.com/account/api-keys.",
		`POST http://alice:pa%24%24word@proxy.example/v1/embeddings: dial tcp: connection refused`,
		"password pa$$word echoed",
		"Authorization: Bearer abcdefghijklmnop",
		"another key sk-otherKEY999999 in the body",
	} {
		out := r.Redact(in)
		for _, bad := range []string{key, "pa$$word", "pa%24%24word", "alice:", "abcdefghijklmnop", "sk-otherKEY999999"} {
			if strings.Contains(out, bad) {
				t.Errorf("Redact(%q) = %q: still holds %q", in, out, bad)
			}
		}
		if !strings.Contains(out, Redacted) {
			t.Errorf("Redact(%q) = %q: no %s marker", in, out, Redacted)
		}
	}
	if got := r.Redact("x marks the spot"); got != "x marks the spot" {
		t.Errorf("a 1-byte secret blanked a message: %q", got)
	}
	var nilR *Redactor
	if got := nilR.Redact("key sk-abcdefgh1234"); strings.Contains(got, "abcdefgh1234") {
		t.Errorf("nil Redactor kept a key-shaped token: %q", got)
	}
}

func TestRedactorErrorKeepsChain(t *testing.T) {
	sentinel := errors.New("embedding request failed")
	err := fmt.Errorf("%w: HTTP 401: Incorrect API key provided: sk-live-1234567890", sentinel)
	red := NewRedactor("sk-live-1234567890").Error(err)
	if strings.Contains(red.Error(), "1234567890") {
		t.Fatalf("key survived: %v", red)
	}
	if !errors.Is(red, sentinel) {
		t.Fatalf("errors.Is lost the sentinel through redaction")
	}
	plain := errors.New("nothing secret")
	if NewRedactor("sk-live-1234567890").Error(plain) != plain {
		t.Fatal("an error without secrets was rewrapped")
	}
	if NewRedactor().Error(nil) != nil {
		t.Fatal("nil error became non-nil")
	}
}

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://user:key@host/v1":  "http://user:xxxxx@host/v1",
		"https://host/v1":          "https://host/v1",
		"http://user:k ey@host/v1": "http://xxxxx@host/v1",
		// a key in the query string (Azure-style proxies): hidden, the
		// rest kept
		"http://127.0.0.1:1/v1?api-key=QSECRET&api-version=2024-01": "http://127.0.0.1:1/v1?api-key=xxxxx&api-version=2024-01",
		"https://h/v1?access_token=T0KEN":                           "https://h/v1?access_token=xxxxx",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactorURLWithoutUserinfo(t *testing.T) {
	r := NewRedactor("http://127.0.0.1:11434")
	if got := r.Redact("ollama not reachable at http://127.0.0.1:11434"); got != "ollama not reachable at http://127.0.0.1:11434" {
		t.Errorf("a URL without a password was redacted: %q", got)
	}
}

// An echoed credential is redacted in the forms a server may echo it: the
// Basic credentials Go's client makes of a base URL's userinfo (base64),
// an API key escaped byte by byte ("sk%2D..."), a key in the base URL's
// query string (found by an attacker's echoing server in session 28).
func TestRedactorEchoedForms(t *testing.T) {
	const key = "sk-SUPERSECRET123"
	r := NewRedactor(key, "http://bob:PASSWORD99@127.0.0.1:18399/v1", "http://127.0.0.1:1/v1?api-key=QSECRET")
	basic := base64.StdEncoding.EncodeToString([]byte("bob:PASSWORD99"))
	for _, in := range []string{
		"denied for Basic " + basic + " / " + basic,
		"denied for Bearer x / sk%2DSUPERSECRET123",
		"denied: sk%2dSUPERSECRET123",
		"denied: sk-SUPERSECRET123",
		`Post "http://127.0.0.1:1/v1/chat/completions?api-key=QSECRET": dial tcp 127.0.0.1:1: connect: connection refused`,
	} {
		out := r.Redact(in)
		for _, bad := range []string{basic, strings.TrimRight(basic, "="), "SUPERSECRET123", "QSECRET", "PASSWORD99"} {
			if strings.Contains(out, bad) {
				t.Errorf("Redact(%q) = %q: still holds %q", in, out, bad)
			}
		}
	}
	if got := r.Redact("api-version 2024-01 of 127.0.0.1"); got != "api-version 2024-01 of 127.0.0.1" {
		t.Errorf("a message without secrets changed: %q", got)
	}
}
