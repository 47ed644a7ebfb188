package provider_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/embedtest"
	"github.com/coderag/coderag/internal/embed/local"
	"github.com/coderag/coderag/internal/embed/ollama"
	"github.com/coderag/coderag/internal/embed/openai"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/embed/static"
)

// TestContract runs the one contract suite over every provider, the remote
// ones against fakes of their real APIs.
func TestContract(t *testing.T) {
	for name, model := range map[string]string{"local": "", "local-learned": static.ModelName, "local-hashing": "hashing-768-v1"} {
		t.Run(name, func(t *testing.T) {
			embedtest.Run(t, embedtest.Subject{New: func(t *testing.T) embed.Embedder {
				e, err := provider.New(embed.Options{Model: model})
				if err != nil {
					t.Fatal(err)
				}
				return e
			}})
		})
	}
	for _, legacy := range []bool{false, true} {
		name := "ollama"
		if legacy {
			name = "ollama-legacy"
		}
		t.Run(name, func(t *testing.T) {
			srv := embedtest.NewOllama(t, 16)
			srv.Legacy = legacy
			batch := 32
			if legacy {
				batch = 1 // one text per request on the legacy endpoint
			}
			embedtest.Run(t, embedtest.Subject{Server: srv.Server, BatchSize: batch, New: func(t *testing.T) embed.Embedder {
				e, err := provider.New(embed.Options{Provider: "ollama", BaseURL: srv.URL})
				if err != nil {
					t.Fatal(err)
				}
				if legacy { // learn the fallback before requests are counted
					if _, err := e.Embed(context.Background(), []string{"warm up"}); err != nil {
						t.Fatal(err)
					}
					if !e.(*ollama.Client).Legacy() {
						t.Fatal("client did not fall back to /api/embeddings")
					}
				}
				return e
			}})
		})
	}
	for _, reorder := range []bool{false, true} {
		name := "openai"
		if reorder {
			name = "openai-reordered"
		}
		t.Run(name, func(t *testing.T) {
			srv := embedtest.NewOpenAI(t, 12, "sk-test")
			srv.Reorder = reorder
			embedtest.Run(t, embedtest.Subject{Server: srv.Server, BatchSize: 32, New: func(t *testing.T) embed.Embedder {
				e, err := provider.New(embed.Options{Provider: "openai", BaseURL: srv.URL, APIKey: "sk-test"})
				if err != nil {
					t.Fatal(err)
				}
				return e
			}})
		})
	}
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		opts   embed.Options
		wantID string
		typ    string
	}{
		{embed.Options{}, "local:" + static.ModelName, "*static.Embedder"},
		{embed.Options{Provider: "local", Model: static.ModelName}, "local:" + static.ModelName, "*static.Embedder"},
		{embed.Options{Provider: "local", Model: "hashing-768-v1"}, "local:hashing-768-v1", "*local.Embedder"},
		{embed.Options{Provider: "local", Model: "hashing-512-v1"}, "local:hashing-512-v1", "*local.Embedder"},
		{embed.Options{Provider: "ollama"}, "ollama:nomic-embed-text", "*ollama.Client"},
		{embed.Options{Provider: "ollama", Model: "mxbai-embed-large"}, "ollama:mxbai-embed-large", "*ollama.Client"},
		{embed.Options{Provider: "openai"}, "openai:text-embedding-3-small", "*openai.Client"},
		{embed.Options{Provider: "openai", Model: "embedding-3", BaseURL: "https://open.bigmodel.cn/api/paas/v4"}, "openai:embedding-3", "*openai.Client"},
	} {
		e, err := provider.New(tc.opts)
		if err != nil {
			t.Fatalf("%+v: %v", tc.opts, err)
		}
		if e.ID() != tc.wantID {
			t.Errorf("%+v: ID %q, want %q", tc.opts, e.ID(), tc.wantID)
		}
		var typ string
		switch e.(type) {
		case *local.Embedder:
			typ = "*local.Embedder"
		case *static.Embedder:
			typ = "*static.Embedder"
		case *ollama.Client:
			typ = "*ollama.Client"
		case *openai.Client:
			typ = "*openai.Client"
		}
		if typ != tc.typ {
			t.Errorf("%+v: type %s, want %s", tc.opts, typ, tc.typ)
		}
	}
	if _, err := provider.New(embed.Options{Provider: "cohere"}); err == nil {
		t.Error("unknown provider: no error")
	}
	if _, err := provider.New(embed.Options{Provider: "local", Model: "hashing-768-v0"}); !errors.Is(err, local.ErrBadModel) {
		t.Errorf("old local model: %v, want ErrBadModel", err)
	}
	// a learned model this build does not carry (an older or newer one)
	if _, err := provider.New(embed.Options{Provider: "local", Model: "coderag-code-v0"}); !errors.Is(err, local.ErrBadModel) ||
		!strings.Contains(err.Error(), "hashing-768-v1") {
		t.Errorf("unknown learned model: %v, want ErrBadModel naming both choices", err)
	}
}

func TestFromID(t *testing.T) {
	e, err := provider.FromID("local:hashing-256-v1", embed.Options{Provider: "ollama", BaseURL: "http://gpu:11434"})
	if err != nil || e.ID() != "local:hashing-256-v1" || e.Dim() != 256 {
		t.Fatalf("FromID local: %v, %v", e, err)
	}
	e, err = provider.FromID("ollama:bge-m3", embed.Options{Provider: "ollama", BaseURL: "http://gpu:11434"})
	if err != nil || e.ID() != "ollama:bge-m3" || !strings.Contains(embed.Describe(e), "http://gpu:11434") {
		t.Fatalf("FromID ollama keeps the configured base: %v, %v", embed.Describe(e), err)
	}
	e, err = provider.FromID("ollama:bge-m3", embed.Options{Provider: "openai", BaseURL: "https://api.x.ai"})
	if err != nil || !strings.Contains(embed.Describe(e), ollama.DefaultBaseURL) {
		t.Fatalf("FromID with another configured provider uses the default base: %v, %v", embed.Describe(e), err)
	}
}
