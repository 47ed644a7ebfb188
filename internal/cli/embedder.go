package cli

import (
	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
)

// embedFlags are the embedding flags shared by index (and the REPL's /index).
type embedFlags struct {
	provider, model, baseURL string
	batch                    int
}

// embedOptions is the configured embedder with flags overriding the
// environment. A bad provider (flag or EMBEDDING_PROVIDER) is an error.
func (e *env) embedOptions(f embedFlags) (embed.Options, error) {
	if e.cfgErr != nil {
		return embed.Options{}, usageError{e.cfgErr.Error()}
	}
	ec := e.cfg.Embedding
	if f.provider != "" {
		ec.Provider = f.provider
	}
	if f.model != "" {
		ec.Model = f.model
	}
	if f.baseURL != "" {
		ec.BaseURL = f.baseURL
	}
	if f.batch > 0 {
		ec.BatchSize = f.batch
	}
	p, err := config.NormalizeProvider(ec.Provider)
	if err != nil {
		return embed.Options{}, err
	}
	return embed.Options{Provider: p, Model: ec.Model, BaseURL: ec.BaseURL, APIKey: ec.APIKey,
		BatchSize: ec.BatchSize, Expand: analyze.GlossaryExpand, Translate: analyze.TranslateHan}, nil
}

// newEmbedder builds the configured embedder, with flags overriding the
// environment.
func (e *env) newEmbedder(f embedFlags) (embed.Embedder, error) {
	o, err := e.embedOptions(f)
	if err != nil {
		return nil, err
	}
	return provider.New(o)
}

// embedding is the configured embedder's options as far as they can be
// read: a bad EMBEDDING_PROVIDER leaves the provider empty, so a query of
// an indexed project (whose stored id decides) still works.
func (e *env) embedding() embed.Options {
	ec := e.cfg.Embedding
	p, _ := config.NormalizeProvider(ec.Provider)
	return embed.Options{Provider: p, Model: ec.Model, BaseURL: ec.BaseURL, APIKey: ec.APIKey,
		BatchSize: ec.BatchSize, Expand: analyze.GlossaryExpand, Translate: analyze.TranslateHan}
}

// embeddingErr is why the configured embedder cannot be built, or nil.
func (e *env) embeddingErr() error {
	_, err := e.embedOptions(embedFlags{})
	return err
}

// mergeEmbedFlags merges the embedding flags given into the configuration
// (flags override the environment) and checks the result: a bad provider,
// flag or EMBEDDING_PROVIDER, is a usage error.
func (e *env) mergeEmbedFlags(f embedFlags) error {
	o, err := e.embedOptions(f)
	if err != nil {
		return err
	}
	e.cfg.Embedding.Provider, e.cfg.Embedding.Model, e.cfg.Embedding.BaseURL, e.cfg.Embedding.BatchSize = o.Provider, o.Model, o.BaseURL, o.BatchSize
	return nil
}
