package openai

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/embedtest"
	"github.com/coderag/coderag/internal/vec"
)

var ctx = context.Background()

func client(t *testing.T, base, key string) *Client {
	t.Helper()
	c, err := New(Options{BaseURL: base, APIKey: key, RetryBase: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEndpointURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                                     "https://api.openai.com/v1/embeddings",
		"http://h":                             "http://h/v1/embeddings",
		"http://h/":                            "http://h/v1/embeddings",
		"http://h/v1":                          "http://h/v1/embeddings",
		"http://h/v1/":                         "http://h/v1/embeddings",
		"http://h:8000/v1/embeddings":          "http://h:8000/v1/embeddings",
		"https://open.bigmodel.cn/api/paas/v4": "https://open.bigmodel.cn/api/paas/v4/embeddings",
		"https://dashscope.aliyuncs.com/compatible-mode/v1/": "https://dashscope.aliyuncs.com/compatible-mode/v1/embeddings",
		"http://proxy/openai":                                "http://proxy/openai/embeddings",
		"localhost:1234/v1":                                  "http://localhost:1234/v1/embeddings",
		"api.example.com":                                    "https://api.example.com/v1/embeddings",
	} {
		if got, err := EndpointURL(in); got != want || err != nil {
			t.Errorf("EndpointURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := EndpointURL("ftp://h"); err == nil {
		t.Error("ftp accepted")
	}
}

func TestReorderedIndexes(t *testing.T) {
	srv := embedtest.NewOpenAI(t, 6, "sk-x")
	srv.Reorder = true // data comes back as indexes [2,0,1]
	c := client(t, srv.URL, "sk-x")
	texts := []string{"zero", "one", "two"}
	vs, err := c.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		if !slices.Equal(vs[i], vec.Normalize(embedtest.Vector(s, 6))) {
			t.Errorf("slot %d holds another text's vector", i)
		}
	}
}

func TestBadData(t *testing.T) {
	srv := embedtest.NewOpenAI(t, 2, "")
	c := client(t, srv.URL, "")
	// A bad answer to a request of two: split, each input sent alone
	// (answered well this time), so the call succeeds.
	for _, tc := range []struct {
		name, body string
		want       error
	}{
		{"too few", `{"data":[{"index":0,"embedding":[1,0]}]}`, nil},
		{"zero vectors", `{"object":"list","data":[],"model":"text-embedding-3-small"}`, nil},
		{"index out of range", `{"data":[{"index":0,"embedding":[1,0]},{"index":5,"embedding":[1,0]}]}`, nil},
		{"index repeated", `{"data":[{"index":1,"embedding":[1,0]},{"index":1,"embedding":[1,0]}]}`, nil},
		{"NaN", `{"data":[{"index":0,"embedding":[NaN,0]},{"index":1,"embedding":[1,0]}]}`, nil},
		{"dims differ", `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[1,0,0]}]}`, embed.ErrDimMismatch},
		{"empty embedding", `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[1,0]}]}`, nil},
	} {
		srv.Inject(embedtest.Reply{Status: 200, Body: tc.body})
		before := srv.Requests()
		_, err := c.Embed(ctx, []string{"a", "b"})
		if (tc.want == nil && err != nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if n := srv.Requests() - before; tc.want == nil && n != 3 {
			t.Errorf("%s: %d requests, want 3 (the pair, then each alone)", tc.name, n)
		}
	}
	// The same answers to a single input: that input fails.
	for _, tc := range []struct {
		name, body string
		want       error
	}{
		{"zero vectors", `{"object":"list","data":[],"model":"text-embedding-3-small"}`, embed.ErrCountMismatch},
		{"index out of range", `{"data":[{"index":5,"embedding":[1,0]}]}`, embed.ErrCountMismatch},
		{"NaN", `{"data":[{"index":0,"embedding":[NaN,0]}]}`, embed.ErrBadVector},
		{"empty embedding", `{"data":[{"index":0,"embedding":[]}]}`, embed.ErrBadVector},
	} {
		srv.Inject(embedtest.Reply{Status: 200, Body: tc.body})
		var pe *embed.PartialError
		if _, err := c.Embed(ctx, []string{"a"}); !errors.Is(err, tc.want) || !errors.As(err, &pe) {
			t.Errorf("one input, %s: %v, want %v in a PartialError", tc.name, err, tc.want)
		}
	}
	// A 1024-d model against vectors already seen at 2-d.
	if _, err := c.Embed(ctx, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	srv.SetDim(1024)
	if _, err := c.Embed(ctx, []string{"a"}); !errors.Is(err, embed.ErrDimMismatch) || !strings.Contains(err.Error(), "got 1024 dimensions, want 2") {
		t.Errorf("dimension change: %v", err)
	}
}

func TestRetries(t *testing.T) {
	srv := embedtest.NewOpenAI(t, 4, "")
	c := client(t, srv.URL, "")
	rate := embedtest.Reply{Status: 429, Body: embedtest.OpenAIRateLimit, Header: map[string]string{"Retry-After": "0"}}
	srv.Inject(rate)
	before := srv.Requests()
	if _, err := c.Embed(ctx, []string{"x"}); err != nil || srv.Requests()-before != 2 {
		t.Errorf("429 Retry-After 0: %v after %d requests, want success after 2", err, srv.Requests()-before)
	}
	// Retry-After: 1 is honoured: a caller that cannot wait a second gets
	// its deadline error, and the server never sees an early retry.
	rate.Header = map[string]string{"Retry-After": "1"}
	srv.Inject(rate)
	before = srv.Requests()
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err := c.Embed(short, []string{"x"})
	cancel()
	if err == nil || srv.Requests()-before != 1 {
		t.Errorf("429 Retry-After 1 under a 200ms deadline: %v after %d requests, want an error after 1", err, srv.Requests()-before)
	}
	// the rate limit answered, the next call goes through
	if _, err := c.Embed(ctx, []string{"x"}); err != nil {
		t.Errorf("after the rate limit: %v", err)
	}
	srv.Inject(embedtest.Reply{Status: 500, Body: embedtest.OpenAIServerError})
	if _, err := c.Embed(ctx, []string{"x"}); err != nil {
		t.Errorf("500 then success: %v", err)
	}
	for range DefaultTries {
		srv.Inject(embedtest.Reply{Status: 502, Body: "<html><body>Bad Gateway</body></html>"})
	}
	before = srv.Requests()
	_, err = c.Embed(ctx, []string{"x"})
	if !errors.Is(err, embed.ErrHTTP) || !strings.Contains(err.Error(), "HTTP 502 after 5 tries") || srv.Requests()-before != DefaultTries {
		t.Errorf("502 x5: %v after %d requests", err, srv.Requests()-before)
	}
	srv.Inject(embedtest.Reply{Status: 400, Body: `{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","param":null,"code":null}}`})
	before = srv.Requests()
	if _, err := c.Embed(ctx, []string{"x"}); err == nil || !strings.Contains(err.Error(), "maximum context length is 8192 tokens") || srv.Requests()-before != 1 {
		t.Errorf("400: %v after %d requests (want the message, no retry)", err, srv.Requests()-before)
	}
}

func TestServerErrors(t *testing.T) {
	srv := embedtest.NewOpenAI(t, 4, "sk-right")
	_, err := client(t, srv.URL, "sk-wrong").Embed(ctx, []string{"x"})
	if !errors.Is(err, embed.ErrHTTP) || !strings.Contains(err.Error(), "HTTP 401: Incorrect API key provided") || !strings.Contains(err.Error(), "EMBEDDING_API_KEY") {
		t.Errorf("401: %v", err)
	}
	c, _ := New(Options{BaseURL: srv.URL, APIKey: "sk-right", Model: "text-embedding-4-huge"})
	if _, err := c.Embed(ctx, []string{"x"}); !errors.Is(err, embed.ErrModelNotFound) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("unknown model: %v", err)
	}
	// Wrong base URL path: the API's own 404.
	_, err = client(t, srv.URL+"/api", "sk-right").Embed(ctx, []string{"x"})
	if !errors.Is(err, embed.ErrHTTP) || !strings.Contains(err.Error(), "Invalid URL (POST /api/embeddings)") {
		t.Errorf("wrong path: %v", err)
	}
	// A web page, not an API.
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		w.Write([]byte(embedtest.HTMLNotFound))
	}))
	defer html.Close()
	if _, err := client(t, html.URL, "").Embed(ctx, []string{"x"}); !errors.Is(err, embed.ErrHTTP) || !strings.Contains(err.Error(), "HTML page") {
		t.Errorf("HTML 404: %v", err)
	}
	// Nothing listening.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	if _, err := client(t, "http://"+addr, "").Embed(ctx, []string{"x"}); !errors.Is(err, embed.ErrUnreachable) {
		t.Errorf("connection refused: %v", err)
	}
}

func TestNoKeyNoHeader(t *testing.T) {
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		w.Write([]byte(`{"data":[{"index":0,"embedding":[1,2]}]}`))
	}))
	defer srv.Close()
	client(t, srv.URL, "").Embed(ctx, []string{"x"})
	client(t, srv.URL, "sk-1").Embed(ctx, []string{"x"})
	if !slices.Equal(auth, []string{"", "Bearer sk-1"}) {
		t.Errorf("Authorization headers %q", auth)
	}
}

// A server that echoes the key in its 401, and a password in the base URL:
// neither reaches an error message.
func TestSecretsNotInErrors(t *testing.T) {
	const key = "sk-live-0123456789abcdefSECRET"
	srv := embedtest.NewOpenAI(t, 8, "sk-the-right-one")
	srv.EchoKey = true
	c := client(t, srv.URL+"/v1", key)
	_, err := c.Embed(ctx, []string{"x"})
	if err == nil || !errors.Is(err, embed.ErrHTTP) || !strings.Contains(err.Error(), "Incorrect API key provided") {
		t.Fatalf("wrong key: %v", err)
	}
	if strings.Contains(err.Error(), key) || strings.Contains(err.Error(), "0123456789abcdef") {
		t.Errorf("the key leaked: %v", err)
	}
	var se *embed.StatusError
	if !errors.As(err, &se) || strings.Contains(se.Msg, "0123456789abcdef") {
		t.Errorf("the key leaked into StatusError.Msg: %+v", se)
	}
	if _, err := c.EmbedQuery(ctx, "q"); err == nil || strings.Contains(err.Error(), "0123456789abcdef") {
		t.Errorf("query: %v", err)
	}
	// user:password in the base URL, server down
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	c = client(t, "http://alice:hunter2-pass@"+addr+"/v1", "")
	_, err = c.Embed(ctx, []string{"x"})
	if !errors.Is(err, embed.ErrUnreachable) || strings.Contains(err.Error(), "hunter2-pass") {
		t.Errorf("unreachable with userinfo: %v", err)
	}
	if strings.Contains(c.Describe(), "hunter2-pass") || strings.Contains(c.Endpoint(), "hunter2-pass") {
		t.Errorf("Describe/Endpoint: %s / %s", c.Describe(), c.Endpoint())
	}
	// reachable, server rejects: the password is not in the 401 either
	srv2 := embedtest.NewOpenAI(t, 8, "sk-the-right-one")
	c = client(t, strings.Replace(srv2.URL, "http://", "http://bob:s3cr3t-word@", 1)+"/v1", "")
	if _, err := c.Embed(ctx, []string{"x"}); err == nil || strings.Contains(err.Error(), "s3cr3t-word") {
		t.Errorf("401 with userinfo: %v", err)
	}
}

// TestHugeRetryAfterWaits: the same attack on the embeddings client.
func TestHugeRetryAfterWaits(t *testing.T) {
	srv := embedtest.NewOpenAI(t, 4, "")
	for range DefaultTries {
		srv.Inject(embedtest.Reply{Status: 429, Body: embedtest.OpenAIRateLimit, Header: map[string]string{"Retry-After-Ms": "9227000000000"}})
	}
	c := client(t, srv.URL, "")
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	before := srv.Requests()
	if _, err := c.Embed(cctx, []string{"x"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline while waiting", err)
	}
	if n := srv.Requests() - before; n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}
