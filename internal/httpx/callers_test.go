package httpx_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/ollama"
	"github.com/coderag/coderag/internal/embed/openai"
	"github.com/coderag/coderag/internal/httpx"
	"github.com/coderag/coderag/internal/llm"
)

// The bodies and headers below are those the real servers send.
const (
	// OpenAI, 429 on the embeddings or chat endpoint (with retry-after and
	// retry-after-ms headers).
	openAIRateLimit = `{"error":{"message":"Rate limit reached for text-embedding-3-small in organization org-abc on tokens per min (TPM): Limit 1000000, Used 999500, Requested 800. Please try again in 18ms.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`
	// OpenAI, 401 for a wrong key, which it echoes masked.
	openAIBadKey = `{"error":{"message":"Incorrect API key provided: sk-test-sec*********-key. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	// nginx in front of a server, 500.
	nginx500 = "<html>\r\n<head><title>500 Internal Server Error</title></head>\r\n<body>\r\n<center><h1>500 Internal Server Error</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n"
	// Ollama's native API, 404 for a model not pulled.
	ollamaNoModel = `{"error":"model \"nomic-embed-text\" not found, try pulling it first"}`
	// Ollama's OpenAI-compatible API, 404 for a model not pulled.
	ollamaV1NoModel = `{"error":{"message":"model \"nomic-embed-text\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`

	apiKey = "sk-test-secret-key"
)

// reply is one scripted answer of the fake server.
type reply struct {
	status int
	header map[string]string
	body   string
}

// fakeServer answers the OpenAI endpoints (/v1/embeddings,
// /v1/chat/completions) and Ollama's /api/embed: first the scripted
// replies, in order, then success in the endpoint's real shape.
type fakeServer struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	n       int
}

func newFakeServer(t *testing.T, replies ...reply) *fakeServer {
	f := &fakeServer{replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.n++
		var rp *reply
		if f.n <= len(f.replies) {
			rp = &f.replies[f.n-1]
		}
		f.mu.Unlock()
		if rp != nil {
			for k, v := range rp.header {
				w.Header().Set(k, v)
			}
			if strings.HasPrefix(rp.body, "{") {
				w.Header().Set("Content-Type", "application/json")
			} else {
				w.Header().Set("Content-Type", "text/html")
			}
			w.WriteHeader(rp.status)
			fmt.Fprint(w, rp.body)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/embeddings":
			fmt.Fprint(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.6,0.8,0.0]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":1,"total_tokens":1}}`)
		case "/v1/chat/completions":
			fmt.Fprint(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1715000000,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}`)
		case "/api/embed":
			fmt.Fprint(w, `{"model":"nomic-embed-text","embeddings":[[0.6,0.8,0.0]],"total_duration":1000,"load_duration":10,"prompt_eval_count":1}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// A caller is one client built on httpx: the OpenAI embedder, the Ollama
// embedder, the chat client. Each retries three attempts in all, with a
// first backoff of a millisecond and waits of up to an hour, so only a
// Retry-After the server sent can make a retry fast after a long header.
type caller struct {
	name string
	call func(ctx context.Context, url string) error
}

var (
	openAIEmbed = caller{"openai embed", func(ctx context.Context, url string) error {
		c, err := openai.New(openai.Options{BaseURL: url + "/v1", APIKey: apiKey, MaxTries: 3, RetryBase: time.Millisecond, MaxDelay: time.Hour})
		if err != nil {
			return err
		}
		_, err = c.Embed(ctx, []string{"hello"})
		return err
	}}
	ollamaEmbed = caller{"ollama embed", func(ctx context.Context, url string) error {
		c, err := ollama.New(ollama.Options{BaseURL: url, RetryBase: time.Millisecond})
		if err != nil {
			return err
		}
		_, err = c.Embed(ctx, []string{"hello"})
		return err
	}}
	chat = caller{"chat", func(ctx context.Context, url string) error {
		c, err := llm.New(llm.Config{BaseURL: url + "/v1", APIKey: apiKey, Model: "gpt-4o-mini", MaxRetries: 2,
			RetryBase: time.Millisecond, MaxRetryDelay: time.Hour, Timeout: time.Minute})
		if err != nil {
			return err
		}
		_, err = c.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
		return err
	}}
)

// TestCallersReadServersAlike runs every client against the same real
// server answers and checks that they honour the same headers and report
// the same message, cut the same way.
func TestCallersReadServersAlike(t *testing.T) {
	long := strings.Repeat("错", httpx.MaxErrorBodyBytes/3+100) // 64 KiB ends inside a rune (65536 = 3*21845 + 1)
	longJSON, _ := json.Marshal(map[string]any{"error": map[string]any{"message": strings.Repeat("é", 700), "type": "invalid_request_error", "param": nil, "code": nil}})
	cases := []struct {
		name     string
		callers  []caller
		replies  []reply
		wantErr  []string // substrings of the error; nil: success
		notInErr []string
		requests int
	}{
		{
			// Retry-After-Ms wins over Retry-After: with the seconds
			// header (an hour) the call would not end before the test's
			// deadline
			name:    "429 with Retry-After-Ms and Retry-After",
			callers: []caller{openAIEmbed, chat},
			replies: []reply{{429, map[string]string{"Retry-After-Ms": "18", "Retry-After": "3600",
				"X-Ratelimit-Limit-Tokens": "1000000", "X-Ratelimit-Reset-Tokens": "18ms"}, openAIRateLimit}},
			requests: 2,
		},
		{
			name:     "429 with Retry-After in seconds",
			callers:  []caller{openAIEmbed, ollamaEmbed, chat},
			replies:  []reply{{429, map[string]string{"Retry-After": "0"}, openAIRateLimit}},
			requests: 2,
		},
		{
			name:     "429 with Retry-After as an HTTP date in the past",
			callers:  []caller{openAIEmbed, chat},
			replies:  []reply{{429, map[string]string{"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, openAIRateLimit}},
			requests: 2,
		},
		{
			name:     "401 JSON error body",
			callers:  []caller{openAIEmbed, chat},
			replies:  []reply{{401, nil, openAIBadKey}},
			wantErr:  []string{"HTTP 401", "Incorrect API key provided"},
			notInErr: []string{apiKey},
			requests: 1,
		},
		{
			name:     "500 HTML body",
			callers:  []caller{openAIEmbed, chat},
			replies:  []reply{{500, nil, nginx500}, {500, nil, nginx500}, {500, nil, nginx500}},
			wantErr:  []string{"HTTP 500", "the server sent an HTML page"},
			notInErr: []string{"<html", "nginx"},
			requests: 3,
		},
		{
			name:     "Ollama model not found",
			callers:  []caller{ollamaEmbed},
			replies:  []reply{{404, nil, ollamaNoModel}},
			wantErr:  []string{`model "nomic-embed-text" not found, try pulling it first`},
			requests: 1,
		},
		{
			name:     "Ollama OpenAI-compatible model not found",
			callers:  []caller{openAIEmbed, chat},
			replies:  []reply{{404, nil, ollamaV1NoModel}},
			wantErr:  []string{`model "nomic-embed-text" not found, try pulling it first`},
			requests: 1,
		},
		{
			// the body is read to MaxErrorBodyBytes, which ends inside a
			// rune; the text is cut to 300 runes, on a rune boundary
			name:     "multibyte text body cut at the limit",
			callers:  []caller{openAIEmbed, ollamaEmbed, chat},
			replies:  []reply{{400, nil, long}},
			wantErr:  []string{"HTTP 400", strings.Repeat("错", 300) + "…"},
			notInErr: []string{strings.Repeat("错", 301), "\uFFFD"},
			requests: 1,
		},
		{
			name:     "multibyte JSON message over 500 runes",
			callers:  []caller{openAIEmbed, chat},
			replies:  []reply{{400, nil, string(longJSON)}},
			wantErr:  []string{strings.Repeat("é", httpx.MaxMessageRunes) + "…"},
			notInErr: []string{strings.Repeat("é", httpx.MaxMessageRunes+1)},
			requests: 1,
		},
	}
	for _, c := range cases {
		for _, cl := range c.callers {
			t.Run(c.name+"/"+cl.name, func(t *testing.T) {
				srv := newFakeServer(t, c.replies...)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				err := cl.call(ctx, srv.URL)
				if errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("the call waited past the deadline (a server's Retry-After not honoured?): %v", err)
				}
				if c.wantErr == nil && err != nil {
					t.Fatalf("error: %v", err)
				}
				if c.wantErr != nil {
					if err == nil {
						t.Fatal("no error")
					}
					msg := err.Error()
					if !utf8.ValidString(msg) {
						t.Errorf("message is not valid UTF-8: %q", msg)
					}
					for _, w := range c.wantErr {
						if !strings.Contains(msg, w) {
							t.Errorf("error lacks %q: %.300s", w, msg)
						}
					}
					for _, w := range c.notInErr {
						if strings.Contains(msg, w) {
							t.Errorf("error holds %q: %.300s", w, msg)
						}
					}
				}
				if n := srv.requests(); n != c.requests {
					t.Errorf("%d requests, want %d", n, c.requests)
				}
			})
		}
	}
}

// TestServerMessageSameForBoth: embed.ServerMessage and the chat client's
// APIError carry the same text for the same body (after the redaction of
// key-shaped tokens both clients apply).
func TestServerMessageSameForBoth(t *testing.T) {
	for _, body := range []string{openAIRateLimit, openAIBadKey, ollamaNoModel, ollamaV1NoModel, "404 page not found\n",
		`{"detail":"Not authenticated"}`, strings.Repeat("ü", 400)} {
		srv := newFakeServer(t, reply{400, nil, body})
		c, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "m", MaxRetries: -1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
		var apiErr *llm.APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("chat error %v is not an APIError", err)
		}
		e := httpx.ParseError([]byte(body))
		e.Message = httpx.NewRedactor().Redact(e.Message) // both clients redact key-shaped tokens
		if apiErr.Message != e.Message || apiErr.Type != e.Type || apiErr.Code != e.Code {
			t.Errorf("chat read %q/%q/%q, ParseError %q/%q/%q", apiErr.Message, apiErr.Type, apiErr.Code, e.Message, e.Type, e.Code)
		}
		if got := httpx.NewRedactor().Redact(embed.ServerMessage([]byte(body))); got != e.String() {
			t.Errorf("embed read %q, ParseError %q", got, e.String())
		}
	}
}
