package cli

import (
	"fmt"

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

// newEmbedder builds the configured embedder, with flags overriding the
// environment.
func (e *env) newEmbedder(f embedFlags) (embed.Embedder, error) {
	if e.cfgErr != nil {
		return nil, usageError{e.cfgErr.Error()}
	}
	cfg := e.cfg
	ec := cfg.Embedding
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
		return nil, err
	}
	return provider.New(embed.Options{Provider: p, Model: ec.Model, BaseURL: ec.BaseURL, APIKey: ec.APIKey,
		BatchSize: ec.BatchSize, Expand: analyze.GlossaryExpand, Translate: analyze.TranslateHan})
}

// projectEmbedder rebuilds the embedder a project was indexed with (its
// stored id "provider:model"), taking URL and key from the environment.
// A query is always embedded by that embedder.
//
// The stored id decides, so a bad EMBEDDING_PROVIDER does not stop a query
// (e.cfgErr is for the commands that build the configured embedder).
func (e *env) projectEmbedder(id string) (embed.Embedder, error) {
	cfg := e.cfg
	p, m := embed.ParseID(id)
	ec := cfg.Embedding
	np, _ := config.NormalizeProvider(ec.Provider)
	if np != p { // the environment names another provider: its URL/key do not apply
		ec.BaseURL, ec.APIKey = "", ""
	}
	emb, err := provider.New(embed.Options{Provider: p, Model: m, BaseURL: ec.BaseURL, APIKey: ec.APIKey,
		BatchSize: ec.BatchSize, Expand: analyze.GlossaryExpand, Translate: analyze.TranslateHan})
	if err != nil {
		return nil, fmt.Errorf("this project was indexed with %s, which is unavailable: %w", id, err)
	}
	return emb, nil
}
