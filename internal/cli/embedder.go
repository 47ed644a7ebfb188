package cli

import (
	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
)

// embedding is the configured embedder's options (the environment with
// the flags merged, config.Config.Embedding), the one conversion for the
// engine and every command. A bad EMBEDDING_PROVIDER leaves the provider
// empty, so a query of an indexed project (whose stored id decides) still
// works; embeddingErr says why it cannot build the configured one.
func (e *env) embedding() embed.Options {
	ec := e.cfg.Embedding
	p, _ := config.NormalizeProvider(ec.Provider)
	return embed.Options{Provider: p, Model: ec.Model, BaseURL: ec.BaseURL, APIKey: ec.APIKey,
		BatchSize: ec.BatchSize, Expand: analyze.GlossaryExpand, Analyzer: e.an}
}

// embeddingErr is why the configured embedder cannot be built (a bad
// variable, as a usage error), or nil.
func (e *env) embeddingErr() error {
	if e.cfgErr != nil {
		return usageError{e.cfgErr.Error()}
	}
	_, err := config.NormalizeProvider(e.cfg.Embedding.Provider)
	return err
}

// newEmbedder builds the configured embedder (flags merged), for the
// commands that check it before they start (mcp, serve, doctor).
func (e *env) newEmbedder() (embed.Embedder, error) {
	if err := e.embeddingErr(); err != nil {
		return nil, err
	}
	return provider.New(e.embedding())
}
