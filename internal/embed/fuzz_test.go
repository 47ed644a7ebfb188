package embed

import (
	"testing"
	"unicode/utf8"
)

// FuzzServerMessage: any error body — JSON of any shape, HTML, binary —
// gives a message without panicking, bounded in length, and valid UTF-8
// when the body is. The seed corpus holds the real bodies of OpenAI,
// Ollama, Zhipu, FastAPI servers and proxies (testdata/fuzz/FuzzServerMessage).
func FuzzServerMessage(f *testing.F) {
	for _, b := range []string{
		`{"error":{"message":"Incorrect API key provided: sk-abc***xyz. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
		`{"error":"model \"nomic-embed-text\" not found, try pulling it first"}`,
		`{"error":"failed to encode response: json: unsupported value: NaN"}`,
		`{"error":{"code":"1211","message":"模型不存在"}}`,
		`{"detail":"Not authenticated"}`,
		`{"detail":[{"loc":["body","input"],"msg":"field required","type":"value_error.missing"}]}`,
		`{"message":"Forbidden"}`,
		"404 page not found\n",
		"<!DOCTYPE html><html><body>nope</body></html>",
		`{"error":{"message":123}}`,
		`{"error":null,"message":""}`,
		"\xff\xfe\x00garbage",
		"",
	} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m := ServerMessage(body)
		if n := utf8.RuneCountInString(m); n > MaxServerMessageRunes+3 {
			t.Fatalf("message of %d runes", n)
		}
		if utf8.Valid(body) && !utf8.ValidString(m) {
			t.Fatalf("invalid UTF-8 from a valid body: %q", m)
		}
	})
}
