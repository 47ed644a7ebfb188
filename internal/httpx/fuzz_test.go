package httpx

import (
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzRetryAfter: whatever a server puts in Retry-After-Ms and Retry-After,
// the wait is within [0, limit], and 0 when the headers are unusable. The
// seed corpus (testdata/fuzz/FuzzRetryAfter) runs as a unit test; `go test
// -fuzz FuzzRetryAfter -fuzztime 30s ./internal/httpx` explores further.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range [][2]string{
		{"", "2"}, {"20", ""}, {"9227000000000", ""}, {"", "9227000000000"}, {"", "1e300"}, {"", "Inf"},
		{"", "NaN"}, {"-1", "-5"}, {"", "Fri, 31 Dec 9999 23:59:59 GMT"}, {"", "Wed, 21 Oct 2015 07:28:00 GMT"},
		{"0x10", "0x1p62"}, {"1e-300", "4.9e-324"}, {" 7 ", "\t3\t"},
	} {
		f.Add(s[0], s[1])
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const limit = 60 * time.Second
	f.Fuzz(func(t *testing.T, ms, ra string) {
		h := http.Header{}
		if ms != "" {
			h["Retry-After-Ms"] = []string{ms}
		}
		if ra != "" {
			h["Retry-After"] = []string{ra}
		}
		d, ok := RetryAfter(h, now, limit)
		if d < 0 || d > limit {
			t.Fatalf("RetryAfter(ms=%q, ra=%q) = %v, outside [0, %v]", ms, ra, d, limit)
		}
		if !ok && d != 0 {
			t.Fatalf("RetryAfter(ms=%q, ra=%q) = %v with ok false", ms, ra, d)
		}
	})
}

// FuzzRedact: a configured secret never survives Redact, whatever text
// surrounds it.
func FuzzRedact(f *testing.F) {
	f.Add("Incorrect API key provided: ", "sk-proj-abcdef123456", ". You can find your API key at https://platform.openai.com")
	f.Add("POST http://user:", "pa$$word", "@host/v1: refused")
	f.Add("", "abcd", "abcdabcd")
	f.Fuzz(func(t *testing.T, pre, secret, post string) {
		if len(secret) < minSecret || !utf8.ValidString(secret) || strings.Contains(secret, "://") || strings.TrimSpace(secret) != secret {
			return
		}
		out := NewRedactor(secret).Redact(pre + secret + post)
		if strings.Contains(out, secret) && !strings.Contains(Redacted, secret) && !strings.Contains("sk-"+Redacted, secret) && !strings.Contains("Bearer "+Redacted, secret) {
			t.Fatalf("secret %q survives in %q", secret, out)
		}
		if utf8.ValidString(pre+secret+post) && !utf8.ValidString(out) {
			t.Fatalf("redaction broke UTF-8: %q", out)
		}
	})
}
