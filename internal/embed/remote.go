package embed

import (
	"context"
	"errors"
	"fmt"

	"github.com/coderag/coderag/internal/httpx"
)

// Remote is the shell every embedder behind an HTTP server shares (package
// ollama, package openai): its id, its description, the batching of
// Embed and EmbedQuery through Batch with the provider's prefixes, the
// dimension lock, and the redaction of secrets from every error. A
// provider supplies only Send, the one request and its decoding. Build it
// with NewRemote; it is safe for concurrent use when Send is.
type Remote struct {
	cfg RemoteConfig
	dim DimLock
}

// RemoteConfig configures NewRemote.
type RemoteConfig struct {
	// Provider and Model make the id "provider:model".
	Provider, Model string
	// Source says where the vectors come from, for Describe: "Ollama at
	// http://localhost:11434", an endpoint URL; secrets already masked.
	Source string
	// BatchSize is the number of texts per Send; <= 0 means
	// DefaultBatchSize.
	BatchSize int
	// DocPrefix and QueryPrefix are prepended to every document and
	// query (task prefixes of retrieval models); "" for none.
	DocPrefix, QueryPrefix string
	// Redactor masks the secrets (an API key, a URL's password) in every
	// error returned; nil masks nothing.
	Redactor *httpx.Redactor
	// Send embeds one batch, already prefixed and truncated, and returns
	// one vector per text in order (Batch validates them). Errors are the
	// provider's, wrapping the sentinels of this package.
	Send func(ctx context.Context, texts []string) ([][]float32, error)
}

// NewRemote returns the Remote of cfg.
func NewRemote(cfg RemoteConfig) *Remote {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	return &Remote{cfg: cfg}
}

var _ Embedder = (*Remote)(nil)
var _ Describer = (*Remote)(nil)

// ID returns "provider:model".
func (r *Remote) ID() string { return r.cfg.Provider + ":" + r.cfg.Model }

// Model returns the model name sent to the server.
func (r *Remote) Model() string { return r.cfg.Model }

// Dim returns the dimension of the vectors seen so far, 0 before the first.
func (r *Remote) Dim() int { return r.dim.Dim() }

// Describe is the one-line description shown by `coderag stats`:
// "ollama:M: neural embeddings from Ollama at URL (768-d)".
func (r *Remote) Describe() string {
	d := "dimension known after the first call"
	if n := r.Dim(); n > 0 {
		d = fmt.Sprintf("%d-d", n)
	}
	return fmt.Sprintf("%s: neural embeddings from %s (%s)", r.ID(), r.cfg.Source, d)
}

// Embed embeds chunks with the document prefix; see Batch for order, nil
// slots, truncation and validation. Errors are Send's, ErrCountMismatch,
// ErrBadVector, ErrDimMismatch, a *PartialError, or the context's; none
// holds a secret the Redactor knows.
func (r *Remote) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	v, err := Batch(ctx, texts, r.cfg.BatchSize, r.cfg.DocPrefix, &r.dim, r.cfg.Send)
	var pe *PartialError
	if errors.As(err, &pe) {
		pe.Redact(r.redact)
	}
	return v, r.redact(err)
}

// EmbedQuery embeds one query with the query prefix; a blank query is
// ErrEmptyInput. Errors as Embed.
func (r *Remote) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if IsBlank(text) {
		return nil, ErrEmptyInput
	}
	v, err := Batch(ctx, []string{text}, 1, r.cfg.QueryPrefix, &r.dim, r.cfg.Send)
	if err != nil {
		return nil, r.redact(err)
	}
	return v[0], nil
}

// redact masks the Redactor's secrets in err (nil stays nil).
func (r *Remote) redact(err error) error {
	if r.cfg.Redactor == nil {
		return err
	}
	return r.cfg.Redactor.Error(err)
}
