package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/vec"
)

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"héllo", 2, "hé"},
		{"中文字符", 3, "中文字"},
		{"a😀b", 2, "a😀"},
		{"abc", 0, ""},
		{"", 5, ""},
		{"a\xffb", 2, "a\xff"},
	} {
		if got := Truncate(tc.in, tc.n); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
	long := strings.Repeat("中", 3000)
	if got := Truncate(long, MaxInputRunes); utf8.RuneCountInString(got) != 2000 || !utf8.ValidString(got) {
		t.Errorf("2000-rune cut: %d runes, valid %v", utf8.RuneCountInString(got), utf8.ValidString(got))
	}
}

func TestParseID(t *testing.T) {
	for _, tc := range []struct{ id, p, m string }{
		{"ollama:nomic-embed-text", "ollama", "nomic-embed-text"},
		{"ollama:nomic-embed-text:v1.5", "ollama", "nomic-embed-text:v1.5"},
		{"local:hashing-768-v1", "local", "hashing-768-v1"},
		{"openai:text-embedding-3-small", "openai", "text-embedding-3-small"},
		{"local", "local", ""},
		{"", "", ""},
	} {
		if p, m := ParseID(tc.id); p != tc.p || m != tc.m {
			t.Errorf("ParseID(%q) = %q, %q", tc.id, p, m)
		}
	}
}

func TestValidate(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, tc := range []struct {
		name string
		vecs [][]float32
		dim  int
		want error
	}{
		{"ok", [][]float32{{1, 0}, nil, {0, 1}}, 2, nil},
		{"ok first sets dim", [][]float32{nil, {1, 0, 0}, {0, 1, 0}}, 0, nil},
		{"NaN", [][]float32{{1, 0}, {nan, 0}}, 2, ErrBadVector},
		{"Inf", [][]float32{{inf, 0}}, 0, ErrBadVector},
		{"empty vector", [][]float32{{}}, 0, ErrBadVector},
		{"index 768 vs model 1024", [][]float32{make([]float32, 1024)}, 768, ErrDimMismatch},
		{"within batch", [][]float32{{1, 0}, {1, 0, 0}}, 0, ErrDimMismatch},
		{"longest", [][]float32{make([]float32, MaxDim)}, 0, nil},
		{"too long", [][]float32{make([]float32, MaxDim+1)}, 0, ErrBadVector},
	} {
		err := Validate(tc.vecs, tc.dim)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	err := Validate([][]float32{make([]float32, 1024)}, 768)
	if err == nil || !strings.Contains(err.Error(), "got 1024 dimensions, want 768") {
		t.Errorf("message: %v", err)
	}
}

func TestIsBlank(t *testing.T) {
	for s, want := range map[string]bool{"": true, " \t\r\n": true, "\u3000\u00a0": true, " x ": false, "中": false} {
		if IsBlank(s) != want {
			t.Errorf("IsBlank(%q) != %v", s, want)
		}
	}
}

func TestBatch(t *testing.T) {
	ctx := context.Background()
	var calls [][]string
	echo := func(_ context.Context, texts []string) ([][]float32, error) {
		calls = append(calls, texts)
		out := make([][]float32, len(texts))
		for i, s := range texts {
			out[i] = []float32{float32(len(s)), 1}
		}
		return out, nil
	}
	in := []string{"aa", "", "bbbb", "  ", "c"}
	got, err := Batch(ctx, in, 2, "p:", nil, echo)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"p:aa", "p:bbbb"}, {"p:c"}}; fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("requests %q, want %q", calls, want)
	}
	if got[1] != nil || got[3] != nil || got[0] == nil || got[2] == nil || got[4] == nil {
		t.Errorf("slots %v", got)
	}
	n := vec.Normalize([]float32{6, 1})
	if !slices.Equal(got[2], n) {
		t.Errorf("slot 2 = %v, want normalised %v", got[2], n)
	}
	// The prefix counts toward the rune limit.
	calls = nil
	if _, err := Batch(ctx, []string{strings.Repeat("é", 3000)}, 0, "search_document: ", nil, echo); err != nil {
		t.Fatal(err)
	}
	if r := utf8.RuneCountInString(calls[0][0]); r != MaxInputRunes || !strings.HasPrefix(calls[0][0], "search_document: é") {
		t.Errorf("sent %d runes", r)
	}

	zero := func(context.Context, []string) ([][]float32, error) { return nil, nil }
	if _, err := Batch(ctx, []string{"x"}, 32, "", nil, zero); !errors.Is(err, ErrCountMismatch) {
		t.Errorf("200 with zero vectors: %v, want ErrCountMismatch", err)
	}
	null := func(_ context.Context, t []string) ([][]float32, error) { return make([][]float32, len(t)), nil }
	if _, err := Batch(ctx, []string{"x"}, 32, "", nil, null); !errors.Is(err, ErrBadVector) {
		t.Errorf("null vector: %v, want ErrBadVector", err)
	}
	var dl DimLock
	dims := 2
	grow := func(_ context.Context, t []string) ([][]float32, error) {
		out := make([][]float32, len(t))
		for i := range out {
			out[i] = make([]float32, dims)
			out[i][0] = 1
		}
		return out, nil
	}
	if _, err := Batch(ctx, []string{"x"}, 32, "", &dl, grow); err != nil || dl.Dim() != 2 {
		t.Fatalf("first call: %v, dim %d", err, dl.Dim())
	}
	dims = 3
	if _, err := Batch(ctx, []string{"x"}, 32, "", &dl, grow); !errors.Is(err, ErrDimMismatch) {
		t.Errorf("dimension changed between calls: %v, want ErrDimMismatch", err)
	}
	fail := func(context.Context, []string) ([][]float32, error) { return nil, errors.New("boom") }
	var pe *PartialError
	if _, err := Batch(ctx, []string{"", "x"}, 32, "", nil, fail); !errors.As(err, &pe) || len(pe.Failed) != 1 || pe.Failed[1] == nil || err.Error() != "boom" {
		t.Errorf("one input failing: %v, want a PartialError for input 1", err)
	}
	stop := func(context.Context, []string) ([][]float32, error) {
		return nil, NewStatusError(401, "HTTP 401: bad key")
	}
	if _, err := Batch(ctx, []string{"", "x", "y"}, 32, "", nil, stop); !Fatal(err) || !strings.Contains(err.Error(), "embed batch 0 (inputs 1-2): embedding request failed: HTTP 401") {
		t.Errorf("error wrapping: %v", err)
	}
}

// poisonSend answers like a server that fails a whole request with 500 as
// soon as one text in it holds "NaN-maker" (as Ollama does when the model
// yields NaN: {"error":"failed to encode response: json: unsupported value:
// NaN"}), and with OpenAI's 400 for any text over limit runes.
func poisonSend(calls *[][]string, limit int) SendFunc {
	return func(_ context.Context, texts []string) ([][]float32, error) {
		*calls = append(*calls, texts)
		out := make([][]float32, len(texts))
		for i, s := range texts {
			if strings.Contains(s, "NaN-maker") {
				return nil, NewStatusError(500, "ollama /api/embed: HTTP 500: failed to encode response: json: unsupported value: NaN")
			}
			if utf8.RuneCountInString(s) > limit {
				return nil, NewStatusError(400, "openai: HTTP 400: This model's maximum context length is 8192 tokens, however you requested 9000 tokens (9000 in your prompt; 0 for the completion). Please reduce your prompt; or completion length.")
			}
			out[i] = []float32{float32(len(s)), 1}
		}
		return out, nil
	}
}

// TestBatchSplitsDownToTheBadInput: one input that makes the server answer
// 500 fails alone; the 31 others of its request are embedded, not lost
// with the whole call.
func TestBatchSplitsDownToTheBadInput(t *testing.T) {
	var calls [][]string
	in := make([]string, 40)
	for i := range in {
		in[i] = fmt.Sprintf("text %d", i)
	}
	in[13] = "a NaN-maker text"
	got, err := Batch(context.Background(), in, 32, "", nil, poisonSend(&calls, 1000))
	var pe *PartialError
	if !errors.As(err, &pe) || len(pe.Failed) != 1 || pe.Failed[13] == nil || Fatal(err) {
		t.Fatalf("err = %v, want a PartialError for input 13 only", err)
	}
	if !strings.Contains(pe.Failed[13].Error(), "HTTP 500") {
		t.Errorf("reason %v", pe.Failed[13])
	}
	for i, v := range got {
		if (v == nil) != (i == 13) {
			t.Errorf("slot %d = %v", i, v)
		}
	}
	// 1 + 2*log2(32) requests for the first 32, 1 for the last 8
	if len(calls) != 1+2*5+1 {
		t.Errorf("%d requests, want 12", len(calls))
	}
}

// TestBatchEveryInputFailingStops: a server failing every input alone is
// down, not fed a bad input: ErrServerFailing, which stops a run.
func TestBatchEveryInputFailingStops(t *testing.T) {
	var calls [][]string
	in := []string{"NaN-maker 1", "NaN-maker 2", "NaN-maker 3", "NaN-maker 4", "ok"}
	_, err := Batch(context.Background(), in, 4, "", nil, poisonSend(&calls, 1000))
	if !errors.Is(err, ErrServerFailing) || !Fatal(err) {
		t.Fatalf("err = %v, want ErrServerFailing", err)
	}
	if len(calls) != 7 {
		t.Errorf("%d requests, want 7 (the first request split to its 4 inputs)", len(calls))
	}
}

// TestBatchRateLimitStops: a 429 that outlasted the retries is the
// server's answer to the client: the batch is not split (each half would
// wait out its own retries), the call stops at once.
func TestBatchRateLimitStops(t *testing.T) {
	t.Parallel()
	sends := 0
	send := func(ctx context.Context, texts []string) ([][]float32, error) {
		sends++
		return nil, NewStatusError(http.StatusTooManyRequests, "HTTP 429: slow down")
	}
	in := make([]string, 32)
	for i := range in {
		in[i] = fmt.Sprintf("text %d", i)
	}
	_, err := Batch(context.Background(), in, 32, "", nil, send)
	if err == nil || !Stop(err) || !Fatal(err) {
		t.Fatalf("err = %v, want an error that stops the run", err)
	}
	if sends != 1 {
		t.Errorf("%d requests, want 1 (not split down to the inputs)", sends)
	}
}

// TestBatchCutsTooLongInput: an input the server calls too long is sent
// again cut in half until it fits.
func TestBatchCutsTooLongInput(t *testing.T) {
	var calls [][]string
	in := []string{"short", strings.Repeat("x", 1900), "also short"}
	got, err := Batch(context.Background(), in, 32, "", nil, poisonSend(&calls, 500))
	if err != nil {
		t.Fatalf("err = %v", err)
	}
	for i, v := range got {
		if v == nil {
			t.Errorf("slot %d empty", i)
		}
	}
	var sizes []int // runes of each request of the long input alone
	for _, c := range calls {
		if len(c) == 1 && strings.HasPrefix(c[0], "xx") {
			sizes = append(sizes, utf8.RuneCountInString(c[0]))
		}
	}
	if fmt.Sprint(sizes) != "[1900 950 475]" {
		t.Errorf("the long input was sent alone at %v runes, want [1900 950 475]", sizes)
	}
}

func TestServerMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":"model \"nomic-embed-text\" not found, try pulling it first"}`:                                                  `model "nomic-embed-text" not found, try pulling it first`,
		`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`: "Incorrect API key provided (type invalid_request_error, code invalid_api_key)",
		`{"error":{"code":"1211","message":"模型不存在"}}`:                                                                             "模型不存在 (code 1211)",
		`{"detail":"Not authenticated"}`:                                                                                          "Not authenticated",
		`{"message":"Forbidden"}`:                                                                                                 "Forbidden",
		"404 page not found\n":                                                                                                    "404 page not found",
		"<!DOCTYPE html><html><body>nope</body></html>":                                                                           "the server sent an HTML page, not an embeddings API answer (is the base URL right?)",
		"": "",
	} {
		if got := ServerMessage([]byte(body)); got != want {
			t.Errorf("ServerMessage(%q) = %q, want %q", body, got, want)
		}
	}
}

func TestDecodeJSON(t *testing.T) {
	var out struct{ V [][]float32 }
	if err := DecodeJSON([]byte(`{"V":[[0.1,NaN]]}`), &out); !errors.Is(err, ErrBadVector) {
		t.Errorf("NaN: %v", err)
	}
	if err := DecodeJSON([]byte(`{"V":[[1e39]]}`), &out); !errors.Is(err, ErrBadVector) {
		t.Errorf("float32 overflow: %v", err)
	}
	if err := DecodeJSON([]byte(`<html>`), &out); err == nil || errors.Is(err, ErrBadVector) {
		t.Errorf("HTML: %v", err)
	}
}

func TestPostJSON(t *testing.T) {
	ctx := context.Background()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch k := n.Add(1); {
		case r.URL.Path == "/always500":
			w.WriteHeader(500)
		case k == 1:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(429)
		case k == 2:
			w.WriteHeader(503)
		default:
			fmt.Fprint(w, `{"ok":true}`)
		}
	}))
	defer srv.Close()
	r := Retry{MaxTries: 5, Base: time.Millisecond, On: func(s int) bool { return s == 429 || s >= 500 }}
	resp, err := PostJSON(ctx, srv.Client(), srv.URL+"/x", nil, map[string]int{"a": 1}, r)
	if err != nil || resp.Status != 200 || resp.Tries != 3 || string(resp.Body) != `{"ok":true}` {
		t.Fatalf("429, 503, 200: %+v, %v", resp, err)
	}
	n.Store(10)
	resp, err = PostJSON(ctx, srv.Client(), srv.URL+"/always500", nil, nil, r)
	if err != nil || resp.Status != 500 || resp.Tries != 5 {
		t.Errorf("exhausted: %+v, %v", resp, err)
	}
	// Without retries: the first 5xx (or 429) is the answer.
	n.Store(10)
	resp, err = PostJSON(WithoutRetry(ctx), srv.Client(), srv.URL+"/always500", nil, nil, r)
	if err != nil || resp.Status != 500 || resp.Tries != 1 || n.Load() != 11 {
		t.Errorf("without retry: %+v, %v, %d requests", resp, err, n.Load()-10)
	}
	// Canceled while waiting to retry.
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	slow := r
	slow.Base = time.Hour
	slow.MaxDelay = time.Hour
	if _, err := PostJSON(cctx, srv.Client(), srv.URL+"/always500", nil, nil, slow); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("canceled backoff: %v", err)
	}
	// Nothing listening.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	if _, err := PostJSON(ctx, nil, "http://"+addr+"/api/embed", nil, nil, r); !errors.Is(err, ErrUnreachable) {
		t.Errorf("connection refused: %v, want ErrUnreachable", err)
	}
}

func TestRetryWait(t *testing.T) {
	r := Retry{Base: 100 * time.Millisecond, MaxDelay: time.Second}
	for try, lo := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 10: time.Second} {
		d := r.wait(try, http.Header{}, time.Now())
		if d < lo || d > min(lo*6/5+time.Millisecond, time.Second) {
			t.Errorf("try %d: wait %v, want about %v", try, d, lo)
		}
	}
	if d := r.wait(1, http.Header{"Retry-After": {"60"}}, time.Now()); d != time.Second {
		t.Errorf("Retry-After capped: %v", d)
	}
	// before: 9227000000000 ms overflowed time.Duration into a negative
	// wait, and the client retried with no pause at all
	for _, h := range []http.Header{{"Retry-After-Ms": {"9227000000000"}}, {"Retry-After": {"9227000000000"}}, {"Retry-After": {"Inf"}}} {
		if d := r.wait(1, h, time.Now()); d != time.Second {
			t.Errorf("%v: wait %v, want the 1s cap", h, d)
		}
	}
}

// A server that sends its headers and then trickles the body is cut off
// bodyTimeout after the headers, with ErrTimeout (which stops an index
// run), not waited on for as long as it trickles. Not parallel: it sets
// bodyTimeout.
func TestPostJSONBodyDeadline(t *testing.T) {
	defer func(d time.Duration) { bodyTimeout = d }(bodyTimeout)
	bodyTimeout = 200 * time.Millisecond
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		for i := 0; i < 100; i++ { // 10 s of one byte every 100 ms
			fmt.Fprint(w, " ")
			w.(http.Flusher).Flush()
			select {
			case <-done:
				return
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	defer close(done)
	_, err := PostJSON(context.Background(), srv.Client(), srv.URL+"/x", nil, map[string]int{"a": 1}, Retry{})
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "body") {
		t.Fatalf("trickled body: %v, want ErrTimeout about the body", err)
	}
	if !Stop(err) {
		t.Errorf("a trickled body does not stop the run: %v", err)
	}
}

// A redirect is not followed: the request fails with ErrRedirected, which
// only a change of settings cures, and the other address gets nothing.
func TestPostJSONRefusesRedirects(t *testing.T) {
	t.Parallel()
	var got atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		fmt.Fprint(w, `{"ok":true}`)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/steal?key=x", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	_, err := PostJSON(context.Background(), NewHTTPClient(), srv.URL+"/v1/embeddings", nil, map[string]string{"input": "func secret() {}"}, Retry{MaxTries: 3, Base: time.Millisecond, On: func(int) bool { return true }})
	if !errors.Is(err, ErrRedirected) || !Misconfigured(err) || !Stop(err) {
		t.Fatalf("redirect: %v, want ErrRedirected (misconfigured)", err)
	}
	if strings.Contains(err.Error(), "key=x") || !strings.Contains(err.Error(), strings.TrimPrefix(other.URL, "http://")) {
		t.Errorf("message %q: want the target's address without its query", err)
	}
	if got.Load() != 0 {
		t.Errorf("the redirect's target got %d requests", got.Load())
	}
}
