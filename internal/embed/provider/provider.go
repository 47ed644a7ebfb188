// Package provider builds the Embedder named by configuration. It is the
// only package importing every provider, so package embed never imports its
// own sub-packages.
package provider

import (
	"errors"
	"fmt"
	"strings"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/local"
	"github.com/coderag/coderag/internal/embed/ollama"
	"github.com/coderag/coderag/internal/embed/openai"
	"github.com/coderag/coderag/internal/embed/static"
)

// New returns the Embedder for opts.Provider ("local" or "", "ollama",
// "openai"; config has already mapped glm/zhipu/qwen to "openai"). Model,
// BaseURL, BatchSize and HTTPClient default per provider (see embed.Options).
//
// local: the model "" (the default) or the built-in model's name
// ("coderag-code-v6") is coderag's learned static code model (package
// static, embedded in the binary); "hashing-<dim>-v1" is the
// feature-hashing embedder (package local, local.DefaultDim), which alone
// uses Expand and Analyzer. The learned model is the default: as the
// index's embedder it ranks the function-level and Chinese sets better
// than hashing (docs/MODEL.md, "In the ranking"). Errors: an unknown
// provider, a malformed base URL, or another local model name
// (local.ErrBadModel, naming both choices). New does not contact any
// server.
func New(opts embed.Options) (embed.Embedder, error) {
	switch strings.ToLower(strings.TrimSpace(opts.Provider)) {
	case "", local.Provider:
		if strings.HasPrefix(opts.Model, "hashing-") {
			dim, err := local.ParseModel(opts.Model)
			if err != nil {
				return nil, err
			}
			return local.New(local.Options{Dim: dim, Expand: opts.Expand, Analyzer: opts.Analyzer})
		}
		e, err := static.New()
		if err != nil {
			return nil, err
		}
		if _, name := embed.ParseID(e.ID()); opts.Model != "" && opts.Model != name {
			return nil, fmt.Errorf("%w %q (this build has the learned model %q and the hashing embedder %q)",
				local.ErrBadModel, opts.Model, name, local.ModelName(local.DefaultDim))
		}
		return e, nil
	case ollama.Provider:
		return ollama.New(ollama.Options{BaseURL: opts.BaseURL, Model: opts.Model,
			BatchSize: opts.BatchSize, HTTPClient: opts.HTTPClient})
	case openai.Provider:
		return openai.New(openai.Options{BaseURL: opts.BaseURL, APIKey: opts.APIKey, Model: opts.Model,
			BatchSize: opts.BatchSize, HTTPClient: opts.HTTPClient})
	}
	return nil, fmt.Errorf("embedding provider %q: want local, ollama or openai", opts.Provider)
}

// ErrNotConfigured is matched (errors.Is) by FromID's error for a
// remote embedder whose server this configuration does not name.
var ErrNotConfigured = errors.New("its server is not configured")

// FromID rebuilds the embedder an index was built with from its stored ID
// ("ollama:nomic-embed-text"), so queries use the same model. Provider and
// model come from id; BaseURL and APIKey are taken from opts only when
// opts.Provider names the same provider (else the provider's defaults);
// BatchSize, HTTPClient, Expand and Analyzer always come from opts.
//
// An openai id when opts names another provider is ErrNotConfigured: the
// index does not record which server embedded it, and the default,
// api.openai.com, is on the internet, so a query would go out to a server
// nobody configured here (an index made against a private
// OpenAI-compatible server, searched without EMBEDDING_BASE_URL). Ollama's
// default is this machine.
func FromID(id string, opts embed.Options) (embed.Embedder, error) {
	p, m := embed.ParseID(id)
	if p == "" {
		return nil, fmt.Errorf("embedder id %q: want provider:model", id)
	}
	if !strings.EqualFold(strings.TrimSpace(opts.Provider), p) && !(opts.Provider == "" && p == local.Provider) {
		if strings.EqualFold(p, openai.Provider) {
			return nil, fmt.Errorf("embedder %q the index was built with: %w: set EMBEDDING_PROVIDER=openai, "+
				"EMBEDDING_BASE_URL and EMBEDDING_API_KEY as when it was indexed (queries are not sent to a server "+
				"that is not configured)", id, ErrNotConfigured)
		}
		opts.BaseURL, opts.APIKey = "", ""
	}
	opts.Provider, opts.Model = p, m
	e, err := New(opts)
	if err != nil {
		return nil, fmt.Errorf("embedder %q the index was built with: %w", id, err)
	}
	return e, nil
}
