package llm

import (
	"testing"
	"unicode/utf8"
)

// FuzzErrorMessage: any error body of a chat server gives a bounded,
// valid-UTF-8 message without panicking (testdata/fuzz/FuzzErrorMessage).
func FuzzErrorMessage(f *testing.F) {
	for _, b := range []string{
		`{"error":{"message":"Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
		`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
		`{"error":"registry.ollama.ai/library/gemma does not support tools"}`,
		`{"object":"error","message":"auto tool choice requires --enable-auto-tool-choice","type":"BadRequestError","code":400}`,
		`{"detail":[{"loc":["body"],"msg":"bad"}]}`,
		"<html><body><h1>502 Bad Gateway</h1></body></html>",
		"这是一个很长的错误信息，" + "重复的内容，" + "结束",
		"\xff\xfe",
		"",
	} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg, typ, code := errorMessage(body)
		for _, s := range []string{msg, typ, code} {
			if n := utf8.RuneCountInString(s); n > maxMessageRunes+3 {
				t.Fatalf("field of %d runes", n)
			}
		}
		if utf8.Valid(body) && !utf8.ValidString(msg) {
			t.Fatalf("invalid UTF-8 from a valid body: %q", msg)
		}
	})
}
