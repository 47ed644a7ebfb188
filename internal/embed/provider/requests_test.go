package provider_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/embedtest"
	"github.com/coderag/coderag/internal/embed/provider"
)

// requestsPer1000 embeds 1,000 chunk-like texts through a fresh embedder of
// opts against srv and returns the HTTP requests it took.
func requestsPer1000(tb testing.TB, srv *embedtest.Server, opts embed.Options) int {
	e, err := provider.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	texts := make([]string, 1000)
	for i := range texts {
		texts[i] = fmt.Sprintf("[method:Handler%d.ServeHTTP(w, r)] func (h *Handler%d) ServeHTTP(w http.ResponseWriter, r *http.Request) {}", i, i)
	}
	before := srv.Requests()
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		tb.Fatal(err)
	}
	if len(vs) != 1000 || vs[999] == nil {
		tb.Fatalf("got %d vectors", len(vs))
	}
	return srv.Requests() - before
}

// TestRequestsPer1000 shows what batching saves: on Ollama each request
// costs far more than an item of a batch; here the request count per
// 1,000 chunks is exact.
func TestRequestsPer1000(t *testing.T) {
	ol := embedtest.NewOllama(t, 16)
	legacy := embedtest.NewOllama(t, 16)
	legacy.Legacy = true
	oa := embedtest.NewOpenAI(t, 16, "k")
	for _, tc := range []struct {
		name string
		srv  *embedtest.Server
		opts embed.Options
		want int
	}{
		{"ollama /api/embed, batch 32", ol.Server, embed.Options{Provider: "ollama", BaseURL: ol.URL}, 32},
		{"ollama /api/embed, batch 50", ol.Server, embed.Options{Provider: "ollama", BaseURL: ol.URL, BatchSize: 50}, 20},
		{"ollama legacy /api/embeddings", legacy.Server, embed.Options{Provider: "ollama", BaseURL: legacy.URL}, 1 + 1000}, // 1 probe of /api/embed
		{"openai, batch 32", oa.Server, embed.Options{Provider: "openai", BaseURL: oa.URL, APIKey: "k"}, 32},
	} {
		got := requestsPer1000(t, tc.srv, tc.opts)
		if got != tc.want {
			t.Errorf("%s: %d requests per 1,000 chunks, want %d", tc.name, got, tc.want)
		}
		t.Logf("%-32s %5d requests / 1,000 chunks (%.2fx fewer than one at a time)", tc.name, got, 1000/float64(got))
	}
}

// BenchmarkRequestsPer1000 reports requests per 1,000 chunks and the wall
// time per chunk against the local fakes (which measures client overhead,
// not model time).
func BenchmarkRequestsPer1000(b *testing.B) {
	for _, legacy := range []bool{false, true} {
		name := "ollama-batch32"
		if legacy {
			name = "ollama-legacy"
		}
		b.Run(name, func(b *testing.B) {
			srv := embedtest.NewOllama(b, 768)
			srv.Legacy = legacy
			var req int
			for i := 0; i < b.N; i++ {
				req = requestsPer1000(b, srv.Server, embed.Options{Provider: "ollama", BaseURL: srv.URL})
			}
			b.ReportMetric(float64(req), "requests/1000chunks")
		})
	}
	b.Run("openai-batch32", func(b *testing.B) {
		srv := embedtest.NewOpenAI(b, 768, "")
		var req int
		for i := 0; i < b.N; i++ {
			req = requestsPer1000(b, srv.Server, embed.Options{Provider: "openai", BaseURL: srv.URL})
		}
		b.ReportMetric(float64(req), "requests/1000chunks")
	})
}
